"""Calendar periods and the words of time: month, weekday, season and number words; the
periods of a year, month or day; "March", "summer", "Thursday", a holiday picked relative to a
reference time (last / this / next / past or future preference); N units ago."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from kgmem.timeutil import UTC, Precision

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}


MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)


WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}


WEEKDAY_RE = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"


SEASONS = {"winter": 12, "spring": 3, "summer": 6, "fall": 9, "autumn": 9}


SEASON_RE = r"(?:winter|spring|summer|fall|autumn)"


_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "a couple": 2, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
    "a dozen": 12,
}


NUM_RE = (
    r"(?:\d{1,3}|a couple(?: of)?|couple of|a few|few|several|a dozen|an|a|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|thirty|forty|fifty)"
)


UNIT_RE = r"(?:years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|decades?)"


VAGUE = {
    "recently", "lately", "a while ago", "a while back", "a long time ago", "ages ago", "someday",
    "some day", "one day", "these days", "nowadays", "now", "right now",
    "currently", "at the moment", "always", "forever", "soon", "once", "sometimes", "often",
    "back then", "then", "later", "earlier", "before", "previously", "at some point",
    "a long while ago", "long ago", "in the past", "in the future", "the past", "the future",
}


def utc(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def add_months(y: int, m: int, n: int) -> tuple[int, int]:
    idx = y * 12 + (m - 1) + n
    return idx // 12, idx % 12 + 1


def month_start(y: int, m: int, n: int = 0) -> datetime:
    yy, mm = add_months(y, m, n)
    return utc(yy, mm)


def day_start(value: date) -> datetime:
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def number(text: str) -> int | None:
    text = text.strip()
    if text.isdigit():
        return int(text)
    return _NUMBERS.get(text)


Core = tuple[datetime, datetime | None, Precision]


def year_period(y: int) -> Core:
    return utc(y), utc(y + 1), Precision.YEAR


def month_period(y: int, m: int) -> Core:
    return utc(y, m), month_start(y, m, 1), Precision.MONTH


def day_period(value: date) -> Core:
    s = day_start(value)
    return s, s + timedelta(days=1), Precision.DAY


def pick_month(month: int, ref: datetime, qualifier: str | None, prefer: str) -> tuple[int, int]:
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


def season_start(year: int, season: str) -> datetime:
    return utc(year, SEASONS[season])


def pick_season(season: str, ref: datetime, qualifier: str | None, prefer: str) -> Core:
    """Season periods. Winter starts in December and is labelled by that year."""
    m0 = SEASONS[season]
    # candidate starts around the reference time
    cands = [utc(y, m0) for y in (ref.year - 2, ref.year - 1, ref.year, ref.year + 1)]
    periods = [(s, month_start(s.year, s.month, 3)) for s in cands]
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


def pick_weekday(wd: int, ref: datetime, qualifier: str | None, prefer: str) -> date:
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


def last_weekend(ref: datetime) -> date:
    today = ref.date()
    sat = today - timedelta(days=(today.weekday() - 5) % 7)
    while sat + timedelta(days=1) >= today:  # the weekend must be over
        sat -= timedelta(days=7)
    return sat


def subrange_month(y: int, m: int, part: str) -> Core:
    if part in ("beginning", "start", "early", "first part"):
        return utc(y, m, 1), utc(y, m, 11), Precision.MONTH
    if part in ("middle", "mid"):
        return utc(y, m, 11), utc(y, m, 21), Precision.MONTH
    return utc(y, m, 21), month_start(y, m, 1), Precision.MONTH


def subrange_year(y: int, part: str, of_form: bool) -> Core:
    """early/mid/late YEAR -> YEAR precision; the beginning/middle/end of YEAR -> MONTH."""
    if of_form:
        if part in ("beginning", "start"):
            return utc(y, 1), utc(y, 2), Precision.MONTH
        if part == "middle":
            return utc(y, 6), utc(y, 8), Precision.MONTH
        return utc(y, 12), utc(y + 1, 1), Precision.MONTH
    if part == "early":
        return utc(y, 1), utc(y, 5), Precision.YEAR
    if part in ("mid", "middle"):
        return utc(y, 5), utc(y, 9), Precision.YEAR
    return utc(y, 9), utc(y + 1, 1), Precision.YEAR


def holiday_date(name: str, year: int) -> date | None:
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


HOLIDAY_RE = (
    r"(?:christmas eve|christmas day|christmas|xmas|new year's eve|new years eve|new year's day|"
    r"new years day|new year's|new years|new year|halloween|valentine's day|valentines day|"
    r"thanksgiving day|thanksgiving|independence day|the fourth of july|fourth of july)"
)


def unit_ago(n: int, unit: str, ref: datetime, sign: int = -1) -> Core | None:
    u = unit.rstrip("s")
    if u in ("year", "yr"):
        return year_period(ref.year + sign * n)
    if u == "decade":
        return year_period(ref.year + sign * 10 * n)
    if u == "month":
        s = month_start(ref.year, ref.month, sign * n)
        return month_period(s.year, s.month)
    if u == "week":
        return day_period(ref.date() + timedelta(days=sign * 7 * n))
    if u == "day":
        return day_period(ref.date() + timedelta(days=sign * n))
    if u in ("hour", "hr"):
        t = ref + timedelta(hours=sign * n)
        return t, None, Precision.INSTANT
    if u in ("minute", "min"):
        t = ref + timedelta(minutes=sign * n)
        return t, None, Precision.INSTANT
    return None


def floor_period(value: datetime, p: Precision) -> Core:
    if p is Precision.YEAR:
        return year_period(value.year)
    if p is Precision.MONTH:
        return month_period(value.year, value.month)
    if p is Precision.DAY:
        return day_period(value.date())
    return value, None, Precision.INSTANT
