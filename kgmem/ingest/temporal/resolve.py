""":func:`resolve_time`: one expression -> :class:`ResolvedTime`, with the relational forms
around a period (``since X``, ``until X``, ``for N years``, ``from X to Y``); a period outside
the years 1-9999 is left unresolved."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from kgmem.timeutil import Precision, to_utc

from .periods import NUM_RE, UNIT_RE, VAGUE, day_start, number, unit_ago
from .rules import resolve_period


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


# words that make an expression recurring or a duration/age rather than a point in time
_REJECT = re.compile(
    r"\b(?:every|each|per|daily|weekly|monthly|yearly|annually|old|long|times|hours? a|"
    r"weekends(?! ago)|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
)


_SUFFIX_NOISE = re.compile(r"\s+(?:or so|or something|ish|give or take)$")


_R_DURATION = re.compile(
    rf"^for\s+(?:the\s+(?:past|last)\s+)?(?P<n>{NUM_RE})?(?:\s+and a half)?\s*(?P<u>{UNIT_RE})$"
)


_R_RANGE = re.compile(
    r"^(?:from|between)\s+(?P<a>.+?)\s+(?:to|until|till|through|thru|and)\s+(?P<b>.+)$"
)


_R_YEAR_RANGE = re.compile(r"^(?P<a>1[89]\d\d|20\d\d)\s*[-–]\s*(?P<b>1[89]\d\d|20\d\d|\d\d)$")


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


# "since we last talked", "since our last chat", "since last time": the previous sitting
SINCE_LAST_TALK = (
    r"since\s+(?:(?:we|i|you)\s+(?:last\s+)?(?:talked|spoke|chatted|caught\s+up|met|saw\s+each"
    r"\s+other|spoke\s+to\s+you|talked\s+to\s+you)(?:\s+last)?(?:\s+time)?"
    r"|(?:our|the)\s+last\s+(?:chat|talk|conversation|call|catch[\s-]?up|time)"
    r"|the\s+last\s+time\s+we\s+(?:talked|spoke|chatted|met)|last\s+time)"
)


_R_SINCE_LAST_TALK = re.compile(rf"^{SINCE_LAST_TALK}$")


def _since_last_sitting(ref: datetime, last_sitting: datetime | None) -> tuple | None:
    """The days from the previous sitting through the day of ``ref``: what happened "since we
    last talked" happened then (``None`` when the previous sitting is not known)."""
    if last_sitting is None or last_sitting >= ref:
        return None
    end = day_start(ref.date()) + timedelta(days=1)
    return day_start(last_sitting.date()), end, Precision.DAY, "at", None


@lru_cache(maxsize=8192)
def _resolve_cached(norm: str, ref: datetime, prefer: str,
                    last_sitting: datetime | None = None) -> tuple | None:
    s = norm
    if not s or _REJECT.search(s):
        return None
    if s in VAGUE:
        return None
    if _R_SINCE_LAST_TALK.match(s):
        return _since_last_sitting(ref, last_sitting)
    relation = "at"
    m = re.match(r"^(?:ever since|since|starting|starting from|from|beginning|as of)\s+(?P<x>.+)$", s)
    r = _R_RANGE.match(s) or _R_YEAR_RANGE.match(s)
    if r:
        a, b = r["a"], r["b"]
        if len(b) == 2 and b.isdigit() and len(a) == 4:
            b = a[:2] + b
        ca = resolve_period(a, ref, prefer)
        cb = resolve_period(b, ref, prefer)
        if ca and cb and cb[0] >= ca[0]:
            return ca[0], cb[0], ca[2], "range", cb[2]
        return None
    if m:
        inner = resolve_period(m["x"], ref, prefer)
        if inner is None:
            return None
        return inner[0], None, inner[2], "since", None
    m = re.match(r"^(?:until|till|til|up until|up to|through|thru)\s+(?P<x>.+)$", s)
    if m:
        inner = resolve_period(m["x"], ref, prefer)
        if inner is None:
            return None
        return inner[0], inner[1], inner[2], "until", None
    if s.startswith("for "):
        s = re.sub(
            r"^for\s+(?:about|around|almost|nearly|over|roughly|approximately|like|just|only)\s+",
            "for ",
            s,
        )
        s = re.sub(r"\s+(?:now|already|so far)$", "", s)  # "for 3 years now"
    m = _R_DURATION.match(s) if s.startswith("for ") else None
    if m and not m["n"] and m["u"].endswith("s"):
        return None  # "for years": how many is not said
    if m:
        n = number(m["n"]) if m["n"] else 1
        if n is None:
            return None
        hit = unit_ago(n, m["u"], ref)
        if hit is None:
            return None
        return hit[0], None, hit[2], "since", None
    if s.startswith("for "):
        return None  # other durations ("for a while") carry no start
    hit = resolve_period(s, ref, prefer)
    if hit is None:
        return None
    return hit[0], hit[1], hit[2], relation, None


def resolve_time(
    expr: str, reference_time: datetime, prefer: str = "past",
    last_sitting: datetime | None = None,
) -> ResolvedTime | None:
    """Resolve one temporal expression relative to ``reference_time`` (naive = UTC).

    ``prefer`` ("past" or "future") disambiguates expressions without a direction
    ("in December", "on Saturday"). ``last_sitting`` is when the previous conversation with
    the same people took place: "since we last talked" is the days from then through the
    reference day (``None``: unresolved). Returns ``None`` for text that is not a resolvable
    point or period in time (vague words, recurring expressions, ages, bare durations).
    """
    if not isinstance(expr, str) or not expr.strip():
        return None
    if isinstance(reference_time, str):
        from kgmem.timeutil import parse_instant

        reference_time = parse_instant(reference_time, "reference_time")
    ref = to_utc(reference_time)
    norm = _normalise(expr)
    last = to_utc(last_sitting) if last_sitting is not None else None
    try:
        hit = _resolve_cached(norm, ref, "future" if prefer == "future" else "past", last)
    except (OverflowError, ValueError):
        # the period falls outside the supported range (years 1-9999: "yesterday" said on
        # 0001-01-01, "next year" in 9999) or names no calendar day: not a resolvable time
        return None
    if hit is None:
        return None
    start, end, precision, relation, end_precision = hit
    return ResolvedTime(start, end, precision, expr.strip(), relation, end_precision)
