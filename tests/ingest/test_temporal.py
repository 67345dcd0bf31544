"""Temporal expressions: resolution policy, precision, relations, finding spans in text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.extraction.temporal_cases import CASES, Case
from benchmarks.extraction.temporal_eval import expected_of, hit, ours
from kgmem.ingest.temporal import ResolvedTime, find_time_expressions, resolve_time
from kgmem.timeutil import Precision

UTC = timezone.utc
REF = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize("case", CASES, ids=[f"{c.expr}@{c.ref[:10]}" for c in CASES])
def test_case(case: Case) -> None:
    got = ours(case)
    assert hit(case, got), f"{case.expr!r}: expected {expected_of(case)}, got {got}"


def test_hit_rate_on_all_cases_is_total() -> None:
    assert sum(hit(c, ours(c)) for c in CASES) == len(CASES)


def test_in_2019_is_a_year_period() -> None:
    r = resolve_time("in 2019", REF)
    assert r == ResolvedTime(datetime(2019, 1, 1, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC),
                             Precision.YEAR, "in 2019")


def test_last_march_is_strictly_before_the_reference_month() -> None:
    assert resolve_time("last March", REF).start == datetime(2023, 3, 1, tzinfo=UTC)
    in_march = datetime(2023, 3, 20, tzinfo=UTC)
    assert resolve_time("last March", in_march).start == datetime(2022, 3, 1, tzinfo=UTC)
    assert resolve_time("last March", REF).precision is Precision.MONTH


def test_n_years_ago_has_year_precision() -> None:
    r = resolve_time("two years ago", REF)
    assert (r.start, r.end, r.precision) == (
        datetime(2021, 1, 1, tzinfo=UTC), datetime(2022, 1, 1, tzinfo=UTC), Precision.YEAR)


def test_since_is_open_ended() -> None:
    r = resolve_time("since 2018", REF)
    assert r.relation == "since" and r.end is None and r.start.year == 2018


def test_range_end_is_start_of_the_to_period() -> None:
    r = resolve_time("from 2018 to 2020", REF)
    assert r.relation == "range"
    assert r.end == datetime(2020, 1, 1, tzinfo=UTC) and r.end_precision is Precision.YEAR


def test_seasons() -> None:
    assert resolve_time("last summer", REF).start == datetime(2022, 6, 1, tzinfo=UTC)
    assert resolve_time("last summer", datetime(2023, 9, 15, tzinfo=UTC)).start.year == 2023
    assert resolve_time("last summer", datetime(2023, 7, 15, tzinfo=UTC)).start.year == 2022
    winter = resolve_time("last winter", REF)
    assert (winter.start, winter.end) == (datetime(2022, 12, 1, tzinfo=UTC),
                                          datetime(2023, 3, 1, tzinfo=UTC))


def test_prefer_future_for_ambiguous_expressions() -> None:
    assert resolve_time("in December", REF).start.year == 2022
    assert resolve_time("in December", REF, prefer="future").start.year == 2023
    assert resolve_time("next Friday", REF).start == datetime(2023, 5, 12, tzinfo=UTC)


def test_results_are_utc_aware_and_naive_reference_is_utc() -> None:
    naive = datetime(2023, 5, 8, 12, 0)
    a = resolve_time("yesterday", naive)
    b = resolve_time("yesterday", REF)
    assert a == b and a.start.tzinfo is not None and a.start.utcoffset().total_seconds() == 0
    # another zone: the reference is converted to UTC first
    from datetime import timedelta

    tokyo = timezone(timedelta(hours=9))
    r = resolve_time("today", datetime(2023, 5, 9, 2, 0, tzinfo=tokyo))  # = 2023-05-08 17:00 UTC
    assert r.start == datetime(2023, 5, 8, tzinfo=UTC)


@pytest.mark.parametrize("expr", ["recently", "a while ago", "every Sunday", "34 years old",
                                  "six years", "", "   ", "Boston", "these days", "for a while"])
def test_not_a_time(expr: str) -> None:
    assert resolve_time(expr, REF) is None


def test_find_time_expressions_regex_only() -> None:
    text = "I moved to Denver last March and started at Google since 2018, back in 2015."
    found = find_time_expressions(text, REF, nlp=False)
    spans = [(t, text[s:e]) for t, s, e, _ in found]
    assert all(t == piece for t, piece in spans)
    texts = [t.lower() for t, _s, _e, _r in found]
    assert "last march" in texts and "since 2018" in texts and "back in 2015" in texts


def test_find_time_expressions_with_spacy() -> None:
    text = "I've been living in Lisbon for six years, and I'm 34 years old. I may move in May."
    found = find_time_expressions(text, REF)
    by_text = {t.lower(): r for t, _s, _e, r in found}
    assert "for six years" in by_text and by_text["for six years"].relation == "since"
    assert by_text["for six years"].start.year == 2017
    assert not any("old" in t for t in by_text)
    modal = text.index("may move")
    assert all(s != modal for _t, s, _e, _r in found)  # the modal verb is not a month
    month = [r for _t, s, _e, r in found if s >= text.index("in May")]
    assert month and month[0].start == datetime(2023, 5, 1, tzinfo=UTC)
    for t, s, e, _r in found:
        assert text[s:e] == t


@pytest.mark.parametrize(
    "expr, start, end",
    [
        ("the last week of August 2023", "2023-08-25", "2023-09-01"),
        ("the last two weeks of August 2023", "2023-08-18", "2023-09-01"),
        ("the first week of April", "2023-04-01", "2023-04-08"),
        ("the 2nd week of April", "2023-04-08", "2023-04-15"),
        ("the last 3 days of March", "2023-03-29", "2023-04-01"),
        ("the final week of the month", "2023-05-25", "2023-06-01"),
    ],
)
def test_weeks_and_days_of_a_month_are_day_precise(expr: str, start: str, end: str) -> None:
    r = resolve_time(expr, REF)
    assert r is not None
    assert (r.start, r.end) == (datetime.fromisoformat(start).replace(tzinfo=UTC),
                                datetime.fromisoformat(end).replace(tzinfo=UTC))
    assert r.precision is Precision.DAY


def test_a_week_of_a_month_is_found_whole_in_text() -> None:
    found = find_time_expressions("Where was Dave in the last two weeks of August 2023?", REF,
                                  nlp=False)
    assert [f[0] for f in found] == ["the last two weeks of August 2023"]


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]


@given(
    year=st.integers(1990, 2030), month=st.integers(1, 12),
    which=st.sampled_from(["first", "second", "third", "fourth", "last", "final"]),
    n=st.integers(1, 3), unit=st.sampled_from(["week", "day"]),
)
@settings(max_examples=200, deadline=None)
def test_a_part_of_a_month_stays_inside_that_month(year, month, which, n, unit):
    """Reference model: the month is [first day, first day of the next month); the first N
    units start on the 1st (the k-th week on day 7(k-1)+1), the last N units end with the month;
    a window never leaves the month and is never longer than N units."""
    plural = unit + ("s" if n > 1 else "")
    count = "" if n == 1 else f"{n} "
    if which not in ("first", "last", "final") and unit == "day":
        return  # "the second day of May" is a date, not a span
    r = resolve_time(f"the {which} {count}{plural} of {_MONTHS[month - 1]} {year}", REF)
    assert r is not None and r.precision is Precision.DAY and r.end is not None
    m0 = datetime(year, month, 1, tzinfo=UTC)
    m1 = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    span = timedelta(days=n * (7 if unit == "week" else 1))
    assert m0 <= r.start < r.end <= m1
    assert r.end - r.start <= span
    if which in ("last", "final"):
        assert r.end == m1 and r.start == max(m0, m1 - span)
    else:
        k = {"first": 0, "second": 1, "third": 2, "fourth": 3}[which]
        assert r.start == m0 + timedelta(days=7 * k if unit == "week" else 0)
        assert r.end == min(m1, r.start + span)


# ------------------------------------------------------------------ the whole range of time
# Policy: an expression whose period would leave the representable range (years 1-9999 in UTC)
# is left unresolved, never clamped: "last year" said in year 1 names year 0, and a clamped
# 0001-01-01 would be a date nobody said. The fact then takes the episode's reference time.
TIME_MIN = datetime.min.replace(tzinfo=UTC)
TIME_MAX = datetime.max.replace(tzinfo=UTC)
ANY_REF = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59),
                       timezones=st.just(UTC))
# every family of the rule table, the relational forms and a few library fallbacks
EXPRESSIONS = sorted({c.expr for c in CASES} | {
    "the day before yesterday", "the day after tomorrow", "last night", "this weekend",
    "over the weekend", "next weekend", "two weekends ago", "the weekend before last",
    "the week before last", "the month before last", "the year before last",
    "the summer before last", "next week", "next month", "this year", "last decade",
    "next decade", "earlier this week", "earlier this month", "later this year", "the other week",
    "a decade ago", "5 hours ago", "in 3 years", "three days from now", "next March",
    "March of next year", "next winter", "the summer of last year", "last Christmas",
    "next Thanksgiving", "on Halloween", "the 14th", "the 31st", "at 3pm", "noon",
    "the beginning of next month", "the end of the year", "early next year", "late last month",
    "the last week of next month", "until next month", "from last year to next year",
    "for the past two months", "the 90s", "next Tuesday morning", "a week from Tuesday",
})


def _period_ok(r: ResolvedTime | None) -> bool:
    if r is None:
        return True
    return (r.start.tzinfo is not None and TIME_MIN <= r.start <= TIME_MAX
            and (r.end is None or r.start <= r.end <= TIME_MAX))


@given(ref=ANY_REF, prefer=st.sampled_from(["past", "future"]))
@settings(max_examples=40, deadline=None)
def test_no_expression_raises_at_any_reference_time(ref: datetime, prefer: str) -> None:
    """From 0001-01-01 to 9999-12-31 every expression resolves to a period inside the range or
    to None; none raises (0001-06-01 "last year" raised ValueError on 1953ce8)."""
    for expr in EXPRESSIONS:
        assert _period_ok(resolve_time(expr, ref, prefer=prefer)), expr


@given(ref=ANY_REF, n=st.integers(1, 400), future=st.booleans())
@settings(max_examples=300, deadline=None)
def test_n_days_ago_or_ahead_against_a_calendar_model(ref: datetime, n: int, future: bool
                                                      ) -> None:
    """Reference model: the day ref.date() -/+ n, as [that day, the next day); None when either
    bound is not a representable day."""
    r = resolve_time(f"in {n} days" if future else f"{n} days ago", ref)
    try:
        day = ref.date() + timedelta(days=n if future else -n)
        after = day + timedelta(days=1)
    except OverflowError:
        assert r is None
        return
    assert r is not None and r.precision is Precision.DAY
    assert (r.start, r.end) == (datetime(day.year, day.month, day.day, tzinfo=UTC),
                                datetime(after.year, after.month, after.day, tzinfo=UTC))


@given(ref=ANY_REF, n=st.integers(1, 120), future=st.booleans())
@settings(max_examples=300, deadline=None)
def test_n_years_ago_or_ahead_against_a_calendar_model(ref: datetime, n: int, future: bool
                                                       ) -> None:
    """Reference model: the year ref.year -/+ n, as [Jan 1, next Jan 1); None unless both are
    in years 1-9999."""
    r = resolve_time(f"in {n} years" if future else f"{n} years ago", ref)
    year = ref.year + (n if future else -n)
    if not 1 <= year <= 9998:
        assert r is None
        return
    assert r is not None and r.precision is Precision.YEAR
    assert (r.start, r.end) == (datetime(year, 1, 1, tzinfo=UTC),
                                datetime(year + 1, 1, 1, tzinfo=UTC))


def test_a_relative_date_before_year_1_leaves_the_fact_at_the_reference_time(tmp_path) -> None:
    """The reported case: an episode said on 0001-06-01 about "last year" is stored, and its
    fact starts at the episode's reference time (the text's date is not representable)."""
    from kgmem.factory import open_memory
    from kgmem.settings import Settings

    m = open_memory(Settings(_env_file=None, home=str(tmp_path / "s"),  # type: ignore[call-arg]
                             extractor="offline"))
    ep = m.add_episode("I moved to Paris last year.", "0001-06-01", speaker="Alice")
    facts = m.facts(subject="Alice", predicate="LIVES_IN", valid_at="0001-06-01")
    assert [(f.object, f.valid_at) for f in facts] == [("Paris", ep.reference_time)]
    m.close()
