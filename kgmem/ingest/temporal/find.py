""":func:`find_time_expressions`: the time expressions of a text (spaCy DATE/TIME entities
extended left over since/until/from/for, then a regex pass for what the model missed), each
resolved against the reference time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .periods import MONTH_RE, NUM_RE, SEASON_RE, UNIT_RE, WEEKDAY_RE
from .resolve import SINCE_LAST_TALK, ResolvedTime, resolve_time
from .rules import WEEKDAY_ABBR_RE

TimeMention = tuple[str, int, int, ResolvedTime]


_NUMW = NUM_RE


_FIND_RE = re.compile(
    r"(?<![\w-])(?:"
    rf"{SINCE_LAST_TALK}|"
    # relational/compound prefixes are captured as part of the expression
    r"(?:(?:ever since|since|until|till|from|starting)\s+)?"
    r"(?:"
    rf"(?:the\s+)?(?:first|second|third|fourth|1st|2nd|3rd|4th|last|final)\s+(?:{_NUMW}\s+)?(?:weeks?|days?)\s+of\s+"
    rf"(?:(?:last|this|next)\s+month|the\s+month|{MONTH_RE}(?:,?\s+(?:1[89]|20)\d\d)?)"
    rf"|(?:the\s+)?(?:beginning|start|middle|end)\s+of\s+(?:(?:last|this|next)\s+(?:year|month)|the\s+(?:year|month)|{MONTH_RE}(?:\s+(?:1[89]|20)\d\d)?|(?:1[89]|20)\d\d)"
    rf"|(?:early|mid|late)[\s-]+(?:(?:1[89]|20)\d\d|{MONTH_RE}|(?:last|this|next)\s+(?:year|month))"
    rf"|(?:last|this|next|past|coming)\s+(?:{MONTH_RE}|{WEEKDAY_RE}|{SEASON_RE}|year|month|week|weekend|decade)\b"
    rf"|(?:last|next|past|coming)\s+{WEEKDAY_ABBR_RE}\b\.?"
    r"|(?:just\s+)?the\s+other\s+(?:day|night)"
    rf"|(?:the\s+)?(?:{SEASON_RE})\s+(?:of\s+)?(?:(?:1[89]|20)\d\d|(?:last|this|next)\s+year)"
    rf"|{_NUMW}(?:\s+and a half)?\s+{UNIT_RE}\s+(?:ago|back)"
    rf"|in\s+{_NUMW}\s+{UNIT_RE}"
    rf"|for\s+(?:the\s+(?:past|last)\s+)?{_NUMW}(?:\s+and a half)?\s+(?:years?|months?|weeks?|days?|decades?)"
    r"|(?:the\s+day\s+before\s+)?yesterday|the\s+day\s+after\s+tomorrow|tomorrow|today|tonight"
    r"|this\s+(?:morning|afternoon|evening)|last\s+night"
    r"|(?:over|on)\s+the\s+weekend"
    rf"|(?:{MONTH_RE})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:1[89]|20)\d\d)?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTH_RE})(?:,?\s+(?:1[89]|20)\d\d)?"
    rf"|(?:{MONTH_RE})\.?,?\s+(?:1[89]|20)\d\d"
    rf"|(?:in|since|during|by|until|last|this|next|early|late)\s+(?:{MONTH_RE})\b"
    rf"|(?:on\s+)(?:{WEEKDAY_RE})"
    r"|\d{4}-\d{2}-\d{2}"
    r"|(?:in|since|during|by|until|around|circa|back in)\s+(?:(?:1[89]|20)\d\d)"
    r"|(?:19|20)\d\d\s*[-–]\s*(?:(?:19|20)?\d\d)"
    rf"|(?:in|during|over)\s+the\s+(?:{SEASON_RE})"
    r")"
    r")(?![\w-])",
    re.IGNORECASE,
)


_EXTEND_LEFT = {"since", "until", "till", "from", "for", "starting", "early", "late", "mid"}


_ENT_LABELS = {"DATE", "TIME"}


_NON_TIME_WORDS = re.compile(r"^(?:may|march|sun|sat|wed)$", re.I)
# "my secure 9-5", "a 9 to 5 job": working hours, not the 5th of September
_WORKING_HOURS = re.compile(
    r"(?:\b(?:my|a|the|your|his|her|our|their|secure|steady|boring|regular)\s+)"
    r"\d{1,2}\s*(?:-|–|to)\s*\d{1,2}$", re.I)


def _working_hours(text: str, s_char: int, e_char: int) -> bool:
    """The span is an "N-M" right after a determiner or a job adjective (see _WORKING_HOURS)."""
    return bool(_WORKING_HOURS.search(text[max(0, s_char - 12):e_char]))


_TIMEISH = re.compile(
    r"\d|" + MONTH_RE + r"|" + WEEKDAY_RE + r"|\b(?:ago|yesterday|tomorrow|today|tonight|week|"
    r"weekend|month|year|day|noon|midnight|morning|evening|afternoon|night|since|until|till|"
    r"from|to|through)\b",
    re.I,
)


def _trim_to_time(text: str, s_char: int, e_char: int) -> tuple[int, int]:
    """A date entity that swallowed other words ("the food festival two weeks ago", "last week -
    so") is cut to the time expression inside it, when the words left over say nothing about
    time (dateparser would read the whole span, wrongly)."""
    span = text[s_char:e_char]
    best = max(_FIND_RE.finditer(span), key=lambda m: m.end() - m.start(), default=None)
    if best is None or (best.start() == 0 and best.end() == len(span)):
        return s_char, e_char
    rest = span[: best.start()] + " " + span[best.end():]
    if _TIMEISH.search(rest):
        return s_char, e_char
    return s_char + best.start(), s_char + best.end()


def _overlaps(a: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def find_time_expressions(
    doc_or_text: Any,
    reference_time: datetime,
    prefer: str = "past",
    nlp: Any = None,
    last_sitting: datetime | None = None,
) -> list[TimeMention]:
    """Find and resolve temporal expressions in a spaCy ``Doc`` or a plain string.

    Returns ``(span_text, char_start, char_end, ResolvedTime)`` tuples sorted by position.
    spaCy DATE/TIME entities are used first (extended left over ``since/until/from/for``),
    then a regex pass adds expressions the model missed. A string is parsed with the shared
    spaCy pipeline (loaded lazily) unless ``nlp`` is given; with ``nlp=False`` only the regexes
    are used. ``last_sitting`` (the previous conversation's time) resolves "since we last
    talked" (see :func:`resolve_time`).
    """
    if isinstance(doc_or_text, str):
        text = doc_or_text
        if nlp is False:
            doc = None
        else:
            if nlp is None:
                from ..nlp import get_nlp

                nlp = get_nlp()
            doc = nlp(text)
    else:
        doc = doc_or_text
        text = doc.text
    out: list[TimeMention] = []
    taken: list[tuple[int, int]] = []  # character spans already found
    if doc is not None:
        _entity_mentions(doc, reference_time, prefer, out, taken, last_sitting)
    _regex_mentions(text, reference_time, prefer, out, taken, last_sitting)
    out.sort(key=lambda x: x[1])
    return out


def _entity_mentions(doc: Any, ref: datetime, prefer: str, out: list[TimeMention],
                     taken: list[tuple[int, int]], last_sitting: datetime | None) -> None:
    """DATE/TIME entities, extended left over since/until/from/for ("from 2018 to 2020" split
    into two entities is joined); a prefix that does not resolve falls back to the entity."""
    text = doc.text
    for ent in doc.ents:
        if ent.label_ not in _ENT_LABELS:
            continue
        start_tok = ent.start
        while start_tok > 0 and doc[start_tok - 1].lower_ in _EXTEND_LEFT:
            start_tok -= 1
        s_char = doc[start_tok].idx
        e_char = ent.end_char
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
            else:
                year = doc[nxt + 1]  # "from 1990 to 1998" with the second year untagged
                if re.fullmatch(r"1\d{3}|20\d{2}", year.text):
                    e_char = year.idx + len(year.text)
        s_char, e_char = _trim_to_time(text, s_char, e_char)
        span_text = text[s_char:e_char]
        if _overlaps((s_char, e_char), taken) or _working_hours(text, s_char, e_char):
            continue
        res = resolve_time(span_text, ref, prefer, last_sitting)
        if res is None and start_tok != ent.start:
            # e.g. "for" + a non-duration: fall back to the bare entity
            s_char = ent.start_char
            span_text = ent.text
            res = resolve_time(span_text, ref, prefer, last_sitting)
        if res is None:
            continue
        out.append((span_text, s_char, e_char, res))
        taken.append((s_char, e_char))


def _regex_mentions(text: str, ref: datetime, prefer: str, out: list[TimeMention],
                    taken: list[tuple[int, int]], last_sitting: datetime | None) -> None:
    """The expressions of the regex pass that no entity covered."""
    for m in _FIND_RE.finditer(text):
        s_char, e_char = m.span()
        if _overlaps((s_char, e_char), taken):
            continue
        span_text = m.group(0)
        bare = re.sub(r"^(?:in|during|by|on|around|circa|back in)\s+", "", span_text, flags=re.I)
        if _NON_TIME_WORDS.match(bare) or _working_hours(text, s_char, e_char):
            continue
        res = resolve_time(span_text, ref, prefer, last_sitting)
        if res is None:
            continue
        out.append((span_text, s_char, e_char, res))
        taken.append((s_char, e_char))
