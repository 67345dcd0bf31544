"""Why text mode fails: statement-level extraction checks and per-question causes.

Every episode renders one told statement, so a perfect extractor's output is known exactly:

| statement | expected extraction |
|---|---|
| assert (start) | ``assert`` subject/predicate/object, ``valid_at`` = the point |
| assert (range) | ``assert`` with ``valid_at`` and ``invalid_at`` |
| invalidate | ``end`` with ``invalid_at`` = the point |
| retract | ``retract`` of the object |
| correct (object) | ``retract`` of the wrong object and ``assert`` of the right one (same date) |
| correct (date) | ``assert`` with the right date |

:func:`check_statement` compares the extractor's facts for one episode with that expectation
and names the first problem: ``missed`` (nothing close), ``wrong_entity`` (subject or object
differs, e.g. "I" not resolved or the object span cut wrongly), ``wrong_predicate``,
``wrong_polarity`` (e.g. an ``assert`` where an ``end`` was said), ``wrong_date``.
A failed text-mode question is attributed to the first failing statement about its subject
and predicate told by ``known_at`` (priority in :data:`CAUSE_ORDER`); when all of those were
extracted correctly the cause is ``date_correction`` (the extraction format cannot say "the
fact I told you earlier had the wrong date", so the wrong-date lineage stays believed),
``spurious`` (an extra fact about the subject/predicate from another sentence) or ``other``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from benchmarks.metrics import normalize_answer

from .model import Question, Scenario, Statement, parse_time, point_instant

CAUSE_ORDER = ("missed", "wrong_entity", "wrong_predicate", "wrong_polarity", "wrong_date")


@dataclass
class Expect:
    kind: str  # assert / end / retract
    subject: str
    predicate: str
    object: str
    valid_at: str | None = None
    invalid_at: str | None = None


def expected(statements: Sequence[Statement]) -> dict[str, list[Expect]]:
    """Per statement id, what a perfect extractor would emit for its episode."""
    cur: dict[str, Statement] = {}
    out: dict[str, list[Expect]] = {}
    for s in statements:
        if s.op == "assert":
            assert s.object is not None
            cur[s.id] = Statement(**{**s.__dict__, "tags": list(s.tags)})
            out[s.id] = [
                Expect("assert", s.subject, s.predicate, s.object, s.valid_at, s.invalid_at)
            ]
            continue
        tgt = cur[s.target or ""]
        assert tgt.object is not None
        if s.op == "invalidate":
            out[s.id] = [Expect("end", s.subject, s.predicate, tgt.object, invalid_at=s.invalid_at)]
        elif s.op == "retract":
            out[s.id] = [Expect("retract", s.subject, s.predicate, tgt.object)]
        elif s.new_object is not None:
            out[s.id] = [
                Expect("retract", s.subject, s.predicate, tgt.object),
                Expect("assert", s.subject, s.predicate, s.new_object, tgt.valid_at),
            ]
            tgt.object = s.new_object
        else:
            out[s.id] = [Expect("assert", s.subject, s.predicate, tgt.object, s.new_valid_at)]
            tgt.valid_at = s.new_valid_at
    return out


def _n(x: Any) -> str:
    return normalize_answer(x)


def _same_instant(got: datetime | None, want: str | None) -> bool:
    if want is None:
        return got is None
    return got is not None and got == point_instant(want)


def match(e: Expect, facts: Sequence[Any], ref: datetime) -> str:
    """``ok`` or the first problem (see the module docstring) for one expectation."""
    subj, obj = _n(e.subject), _n(e.object)
    same = [
        f
        for f in facts
        if f.kind == e.kind
        and _n(f.subject) == subj
        and f.predicate == e.predicate
        and _n(f.object) == obj
    ]
    for f in same:
        if e.kind == "assert":
            start = f.valid_at or ref
            if _same_instant(start, e.valid_at) and _same_instant(f.invalid_at, e.invalid_at):
                return "ok"
        elif e.kind == "end":
            if _same_instant(f.invalid_at or f.valid_at or ref, e.invalid_at):
                return "ok"
        else:
            return "ok"
    if same:
        return "wrong_date"
    if any(
        _n(f.subject) == subj and _n(f.object) == obj and f.predicate == e.predicate for f in facts
    ):
        return "wrong_polarity"
    if any(_n(f.subject) == subj and _n(f.object) == obj for f in facts):
        return "wrong_predicate"
    if any(
        f.kind == e.kind
        and f.predicate == e.predicate
        and (
            _n(f.subject) == subj
            or _n(f.object) == obj
            or obj in _n(f.object)
            or _n(f.object) in obj
        )
        for f in facts
    ):
        return "wrong_entity"
    return "missed"


def check_statement(exps: Sequence[Expect], facts: Sequence[Any], ref: datetime) -> str:
    for e in exps:
        r = match(e, facts, ref)
        if r != "ok":
            return r
    return "ok"


def statement_checks(sc: Scenario, extracted: dict[str, list[Any]]) -> dict[str, str]:
    """Per statement id, ``ok`` or its problem; ``extracted`` maps episode id -> facts."""
    exps = expected(sc.statements)
    out: dict[str, str] = {}
    for ep in sc.episodes:
        for sid in ep.statements:
            out[sid] = check_statement(
                exps[sid], extracted.get(ep.id, []), parse_time(ep.reference_time)
            )
    return out


def question_cause(
    sc: Scenario,
    q: Question,
    checks: dict[str, str],
    extracted: dict[str, list[Any]],
    predicted: Sequence[str] = (),
) -> str:
    """The most likely cause of a failed text-mode question (see module docstring).

    Failing statements that mention an object of the gold or the predicted answer are
    preferred over other failing statements about the same subject and predicate.
    """
    k = parse_time(q.known_at)
    subjects = {q.subject} | ({q.other} if q.other else set())
    rel = [
        s
        for s in sc.statements
        if s.subject in subjects and s.predicate == q.predicate and parse_time(s.t) <= k
    ]
    exps = expected(sc.statements)
    named = {_n(x) for x in (*q.gold, *predicted)}
    near = [s for s in rel if any(_n(e.object) in named for e in exps[s.id])]
    for group in (near, rel):
        causes = {checks.get(s.id, "ok") for s in group}
        for c in CAUSE_ORDER:
            if c in causes:
                return c
    if any(s.op == "correct" and s.new_valid_at for s in rel):
        return "date_correction"
    own = {s.id for s in rel}
    subj_n = {_n(x) for x in subjects}
    for ep in sc.episodes:
        if parse_time(ep.reference_time) > k or any(sid in own for sid in ep.statements):
            continue
        if any(
            _n(f.subject) in subj_n and f.predicate == q.predicate for f in extracted.get(ep.id, [])
        ):
            return "spurious"
    return "other"
