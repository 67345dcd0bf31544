"""Temporal expressions in chat text, resolved against an episode's reference time.

``resolve_time("last March", ref)`` turns one expression into a :class:`ResolvedTime`
(a UTC period plus the precision it is known to); ``find_time_expressions(doc_or_text, ref)``
finds the expressions in a text (spaCy DATE/TIME entities, plus regexes as a fallback).

Resolution order (first answer wins):

1. a rule table (regexes, no library) for the expressions where a library is wrong or where our
   precision policy matters: years, month names with ``last/this/next``, seasons, ``early/mid/
   late``, ``the beginning/middle/end of``, ``N units ago``, ``last/this/next week|month|year``,
   weekdays, ``yesterday/today/tomorrow``, ``last weekend``, a few holidays, and the relational
   forms ``since X``, ``until X``, ``for N years`` and ``from X to Y``;
2. ``dateparser`` (English only; ``RELATIVE_BASE`` = reference time, ``PREFER_DATES_FROM`` =
   past unless the caller prefers the future, UTC), whose ``period`` gives the precision;
3. ``parsedatetime`` as a last resort (only answers that carry a date).

Precision policy (see ``Precision``; a period is closed-open ``[start, end)``):

* ``in 2019``, ``2019``, ``last year``, ``N years ago``, ``early/mid/late 2020``, decades:
  **YEAR**. ``N years ago`` is deliberately YEAR (``2 years ago`` said 2023-05-08 is 2021, not
  2021-05-08). ``early 2020`` starts 2020-01-01 and ends 2020-05-01 (mid: May-Sep, late: Sep-Jan).
* month names, ``last March`` (the most recent March strictly before the reference month),
  ``N months ago``, ``last month``, seasons (meteorological, northern hemisphere: the period
  starts on the season's first month; ``last summer`` = the most recent summer that has ended),
  ``the beginning/middle/end of June`` (start on the 1st/11th/21st): **MONTH**.
* ``yesterday``, weekdays, explicit dates, ``N days/weeks ago``, ``last week`` (its Monday, the
  period covers the week), ``last weekend`` (its Saturday): **DAY**.
* clock times (``at 3pm``) and ``N hours/minutes ago``: **INSTANT**.

Ambiguous expressions without a direction (a bare ``in December``, ``on Saturday``,
``the end of June``) resolve to the most recent such period at or before the reference time;
pass ``prefer="future"`` to get the next one (the extractor does this for future-tense clauses).
Vague expressions (``recently``, ``a while ago``, ``these days``, ``now``) resolve to ``None``.

All datetimes are timezone-aware UTC (a naive ``reference_time`` is taken as UTC).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from kgmem.timeutil import UTC, Precision, to_utc

__all__ = [
    "ResolvedTime",
    "TimeMention",
    "resolve_time",
    "find_time_expressions",
]

_PRECISION_RANK = {Precision.YEAR: 0, Precision.MONTH: 1, Precision.DAY: 2, Precision.INSTANT: 3}


@dataclass(frozen=True)
class ResolvedTime:
    """A resolved temporal expression.

    ``start``/``end`` delimit the period the expression denotes, closed-open, in UTC
    (``in 2019`` -> [2019-01-01, 2020-01-01)). ``precision`` is how precisely ``start`` is known.

    ``relation`` says how the period relates to an event or state:

    * ``"at"``: the event happened within the period (the common case);
    * ``"since"``: a state holds from ``start`` on; ``end`` is ``None`` (open);
    * ``"until"``: a state held until ``start`` (``until 2020`` -> start 2020-01-01);
    * ``"range"``: ``from X to Y``: ``start`` is X's start, ``end`` is **Y's start** (when the
      state stopped, known to ``end_precision``).
    """

    start: datetime
    end: datetime | None
    precision: Precision
    text: str
    relation: str = "at"
    end_precision: Precision | None = None


TimeMention = tuple[str, int, int, ResolvedTime]

# --------------------------------------------------------------------------- vocab
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
_MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}
_WEEKDAY_RE = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SEASONS = {"winter": 12, "spring": 3, "summer": 6, "fall": 9, "autumn": 9}
_SEASON_RE = r"(?:winter|spring|summer|fall|autumn)"
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "a couple": 2, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
    "a dozen": 12,
}
_NUM_RE = (
    r"(?:\d{1,3}|a couple(?: of)?|couple of|a few|few|several|a dozen|an|a|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|thirty|forty|fifty)"
)
_UNIT_RE = r"(?:years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|decades?)"
_VAGUE = {
    "recently", "lately", "a while ago", "a while back", "a long time ago", "ages ago", "someday",
    "some day", "one day", "the other day", "these days", "nowadays", "now", "right now",
    "currently", "at the moment", "always", "forever", "soon", "once", "sometimes", "often",
    "back then", "then", "later", "earlier", "before", "previously", "at some point",
    "a long while ago", "long ago", "in the past", "in the future", "the past", "the future",
}
# words that make an expression recurring or a duration/age rather than a point in time
_REJECT = re.compile(
    r"\b(?:every|each|per|daily|weekly|monthly|yearly|annually|old|long|times|hours? a|"
    r"weekends(?! ago)|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
)

_FILLER = re.compile(
    r"^(?:(?:just|only|about|around|roughly|approximately|approx\.?|almost|nearly|over|like|"
    r"exactly|precisely|sometime|some time|right|already|back|way back|all the way back|"
    r"as early as|effective)\s+)+"
)
_LEAD_PREP = re.compile(r"^(?:in|on|at|during|of|by|around|within)\s+")
_SUFFIX_NOISE = re.compile(r"\s+(?:or so|or something|ish|give or take)$")


# --------------------------------------------------------------------------- helpers
def _d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def _add_months(y: int, m: int, n: int) -> tuple[int, int]:
    idx = y * 12 + (m - 1) + n
    return idx // 12, idx % 12 + 1


def _month_start(y: int, m: int, n: int = 0) -> datetime:
    yy, mm = _add_months(y, m, n)
    return _d(yy, mm)


def _day_start(value: date) -> datetime:
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def _num(text: str) -> int | None:
    text = text.strip()
    if text.isdigit():
        return int(text)
    return _NUMBERS.get(text)


Core = tuple[datetime, datetime | None, Precision]


def _year_period(y: int) -> Core:
    return _d(y), _d(y + 1), Precision.YEAR


def _month_period(y: int, m: int) -> Core:
    return _d(y, m), _month_start(y, m, 1), Precision.MONTH


def _day_period(value: date) -> Core:
    s = _day_start(value)
    return s, s + timedelta(days=1), Precision.DAY


def _pick_month(month: int, ref: datetime, qualifier: str | None, prefer: str) -> tuple[int, int]:
    """Year for a month name. last = strictly before the ref month; next = strictly after."""
    y = ref.year
    if qualifier in ("last", "past", "previous"):
        return (y, month) if month < ref.month else (y - 1, month)
    if qualifier in ("next", "coming", "upcoming"):
        return (y, month) if month > ref.month else (y + 1, month)
    if qualifier == "this":
        return y, month
    if prefer == "future":
        return (y, month) if month >= ref.month else (y + 1, month)
    return (y, month) if month <= ref.month else (y - 1, month)


def _season_start(year: int, season: str) -> datetime:
    return _d(year, _SEASONS[season])


def _pick_season(season: str, ref: datetime, qualifier: str | None, prefer: str) -> Core:
    """Season periods. Winter starts in December and is labelled by that year."""
    m0 = _SEASONS[season]
    # candidate starts around the reference time
    cands = [_d(y, m0) for y in (ref.year - 2, ref.year - 1, ref.year, ref.year + 1)]
    periods = [(s, _month_start(s.year, s.month, 3)) for s in cands]
    if qualifier in ("last", "past", "previous"):
        ended = [p for p in periods if p[1] <= ref]
        s, e = ended[-1]
    elif qualifier in ("next", "coming", "upcoming"):
        s, e = next(p for p in periods if p[0] > ref)
    elif qualifier == "this":
        # the season of the reference year (winter: the one containing or starting this year)
        cur = [p for p in periods if p[0] <= ref < p[1]]
        if cur:
            s, e = cur[0]
        else:
            same_year = [p for p in periods if p[0].year == ref.year]
            s, e = same_year[0]
    elif prefer == "future":
        s, e = next(p for p in periods if p[1] > ref)
    else:
        started = [p for p in periods if p[0] <= ref]
        s, e = started[-1]
    return s, e, Precision.MONTH


def _pick_weekday(wd: int, ref: datetime, qualifier: str | None, prefer: str) -> date:
    today = ref.date()
    delta_back = (today.weekday() - wd) % 7  # 0..6 days back to the most recent such weekday
    if qualifier in ("last", "past", "previous"):
        return today - timedelta(days=delta_back or 7)
    if qualifier in ("next", "coming", "upcoming"):
        ahead = (wd - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)
    if qualifier == "this":
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(days=wd)
    if prefer == "future":
        return today + timedelta(days=(wd - today.weekday()) % 7)
    return today - timedelta(days=delta_back)


def _last_weekend(ref: datetime) -> date:
    today = ref.date()
    sat = today - timedelta(days=(today.weekday() - 5) % 7)
    while sat + timedelta(days=1) >= today:  # the weekend must be over
        sat -= timedelta(days=7)
    return sat


def _subrange_month(y: int, m: int, part: str) -> Core:
    if part in ("beginning", "start", "early", "first part"):
        return _d(y, m, 1), _d(y, m, 11), Precision.MONTH
    if part in ("middle", "mid"):
        return _d(y, m, 11), _d(y, m, 21), Precision.MONTH
    return _d(y, m, 21), _month_start(y, m, 1), Precision.MONTH


# ordinals arrive normalised: "2nd" -> "2"
_WEEK_ORDINAL = {"first": 0, "second": 1, "third": 2, "fourth": 3, "1": 0, "2": 1, "3": 2, "4": 3}


def _weeks_of(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the last week of August 2023" (its last 7 days), "the first two weeks of May", "the
    second week of June" (days 8-14), "the last 3 days of March": DAY precision."""
    rest = m["rest"]
    if rest in ("month", "the month"):
        inner: Core | None = _month_period(ref.year, ref.month)
    else:
        inner = _core(rest, ref, prefer)
    if inner is None or inner[2] is not Precision.MONTH or inner[1] is None:
        return None
    s0, e0 = inner[0], inner[1]
    n = _num(m["n"]) if m["n"] else 1
    if not n or n < 1:
        return None
    days = n * (7 if m["u"].startswith("week") else 1)
    if m["o"] in ("last", "final"):
        return max(s0, e0 - timedelta(days=days)), e0, Precision.DAY
    start = s0 + timedelta(days=7 * _WEEK_ORDINAL[m["o"]]) if m["u"].startswith("week") else s0
    if m["n"] is None and _WEEK_ORDINAL.get(m["o"], 0) > 0 and not m["u"].startswith("week"):
        return None  # "the second day of May" is a date the general parsers handle
    if start >= e0:
        return None
    return start, min(e0, start + timedelta(days=days)), Precision.DAY


