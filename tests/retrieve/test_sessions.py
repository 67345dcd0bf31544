"""Session search (kgmem.retrieve.search_sessions) on both stores: which sitting of a
conversation holds the answer, under the same time rules as search."""

from __future__ import annotations

import math

import pytest

from kgmem.errors import InvalidInputError
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search_sessions

from .conftest import at

# three sittings days apart; turns a minute apart
SESSIONS = [
    [("2023-05-08T10:00:00", "Ana", "Morning! I finally repaired the old bicycle."),
     ("2023-05-08T10:01:00", "Ben", "Nice. Did you ride it to the lake?"),
     ("2023-05-08T10:02:00", "Ana", "Not yet, the weather was bad.")],
    [("2023-05-12T18:00:00", "Ben", "I started a pottery class this week."),
     ("2023-05-12T18:01:00", "Ana", "Cool, what did you make?"),
     ("2023-05-12T18:02:00", "Ben", "A blue bowl, glazed on Thursday."),
     ("2023-05-12T18:03:00", "Ana", "My sister loves ceramics too.")],
    [("2023-05-20T09:00:00", "Ana", "We rode our bikes around the lake today."),
     ("2023-05-20T09:01:00", "Ben", "How far was it?"),
     ("2023-05-20T09:02:00", "Ana", "About twenty kilometres.")],
]


def _chat(m: Memory, group: str, upto: int = 3) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for turns in SESSIONS[:upto]:
        ids[turns[0][0]] = [m.add_episode(text, at(when), speaker=who, group=group).id
                            for when, who, text in turns]
    # another group says the same words in a sitting of its own: it must never count
    m.add_episode("pottery class blue bowl glazed ceramics", at("2023-05-10T12:00:00"),
                  group=group + "-other")
    index_pending(m)
    return ids


def test_the_sitting_that_holds_the_answer_comes_first(smem):
    m, g = smem
    ids = _chat(m, g)
    got = search_sessions(m, "What did Ben make in the pottery class, a bowl?", group=g)
    assert got, "no session found"
    top = got[0]
    pottery = ids["2023-05-12T18:00:00"]
    assert top.start == at("2023-05-12T18:00:00")
    assert top.end == at("2023-05-12T18:03:00")
    assert top.id == at("2023-05-12T18:00:00").isoformat()
    assert top.episodes == 4
    # the matching episodes are the session's own, best first
    assert top.episode_ids and set(top.episode_ids) <= set(pottery)
    assert top.parts.episodes_rank == 1 and top.parts.keyword_rank == 1
    # sessions are distinct and sorted by fused score
    assert len({s.id for s in got}) == len(got)
    assert [s.score for s in got] == sorted((s.score for s in got), reverse=True)
    # nothing from the other group: its sitting (2023-05-10) is no session of this group
    assert all(s.start != at("2023-05-10T12:00:00") for s in got)


def test_keyword_coverage_is_the_idf_of_each_word_said_in_the_session(smem):
    m, g = smem
    _chat(m, g)
    # "lake" is said in sittings 1 and 3, "kilometres" only in sitting 3 (stop words dropped)
    got = {s.start: s for s in search_sessions(m, "the lake kilometres", group=g)}
    n = 3

    def idf(df: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    third, first = got[at("2023-05-20T09:00:00")], got[at("2023-05-08T10:00:00")]
    assert third.parts.keyword == pytest.approx(idf(2) + idf(1))
    assert first.parts.keyword == pytest.approx(idf(2))
    assert third.parts.keyword_rank == 1 and first.parts.keyword_rank == 2
    pottery = got.get(at("2023-05-12T18:00:00"))
    assert pottery is None or pottery.parts.keyword is None


def test_sessions_follow_both_clocks(smem):
    m, g = smem
    _chat(m, g, upto=2)
    before_third = m.now()
    for when, who, text in SESSIONS[2]:
        m.add_episode(text, at(when), speaker=who, group=g)
    index_pending(m)
    q = "riding bikes around the lake"
    starts = lambda res: {s.start for s in res}  # noqa: E731
    assert at("2023-05-20T09:00:00") in starts(search_sessions(m, q, group=g))
    # not yet known at known_at: the third sitting does not exist
    assert at("2023-05-20T09:00:00") not in starts(search_sessions(m, q, group=g,
                                                                   known_at=before_third))
    # said after valid_at: not part of the world asked about
    assert at("2023-05-20T09:00:00") not in starts(
        search_sessions(m, q, group=g, valid_at="2023-05-15T00:00:00Z"))


def test_a_session_named_in_the_query_limits_the_answer(smem):
    m, g = smem
    _chat(m, g)
    got = search_sessions(m, "what about the lake in our last session?", group=g)
    assert [s.start for s in got] == [at("2023-05-20T09:00:00")]


def test_bad_input_is_refused(smem):
    m, g = smem
    _chat(m, g, upto=1)
    with pytest.raises(InvalidInputError):
        search_sessions(m, "   ", group=g)
    for bad in (0, 1001, True):
        with pytest.raises(InvalidInputError):
            search_sessions(m, "bicycle", group=g, limit=bad)
    assert search_sessions(m, "bicycle", group=g + "-empty") == []


def test_an_event_told_days_after_it_happened_is_found_by_its_date(smem):
    m, g = smem
    m.add_episode("Lunch was great today.", at("2023-05-23T12:00:00"), speaker="Gina", group=g)
    told = m.add_episode("I just got accepted for a fashion internship!",
                         at("2023-05-27T19:00:00"), speaker="Gina", group=g)
    m.add_episode("The fashion internship starts next month.", at("2023-06-20T19:00:00"),
                  speaker="Gina", group=g)
    index_pending(m)
    from kgmem.retrieve import search

    got = search(m, "What fashion internship did Gina get accepted for on May 23, 2023?",
                 group=g, kinds=("episodes",))
    assert told.id in [r.id for r in got]
    assert got[0].time_window is not None and got[0].time_window.hard
    # a month later is outside the event's week: still filtered out
    assert all(r.reference_time < at("2023-06-01T00:00:00") for r in got)
    # asked about the conversation, the date is the day it was said: only that day's turn
    said = search(m, "What did Gina say about the internship on May 23, 2023?", group=g,
                  kinds=("episodes",))
    assert told.id not in [r.id for r in said]
