"""The rule table: a regex and a named rule for each expression where a library is wrong or
where the precision policy matters. :func:`resolve_period` tries the table first, then the
libraries (see the package docstring for the policy)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from kgmem.timeutil import Precision

from .libraries import with_dateparser, with_parsedatetime
from .periods import (
    HOLIDAY_RE,
    MONTH_RE,
    MONTHS,
    NUM_RE,
    SEASON_RE,
    SEASONS,
    UNIT_RE,
    VAGUE,
    WEEKDAY_RE,
    WEEKDAYS,
    Core,
    add_months,
    day_period,
    day_start,
    holiday_date,
    last_weekend,
    month_period,
    month_start,
    number,
    pick_month,
    pick_season,
    pick_weekday,
    season_start,
    subrange_month,
    subrange_year,
    unit_ago,
    utc,
    year_period,
)

_FILLER = re.compile(
    r"^(?:(?:just|only|about|around|roughly|approximately|approx\.?|almost|nearly|over|like|"
    r"exactly|precisely|sometime|some time|right|already|back|way back|all the way back|"
    r"as early as|effective)\s+)+"
)


_LEAD_PREP = re.compile(r"^(?:in|on|at|during|of|by|around|within)\s+")


_Q = r"(?:(?P<q>last|this|next|past|previous|coming|upcoming)\s+)?"


_R_YEAR = re.compile(r"^(?:the year\s+)?(?P<y>1[89]\d\d|20\d\d)$")


_R_DECADE = re.compile(r"^(?:the\s+)?(?P<c>19|20)?(?P<d>\d)0'?s$")


_R_DECADE_WORD = re.compile(r"^(?:the\s+)?(?P<w>eighties|nineties|seventies|sixties|two thousands)$")


_R_MONTH = re.compile(rf"^{_Q}(?P<m>{MONTH_RE})\.?(?:\s*,?\s*(?:of\s+)?(?P<y>1[89]\d\d|20\d\d))?$")


_R_MONTH_REL_YEAR = re.compile(rf"^(?P<m>{MONTH_RE})\s+(?:of\s+)?(?P<q>last|this|next) year$")


_R_SEASON = re.compile(
    rf"^(?:the\s+)?{_Q}(?P<s>{SEASON_RE})(?:\s+(?:of\s+)?(?P<y>1[89]\d\d|20\d\d))?$"
)


_R_SEASON_REL_YEAR = re.compile(rf"^(?:the\s+)?(?P<s>{SEASON_RE})\s+of\s+(?P<q>last|this|next) year$")


_R_PART_OF = re.compile(
    r"^(?:the\s+)?(?P<p>beginning|start|middle|end)\s+of\s+(?:the\s+)?(?P<rest>.+)$"
)


_R_EARLY = re.compile(r"^(?P<p>early|mid|late)[\s-]+(?:in\s+)?(?P<rest>.+)$")


_R_WEEKS_OF = re.compile(
    rf"^(?:the\s+)?(?P<o>first|second|third|fourth|[1-4]|last|final)\s+(?:(?P<n>{NUM_RE})\s+)?"
    r"(?P<u>weeks?|days?)\s+of\s+(?:the\s+)?(?P<rest>.+)$"
)


_R_AGO = re.compile(rf"^(?P<n>{NUM_RE})(?:\s+and a half)?\s+(?P<u>{UNIT_RE})\s+(?:ago|back|earlier)$")


_R_IN_FUTURE = re.compile(rf"^(?:in\s+)(?P<n>{NUM_RE})\s+(?P<u>{UNIT_RE})(?:\s+time)?$")


_R_FROM_NOW = re.compile(rf"^(?P<n>{NUM_RE})\s+(?P<u>{UNIT_RE})\s+from now$")


_R_REL_UNIT = re.compile(
    r"^(?P<q>last|this|next|past|previous|coming|the past|the previous|the coming)\s+"
    r"(?P<u>year|month|week|weekend|decade)$"
)


_R_WEEKDAY = re.compile(rf"^{_Q}(?P<w>{WEEKDAY_RE})(?:\s+(?P<tod>morning|afternoon|evening|night))?$")


# "last Tues", "next Fri": an abbreviation only after a direction word ("this sun" is no date)
WEEKDAY_ABBR_RE = r"(?:mon|tues?|wed|thu|thur|thurs|fri|sat|sun)"


_R_WEEKDAY_ABBR = re.compile(rf"^(?P<q>last|next|past|previous|coming)\s+(?P<w>{WEEKDAY_ABBR_RE})$")


_R_HOLIDAY = re.compile(rf"^{_Q}(?P<h>{HOLIDAY_RE})(?:\s+(?P<y>1[89]\d\d|20\d\d))?$")


_R_WORD = re.compile(
    r"^(?P<w>today|tonight|this morning|this afternoon|this evening|yesterday|"
    r"yesterday morning|yesterday afternoon|yesterday evening|last night|tomorrow|"
    r"tomorrow morning|tomorrow night|the day before yesterday|the day after tomorrow|"
    r"over the weekend|on the weekend|the weekend|this past weekend|this weekend|"
    r"earlier today|earlier this week|earlier this month|earlier this year|later this year|"
    r"later this month|the other week|the other day|the other night|just the other day)$"
)


_R_CLOCK = re.compile(r"^(?:(?P<h>\d{1,2})(?::(?P<mi>\d\d))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)?|(?P<w>noon|midday|midnight))$")


_R_BEFORE_LAST = re.compile(
    rf"^(?:the\s+)?(?P<u>week|weekend|month|year|{SEASON_RE})\s+before\s+last$"
)


_R_WEEKENDS_AGO = re.compile(rf"^(?P<n>{NUM_RE})\s+weekends?\s+ago$")


_R_DAY_OF_MONTH = re.compile(r"^(?:the\s+)?(?P<d>\d{1,2})$")


# ordinals arrive normalised: "2nd" -> "2"
_WEEK_ORDINAL = {"first": 0, "second": 1, "third": 2, "fourth": 3, "1": 0, "2": 1, "3": 2, "4": 3}


def _weeks_of(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the last week of August 2023" (its last 7 days), "the first two weeks of May", "the
    second week of June" (days 8-14), "the last 3 days of March": DAY precision."""
    rest = m["rest"]
    if rest in ("month", "the month"):
        inner: Core | None = month_period(ref.year, ref.month)
    else:
        inner = resolve_period(rest, ref, prefer)
    if inner is None or inner[2] is not Precision.MONTH or inner[1] is None:
        return None
    s0, e0 = inner[0], inner[1]
    n = number(m["n"]) if m["n"] else 1
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


