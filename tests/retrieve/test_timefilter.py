"""Times mentioned in queries, resolved against the asking time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kgmem.retrieve.timefilter import (
    EVENT_MENTION_LAG,
    SessionRef,
    event_reading,
    parse_query_time,
    session_window,
)
from kgmem.timeutil import Precision, to_micros

from .conftest import at

ASK = at("2023-10-22T11:17:51")  # a Sunday


@pytest.mark.parametrize(
    "query, start, end, hard",
    [
        ("What did we chat about on May 8th?", "2023-05-08", "2023-05-09", True),
        ("What was talked about on May eighth?", "2023-05-08", "2023-05-09", True),
        ("What did we discuss on 8 May, 2023?", "2023-05-08", "2023-05-09", True),
        ("between May 8th and June 9th?", "2023-05-08", "2023-06-10", True),
        ("from May 8th to June 9th", "2023-05-08", "2023-06-10", True),
        ("What was talked about May eighth through June ninth?", "2023-05-08", "2023-06-10",
         True),
        ("What did we discuss last Friday?", "2023-10-20", "2023-10-21", True),
        ("what did we discuss yesterday", "2023-10-21", "2023-10-22", True),
        ("over the last 3 days", "2023-10-19", None, True),
        ("over this last week", "2023-10-15", None, True),
        ("earlier today", "2023-10-22", None, True),
        ("What did we discuss in May?", "2023-05-01", "2023-06-01", False),
        ("What type of group did Caroline join in July 2023?", "2023-07-01", "2023-08-01",
         False),
        ("What did we discuss 5 months ago?", "2023-05-01", "2023-06-01", False),
        ("what happened in 2022", "2022-01-01", "2023-01-01", False),
    ],
)
def test_windows(query, start, end, hard):
    qt = parse_query_time(query, ASK).time
    assert qt is not None
    assert qt.start == at(start)
    if end is None:  # rolling windows end at the asking moment
        assert qt.end is not None and qt.end > ASK and qt.end - ASK < timedelta(seconds=1)
    else:
        assert qt.end == at(end)
    assert qt.hard is hard


def test_n_days_ago_is_loose_with_the_calendar_day_as_core():
    qt = parse_query_time("What did we discuss 167 days ago?", ASK).time
    assert qt.core == (at("2023-05-08"), at("2023-05-09"))
    assert qt.start == ASK - timedelta(days=168) and qt.end == at("2023-05-09")
    assert qt.precision is Precision.DAY and qt.hard


def test_weekday_falls_back_to_earlier_weeks():
    qt = parse_query_time("what did we discuss last Saturday", at("2022-07-18T13:56:00")).time
    assert qt.window == (at("2022-07-16"), at("2022-07-17"))
    assert qt.alternatives[0] == (at("2022-07-09"), at("2022-07-10"))


@pytest.mark.parametrize(
    "query, ref",
    [
        ("What did we discuss in our first session?", SessionRef("", 1, 1)),
        ("What did we talk about in our 2nd discussion?", SessionRef("", 2, 2)),
        ("What did we discuss 20 sessions ago?", SessionRef("", ago=20)),
        ("What did we talk one session ago?", SessionRef("", ago=1)),
        ("What did we discuss the session before last?", SessionRef("", ago=2)),
        ("not the last discussion, but the one before that", SessionRef("", ago=2)),
        ("What did we talk about last discussion?", SessionRef("", ago=1)),
        ("over sessions 1 through 3", SessionRef("", 1, 3)),
        ("from the first through third sessions", SessionRef("", 1, 3)),
    ],
)
def test_sessions(query, ref):
    qt = parse_query_time(query, ASK).time
    assert qt is not None and qt.session is not None and qt.hard
    s = qt.session
    assert (s.first, s.last, s.ago) == (ref.first, ref.last, ref.ago)


def test_session_window_splits_on_gaps():
    t = [to_micros(at(x)) for x in ("2023-01-01T10:00", "2023-01-01T10:05", "2023-01-01T11:00",
                                    "2023-01-03T09:00")]
    gap = timedelta(minutes=30)
    assert session_window(SessionRef("", 2, 2), t, gap) == (
        at("2023-01-01T11:00"), at("2023-01-01T11:00") + timedelta(microseconds=1))
    assert session_window(SessionRef("", ago=1), t, gap)[0] == at("2023-01-03T09:00")
    assert session_window(SessionRef("", 4, 4), t, gap) is None
    assert session_window(SessionRef("", 1, 9), t, gap)[1] > at("2023-01-03T09:00")


@pytest.mark.parametrize("query", ["Where does Maya live?", "May I ask what Ann likes?",
                                   "What did Caroline research?", "2 + 2", ""])
def test_no_time(query):
    assert parse_query_time(query, ASK).time is None


def test_content_is_the_query_without_the_time():
    pq = parse_query_time("What activity did Melanie discuss on July 3rd?", ASK)
    assert pq.content == "What activity did Melanie discuss on"


ASKED = at("2023-10-01T12:00:00")


def test_an_event_day_also_admits_the_week_after_it_with_the_day_itself_first():
    q = "What did Gina get accepted for on May 23, 2023?"
    qt = event_reading(q, parse_query_time(q, ASKED).time)
    assert qt is not None and qt.hard
    assert qt.window == (at("2023-05-23T00:00:00"), at("2023-05-24T00:00:00") + EVENT_MENTION_LAG)
    assert qt.core == (at("2023-05-23T00:00:00"), at("2023-05-24T00:00:00"))


@pytest.mark.parametrize("query", [
    "What did we discuss on May 23, 2023?",        # about the conversation: said that day
    "What did Ana say on May 23?",
    "What was mentioned on May 23rd?",
    "What did Gina do in May 2023?",               # month: a boost already, not a filter
    "What did we talk about in our last session?",  # a session reference
    "Where does Gina live?",                        # no time at all
])
def test_other_readings_are_unchanged(query):
    qt = parse_query_time(query, ASKED).time
    assert event_reading(query, qt) == qt


@pytest.mark.parametrize(
    "query, start, end, core",
    [
        # the weekend before a Monday, up to that Monday (said then)
        ("What did Maria do last weekend before April 10, 2023?", "2023-04-08", "2023-04-11",
         "2023-04-10"),
        # 2022-01-23 is a Sunday: the Friday before it
        ("What did we finish last Friday on 23 January, 2022?", "2022-01-21", "2022-01-24",
         "2022-01-23"),
        ("What was Tim's issue last week, as mentioned on November 6, 2023?", "2023-10-30",
         "2023-11-07", "2023-11-06"),
        ("What did we say yesterday, on 5 June 2022?", "2022-06-04", "2022-06-06", "2022-06-05"),
    ],
)
def test_a_relative_time_next_to_a_dated_day_is_read_from_that_day(query, start, end, core):
    qt = parse_query_time(query, ASK).time
    assert qt is not None and qt.hard and qt.precision is Precision.DAY
    assert (qt.start, qt.end) == (at(start), at(end))
    assert qt.core == (at(core), at(core) + timedelta(days=1))


def test_a_week_of_a_named_month_is_not_a_rolling_window():
    pq = parse_query_time("Where was Calvin in the last week of October 2023?", ASK)
    assert pq.time is not None and pq.time.hard
    assert (pq.time.start, pq.time.end) == (at("2023-10-25"), at("2023-11-01"))
    assert pq.content == "Where was Calvin in"
    # the rolling reading still holds without a month
    qt = parse_query_time("Where was Calvin during the last week?", ASK).time
    assert qt is not None and qt.start == at("2023-10-15")