def _subrange_year(y: int, part: str, of_form: bool) -> Core:
    """early/mid/late YEAR -> YEAR precision; the beginning/middle/end of YEAR -> MONTH."""
    if of_form:
        if part in ("beginning", "start"):
            return _d(y, 1), _d(y, 2), Precision.MONTH
        if part == "middle":
            return _d(y, 6), _d(y, 8), Precision.MONTH
        return _d(y, 12), _d(y + 1, 1), Precision.MONTH
    if part == "early":
        return _d(y, 1), _d(y, 5), Precision.YEAR
    if part in ("mid", "middle"):
        return _d(y, 5), _d(y, 9), Precision.YEAR
    return _d(y, 9), _d(y + 1, 1), Precision.YEAR


def _holiday(name: str, year: int) -> date | None:
    if name in ("christmas", "xmas", "christmas day"):
        return date(year, 12, 25)
    if name == "christmas eve":
        return date(year, 12, 24)
    if name in ("new year's eve", "new years eve", "nye"):
        return date(year, 12, 31)
    if name in ("new year's", "new years", "new year's day", "new years day", "new year"):
        return date(year, 1, 1)
    if name == "halloween":
        return date(year, 10, 31)
    if name in ("valentine's day", "valentines day", "valentine's"):
        return date(year, 2, 14)
    if name in ("thanksgiving", "thanksgiving day"):
        first = date(year, 11, 1)
        first_thu = first + timedelta(days=(3 - first.weekday()) % 7)
        return first_thu + timedelta(days=21)
    if name in ("independence day", "the fourth of july", "fourth of july", "july 4th"):
        return date(year, 7, 4)
    return None