def _weekend_from(sat: date) -> Core:
    s0 = day_start(sat)
    return s0, s0 + timedelta(days=2), Precision.DAY


def _week_from(monday: date) -> Core:
    s0 = day_start(monday)
    return s0, s0 + timedelta(days=7), Precision.DAY


def _before_last(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the week/weekend/month/year/summer before last"."""
    u = m["u"]
    if u in SEASONS:
        last = pick_season(u, ref, "last", prefer)[0]
        s0 = utc(last.year - 1, last.month)
        return s0, month_start(s0.year, s0.month, 3), Precision.MONTH
    if u == "week":
        return _week_from(ref.date() - timedelta(days=ref.weekday() + 14))
    if u == "weekend":
        return _weekend_from(last_weekend(ref) - timedelta(days=7))
    if u == "month":
        s0 = month_start(ref.year, ref.month, -2)
        return month_period(s0.year, s0.month)
    return year_period(ref.year - 2)


def _weekends_ago(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"two weekends ago": the Saturday of that weekend (the last one is one weekend ago)."""
    n = number(m["n"]) or 0
    return _weekend_from(last_weekend(ref) - timedelta(days=7 * (n - 1)))


def _day_of_month(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the 14th": that day of the reference month, else of the month before (or after)."""
    day = int(m["d"])
    y, mo = ref.year, ref.month
    if (day > ref.day and prefer != "future") or (day < ref.day and prefer == "future"):
        y, mo = add_months(y, mo, -1 if prefer != "future" else 1)
    try:
        return day_period(date(y, mo, day))
    except ValueError:
        return None


def _clock(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"at 3pm", "9:30", "noon": that time on the reference day (INSTANT)."""
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
    return ref.replace(hour=h, minute=mi, second=0, microsecond=0), None, Precision.INSTANT


def _year(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"2019", "the year 2019"."""
    return year_period(int(m["y"]))


def _month(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"March 2021", "last March", "in December"."""
    month = MONTHS[m["m"]]
    if m["y"]:
        return month_period(int(m["y"]), month)
    y, mm = pick_month(month, ref, m["q"], prefer)
    return month_period(y, mm)


def _month_rel_year(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"March of last year"."""
    y = ref.year + {"last": -1, "this": 0, "next": 1}[m["q"]]
    return month_period(y, MONTHS[m["m"]])


def _word(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """today, yesterday, tomorrow, last night, the weekend, earlier this week..."""
    w = m["w"]
    today = ref.date()
    if w in ("today", "tonight", "this morning", "this afternoon", "this evening",
             "earlier today"):
        return day_period(today)
    if w.startswith("yesterday") or w == "last night":
        return day_period(today - timedelta(days=1))
    if w.startswith("tomorrow"):
        return day_period(today + timedelta(days=1))
    if w == "the day before yesterday":
        return day_period(today - timedelta(days=2))
    if w == "the day after tomorrow":
        return day_period(today + timedelta(days=2))
    if w in ("over the weekend", "on the weekend", "the weekend", "this past weekend"):
        if today.weekday() >= 5 and w != "this past weekend":
            sat = today - timedelta(days=today.weekday() - 5)
        else:
            sat = last_weekend(ref)
        if prefer == "future" and w != "this past weekend" and today.weekday() < 5:
            sat = today + timedelta(days=5 - today.weekday())
        return _weekend_from(sat)
    if w == "this weekend":
        return _weekend_from(today + timedelta(days=5 - today.weekday()))
    if w == "earlier this week":
        return day_start(today - timedelta(days=today.weekday())), day_start(today), \
            Precision.DAY
    if w in ("earlier this month", "later this month"):
        return month_period(ref.year, ref.month)
    if w in ("earlier this year", "later this year"):
        return year_period(ref.year)
    if w.endswith(("the other day", "the other night")):
        # some day of the past week, not today: the period covers it, precision DAY as for
        # "last week" (the extractor dates an event over the whole period)
        return day_start(today - timedelta(days=7)), day_start(today), Precision.DAY
    return day_period(today - timedelta(days=7))  # "the other week"


def _ago(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"three days ago", "a couple of months back"."""
    n = number(m["n"])
    return unit_ago(n, m["u"], ref) if n is not None else None


def _from_now(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"in two weeks", "three days from now"."""
    n = number(m["n"])
    return unit_ago(n, m["u"], ref, sign=1) if n is not None else None


def _rel_unit(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """last/this/next year, month, week, weekend, decade."""
    q = m["q"].replace("the ", "")
    sign = -1 if q in ("last", "past", "previous") else (1 if q in ("next", "coming") else 0)
    u = m["u"]
    if u == "year":
        return year_period(ref.year + sign)
    if u == "decade":
        d0 = (ref.year // 10) * 10 + 10 * sign
        return utc(d0), utc(d0 + 10), Precision.YEAR
    if u == "month":
        s0 = month_start(ref.year, ref.month, sign)
        return month_period(s0.year, s0.month)
    if u == "week":
        return _week_from(ref.date() - timedelta(days=ref.weekday()) + timedelta(days=7 * sign))
    today = ref.date()  # the weekend
    if sign < 0:
        sat = last_weekend(ref)
    else:
        # the current or coming weekend; "next weekend" said Fri-Sun is the one after
        sat = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:
            sat = today - timedelta(days=1)
        if sign > 0 and today.weekday() >= 4:
            sat += timedelta(days=7)
    return _weekend_from(sat)


def _weekday(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"last Thursday", "on Saturday", "next Friday morning"."""
    return day_period(pick_weekday(WEEKDAYS[m["w"]], ref, m["q"], prefer))


def _season(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"last summer", "the winter of 2019"."""
    if m["y"]:
        s0 = season_start(int(m["y"]), m["s"])
        return s0, month_start(s0.year, s0.month, 3), Precision.MONTH
    return pick_season(m["s"], ref, m["q"], prefer)


def _season_rel_year(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the summer of last year"."""
    y = ref.year + {"last": -1, "this": 0, "next": 1}[m["q"]]
    s0 = season_start(y, m["s"])
    return s0, month_start(s0.year, s0.month, 3), Precision.MONTH


def _decade(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the 90s", "1980s" ("the 20s" is the 2020s)."""
    century = int(m["c"]) * 100 if m["c"] else (1900 if int(m["d"]) >= 3 else 2000)
    y0 = century + int(m["d"]) * 10
    return utc(y0), utc(y0 + 10), Precision.YEAR


def _decade_word(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the eighties"."""
    y0 = {"sixties": 1960, "seventies": 1970, "eighties": 1980, "nineties": 1990,
          "two thousands": 2000}[m["w"]]
    return utc(y0), utc(y0 + 10), Precision.YEAR


def _holiday_rule(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"last Christmas", "Thanksgiving 2021", "on Halloween"."""
    name = m["h"]
    hday: date | None
    if m["y"]:
        hday = holiday_date(name, int(m["y"]))
    else:
        this_year = holiday_date(name, ref.year)
        if this_year is None:
            return None
        q = m["q"]
        if q in ("last", "past", "previous"):
            hday = this_year if this_year < ref.date() else holiday_date(name, ref.year - 1)
        elif q in ("next", "coming", "upcoming"):
            hday = this_year if this_year > ref.date() else holiday_date(name, ref.year + 1)
        elif q == "this" or (prefer == "future" and this_year >= ref.date()):
            hday = this_year
        elif prefer == "future":
            hday = holiday_date(name, ref.year + 1)
        else:
            hday = this_year if this_year <= ref.date() else holiday_date(name, ref.year - 1)
    return day_period(hday) if hday else None


def _part_of(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"the beginning/middle/end of June / of 2020 / of the year" (MONTH)."""
    part, rest = m["p"], m["rest"]
    if rest in ("year", "the year"):
        return subrange_year(ref.year, part, True)
    if rest in ("month", "the month"):
        return subrange_month(ref.year, ref.month, part)
    return _part_of_period(part, rest, ref, prefer, of_form=True)


def _early(m: re.Match[str], ref: datetime, prefer: str) -> Core | None:
    """"early 2020" (YEAR), "late March" (MONTH)."""
    return _part_of_period(m["p"], m["rest"], ref, prefer, of_form=False)


def _part_of_period(part: str, rest: str, ref: datetime, prefer: str, of_form: bool
                    ) -> Core | None:
    """A part (early/mid/late, beginning/middle/end) of the year or month ``rest`` names."""
    inner = resolve_period(rest, ref, prefer)
    if inner is None:
        return None
    s0, _e0, p0 = inner
    if p0 is Precision.YEAR:
        return subrange_year(s0.year, part, of_form)
    if p0 is Precision.MONTH:
        return subrange_month(s0.year, s0.month, part)
    return None


Rule = Callable[[re.Match[str], datetime, str], Core | None]


Applies = Callable[[re.Match[str], str], bool]


def _always(m: re.Match[str], s: str) -> bool:
    return True


def _some_weekends(m: re.Match[str], s: str) -> bool:
    return bool(number(m["n"]))  # "0 weekends ago" is left to the other rules


def _the_day_of_month(m: re.Match[str], s: str) -> bool:
    return s.startswith("the ") and 1 <= int(m["d"]) <= 31  # "the 14th", not a bare "14"


def _clock_time(m: re.Match[str], s: str) -> bool:
    return bool(m["ap"] or m["mi"] or m["w"])  # "3pm", "9:30", "noon"; not a bare "3"


# The rule table, tried in order: the first pattern that matches (and that ``applies``) answers,
# None included (a matched but impossible expression is not handed on to the libraries).
_RULES: list[tuple[re.Pattern[str], Rule, Applies]] = [
    (_R_BEFORE_LAST, _before_last, _always),
    (_R_WEEKENDS_AGO, _weekends_ago, _some_weekends),
    (_R_DAY_OF_MONTH, _day_of_month, _the_day_of_month),
    (_R_CLOCK, _clock, _clock_time),
    (_R_YEAR, _year, _always),
    (_R_MONTH, _month, _always),
    (_R_MONTH_REL_YEAR, _month_rel_year, _always),
    (_R_WORD, _word, _always),
    (_R_AGO, _ago, _always),
    (_R_IN_FUTURE, _from_now, _always),
    (_R_FROM_NOW, _from_now, _always),
    (_R_REL_UNIT, _rel_unit, _always),
    (_R_WEEKDAY, _weekday, _always),
    (_R_WEEKDAY_ABBR, _weekday, _always),
    (_R_SEASON, _season, _always),
    (_R_SEASON_REL_YEAR, _season_rel_year, _always),
    (_R_DECADE, _decade, _always),
    (_R_DECADE_WORD, _decade_word, _always),
    (_R_HOLIDAY, _holiday_rule, _always),
    (_R_PART_OF, _part_of, _always),
    (_R_WEEKS_OF, _weeks_of, _always),
    (_R_EARLY, _early, _always),
]


def _rules(s: str, ref: datetime, prefer: str) -> Core | None:
    """The rule table's answer for a normalised expression (None: no rule, or unresolvable)."""
    for pattern, rule, applies in _RULES:
        m = pattern.match(s)
        if m and applies(m, s):
            return rule(m, ref, prefer)
    return None


def _strip_lead(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = _FILLER.sub("", s)
        s = _LEAD_PREP.sub("", s)
        s = re.sub(r"^(?:sometime|some time)\s+", "", s)
    return s


_R_BARE_DURATION = re.compile(rf"^(?:the\s+(?:past|last|next)\s+)?{NUM_RE}(?:\s+and a half)?\s+{UNIT_RE}$")


def resolve_period(s: str, ref: datetime, prefer: str) -> Core | None:
    s = _FILLER.sub("", s)
    if m := _R_IN_FUTURE.match(s):
        n = number(m["n"])
        return unit_ago(n, m["u"], ref, sign=1) if n is not None else None
    s = _strip_lead(s)
    if _R_BARE_DURATION.match(s):
        return None  # "six years" alone is a duration, not a time
    if not s or s in VAGUE:
        return None
    hit = _rules(s, ref, prefer)
    if hit is not None:
        return hit
    if not re.search(
        r"\d|" + MONTH_RE + r"|" + WEEKDAY_RE + r"|ago|yesterday|tomorrow|today|tonight|week|"
        r"month|year|day|noon|midnight|morning|evening|afternoon|night",
        s,
    ):
        return None
    hit = with_dateparser(s, ref, prefer)
    if hit is None:
        hit = with_parsedatetime(s, ref, prefer)
    if hit is None:
        return None
    start = hit[0]
    if not (1800 <= start.year <= ref.year + 100):
        return None
    return hit
