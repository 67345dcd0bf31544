"""Gold answers from what had been told: an independent model of kgmem's documented rules.

This module does not import kgmem. It replays a scenario's :class:`Statement` list up to a
transaction time ``K`` and keeps, per (subject, predicate), the believed assertions
(object, start, stated end, arrival). The answer at valid time ``V`` follows the contract of
``docs/concepts.md`` for functional predicates, written here as the "latest start wins" reading
a person would apply to what they were told:

* the holder at ``V`` is the believed assertion with the latest start ``<= V`` (ties: the later
  arrival); there is none if that assertion's stated end is ``<= V``;
* so a new value closes the previous one where it starts, whatever the order of telling; an
  explicit end leaves a gap; a retracted assertion disappears (its neighbours re-join); a
  correction changes the object/start of the same assertion.

All five scenario predicates are functional (one value per person at a time).
:func:`intervals` gives the same rule as explicit closed-open intervals; the self-consistency
checks compare both views with each other and with the world truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .model import Scenario, Segment, Statement, parse_time, point_instant


@dataclass
class Belief:
    sid: str  # the assert statement's id (the lineage)
    object: str
    start: datetime
    end: datetime | None
    seq: int  # arrival order


def believed(
    statements: Sequence[Statement], subject: str, predicate: str, known_at: datetime
) -> list[Belief]:
    """Assertions about (subject, predicate) believed at transaction time ``known_at``."""
    out: dict[str, Belief] = {}
    for seq, s in enumerate(statements):
        if parse_time(s.t) > known_at:
            break
        if s.subject != subject or s.predicate != predicate:
            continue
        if s.op == "assert":
            assert s.object is not None and s.valid_at is not None
            out[s.id] = Belief(
                s.id,
                s.object,
                point_instant(s.valid_at),
                point_instant(s.invalid_at) if s.invalid_at else None,
                seq,
            )
        elif s.op == "invalidate":
            assert s.target in out and s.invalid_at is not None, s
            out[s.target].end = point_instant(s.invalid_at)
        elif s.op == "retract":
            assert s.target in out, s
            del out[s.target]
        elif s.op == "correct":
            assert s.target in out, s
            b = out[s.target]
            if s.new_object is not None:
                b.object = s.new_object
            if s.new_valid_at is not None:
                b.start = point_instant(s.new_valid_at)
        else:  # pragma: no cover - generator bug
            raise ValueError(f"unknown op {s.op!r}")
    return list(out.values())


def holder(beliefs: Sequence[Belief], valid_at: datetime) -> Belief | None:
    """The assertion that holds at ``valid_at`` (latest start <= V, then latest arrival)."""
    started = [b for b in beliefs if b.start <= valid_at]
    if not started:
        return None
    best = max(started, key=lambda b: (b.start, b.seq))
    if best.end is not None and best.end <= valid_at:
        return None
    return best


def intervals(beliefs: Sequence[Belief]) -> list[tuple[str, datetime, datetime | None]]:
    """Effective closed-open intervals ``(object, start, end)``, sorted, empty ones dropped."""
    items = sorted(beliefs, key=lambda b: (b.start, b.seq))
    out = []
    for i, b in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        end = b.end
        if nxt is not None:
            if nxt.start == b.start:
                continue  # shadowed by a later arrival at the same instant
            end = nxt.start if end is None or nxt.start < end else end
        out.append((b.object, b.start, end))
    return out


def value_at(
    scenario: Scenario, subject: str, predicate: str, valid_at: datetime, known_at: datetime
) -> list[str]:
    b = holder(believed(scenario.statements, subject, predicate, known_at), valid_at)
    return [] if b is None else [b.object]


def _overlap(
    a: tuple[datetime, datetime | None], b: tuple[datetime, datetime | None]
) -> tuple[datetime, datetime | None] | None:
    lo = max(a[0], b[0])
    his = [x for x in (a[1], b[1]) if x is not None]
    hi = min(his) if his else None
    if hi is not None and not lo < hi:
        return None
    return lo, hi


def connection(
    scenario: Scenario,
    a: str,
    b: str,
    predicate: str,
    year_start: datetime,
    year_end: datetime,
    known_at: datetime,
) -> list[str]:
    """Objects O such that ``a P O`` and ``b P O`` held at a common instant inside the year.

    This is what ``paths(a, b, max_hops=2, mode="sequenced")`` answers once its paths are kept
    when both hops use ``P`` and the common interval overlaps ``[year_start, year_end)``.
    """
    ia = intervals(believed(scenario.statements, a, predicate, known_at))
    ib = intervals(believed(scenario.statements, b, predicate, known_at))
    found = set()
    for oa, sa, ea in ia:
        for ob, sb, eb in ib:
            if oa != ob:
                continue
            both = _overlap((sa, ea), (sb, eb))
            if both is not None and _overlap(both, (year_start, year_end)) is not None:
                found.add(oa)
    return sorted(found)


def truth_intervals(segments: Sequence[Segment]) -> list[tuple[str, datetime, datetime | None]]:
    return [
        (s.object, point_instant(s.start), point_instant(s.end) if s.end else None)
        for s in segments
    ]


def consistency_problems(scenario: Scenario) -> list[str]:
    """Self-consistency of a scenario; an empty list means consistent.

    * transaction times strictly increase; every operation targets an assertion that is
      believed when it is applied, and every end is after its start;
    * nothing is told before it happened (an assertion's start, an end, a corrected start);
    * what had been told by the end equals the world truth, per person and predicate;
    * the interval view and the point view of the rule agree (probed at every boundary);
    * every question's gold is reproduced from the statements.
    """
    problems: list[str] = []
    st = scenario.statements
    times = [parse_time(s.t) for s in st]
    for i in range(1, len(times)):
        if not times[i - 1] < times[i]:
            problems.append(f"{st[i].id}: transaction time not increasing")
    live: dict[str, Statement] = {}
    for s, t in zip(st, times):
        if s.op == "assert":
            if point_instant(s.valid_at or "") > t:
                problems.append(f"{s.id}: told before it started")
            if s.invalid_at and point_instant(s.invalid_at) > t:
                problems.append(f"{s.id}: end told before it happened")
            if s.invalid_at and not point_instant(s.invalid_at) > point_instant(s.valid_at or ""):
                problems.append(f"{s.id}: end not after start")
            live[s.id] = s
            continue
        tgt = live.get(s.target or "")
        if tgt is None:
            problems.append(f"{s.id}: target {s.target} not believed")
            continue
        if (tgt.subject, tgt.predicate) != (s.subject, s.predicate):
            problems.append(f"{s.id}: subject/predicate differ from target")
        if s.op == "invalidate":
            if point_instant(s.invalid_at or "") > t:
                problems.append(f"{s.id}: end told before it happened")
        elif s.op == "retract":
            del live[tgt.id]
        elif s.op == "correct" and s.new_valid_at and point_instant(s.new_valid_at) > t:
            problems.append(f"{s.id}: corrected start in the future")
    final = parse_time(scenario.final_time)
    for person, preds in scenario.truth.items():
        for pred, segs in preds.items():
            got = intervals(believed(st, person, pred, final))
            want = truth_intervals(segs)
            if got != want:
                problems.append(f"{person} {pred}: told {got} != truth {want}")
    # point view == interval view at every boundary and between boundaries
    for person, preds in scenario.truth.items():
        for pred in preds:
            for k in sorted({final, *times}):
                bs = believed(st, person, pred, k)
                ivs = intervals(bs)
                probes = {b.start for b in bs} | {b.end for b in bs if b.end}
                for v in sorted(probes):
                    h = holder(bs, v)
                    hv: list[str] = [o for o, s0, e0 in ivs if s0 <= v and (e0 is None or v < e0)]
                    if ([h.object] if h else []) != hv:
                        problems.append(f"{person} {pred} at V={v} K={k}: {h} vs {hv}")
    for q in scenario.questions:
        v, k = parse_time(q.valid_at), parse_time(q.known_at)
        gold: list[str]
        if q.kind == "connection":
            assert q.other is not None and q.year is not None
            y0 = v.replace(year=q.year, month=1, day=1)
            gold = connection(
                scenario, q.subject, q.other, q.predicate, y0, y0.replace(year=q.year + 1), k
            )
        else:
            gold = value_at(scenario, q.subject, q.predicate, v, k)
        if sorted(gold) != sorted(q.gold):
            problems.append(f"{q.id}: gold {q.gold} != recomputed {gold}")
    return problems