_HOLIDAY_RE = (
    r"(?:christmas eve|christmas day|christmas|xmas|new year's eve|new years eve|new year's day|"
    r"new years day|new year's|new years|new year|halloween|valentine's day|valentines day|"
    r"thanksgiving day|thanksgiving|independence day|the fourth of july|fourth of july)"
)

# --------------------------------------------------------------------------- rule table
_Q = r"(?:(?P<q>last|this|next|past|previous|coming|upcoming)\s+)?"
_R_YEAR = re.compile(r"^(?:the year\s+)?(?P<y>1[89]\d\d|20\d\d)$")
_R_DECADE = re.compile(r"^(?:the\s+)?(?P<c>19|20)?(?P<d>\d)0'?s$")
_R_DECADE_WORD = re.compile(r"^(?:the\s+)?(?P<w>eighties|nineties|seventies|sixties|two thousands)$")
_R_MONTH = re.compile(rf"^{_Q}(?P<m>{_MONTH_RE})\.?(?:\s*,?\s*(?:of\s+)?(?P<y>1[89]\d\d|20\d\d))?$")
_R_MONTH_REL_YEAR = re.compile(rf"^(?P<m>{_MONTH_RE})\s+(?:of\s+)?(?P<q>last|this|next) year$")
_R_SEASON = re.compile(
    rf"^(?:the\s+)?{_Q}(?P<s>{_SEASON_RE})(?:\s+(?:of\s+)?(?P<y>1[89]\d\d|20\d\d))?$"
)
_R_SEASON_REL_YEAR = re.compile(rf"^(?:the\s+)?(?P<s>{_SEASON_RE})\s+of\s+(?P<q>last|this|next) year$")
_R_PART_OF = re.compile(
    r"^(?:the\s+)?(?P<p>beginning|start|middle|end)\s+of\s+(?:the\s+)?(?P<rest>.+)$"
)
_R_EARLY = re.compile(r"^(?P<p>early|mid|late)[\s-]+(?:in\s+)?(?P<rest>.+)$")
_R_WEEKS_OF = re.compile(
    rf"^(?:the\s+)?(?P<o>first|second|third|fourth|[1-4]|last|final)\s+(?:(?P<n>{_NUM_RE})\s+)?"
    r"(?P<u>weeks?|days?)\s+of\s+(?:the\s+)?(?P<rest>.+)$"
)
_R_AGO = re.compile(rf"^(?P<n>{_NUM_RE})(?:\s+and a half)?\s+(?P<u>{_UNIT_RE})\s+(?:ago|back|earlier)$")
_R_IN_FUTURE = re.compile(rf"^(?:in\s+)(?P<n>{_NUM_RE})\s+(?P<u>{_UNIT_RE})(?:\s+time)?$")
_R_FROM_NOW = re.compile(rf"^(?P<n>{_NUM_RE})\s+(?P<u>{_UNIT_RE})\s+from now$")
_R_REL_UNIT = re.compile(
    r"^(?P<q>last|this|next|past|previous|coming|the past|the previous|the coming)\s+"
    r"(?P<u>year|month|week|weekend|decade)$"
)
_R_WEEKDAY = re.compile(rf"^{_Q}(?P<w>{_WEEKDAY_RE})(?:\s+(?P<tod>morning|afternoon|evening|night))?$")
_R_HOLIDAY = re.compile(rf"^{_Q}(?P<h>{_HOLIDAY_RE})(?:\s+(?P<y>1[89]\d\d|20\d\d))?$")
_R_WORD = re.compile(
    r"^(?P<w>today|tonight|this morning|this afternoon|this evening|yesterday|"
    r"yesterday morning|yesterday afternoon|yesterday evening|last night|tomorrow|"
    r"tomorrow morning|tomorrow night|the day before yesterday|the day after tomorrow|"
    r"over the weekend|on the weekend|the weekend|this past weekend|this weekend|"
    r"earlier today|earlier this week|earlier this month|earlier this year|later this year|"
    r"later this month|the other week)$"
)
_R_DURATION = re.compile(
    rf"^for\s+(?:the\s+(?:past|last)\s+)?(?P<n>{_NUM_RE})?(?:\s+and a half)?\s*(?P<u>{_UNIT_RE})$"
)
_R_RANGE = re.compile(
    r"^(?:from|between)\s+(?P<a>.+?)\s+(?:to|until|till|through|thru|and)\s+(?P<b>.+)$"
)
_R_YEAR_RANGE = re.compile(r"^(?P<a>1[89]\d\d|20\d\d)\s*[-–]\s*(?P<b>1[89]\d\d|20\d\d|\d\d)$")


