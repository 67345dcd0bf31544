"""Hybrid search on the embedded store: fusion, time filters, visibility, groups."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kgmem.errors import InvalidInputError
from kgmem.retrieve import index_pending, search
from kgmem.retrieve.fuse import mmr, rrf

from .conftest import at


def _ids(results, kind="episode"):
    return [r.id for r in results if r.kind == kind]


def test_rrf_sums_reciprocal_ranks_and_weights():
    fused = rrf({"a": ["x", "y"], "b": ["y", "z"]}, k=60)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["x"] == pytest.approx(1 / 61)
    assert max(fused, key=fused.get) == "y"
    assert rrf({"a": ["x"]}, {"a": 0.0}) == {}


def test_mmr_prefers_a_diverse_second_pick():
    import numpy as np

    v = {"a": np.array([1.0, 0.0]), "b": np.array([1.0, 0.0]), "c": np.array([0.0, 1.0])}
    assert mmr(["a", "b", "c"], {"a": 1.0, "b": 0.99, "c": 0.9}, v, 2, lam=0.5) == ["a", "c"]


def test_keyword_and_vector_fuse_to_rank_the_right_episode_first(mem):
    ref = "2023-05-08T10:00:00Z"
    mem.add_episode("We should plan the garden: tomatoes, basil and peppers.", ref, speaker="Ana")
    target = mem.add_episode(
        "My sister adopted a rescue greyhound named Pixel from the shelter.", ref, speaker="Ben"
    )
    mem.add_episode("The shelter downtown needs volunteers on Sundays.", ref, speaker="Ana")
    mem.add_episode("Pixel art is a fun hobby for retro game fans.", ref, speaker="Cy")
    res = search(mem, "Who adopted a greyhound from the shelter?", kinds=("episodes",))
    assert res[0].id == target.id
    assert res[0].parts.keyword is not None and res[0].parts.vector is not None
    assert res[0].kind == "episode" and res[0].speaker == "Ben"
    assert res[0].episode_ids == [target.id]
    assert res[0].score >= res[-1].score


def test_search_sees_its_own_writes_and_validates_input(mem):
    mem.add_episode("Kayaking on the lake at dawn", "2023-05-08T10:00:00Z")
    assert _ids(search(mem, "kayaking"))  # auto-indexed on search
    with pytest.raises(InvalidInputError):
        search(mem, "   ")
    with pytest.raises(InvalidInputError):
        search(mem, "x", limit=0)
    with pytest.raises(InvalidInputError):
        search(mem, "x", kinds=("nope",))
    # FTS syntax in user text is inert
    assert isinstance(search(mem, 'kayak* OR "lake" NEAR( AND -dawn'), list)


def _days(mem):
    eps = {}
    eps["may7"] = mem.add_episode("I baked sourdough bread this morning", "2023-05-07T09:00:00Z",
                                  speaker="Maya")
    eps["may8a"] = mem.add_episode("Let's talk about the pottery class", "2023-05-08T13:56:00Z",
                                   speaker="Maya")
    eps["may8b"] = mem.add_episode("The pottery glaze came out blue", "2023-05-08T14:01:00Z",
                                   speaker="Sam")
    eps["may9"] = mem.add_episode("Yesterday the pottery teacher was sick", "2023-05-09T10:00:00Z",
                                  speaker="Sam")
    eps["may20"] = mem.add_episode("More pottery: I bought a wheel", "2023-05-20T10:00:00Z",
                                   speaker="Maya")
    return eps


def test_a_day_named_in_the_query_restricts_episodes_to_that_day(mem):
    eps = _days(mem)
    res = search(mem, "What did we discuss on May 8th?", kinds=("episodes",),
                 reference_time="2023-10-22T11:00:00Z")
    got = _ids(res)
    # said on May 8 (first, in order), then "yesterday" said on May 9 (mentions May 8)
    assert got == [eps["may8a"].id, eps["may8b"].id, eps["may9"].id]
    assert all(r.time_window and r.time_window.hard for r in res)
    assert res[0].time_window.start == at("2023-05-08T00:00:00")
    assert res[0].parts.time == 1.0 and res[2].parts.time == 0.8


def test_a_day_in_a_content_query_is_a_hard_filter(mem):
    eps = _days(mem)
    res = search(mem, "what about the pottery glaze on May eighth", kinds=("episodes",),
                 reference_time="2023-10-22")
    got = _ids(res)
    assert got[0] == eps["may8b"].id
    assert eps["may20"].id not in got and eps["may7"].id not in got


def test_relative_days_resolve_against_the_asking_time(mem):
    eps = _days(mem)
    got = _ids(search(mem, "what did we talk about 2 days ago", kinds=("episodes",),
                      reference_time="2023-05-10T12:00:00Z"))
    assert got[:2] == [eps["may8a"].id, eps["may8b"].id]
    got = _ids(search(mem, "what did we talk about last Tuesday", kinds=("episodes",),
                      reference_time="2023-05-12T12:00:00Z"))  # a Friday; Tuesday = May 9
    assert got == [eps["may9"].id]


def test_a_broad_period_boosts_instead_of_filtering(mem):
    old = mem.add_episode("pottery wheel shopping", "2022-03-01T10:00:00Z")
    new = mem.add_episode("pottery wheel shopping again", "2023-06-01T10:00:00Z")
    res = search(mem, "pottery wheel shopping in 2022", kinds=("episodes",),
                 reference_time="2023-10-01")
    got = _ids(res)
    assert got[0] == old.id and new.id in got
    assert not res[0].time_window.hard
    assert res[0].parts.time == 1.0 and res[1].parts.time < 1.0


def test_sessions_named_in_the_query(mem):
    s = []
    for day in (1, 5, 9):
        s.append([mem.add_episode(f"session {day} turn {i} chat", f"2023-06-0{day}T10:0{i}:00Z")
                  for i in range(3)])
    first = search(mem, "what did we discuss in our first session?", kinds=("episodes",))
    assert _ids(first) == [e.id for e in s[0]]
    ago = search(mem, "what did we discuss 2 sessions ago?", kinds=("episodes",))
    assert _ids(ago) == [e.id for e in s[1]]
    span = search(mem, "what did we chat about over sessions 2 through 3", kinds=("episodes",))
    assert _ids(span) == [e.id for e in s[1] + s[2]]
    assert search(mem, "what did we discuss in our 7th session?", kinds=("episodes",)) == []


def test_facts_are_filtered_by_valid_at_and_known_at(mem, clock):
    mem.assert_fact("Maya", "LIVES_IN", "Boston", valid_at="2019-01")
    clock.set(at("2024-02-01T00:00:00"))
    denver = mem.assert_fact("Maya", "LIVES_IN", "Denver", valid_at="2023-03")
    now = search(mem, "where does Maya live", kinds=("facts",))
    assert [r.text for r in now] == ["Maya lives in Denver"]
    assert now[0].id == denver.fact_id and now[0].valid_at == at("2023-03-01T00:00:00")
    assert now[0].parts.graph is not None  # found via the entity named in the query
    past = search(mem, "where does Maya live", kinds=("facts",), valid_at="2020-06-01")
    assert [r.text for r in past] == ["Maya lives in Boston"]
    # as known before Denver was recorded, Boston was still current
    before = search(mem, "where does Maya live", kinds=("facts",), known_at="2024-01-15")
    assert [r.text for r in before] == ["Maya lives in Boston"]
    # a period in the query widens valid time to that period
    in2019 = search(mem, "where did Maya live in 2019", kinds=("facts",))
    assert [r.text for r in in2019] == ["Maya lives in Boston"]


def test_retracted_fact_disappears_now_but_not_as_known_before(mem, clock):
    f = mem.assert_fact("Leo", "WORKS_AT", "Initech")
    t_before = clock.t
    clock.set(at("2024-03-01T00:00:00"))
    mem.retract(f.fact_id)
    assert search(mem, "where does Leo work", kinds=("facts",)) == []
    old = search(mem, "where does Leo work", kinds=("facts",), known_at=t_before)
    assert [r.id for r in old] == [f.fact_id]


def test_episodes_are_visible_once_stored_and_said_by_valid_at(mem, clock):
    a = mem.add_episode("marathon training plan", "2023-01-01T00:00:00Z")
    k = clock.t
    clock.set(at("2024-05-01T00:00:00"))
    b = mem.add_episode("marathon finished!", "2023-06-01T00:00:00Z")
    assert set(_ids(search(mem, "marathon"))) == {a.id, b.id}
    assert _ids(search(mem, "marathon", known_at=k)) == [a.id]
    assert _ids(search(mem, "marathon", valid_at="2023-03-01")) == [a.id]


def test_entities_are_found_by_name_and_alias(mem):
    mem.assert_fact("Robert Paulson", "LIKES", "soap")
    mem.add_alias("Robert Paulson", "Bob")
    res = search(mem, "what does Bob like?", kinds=("entities", "facts"))
    kinds = {(r.kind, r.text) for r in res}
    assert ("entity", "Robert Paulson") in kinds
    assert ("fact", "Robert Paulson likes soap") in kinds


def test_groups_are_isolated(mem):
    mem.add_episode("secret recipe for chili", "2023-01-01T00:00:00Z", group="g1")
    mem.assert_fact("Chef", "LIKES", "chili", group="g1")
    assert search(mem, "chili recipe", group="g2") == []
    assert search(mem, "chili recipe", group="g1")


def test_diversity_returns_limit_results(mem):
    for i in range(6):
        mem.add_episode(f"tennis match number {i} was close", f"2023-01-0{i + 1}T00:00:00Z")
    mem.add_episode("tennis racket restrung", "2023-02-01T00:00:00Z")
    res = search(mem, "tennis", kinds=("episodes",), limit=3, diversity=0.5)
    assert len(res) == 3
    assert "tennis racket restrung" in [r.text for r in res]


def test_model_mismatch_is_an_error_and_reindex_fixes_it(mem):
    from kgmem.embed import HashingEmbedder
    from kgmem.retrieve import reindex

    mem.add_episode("violin lessons", "2023-01-01T00:00:00Z")
    index_pending(mem)
    other = HashingEmbedder(32)
    with pytest.raises(InvalidInputError):
        search(mem, "violin", embedder=other)
    reindex(mem, other)
    assert _ids(search(mem, "violin", embedder=other))


def test_a_day_nothing_was_said_on_boosts_instead_of_emptying_a_content_question(mem):
    eps = _days(mem)
    res = search(mem, "was the pottery teacher sick on June 3rd?",
                 kinds=("episodes",), reference_time="2023-10-22")
    assert eps["may9"].id in _ids(res)  # before: nothing at all
    assert res[0].time_window is not None and not res[0].time_window.hard
    assert res[0].time_window.start == at("2023-06-03T00:00:00")
    assert all(r.parts.time is not None and r.parts.time < 1.0 for r in res)
    # a question about nothing but that day has nothing to rank: it stays empty
    assert search(mem, "What did we discuss on June 3rd?", kinds=("episodes",),
                  reference_time="2023-10-22") == []
    # a day something was said on still filters hard
    res = search(mem, "was the pottery teacher sick on May 9th?",
                 kinds=("episodes",), reference_time="2023-10-22")
    assert _ids(res) == [eps["may9"].id] and res[0].time_window.hard


def test_episodes_gone_between_ranking_and_reading_are_skipped_and_the_answer_still_filled(
    mem, monkeypatch
):
    """Search reads episode texts in rank order only as far as the answer needs; an episode
    erased in between is skipped and the next ones fill the answer."""
    from kgmem.retrieve.backend import get_backend

    for i in range(30):
        mem.add_episode(f"pottery wheel note number {i}",
                        at("2023-05-01T10:00:00") + timedelta(minutes=i))
    index_pending(mem)
    full = _ids(search(mem, "pottery wheel note", kinds=("episodes",), limit=8))
    assert len(full) == 8
    be = get_backend(mem)
    real = be.episodes_by_ids
    gone = set(full[:3])
    reads: list[int] = []

    def reading(group, ids):  # type: ignore[no-untyped-def]
        reads.append(len(ids))
        return {k: v for k, v in real(group, ids).items() if k not in gone}

    monkeypatch.setattr(be, "episodes_by_ids", reading)
    got = _ids(search(mem, "pottery wheel note", kinds=("episodes",), limit=8))
    assert got[:5] == full[3:] and len(got) == 8 and not gone & set(got)
    assert sum(reads) < 24  # not the whole pool of limit x 3


def test_facts_of_a_day_come_before_facts_of_episodes_that_only_mention_it(mem):
    # "what did we discuss on May 8th": facts said that day rank before facts from a later
    # episode that mentions the day; in the store's order one of those could come first
    # and lift its episode (said on May 9) above the day's own turns
    eps = _days(mem)
    for i in range(5):
        mem.assert_fact("Sam", "LIKES", f"glaze {i}", valid_at="2023-05-08",
                        episode=eps["may9"].id)
    for name in ("may8a", "may8b"):
        mem.assert_fact("Maya", "LIKES", f"pottery {name}", valid_at="2023-05-08",
                        episode=eps[name].id)
    res = search(mem, "What did we discuss on May 8th?", kinds=("episodes", "facts"),
                 reference_time="2023-10-22T11:00:00Z", limit=20)
    facts = [r for r in res if r.kind == "fact"]
    said_that_day = {eps["may8a"].id, eps["may8b"].id}
    order = [bool(said_that_day & set(r.episode_ids)) for r in facts]
    assert order == sorted(order, reverse=True) and order.count(True) == 2, order
    episodes = [r.id for r in res if r.kind == "episode"]
    assert episodes[:2] == [eps["may8a"].id, eps["may8b"].id]
