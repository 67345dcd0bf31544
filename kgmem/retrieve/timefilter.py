"""Times mentioned in a query ("what did we discuss on May 8th", "last Tuesday", "in 2022",
"167 days ago", "in our third session"), resolved relative to the asking time.

:func:`parse_query_time` returns a :class:`QueryTime`: the window the query points at (or a
session reference, resolved later against the stored episodes), whether it is a **hard**
filter, and the query text with the time expression removed (what is left to match on
content).

Policy:

* A specific day or a span of days of any length ("May 8th", "last Friday", "between May 8th
  and June 9th",
  "over the last 3 days", "this last week", "yesterday", "earlier today", "167 days ago") and
  session references ("our first session", "3 sessions ago", "sessions 1 through 3") are
  **hard** filters on episodes: only episodes said in the window (or mentioning a time inside
  it, e.g. "yesterday" said the day after) are returned.
* Broader periods (a month, a season, a year, "5 months ago", "last month") **boost** episodes
  in the window (and by proximity around it) instead of excluding the rest: "in 2022" in a
  question often names the time of an event, not of the conversation.
* "the last N days/weeks", "this/the last/past/previous week" are rolling windows ending at the
  asking time (N days back from the start of the asking day); a bare "last week" is the
  previous calendar week (as in :mod:`kgmem.ingest.temporal`).
* "N days ago" is loose: the calendar day N days before the asking day **or** the 24 hours
  that ended N days before the asking moment (people and datasets use both); episodes of the
  calendar day rank first.
* A weekday ("last Saturday", "on Friday") on which nothing was said falls back to the same
  weekday of the weeks before (up to 4), the latest one with episodes.
* Ambiguous bare month/day names resolve to the most recent such period at or before the
  asking time ("May 8th" asked in October 2023 is 2023-05-08).
* A relative time next to a dated day is read from that day, not from the asking time ("last
  weekend before April 10, 2023", "last Friday on 23 January, 2022", "last week, as mentioned
  on November 6, 2023"): the window spans the relative period and the day, the day first.
* Parts of a month are days of that month, not rolling windows: "the last week of August
  2023" (its last 7 days), "the first two weeks of May", "the 2nd week of June".
* A question about an event also admits the week after a named day (:func:`event_reading`).
* A hard window in which nothing was said (or mentioned) does not empty a question that has
  content: the search ranks by content with the time as a boost
  (:func:`kgmem.retrieve.search.run_search`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np

from ..ingest.temporal import ResolvedTime, find_time_expressions, resolve_time
from ..timeutil import MAX_INSTANT, MIN_INSTANT, UTC, Precision, shift, to_utc

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_CARDINALS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "a couple of": 2,
    "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}
_ORD_WORD = (
    r"(?:(?:twenty|thirty)[\s-](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)"
    r"|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"thirtieth)"
)
_NUM_WORD = (
    r"(?:\d{1,4}|a couple of|a couple|couple of|a few|few|several|an|a|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|thirty|forty|fifty)"
)
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_SESSION = r"(?:sessions?|discussions?|conversations?|chats?|meetings?)"
_ORD_NUM = r"(\d{1,3})(?:st|nd|rd|th)"

_RE_ORD_WORD = re.compile(rf"\b{_ORD_WORD}\b", re.I)
_RE_S_RANGE = re.compile(
    rf"\b(?:(?:over|from|in|during|between|across)\s+)?(?:the\s+|our\s+)?{_SESSION}\s+"
    r"(\d{1,3})\s*(?:through|thru|to|and|until|till|-|–)\s*(\d{1,3})\b",
    re.I,
)
_RE_S_RANGE_ORD = re.compile(
    rf"\b(?:(?:over|from|in|during|between|across)\s+)?(?:the\s+|our\s+)?{_ORD_NUM}\s+"
    rf"(?:through|thru|to|and|until|till|-)\s+(?:the\s+)?{_ORD_NUM}\s+{_SESSION}\b",
    re.I,
)
_RE_S_AGO = re.compile(rf"\b({_NUM_WORD})\s+{_SESSION}\s+(?:ago|back|before)\b", re.I)
_RE_S_ORD = re.compile(
    rf"\b(?:(?:in|during|from|at)\s+)?(?:our|the|my)\s+(?:very\s+)?{_ORD_NUM}\s+{_SESSION}\b",
    re.I,
)
_RE_S_LAST = re.compile(
    rf"\b(?:(?:in|during|from|at)\s+)?(?:(?:our|the|my)\s+)?(?:last|previous|latest|"
    rf"most recent|prior)\s+(?:{_SESSION}|time)\b",
    re.I,
)
_RE_S_BEFORE_LAST = re.compile(
    rf"\b(?:the\s+)?(?:{_SESSION}|time|one)\s+before\s+(?:the\s+)?(?:last|previous)"
    rf"(?:\s+(?:one|{_SESSION}|time))?\b"
    rf"|\bnot\s+(?:the|our)\s+(?:last|previous|latest)\s+{_SESSION}\s*,?\s+but\s+the\s+"
    rf"(?:one|{_SESSION})\s+before(?:\s+(?:that|it))?\b",
    re.I,
)
_RE_S_NUM = re.compile(rf"\b(?:in\s+|during\s+)?{_SESSION}\s+(?:number\s+|no\.?\s*|#)?(\d{{1,3}})\b", re.I)

_RE_LAST_N = re.compile(
    rf"\b(?:(?:over|in|during|for|within|from)\s+)?(?:the\s+|these\s+)?(?:last|past|previous)\s+"
    rf"({_NUM_WORD})\s+(days?|weeks?|months?|years?)\b(?!\s+of\b)",
    re.I,
)
_RE_ROLLING_WEEK = re.compile(
    r"\b(?:(?:over|in|during|for|within|from)\s+)?(?:this|the)\s+(?:last|past|previous)\s+"
    r"(week|month|year)\b(?!\s+of\b)",
    re.I,
)
_RE_EARLIER = re.compile(
    r"\b(?:earlier|before)\s+(?:today|this\s+morning|this\s+afternoon|this\s+evening|"
    r"in\s+the\s+(?:morning|day))\b|\bthis\s+morning\b|\bearlier\s+in\s+the\s+morning\b",
    re.I,
)
_RE_IN_MONTH = re.compile(
    rf"\b(?:in|during|throughout|of|over)\s+(?:the\s+month\s+of\s+)?({_MONTH})\b(?:,?\s+((?:19|20)\d\d))?",
    re.I,
)
_RE_CONNECT = re.compile(r"^\s*(?:,\s*)?(?:and|to|until|till|through|thru|-|–|—)\s*$", re.I)
_RE_RANGE_LEAD = re.compile(r"(?:\b(?:between|from|over)\s*)$", re.I)


@dataclass(frozen=True)
class SessionRef:
    """A reference to conversation sessions, resolved against the stored episodes.

    ``first``/``last`` are 1-based session numbers (inclusive); ``ago`` counts back from the
    most recent session (1 = the latest one).
    """

    text: str
    first: int | None = None
    last: int | None = None
    ago: int | None = None


@dataclass(frozen=True)
class QueryTime:
    """What the query says about time."""

    text: str  # the expression as found in the query
    start: datetime | None = None  # closed-open window (None for an unresolved session ref)
    end: datetime | None = None
    precision: Precision = Precision.DAY
    hard: bool = False
    session: SessionRef | None = None
    # the strict reading inside a deliberately loose window ("N days ago": the calendar day)
    core: tuple[datetime, datetime] | None = None
    # windows to fall back to, in order, when nothing was said in the window itself
    # ("last Saturday" when we did not talk that Saturday: the Saturday before, ...)
    alternatives: tuple[tuple[datetime, datetime], ...] = ()

    @property
    def window(self) -> tuple[datetime, datetime] | None:
        if self.start is None or self.end is None:
            return None
        return self.start, self.end


@dataclass
class ParsedQuery:
    query: str
    time: QueryTime | None = None
    content: str = ""  # the query with the time expression removed
    spans: list[tuple[int, int]] = field(default_factory=list)


def _ordinal_value(word: str) -> int:
    w = word.lower().replace("-", " ")
    parts = w.split()
    if len(parts) == 2:
        return _TENS[parts[0]] + _ORDINALS[parts[1]]
    return _ORDINALS[w]


def _suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def normalise_ordinals(text: str) -> str:
    """'May eighth' -> 'May 8th', 'our first session' -> 'our 1st session' (lengths change)."""

    def rep(m: re.Match[str]) -> str:
        n = _ordinal_value(m.group(0))
        return f"{n}{_suffix(n)}"

    return _RE_ORD_WORD.sub(rep, text)


def _cardinal(word: str) -> int | None:
    w = word.lower().strip()
    if w.isdigit():
        return int(w)
    return _CARDINALS.get(w)


# Window arithmetic saturates at the supported range (kgmem.timeutil): "the last 3 days"
# asked on 0001-01-02 starts at the first representable instant instead of overflowing.
_TICK, _HOUR, _DAY, _WEEK = (timedelta(microseconds=1), timedelta(hours=1), timedelta(days=1),
                             timedelta(weeks=1))
_SPAN_DAYS = (MAX_INSTANT - MIN_INSTANT).days


def _days_before(t: datetime, n: int) -> datetime:
    return shift(t, -timedelta(days=min(n, _SPAN_DAYS)))


def _day_start(t: datetime) -> datetime:
    return datetime(t.year, t.month, t.day, tzinfo=UTC)


def _is_hard(start: datetime, end: datetime, precision: Precision) -> bool:
    """Day-precise windows (a date, a span of dates, the last N days/weeks) filter hard."""
    return precision in (Precision.DAY, Precision.INSTANT)


# A question about an event names the day it happened; people tell of it then or in the days
# after ("I just got accepted!" four days later). A question about the conversation ("what did
# we discuss on May 8th", "what did Ana say on ...") names the day it was said.
EVENT_MENTION_LAG = timedelta(days=7)
_ABOUT_CONVERSATION = re.compile(
    r"\b(?:we|us|our|discuss\w*|chat\w*|talk\w*|tell|told|say|said|says|mention\w*|"
    r"conversations?|sessions?|spoke|speak\w*)\b",
    re.IGNORECASE,
)


def event_reading(query: str, qt: QueryTime | None) -> QueryTime | None:
    """``qt`` as the time of an event when ``query`` asks about one rather than about the
    conversation: a hard day-precise window then also admits episodes said up to
    ``EVENT_MENTION_LAG`` after it, the named days ranking first (``core``). Other readings
    are returned unchanged."""
    if (qt is None or not qt.hard or qt.session is not None or qt.start is None
            or qt.end is None or qt.precision is not Precision.DAY
            or _ABOUT_CONVERSATION.search(query)):
        return qt
    return replace(qt, end=shift(qt.end, EVENT_MENTION_LAG), core=qt.core or (qt.start, qt.end))


def _from_resolved(r: ResolvedTime, ref: datetime, text: str) -> QueryTime | None:
    start, end, p = r.start, r.end, r.precision
    if r.relation == "since":
        end = max(ref, shift(start, _TICK))
        return QueryTime(text, start, end, p, hard=_is_hard(start, end, p))
    if r.relation == "until":
        return QueryTime(text, MIN_INSTANT, start, p, hard=False)
    if end is None:  # an instant ("at 3pm", "2 hours ago"): an hour either side
        return QueryTime(text, shift(start, -_HOUR), shift(start, _HOUR),
                         Precision.INSTANT, hard=True)
    return QueryTime(text, start, end, p, hard=_is_hard(start, end, p))


def parse_query_time(query: str, reference_time: datetime) -> ParsedQuery:
    """Find the (first, most specific) time reference in ``query`` relative to
    ``reference_time`` (the asking time). Never raises on odd text."""
    ref = to_utc(reference_time)
    text = normalise_ordinals(query)
    out = ParsedQuery(query=query, content=text)
    found = _find(text, ref)
    if found is None:
        return out
    qt, spans = found
    out.time = qt
    out.spans = spans
    pieces, pos = [], 0
    for a, b in sorted(spans):
        pieces.append(text[pos:a])
        pos = b
    pieces.append(text[pos:])
    out.content = re.sub(r"\s+", " ", " ".join(pieces)).strip(" ,.;:?!")
    return out


_RE_YEAR_IN = re.compile(r"\b(?:19|20)\d\d\b")


def _find(text: str, ref: datetime) -> tuple[QueryTime, list[tuple[int, int]]] | None:
    return _anchored(text, ref) or _find_plain(text, ref)


def _anchored(text: str, ref: datetime) -> tuple[QueryTime, list[tuple[int, int]]] | None:
    """A relative time next to a dated day ("last weekend before April 10, 2023", "last Friday
    on 23 January, 2022", "last week, as mentioned on November 6, 2023") is read relative to
    that day, not to the asking time. The window spans both (the relative period and the day,
    which is often when it was said); the dated day ranks first (``core``)."""
    if not _RE_YEAR_IN.search(text):
        return None
    try:
        mentions = find_time_expressions(text, ref, nlp=False)
    except Exception:  # a resolver hiccup must not fail a search
        return None
    days = [
        x for x in mentions
        if x[3].relation == "at" and x[3].precision is Precision.DAY and x[3].end is not None
        and x[3].end - x[3].start == timedelta(days=1) and _RE_YEAR_IN.search(x[0])
    ]
    if len(days) != 1:
        return None
    _, a, b, day = days[0]
    assert day.end is not None
    inner = _find_plain(text[:a] + " " * (b - a) + text[b:], shift(day.start, 12 * _HOUR))
    if inner is None:
        return None
    qt, spans = inner
    if qt.session is not None or qt.window is None or not qt.hard:
        return None
    assert qt.start is not None and qt.end is not None
    spans = sorted([*spans, (a, b)])
    return QueryTime(
        text[spans[0][0]:spans[-1][1]], min(qt.start, day.start), max(qt.end, day.end),
        Precision.DAY, hard=True, core=(day.start, day.end),
    ), spans


def _find_plain(text: str, ref: datetime) -> tuple[QueryTime, list[tuple[int, int]]] | None:
    # 1. sessions
    if m := _RE_S_RANGE.search(text) or _RE_S_RANGE_ORD.search(text):
        a, b = int(m.group(1)), int(m.group(2))
        if a > b:
            a, b = b, a
        return QueryTime(m.group(0), hard=True, session=SessionRef(m.group(0), a, b)), [m.span()]
    if m := _RE_S_AGO.search(text):
        n = _cardinal(m.group(1))
        if n:
            return QueryTime(m.group(0), hard=True, session=SessionRef(m.group(0), ago=n)), [
                m.span()
            ]
    if m := _RE_S_ORD.search(text) or _RE_S_NUM.search(text):
        n = int(m.group(1))
        return QueryTime(m.group(0), hard=True, session=SessionRef(m.group(0), n, n)), [m.span()]
    if m := _RE_S_BEFORE_LAST.search(text):
        return QueryTime(m.group(0), hard=True, session=SessionRef(m.group(0), ago=2)), [m.span()]
    if m := _RE_S_LAST.search(text):
        return QueryTime(m.group(0), hard=True, session=SessionRef(m.group(0), ago=1)), [m.span()]
    # 2. rolling windows ending now
    today = _day_start(ref)
    if m := _RE_LAST_N.search(text):
        n = _cardinal(m.group(1))
        unit = m.group(2).lower().rstrip("s")
        if n:
            if unit == "day":
                start, p = _days_before(today, n), Precision.DAY
            elif unit == "week":
                start, p = _days_before(today, 7 * n), Precision.DAY
            elif unit == "month":
                start, p = _days_before(today, 30 * n), Precision.MONTH
            else:
                start, p = _days_before(today, 365 * n), Precision.YEAR
            end = shift(ref, _TICK)
            return QueryTime(m.group(0), start, end, p, hard=_is_hard(start, end, p)), [m.span()]
    if m := _RE_ROLLING_WEEK.search(text):
        unit = m.group(1).lower()
        days = {"week": 7, "month": 30, "year": 365}[unit]
        p = {"week": Precision.DAY, "month": Precision.MONTH, "year": Precision.YEAR}[unit]
        start, end = _days_before(today, days), shift(ref, _TICK)
        return QueryTime(m.group(0), start, end, p, hard=_is_hard(start, end, p)), [m.span()]
    if m := _RE_EARLIER.search(text):
        start, end = today, shift(ref, _TICK)
        return QueryTime(m.group(0), start, end, Precision.DAY, hard=True), [m.span()]
    # 3. dates found by the shared resolver (regex pass only: fast, no spaCy)
    mentions: list[tuple[str, int, int, ResolvedTime]] = []
    try:
        mentions = list(find_time_expressions(text, ref, nlp=False))
    except Exception:  # a resolver hiccup must not fail a search
        mentions = []
    for m2 in _RE_IN_MONTH.finditer(text):
        a0, b0 = m2.span()
        inside = [x for x in mentions if a0 <= x[1] and x[2] <= b0]
        if any(x[1] < b0 and a0 < x[2] for x in mentions if x not in inside):
            continue
        if inside and max(x[2] - x[1] for x in inside) >= b0 - a0:
            continue
        mentions = [x for x in mentions if x not in inside]
        expr = m2.group(1) + (f" {m2.group(2)}" if m2.group(2) else "")
        r = resolve_time(expr, ref)
        if r is not None:
            mentions.append((m2.group(0), m2.start(), m2.end(), r))
    mentions.sort(key=lambda x: x[1])
    if not mentions:
        return None
    # a range "between X and Y" / "from X to Y" / "X through Y"
    for (t1, a1, b1, r1), (t2, a2, b2, r2) in zip(mentions, mentions[1:]):
        if (
            _RE_CONNECT.match(text[b1:a2])
            and r1.relation in ("at", "since")
            and r2.relation == "at"
        ):
            end2 = r2.end or shift(r2.start, _DAY)
            if end2 <= r1.start:
                continue
            p = max(r1.precision, r2.precision, key=_coarseness)
            lead = _RE_RANGE_LEAD.search(text[:a1])
            s0 = lead.start() if lead else a1
            rng = QueryTime(text[s0:b2], r1.start, end2, p, hard=_is_hard(r1.start, end2, p))
            return rng, [(s0, b2)]
    # else the most specific mention (ties: the first)
    best = min(mentions, key=lambda x: (-_specificity(x[3]), x[1]))
    qt = _from_resolved(best[3], ref, best[0])
    if qt is None:
        return None
    q0, q1 = qt.start, qt.end
    if qt.precision is Precision.DAY and q0 is not None and q1 is not None:
        span = q1 - q0
        if (ago := _RE_DAYS_AGO.search(best[0])) and span == timedelta(days=1):
            n = int(_cardinal(ago.group(1)) or 0)
            loose0 = min(q0, _days_before(ref, n + 1))
            loose1 = max(q1, _days_before(ref, n))
            qt = replace(qt, start=loose0, end=loose1, core=(q0, q1))
        elif _RE_WEEKDAY.search(best[0]) and span == timedelta(days=1):
            alts = tuple(
                (shift(q0, -w * _WEEK), shift(q1, -w * _WEEK)) for w in range(1, 5)
            )
            qt = replace(qt, alternatives=alts)
    return qt, [(best[1], best[2])]


_RE_DAYS_AGO = re.compile(rf"\b({_NUM_WORD})\s+days?\s+(?:ago|back)\b", re.I)
_RE_WEEKDAY = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I
)


_RANK = {Precision.YEAR: 0, Precision.MONTH: 1, Precision.DAY: 2, Precision.INSTANT: 3}


def _coarseness(p: Precision) -> int:
    return -_RANK[p]


def _specificity(r: ResolvedTime) -> int:
    return _RANK[r.precision]


def session_bounds(times_micros: list[int], gap: timedelta) -> list[tuple[int, int]]:
    """Sessions as ``(first, last)`` reference times (epoch micros) of runs of episodes whose
    sorted reference times ``times_micros`` are at most ``gap`` apart."""
    if not times_micros:
        return []
    t = np.asarray(times_micros, dtype=np.int64)
    cut = np.flatnonzero(np.diff(t) > int(gap.total_seconds() * 1_000_000))
    firsts = t[np.concatenate(([0], cut + 1))].tolist()
    lasts = t[np.concatenate((cut, [len(t) - 1]))].tolist()
    return list(zip(firsts, lasts))


def session_window(
    ref: SessionRef, times_micros: list[int], gap: timedelta
) -> tuple[datetime, datetime] | None:
    """The window of the referenced sessions, sessions being runs of episodes whose reference
    times are at most ``gap`` apart. ``None`` when the sessions do not exist."""
    from ..timeutil import from_micros

    sessions = session_bounds(times_micros, gap)
    if not sessions:
        return None
    n = len(sessions)
    if ref.ago is not None:
        i = n - ref.ago
        if not 0 <= i < n:
            return None
        first = last = i
    else:
        assert ref.first is not None and ref.last is not None
        first, last = ref.first - 1, min(ref.last, n) - 1
        if not 0 <= first < n or last < first:
            return None
    return from_micros(sessions[first][0]), shift(from_micros(sessions[last][1]), _TICK)