def _unit_ago(n: int, unit: str, ref: datetime, sign: int = -1) -> Core | None:
    u = unit.rstrip("s")
    if u in ("year", "yr"):
        return _year_period(ref.year + sign * n)
    if u == "decade":
        return _year_period(ref.year + sign * 10 * n)
    if u == "month":
        s = _month_start(ref.year, ref.month, sign * n)
        return _month_period(s.year, s.month)
    if u == "week":
        return _day_period(ref.date() + timedelta(days=sign * 7 * n))
    if u == "day":
        return _day_period(ref.date() + timedelta(days=sign * n))
    if u in ("hour", "hr"):
        t = ref + timedelta(hours=sign * n)
        return t, None, Precision.INSTANT
    if u in ("minute", "min"):
        t = ref + timedelta(minutes=sign * n)
        return t, None, Precision.INSTANT
    return None


_R_CLOCK = re.compile(r"^(?:(?P<h>\d{1,2})(?::(?P<mi>\d\d))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)?|(?P<w>noon|midday|midnight))$")


_R_BEFORE_LAST = re.compile(
    rf"^(?:the\s+)?(?P<u>week|weekend|month|year|{_SEASON_RE})\s+before\s+last$"
)
_R_WEEKENDS_AGO = re.compile(rf"^(?P<n>{_NUM_RE})\s+weekends?\s+ago$")
_R_DAY_OF_MONTH = re.compile(r"^(?:the\s+)?(?P<d>\d{1,2})$")


