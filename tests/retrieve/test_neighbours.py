"""Conversation context in search: the turns said right before and after a matching episode
are lifted (``neighbours=``), on both stores."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kgmem.errors import InvalidInputError
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search
from kgmem.retrieve.backend import get_backend

from .conftest import at


def _chat(m: Memory, group: str) -> dict[str, str]:
    """Two sessions a week apart; turns a minute apart; one turn of another group."""
    lines = [
        ("2023-05-08T10:00:00", "Ana", "Good morning! How was your weekend?"),
        ("2023-05-08T10:01:00", "Ben", "Great. What are the names of your two cats?"),
        ("2023-05-08T10:02:00", "Ana", "Luna and Oliver, both very playful."),
        ("2023-05-08T10:03:00", "Ben", "Lovely. I have to go now."),
        ("2023-05-15T09:00:00", "Ana", "Back from the trip to Lisbon."),
        ("2023-05-15T09:01:00", "Ben", "Tell me everything about Lisbon!"),
    ]
    ids = {}
    for when, who, text in lines:
        ids[text.split()[0]] = m.add_episode(text, at(when), speaker=who, group=group).id
    m.add_episode("Unrelated group chatter about cats", at("2023-05-08T10:01:30"),
                  speaker="Zed", group=group + "-other")
    index_pending(m)
    return ids


def test_episode_neighbours_are_the_adjacent_turns_of_the_same_session(smem):
    m, g = smem
    ids = _chat(m, g)
    be = get_backend(m)
    gap = timedelta(minutes=30)
    now = m.now()
    got = be.episode_neighbours(g, [ids["Great."], ids["Good"], ids["Lovely."], ids["Back"]],
                                gap, now, None)
    assert got[ids["Great."]] == (ids["Good"], ids["Luna"])
    assert got[ids["Good"]] == (None, ids["Great."])
    # a week later is another session: no neighbour across the gap, in either direction
    assert got[ids["Lovely."]] == (ids["Luna"], None)
    assert got[ids["Back"]] == (None, ids["Tell"])
    # what was said after ref_max is not visible
    got = be.episode_neighbours(g, [ids["Great."]], gap, now, at("2023-05-08T10:01:30"))
    assert got[ids["Great."]] == (ids["Good"], None)


def test_the_answer_next_to_the_matching_question_is_lifted(smem):
    m, g = smem
    ids = _chat(m, g)
    q = "What are the names of the cats?"
    plain = {r.id: r.score for r in search(m, q, kinds=("episodes",), group=g,
                                           neighbours=0.0, limit=6)}
    lifted = search(m, q, kinds=("episodes",), group=g, neighbours=0.6, limit=6)
    # the answer shares no word with the question: only the turn before it matches well
    assert max(plain, key=plain.__getitem__) == ids["Great."]
    top3 = [r.id for r in lifted[:3]]  # the question, the answer after it, the turn before
    assert set(top3) == {ids["Great."], ids["Luna"], ids["Good"]}
    luna = next(r for r in lifted if r.id == ids["Luna"])
    assert luna.parts.context == pytest.approx(plain[ids["Great."]])
    assert luna.score == pytest.approx(plain.get(ids["Luna"], 0.0) + 0.6 * plain[ids["Great."]])
    # nothing from another group, nothing across the session gap
    assert ids["Back"] not in top3


def test_neighbours_and_rrf_k_are_validated(smem):
    m, g = smem
    m.add_episode("hello there", at("2023-05-08T10:00:00"), group=g)
    with pytest.raises(InvalidInputError):
        search(m, "hello", group=g, neighbours=1.5)
    with pytest.raises(InvalidInputError):
        search(m, "hello", group=g, rrf_k=-1)


def test_neighbours_read_per_range_equal_the_episode_by_episode_reads(tmp_path, monkeypatch):
    """The embedded store reads a session's neighbours in one range; a crowded range falls
    back to one statement per episode. Both give the same answer, also for same-instant turns
    (ordered by creation, then id), a week's gap and an episode stored after known_at."""
    import kgmem.store.sqlite.search as sq
    from kgmem.embed import HashingEmbedder

    from .conftest import StepClock

    clock = StepClock()
    m = Memory(tmp_path / "s", clock=clock, extractor=None)
    m.embedder = HashingEmbedder(32)  # type: ignore[attr-defined]
    try:
        ids = list(_chat(m, "default").values())
        ids += [m.add_episode(f"same instant {i}", at("2023-05-08T10:02:00"), speaker="Cy").id
                for i in range(3)]
        cutoff = m.now()
        ids.append(m.add_episode("later, stored after known_at", at("2023-05-08T10:02:30"),
                                 speaker="Cy").id)
        be = get_backend(m)
        gap = timedelta(minutes=30)
        for known in (m.now(), cutoff):
            for ref_max in (None, at("2023-05-08T10:02:00")):
                ranged = be.episode_neighbours("default", ids, gap, known, ref_max)
                monkeypatch.setattr(sq, "NEIGHBOUR_RANGE_ROWS", 0)
                single = be.episode_neighbours("default", ids, gap, known, ref_max)
                monkeypatch.undo()
                assert ranged == single and len(ranged) == len(ids)
    finally:
        m.close()
