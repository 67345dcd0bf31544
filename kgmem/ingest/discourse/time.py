"""Clause-level time: the time a clause takes when no time expression hangs on it.

The time expressions of a text (``kgmem.ingest.temporal``) are attached by the parser to the
verb they modify; the offline rules read that one first. A clause without one of its own
takes, in this order (:meth:`ClauseTimes.borrowed`):

1. the time of the clause it is coordinated with or subordinate to, in the same sentence:
   "In 2019 he moved to Oslo and started working at Equinor" (started, working: 2019), "He
   left Equinor in 2022 and founded Fjord Labs, where he became CEO" (founded, became: 2022),
   "After graduating in 2009, he joined Statoil" (joined: 2009) - unless the tenses differ
   ("moved there in 2019 and now works at ...": works takes nothing);
2. in narrative text (a document, not a chat turn), for a clause in the simple past, the
   running time of the paragraph: the last dated "at" expression of an earlier sentence of
   the same paragraph ("In 2010 she moved to Berlin. She worked at Siemens.").

Anaphoric expressions ("later that year", "the following year", "two years later") are
resolved against the running time before any clause reads them, not against the reference
time. A document's own date (the episode's reference time) is the time of telling: an
undated clause in the present tense takes nothing here, and the pipeline then dates it at
the reference time, as for chat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from kgmem.timeutil import Precision

from ..temporal import ResolvedTime
from ..temporal.periods import number

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

TimeHit = tuple[ResolvedTime, str]


@dataclass(frozen=True)
class TimeSpan:
    """A time expression found in the text: its resolution, tokens and governing verb."""

    time: ResolvedTime
    tokens: frozenset[int]
    governor: int | None
    text: str


_ANAPHORIC = re.compile(
    r"^(?:later\s+|earlier\s+|in\s+|during\s+|by\s+)?(?:that|the same|that same)\s+(?P<u>year|month)$"
    r"|^(?:in\s+|during\s+)?the\s+(?P<rel>following|next|previous)\s+(?P<u2>year|month)$"
    r"|^(?P<n>\w+)\s+(?P<u3>years?|months?)\s+(?P<dir>later|earlier)$",
    re.I,
)
_PAST_TAGS = ("VBD",)
# a clause with one of these has a time of its own, even one the resolver cannot read
_OWN_TIME_WORDS = frozenset({"later", "earlier", "afterwards", "afterward", "before",
                             "previously", "then", "once", "again", "soon"})
_LINK_UP = ("conj", "xcomp", "relcl", "advcl", "acl", "ccomp", "pcomp")


class ClauseTimes:
    """The time mentions of one parsed text (anaphoric ones resolved against the running
    time) and the time each clause borrows when it has none of its own."""

    def __init__(self, doc: Doc, spans: list[TimeSpan], narrative: bool) -> None:
        self.doc = doc
        self.narrative = narrative
        self._para_of_char = _paragraph_starts(doc.text)
        self.spans = self._anaphora(spans)
        self._by_gov: dict[int, list[TimeSpan]] = {}
        for s in self.spans:
            if s.governor is not None:
                self._by_gov.setdefault(s.governor, []).append(s)

    # ------------------------------------------------------------------ anaphora
    def _anaphora(self, spans: list[TimeSpan]) -> list[TimeSpan]:
        out: list[TimeSpan] = []
        last: ResolvedTime | None = None
        for s in sorted(spans, key=lambda x: min(x.tokens) if x.tokens else 0):
            if re.fullmatch(r"\d{1,2}", s.text.strip()):
                continue  # "Kowalski, 46, was ...": an age, not the year 1946
            m = _ANAPHORIC.match(s.text.strip().lower())
            if m is not None:
                fixed = _relative_to(m, last, s.text) if last is not None else None
                if fixed is None:
                    continue  # "that year" with nothing told before: no time at all
                s = replace(s, time=fixed)
            if s.time.relation == "at" and s.time.precision in (
                    Precision.YEAR, Precision.MONTH, Precision.DAY):
                last = s.time
            out.append(s)
        return out

    # ------------------------------------------------------------------ borrowing
    def own(self, verb: Token) -> TimeHit | None:
        """The time expression governed by ``verb`` or its xcomp chain."""
        for v in _xcomp_chain(verb):
            for s in self._by_gov.get(v.i, ()):
                return s.time, s.text
        return None

    def borrowed(self, verb: Token) -> TimeHit | None:
        """The time ``verb``'s clause takes from the clause it depends on, from an "after"
        clause below it, or (narrative text) from the paragraph's running time."""
        hit = self._from_above(verb) or self._from_after_clause(verb)
        if hit is not None:
            return hit
        if self.narrative and _simple_past(verb):
            return self._running(verb)
        return None

    def _from_above(self, verb: Token) -> TimeHit | None:
        if any(c.lower_ in _OWN_TIME_WORDS or c.ent_type_ in ("DATE", "TIME")
               for c in verb.children):
            return None  # "and I started at Google a few weeks later": a time of its own
        cur = verb
        for _ in range(4):
            if cur.dep_ not in _LINK_UP or cur.head.i == cur.i:
                return None
            parent = _verb_above(cur.head)
            if parent is None or parent.i == cur.i:
                return None
            if not _same_tense(verb, parent):
                return None
            hit = self.own(parent)
            if hit is not None:
                if hit[0].relation == "until":
                    return None  # "worked there until 2016 and ...": the end is the parent's
                return hit
            cur = parent
        return None

    def _from_after_clause(self, verb: Token) -> TimeHit | None:
        """"After graduating in 2009, he joined Statoil": joined then."""
        for c in verb.children:
            if c.dep_ == "prep" and c.lower_ == "after":
                for g in c.children:
                    if g.dep_ == "pcomp" and g.pos_ == "VERB":
                        hit = self.own(g)
                        if hit is not None and hit[0].relation == "at":
                            return hit
        return None

    def _running(self, verb: Token) -> TimeHit | None:
        sent = verb.sent
        para = self._paragraph(sent.start_char)
        best: TimeSpan | None = None
        for s in self.spans:
            first = min(s.tokens) if s.tokens else None
            if first is None or first >= sent.start:
                continue
            if self._paragraph(self.doc[first].idx) != para:
                continue
            if s.time.relation == "at" and s.time.precision in (
                    Precision.YEAR, Precision.MONTH, Precision.DAY):
                best = s
        return (best.time, best.text) if best is not None else None

    def _paragraph(self, char: int) -> int:
        return sum(1 for p in self._para_of_char if p <= char)