def _rules(s: str, ref: datetime, prefer: str) -> Core | None:  # noqa: C901 - a rule table
    if m := _R_BEFORE_LAST.match(s):
        u = m["u"]
        if u in _SEASONS:
            last = _pick_season(u, ref, "last", prefer)[0]
            s0 = _d(last.year - 1, last.month)
            return s0, _month_start(s0.year, s0.month, 3), Precision.MONTH
        if u == "week":
            monday = ref.date() - timedelta(days=ref.weekday() + 14)
            s0 = _day_start(monday)
            return s0, s0 + timedelta(days=7), Precision.DAY
        if u == "weekend":
            s0 = _day_start(_last_weekend(ref) - timedelta(days=7))
            return s0, s0 + timedelta(days=2), Precision.DAY
        if u == "month":
            s0 = _month_start(ref.year, ref.month, -2)
            return _month_period(s0.year, s0.month)
        return _year_period(ref.year - 2)
    if m := _R_WEEKENDS_AGO.match(s):
        n = _num(m["n"])
        if n:
            s0 = _day_start(_last_weekend(ref) - timedelta(days=7 * (n - 1)))
            return s0, s0 + timedelta(days=2), Precision.DAY
    if (m := _R_DAY_OF_MONTH.match(s)) and s.startswith("the "):
        day = int(m["d"])
        if 1 <= day <= 31:
            y, mo = ref.year, ref.month
            if (day > ref.day and prefer != "future") or (day < ref.day and prefer == "future"):
                y, mo = _add_months(y, mo, -1 if prefer != "future" else 1)
            try:
                return _day_period(date(y, mo, day))
            except ValueError:
                return None
    if (m := _R_CLOCK.match(s)) and (m["ap"] or m["mi"] or m["w"]):
        if m["w"]:
            h, mi = (0, 0) if m["w"] == "midnight" else (12, 0)
        else:
            h, mi = int(m["h"]), int(m["mi"] or 0)
            ap = (m["ap"] or "").replace(".", "")
            if ap == "pm" and h < 12:
                h += 12
            if ap == "am" and h == 12:
                h = 0
        if h > 23 or mi > 59:
            return None
        t = ref.replace(hour=h, minute=mi, second=0, microsecond=0)
        return t, None, Precision.INSTANT
    if m := _R_YEAR.match(s):
        return _year_period(int(m["y"]))
    if m := _R_MONTH.match(s):
        month = _MONTHS[m["m"]]
        if m["y"]:
            return _month_period(int(m["y"]), month)
        y, mm = _pick_month(month, ref, m["q"], prefer)
        return _month_period(y, mm)
    if m := _R_MONTH_REL_YEAR.match(s):
        y = ref.year + {"last": -1, "this": 0, "next": 1}[m["q"]]
        return _month_period(y, _MONTHS[m["m"]])
    if m := _R_WORD.match(s):
        w = m["w"]
        today = ref.date()
        if w in ("today", "tonight", "this morning", "this afternoon", "this evening", "earlier today"):
            return _day_period(today)
        if w.startswith("yesterday") or w == "last night":
            return _day_period(today - timedelta(days=1))
        if w.startswith("tomorrow"):
            return _day_period(today + timedelta(days=1))
        if w == "the day before yesterday":
            return _day_period(today - timedelta(days=2))
        if w == "the day after tomorrow":
            return _day_period(today + timedelta(days=2))
        if w in ("over the weekend", "on the weekend", "the weekend", "this past weekend"):
            if today.weekday() >= 5 and w != "this past weekend":
                sat = today - timedelta(days=today.weekday() - 5)
            else:
                sat = _last_weekend(ref)
            if prefer == "future" and w != "this past weekend" and today.weekday() < 5:
                sat = today + timedelta(days=5 - today.weekday())
            s0 = _day_start(sat)
            return s0, s0 + timedelta(days=2), Precision.DAY
        if w == "this weekend":
            sat = today + timedelta(days=5 - today.weekday())
            s0 = _day_start(sat)
            return s0, s0 + timedelta(days=2), Precision.DAY
        if w == "earlier this week":
            monday = today - timedelta(days=today.weekday())
            s0 = _day_start(monday)
            return s0, _day_start(today), Precision.DAY
        if w in ("earlier this month", "later this month"):
            return _month_period(ref.year, ref.month)
        if w in ("earlier this year", "later this year"):
            return _year_period(ref.year)
        if w == "the other week":
            return _day_period(today - timedelta(days=7))
    if m := _R_AGO.match(s):
        n = _num(m["n"])
        return _unit_ago(n, m["u"], ref) if n is not None else None
    if m := _R_IN_FUTURE.match(s) or _R_FROM_NOW.match(s):
        n = _num(m["n"])
        return _unit_ago(n, m["u"], ref, sign=1) if n is not None else None
    if m := _R_REL_UNIT.match(s):
        q = m["q"].replace("the ", "")
        sign = -1 if q in ("last", "past", "previous") else (1 if q in ("next", "coming") else 0)
        u = m["u"]
        if u == "year":
            return _year_period(ref.year + sign)
        if u == "decade":
            d0 = (ref.year // 10) * 10 + 10 * sign
            return _d(d0), _d(d0 + 10), Precision.YEAR
        if u == "month":
            s0 = _month_start(ref.year, ref.month, sign)
            return _month_period(s0.year, s0.month)
        if u == "week":
            monday = ref.date() - timedelta(days=ref.weekday()) + timedelta(days=7 * sign)
            s0 = _day_start(monday)
            return s0, s0 + timedelta(days=7), Precision.DAY
        if u == "weekend":
            today = ref.date()
            if sign < 0:
                sat = _last_weekend(ref)
            else:
                # the current or coming weekend; "next weekend" said Fri-Sun is the one after
                sat = today + timedelta(days=(5 - today.weekday()) % 7)
                if today.weekday() == 6:
                    sat = today - timedelta(days=1)
                if sign > 0 and today.weekday() >= 4:
                    sat += timedelta(days=7)
            s0 = _day_start(sat)
            return s0, s0 + timedelta(days=2), Precision.DAY
    if m := _R_WEEKDAY.match(s):
        return _day_period(_pick_weekday(_WEEKDAYS[m["w"]], ref, m["q"], prefer))
    if m := _R_SEASON.match(s):
        if m["y"]:
            s0 = _season_start(int(m["y"]), m["s"])
            return s0, _month_start(s0.year, s0.month, 3), Precision.MONTH
        return _pick_season(m["s"], ref, m["q"], prefer)
    if m := _R_SEASON_REL_YEAR.match(s):
        y = ref.year + {"last": -1, "this": 0, "next": 1}[m["q"]]
        s0 = _season_start(y, m["s"])
        return s0, _month_start(s0.year, s0.month, 3), Precision.MONTH
    if m := _R_DECADE.match(s):
        century = int(m["c"]) * 100 if m["c"] else (1900 if int(m["d"]) >= 3 else 2000)
        y0 = century + int(m["d"]) * 10
        return _d(y0), _d(y0 + 10), Precision.YEAR
    if m := _R_DECADE_WORD.match(s):
        y0 = {"sixties": 1960, "seventies": 1970, "eighties": 1980, "nineties": 1990,
              "two thousands": 2000}[m["w"]]
        return _d(y0), _d(y0 + 10), Precision.YEAR
    if m := _R_HOLIDAY.match(s):
        name = m["h"]
        hday: date | None
        if m["y"]:
            hday = _holiday(name, int(m["y"]))
        else:
            this_year = _holiday(name, ref.year)
            if this_year is None:
                return None
            q = m["q"]
            if q in ("last", "past", "previous"):
                hday = this_year if this_year < ref.date() else _holiday(name, ref.year - 1)
            elif q in ("next", "coming", "upcoming"):
                hday = this_year if this_year > ref.date() else _holiday(name, ref.year + 1)
            elif q == "this" or (prefer == "future" and this_year >= ref.date()):
                hday = this_year
            elif prefer == "future":
                hday = _holiday(name, ref.year + 1)
            else:
                hday = this_year if this_year <= ref.date() else _holiday(name, ref.year - 1)
        return _day_period(hday) if hday else None
    if m := _R_PART_OF.match(s):
        part, rest = m["p"], m["rest"]
        if rest in ("year", "the year"):
            return _subrange_year(ref.year, part, True)
        if rest in ("month", "the month"):
            return _subrange_month(ref.year, ref.month, part)
        inner = _core(rest, ref, prefer)
        if inner is None:
            return None
        s0, _e0, p0 = inner
        if p0 is Precision.YEAR:
            return _subrange_year(s0.year, part, True)
        if p0 is Precision.MONTH:
            return _subrange_month(s0.year, s0.month, part)
        return None
    if m := _R_WEEKS_OF.match(s):
        return _weeks_of(m, ref, prefer)
    if m := _R_EARLY.match(s):
        part, rest = m["p"], m["rest"]
        inner = _core(rest, ref, prefer)
        if inner is None:
            return None
        s0, _e0, p0 = inner
        if p0 is Precision.YEAR:
            return _subrange_year(s0.year, part, False)
        if p0 is Precision.MONTH:
            return _subrange_month(s0.year, s0.month, part)
        return None
    return None


# --------------------------------------------------------------------------- libraries
_LIB_LOCK = threading.Lock()
_DDP: dict[str, Any] = {}
_PDT: Any = None

_DP_PERIOD = {
    "year": Precision.YEAR,
    "month": Precision.MONTH,
    "week": Precision.DAY,
    "day": Precision.DAY,
    "time": Precision.INSTANT,
}


def _dateparser(s: str, ref: datetime, prefer: str) -> Core | None:
    try:
        from dateparser.date import DateDataParser
    except ImportError:  # pragma: no cover - optional at import time
        return None
    key = "future" if prefer == "future" else "past"
    with _LIB_LOCK:
        base = ref.astimezone(UTC).replace(tzinfo=None)
        ddp = DateDataParser(
            languages=["en"],
            settings={
                "RELATIVE_BASE": base,
                "PREFER_DATES_FROM": key,
                "RETURN_AS_TIMEZONE_AWARE": True,
                "TIMEZONE": "UTC",
                "TO_TIMEZONE": "UTC",
                "PREFER_DAY_OF_MONTH": "first",
            },
        )
        try:
            data = ddp.get_date_data(s)
        except Exception:  # dateparser raises on odd input; treat as "no answer"
            return None
    if data is None or data.date_obj is None:
        return None
    value = to_utc(data.date_obj)
    p = _DP_PERIOD.get(data.period or "day", Precision.DAY)
    if p is Precision.DAY and re.search(r"\d{1,2}(:\d\d)|\d\s*(am|pm)\b|\bnoon\b|\bmidnight\b", s):
        p = Precision.INSTANT
    return _floor(value, p)


def _floor(value: datetime, p: Precision) -> Core:
    if p is Precision.YEAR:
        return _year_period(value.year)
    if p is Precision.MONTH:
        return _month_period(value.year, value.month)
    if p is Precision.DAY:
        return _day_period(value.date())
    return value, None, Precision.INSTANT


def _parsedatetime(s: str, ref: datetime, prefer: str) -> Core | None:
    global _PDT
    try:
        import parsedatetime
    except ImportError:  # pragma: no cover
        return None
    with _LIB_LOCK:
        if _PDT is None:
            _PDT = parsedatetime.Calendar(version=parsedatetime.VERSION_CONTEXT_STYLE)
        base = ref.astimezone(UTC).replace(tzinfo=None)
        try:
            value, ctx = _PDT.parseDT(s, sourceTime=base)
        except Exception:
            return None
    if not ctx.hasDate:
        return None
    acc = ctx.accuracy
    if acc & parsedatetime.pdtContext.ACU_DAY or acc & parsedatetime.pdtContext.ACU_WEEK:
        p = Precision.DAY
    elif acc & parsedatetime.pdtContext.ACU_MONTH:
        p = Precision.MONTH
    elif acc & parsedatetime.pdtContext.ACU_YEAR:
        p = Precision.YEAR
    else:
        p = Precision.DAY
    if ctx.hasTime and p is Precision.DAY and acc & (
        parsedatetime.pdtContext.ACU_HOUR | parsedatetime.pdtContext.ACU_MIN
    ):
        p = Precision.INSTANT
    return _floor(value.replace(tzinfo=UTC), p)


# --------------------------------------------------------------------------- public API
def _normalise(expr: str) -> str:
    s = expr.strip().lower()
    s = s.replace("’", "'").replace("‘", "'")
    s = re.sub(r"[\s]+", " ", s)
    s = s.strip(" .,;:!?()\"'")
    s = _SUFFIX_NOISE.sub("", s)
    s = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s)
    s = re.sub(r"\bthis past\b", "last", s) if s != "this past weekend" else s
    s = re.sub(r"\bhalf an? year\b", "6 months", s)
    s = re.sub(r"\ba year and a half\b", "18 months", s)
    s = re.sub(r"\bhalf an? hour\b", "30 minutes", s)
    s = re.sub(r"\b(\w+) and a half years\b", r"\1 years", s)
    return s


