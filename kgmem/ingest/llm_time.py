"""Times of LLM-extracted facts: the model copies the words that date a fact ("last year",
"two weeks ago", "in 2019"), and kgmem's own time parser (:mod:`kgmem.ingest.temporal`)
resolves them against the time of the turn that said them -- never against a session date
the model saw, because it sees none.

Words that are not in the turn (a date the model made up or copied from elsewhere) date
nothing: the fact keeps no time of its own, and the pipeline uses the turn's reference time,
as for a fact whose turn gives no time. Vague words ("recently") resolve to nothing the same
way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from kgmem.timeutil import Precision

from .temporal import resolve_time

__all__ = ["FactTimes", "in_text", "resolve_fact_times"]

_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True)
class FactTimes:
    """The resolved start and end of one fact (``None``: the text does not date it);
    ``unquoted`` counts time words given that the turn does not contain."""

    valid_at: datetime | None = None
    valid_precision: Precision | None = None
    invalid_at: datetime | None = None
    invalid_precision: Precision | None = None
    unquoted: int = 0


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.translate(_QUOTES)).strip().lower()


def in_text(words: str, text: str) -> bool:
    """Whether ``words`` occur in ``text`` (case, spacing and curly quotes aside)."""
    w = _norm(words).strip(" .,;:!?\"'")
    return bool(w) and w in _norm(text)


def resolve_fact_times(start_words: str | None, end_words: str | None, kind: str, text: str,
                       reference_time: datetime, last_sitting: datetime | None = None
                       ) -> FactTimes:
    """The fact's times from the words the model copied, resolved at ``reference_time``.

    ``start_words`` date its start (a "since ..." or "from X to Y" gives both ends); for an
    ``end`` fact they date the end if ``end_words`` do not. ``end_words`` date the end."""
    unquoted = 0
    start = end = None
    for which, words in (("start", start_words), ("end", end_words)):
        if not words or not words.strip():
            continue
        if not in_text(words, text):
            unquoted += 1
            continue
        res = resolve_time(words, reference_time, "past", last_sitting)
        if res is None:
            continue
        if which == "start":
            start = res
        else:
            end = res
    valid_at = valid_p = invalid_at = invalid_p = None
    if start is not None:
        if start.relation == "until":  # "until 2020" given as the start: it is the end
            end = end or start
        elif kind == "end" and end is None and start.relation != "range":
            invalid_at, invalid_p = start.start, start.precision
        else:
            valid_at, valid_p = start.start, start.precision
            if start.relation == "range" and start.end is not None and end is None:
                invalid_at, invalid_p = start.end, start.end_precision or start.precision
    if end is not None:
        invalid_at, invalid_p = end.start, end.precision
        if end.relation == "range" and end.end is not None:
            invalid_at, invalid_p = end.end, end.end_precision or end.precision
    return FactTimes(valid_at, valid_p, invalid_at, invalid_p, unquoted)