def _paragraph_starts(text: str) -> list[int]:
    return [m.end() for m in re.finditer(r"\n\s*\n", text)]


def _xcomp_chain(verb: Token) -> list[Token]:
    """The verb and the xcomp chain above and below it ("started working")."""
    group = [verb]
    cur = verb
    while cur.dep_ == "xcomp" and cur.head.i != cur.i:
        cur = cur.head
        group.append(cur)
    stack = [verb]
    while stack:
        v = stack.pop()
        for c in v.children:
            if c.dep_ == "xcomp" and c not in group:
                group.append(c)
                stack.append(c)
    return group


def _month(year: int, month: int, tz: object) -> datetime:
    """The first of ``month`` (any integer, carried into years) of ``year``."""
    y, m = divmod(year * 12 + month - 1, 12)
    return datetime(y, m + 1, 1, tzinfo=tz)  # type: ignore[arg-type]


def _relative_to(m: re.Match[str], last: ResolvedTime, text: str) -> ResolvedTime | None:
    unit = (m.group("u") or m.group("u2") or m.group("u3") or "").lower().rstrip("s")
    step = 0
    if m.group("rel"):
        step = -1 if m.group("rel").lower() == "previous" else 1
    elif m.group("n"):
        n = number(m.group("n"))
        if n is None:
            return None
        step = int(n) * (-1 if m.group("dir").lower() == "earlier" else 1)
    start = last.start
    if unit == "year":
        begin = _month(start.year + step, 1, start.tzinfo)
        return ResolvedTime(begin, _month(start.year + step + 1, 1, start.tzinfo),
                            Precision.YEAR, text)
    if last.precision is Precision.YEAR and step == 0:
        return None  # "that month" after a bare year
    begin = _month(start.year, start.month + step, start.tzinfo)
    return ResolvedTime(begin, _month(start.year, start.month + step + 1, start.tzinfo),
                        Precision.MONTH, text)


def _verb_above(tok: Token) -> Token | None:
    cur = tok
    for _ in range(8):
        if cur.pos_ in ("VERB", "AUX") and cur.dep_ not in ("aux", "auxpass"):
            return cur
        if cur.head.i == cur.i:
            return None
        cur = cur.head
    return None


def _tense(verb: Token) -> str:
    """past / present / none (non-finite: takes the tense of what it depends on)."""
    auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    for a in auxes:
        if a.lower_ in ("will", "shall", "would", "'ll"):
            return "future"
        if a.tag_ == "VBD" or a.lower_ in ("was", "were", "had", "did"):
            return "past"
        if a.tag_ in ("VBZ", "VBP"):
            return "present"
    if verb.tag_ in _PAST_TAGS:
        return "past"
    if verb.tag_ in ("VBZ", "VBP"):
        return "present"
    return "none"


def _same_tense(verb: Token, parent: Token) -> bool:
    mine = _tense(verb)
    return mine == "none" or mine == _tense(parent) or (
        mine == "past" and _tense(parent) == "none")


def _simple_past(verb: Token) -> bool:
    """A clause in the simple past (active or passive), not the pluperfect or a modal."""
    auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lower_ in ("had", "would", "will", "could", "might", "should", "may") or
           a.tag_ in ("VBZ", "VBP", "MD") for a in auxes):
        return False
    if verb.tag_ == "VBD":
        return True
    return verb.tag_ == "VBN" and any(a.lower_ in ("was", "were") for a in auxes)