def _strip_lead(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = _FILLER.sub("", s)
        s = _LEAD_PREP.sub("", s)
        s = re.sub(r"^(?:sometime|some time)\s+", "", s)
    return s


_R_BARE_DURATION = re.compile(rf"^(?:the\s+(?:past|last|next)\s+)?{_NUM_RE}(?:\s+and a half)?\s+{_UNIT_RE}$")


def _core(s: str, ref: datetime, prefer: str) -> Core | None:
    s = _FILLER.sub("", s)
    if m := _R_IN_FUTURE.match(s):
        n = _num(m["n"])
        return _unit_ago(n, m["u"], ref, sign=1) if n is not None else None
    s = _strip_lead(s)
    if _R_BARE_DURATION.match(s):
        return None  # "six years" alone is a duration, not a time
    if not s or s in _VAGUE:
        return None
    hit = _rules(s, ref, prefer)
    if hit is not None:
        return hit
    if not re.search(
        r"\d|" + _MONTH_RE + r"|" + _WEEKDAY_RE + r"|ago|yesterday|tomorrow|today|tonight|week|"
        r"month|year|day|noon|midnight|morning|evening|afternoon|night",
        s,
    ):
        return None
    hit = _dateparser(s, ref, prefer)
    if hit is None:
        hit = _parsedatetime(s, ref, prefer)
    if hit is None:
        return None
    start = hit[0]
    if not (1800 <= start.year <= ref.year + 100):
        return None
    return hit


@lru_cache(maxsize=8192)
def _resolve_cached(norm: str, ref: datetime, prefer: str) -> tuple | None:
    s = norm
    if not s or _REJECT.search(s):
        return None
    if s in _VAGUE:
        return None
    relation = "at"
    m = re.match(r"^(?:ever since|since|starting|starting from|from|beginning|as of)\s+(?P<x>.+)$", s)
    r = _R_RANGE.match(s) or _R_YEAR_RANGE.match(s)
    if r:
        a, b = r["a"], r["b"]
        if len(b) == 2 and b.isdigit() and len(a) == 4:
            b = a[:2] + b
        ca = _core(a, ref, prefer)
        cb = _core(b, ref, prefer)
        if ca and cb and cb[0] >= ca[0]:
            return ca[0], cb[0], ca[2], "range", cb[2]
        return None
    if m:
        inner = _core(m["x"], ref, prefer)
        if inner is None:
            return None
        return inner[0], None, inner[2], "since", None
    m = re.match(r"^(?:until|till|til|up until|up to|through|thru)\s+(?P<x>.+)$", s)
    if m:
        inner = _core(m["x"], ref, prefer)
        if inner is None:
            return None
        return inner[0], inner[1], inner[2], "until", None
    if s.startswith("for "):
        s = re.sub(
            r"^for\s+(?:about|around|almost|nearly|over|roughly|approximately|like|just|only)\s+",
            "for ",
            s,
        )
    m = _R_DURATION.match(s) if s.startswith("for ") else None
    if m:
        n = _num(m["n"]) if m["n"] else 1
        if n is None:
            return None
        hit = _unit_ago(n, m["u"], ref)
        if hit is None:
            return None
        return hit[0], None, hit[2], "since", None
    if s.startswith("for "):
        return None  # other durations ("for a while") carry no start
    hit = _core(s, ref, prefer)
    if hit is None:
        return None
    return hit[0], hit[1], hit[2], relation, None


def resolve_time(
    expr: str, reference_time: datetime, prefer: str = "past"
) -> ResolvedTime | None:
    """Resolve one temporal expression relative to ``reference_time`` (naive = UTC).

    ``prefer`` ("past" or "future") disambiguates expressions without a direction
    ("in December", "on Saturday"). Returns ``None`` for text that is not a resolvable point
    or period in time (vague words, recurring expressions, ages, bare durations).
    """
    if not isinstance(expr, str) or not expr.strip():
        return None
    if isinstance(reference_time, str):
        from kgmem.timeutil import parse_instant

        reference_time = parse_instant(reference_time, "reference_time")
    ref = to_utc(reference_time)
    norm = _normalise(expr)
    try:
        hit = _resolve_cached(norm, ref, "future" if prefer == "future" else "past")
    except (OverflowError, ValueError):
        # the period falls outside the supported range (years 1-9999: "yesterday" said on
        # 0001-01-01, "next year" in 9999) or names no calendar day: not a resolvable time
        return None
    if hit is None:
        return None
    start, end, precision, relation, end_precision = hit
    return ResolvedTime(start, end, precision, expr.strip(), relation, end_precision)


# --------------------------------------------------------------------------- finding
_NUMW = _NUM_RE
_FIND_RE = re.compile(
    r"(?<![\w-])(?:"
    # relational/compound prefixes are captured as part of the expression
    r"(?:(?:ever since|since|until|till|from|starting)\s+)?"
    r"(?:"
    rf"(?:the\s+)?(?:first|second|third|fourth|1st|2nd|3rd|4th|last|final)\s+(?:{_NUMW}\s+)?(?:weeks?|days?)\s+of\s+"
    rf"(?:(?:last|this|next)\s+month|the\s+month|{_MONTH_RE}(?:,?\s+(?:1[89]|20)\d\d)?)"
    rf"|(?:the\s+)?(?:beginning|start|middle|end)\s+of\s+(?:(?:last|this|next)\s+(?:year|month)|the\s+(?:year|month)|{_MONTH_RE}(?:\s+(?:1[89]|20)\d\d)?|(?:1[89]|20)\d\d)"
    rf"|(?:early|mid|late)[\s-]+(?:(?:1[89]|20)\d\d|{_MONTH_RE}|(?:last|this|next)\s+(?:year|month))"
    rf"|(?:last|this|next|past|coming)\s+(?:{_MONTH_RE}|{_WEEKDAY_RE}|{_SEASON_RE}|year|month|week|weekend|decade)\b"
    rf"|(?:the\s+)?(?:{_SEASON_RE})\s+(?:of\s+)?(?:(?:1[89]|20)\d\d|(?:last|this|next)\s+year)"
    rf"|{_NUMW}(?:\s+and a half)?\s+{_UNIT_RE}\s+(?:ago|back)"
    rf"|in\s+{_NUMW}\s+{_UNIT_RE}"
    rf"|for\s+(?:the\s+(?:past|last)\s+)?{_NUMW}(?:\s+and a half)?\s+(?:years?|months?|weeks?|days?|decades?)"
    r"|(?:the\s+day\s+before\s+)?yesterday|the\s+day\s+after\s+tomorrow|tomorrow|today|tonight"
    r"|this\s+(?:morning|afternoon|evening)|last\s+night"
    r"|(?:over|on)\s+the\s+weekend"
    rf"|(?:{_MONTH_RE})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:1[89]|20)\d\d)?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_RE})(?:,?\s+(?:1[89]|20)\d\d)?"
    rf"|(?:{_MONTH_RE})\.?,?\s+(?:1[89]|20)\d\d"
    rf"|(?:in|since|during|by|until|last|this|next|early|late)\s+(?:{_MONTH_RE})\b"
    rf"|(?:on\s+)(?:{_WEEKDAY_RE})"
    r"|\d{4}-\d{2}-\d{2}"
    r"|(?:in|since|during|by|until|around|circa|back in)\s+(?:(?:1[89]|20)\d\d)"
    r"|(?:19|20)\d\d\s*[-–]\s*(?:(?:19|20)?\d\d)"
    rf"|(?:in|during|over)\s+the\s+(?:{_SEASON_RE})"
    r")"
    r")(?![\w-])",
    re.IGNORECASE,
)

_EXTEND_LEFT = {"since", "until", "till", "from", "for", "starting", "early", "late", "mid"}
_ENT_LABELS = {"DATE", "TIME"}
_NON_TIME_WORDS = re.compile(r"^(?:may|march|sun|sat|wed)$", re.I)


def _overlaps(a: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def find_time_expressions(
    doc_or_text: Any,
    reference_time: datetime,
    prefer: str = "past",
    nlp: Any = None,
) -> list[TimeMention]:
    """Find and resolve temporal expressions in a spaCy ``Doc`` or a plain string.

    Returns ``(span_text, char_start, char_end, ResolvedTime)`` tuples sorted by position.
    spaCy DATE/TIME entities are used first (extended left over ``since/until/from/for``),
    then a regex pass adds expressions the model missed. A string is parsed with the shared
    spaCy pipeline (loaded lazily) unless ``nlp`` is given; with ``nlp=False`` only the regexes
    are used.
    """
    if isinstance(doc_or_text, str):
        text = doc_or_text
        if nlp is False:
            doc = None
        else:
            if nlp is None:
                from .nlp import get_nlp

                nlp = get_nlp()
            doc = nlp(text)
    else:
        doc = doc_or_text
        text = doc.text
    out: list[TimeMention] = []
    taken: list[tuple[int, int]] = []
    if doc is not None:
        for ent in doc.ents:
            if ent.label_ not in _ENT_LABELS:
                continue
            start_tok = ent.start
            while start_tok > 0 and doc[start_tok - 1].lower_ in _EXTEND_LEFT:
                start_tok -= 1
            s_char = doc[start_tok].idx
            e_char = ent.end_char
            # "from 2018 to 2020" split into two entities: join them
            nxt = ent.end
            if (
                doc[start_tok].lower_ == "from"
                and nxt < len(doc) - 1
                and doc[nxt].lower_ in ("to", "until", "till", "through")
            ):
                for other in doc.ents:
                    if other.start == nxt + 1 and other.label_ in _ENT_LABELS:
                        e_char = other.end_char
                        break
            span_text = text[s_char:e_char]
            if _overlaps((s_char, e_char), taken):
                continue
            res = resolve_time(span_text, reference_time, prefer)
            if res is None and start_tok != ent.start:
                # e.g. "for" + a non-duration: fall back to the bare entity
                s_char = ent.start_char
                span_text = ent.text
                res = resolve_time(span_text, reference_time, prefer)
            if res is None:
                continue
            out.append((span_text, s_char, e_char, res))
            taken.append((s_char, e_char))
    for m in _FIND_RE.finditer(text):
        s_char, e_char = m.span()
        if _overlaps((s_char, e_char), taken):
            continue
        span_text = m.group(0)
        bare = re.sub(r"^(?:in|during|by|on|around|circa|back in)\s+", "", span_text, flags=re.I)
        if _NON_TIME_WORDS.match(bare):
            continue
        res = resolve_time(span_text, reference_time, prefer)
        if res is None:
            continue
        out.append((span_text, s_char, e_char, res))
        taken.append((s_char, e_char))
    out.sort(key=lambda x: x[1])
    return out
