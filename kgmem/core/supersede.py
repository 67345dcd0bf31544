"""The supersession engine: a (subject, predicate)'s current fact versions recomputed from its
believed lineages by the rules of :mod:`kgmem.timeline` for the predicate's spec.

Every write that changes stated beliefs (assert, invalidate, retract, correct, undo, erase,
a merge of entities, a change of a predicate's declaration) ends with :func:`recompute` for
each (subject, predicate) it touched, inside its transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from .. import timeline
from ..model import Change, FactVersion
from ..store.base import LineageState, WriteTx
from ..timeutil import Precision
from ..vocabulary import PredicateSpec


def listing(change: Change, touched: Iterable[str]) -> Change:
    """``change`` with the lineages its recomputation touched added to ``fact_ids`` (after
    its own, once each): the change feed then names every lineage a change wrote, e.g. the
    earlier fact of a functional predicate that a new assert ended."""
    ids = list(dict.fromkeys([*change.fact_ids, *touched]))
    return change if ids == change.fact_ids else change.model_copy(update={"fact_ids": ids})


def recompute(
    w: WriteTx,
    group: str,
    subject_id: str,
    spec: PredicateSpec,
    change: Change,
    reason: str,
    lins: list[LineageState] | None = None,
    parties: Iterable[str] = (),
) -> list[str]:
    """Bring the current versions of one (subject, predicate) in line with the rules of
    ``spec``; returns the fact ids that got a new version or lost their current one.

    ``lins``: the pair's lineages as the caller already read (and changed) them in this
    transaction; read from the store when not given. ``parties``: other entities whose
    relations of a symmetric functional predicate changed (the objects, old and new)."""
    if spec.symmetric and spec.functional:
        lins, eff = _symmetric_effective(w, group, spec.name, {subject_id, *parties})
    else:
        if lins is None:
            lins = w.lineages_for(group, subject_id, spec.name)
        believed = [timeline.Stated(lin.fact_id, lin.object_id, lin.valid_at,
                                    lin.stated_invalid_at, lin.seq)
                    for lin in lins if lin.believed]
        if spec.functional:
            eff = timeline.functional_timeline(believed)
        else:
            eff = timeline.multi_timeline(believed)
    current = w.current_versions([lin.fact_id for lin in lins])
    by_id = {lin.fact_id: lin for lin in lins}
    now = change.created_at
    touched: list[str] = []
    for lin in lins:
        e = eff.get(lin.fact_id)
        cur = current.get(lin.fact_id)
        want = e is not None and not e.empty
        if cur is not None and want and e is not None and _unchanged(cur, lin, e):
            continue
        if cur is None and not want:
            continue
        touched.append(lin.fact_id)
        if cur is not None:
            w.expire_version(cur.id, now)
        if not want or e is None:
            continue
        why = reason
        if e.caused_by is not None:
            other = by_id.get(e.caused_by)
            why = (f"superseded: '{other.fact_text if other else e.caused_by}' "
                   f"(fact {e.caused_by}) starts when this one ends")
        elif lin.fact_id not in change.fact_ids:
            why = f"timeline recomputed ({change.kind} {change.id}): {reason}"
        w.insert_version(FactVersion(
            id=str(uuid.uuid4()), fact_id=lin.fact_id, group=group, subject="",
            subject_id=lin.subject_id, predicate=spec.name, object="",
            object_id=lin.object_id, fact=lin.fact_text, valid_at=e.start,
            valid_precision=lin.valid_precision, invalid_at=e.end,
            invalid_precision=_end_precision(lin, e, by_id),
            stated_invalid_at=lin.stated_invalid_at, created_at=now, change_id=change.id,
            reason=why, caused_by=e.caused_by,
        ))
    return touched


def _unchanged(cur: FactVersion, lin: LineageState, e: timeline.Effective) -> bool:
    """The current version already says what the lineage and its effective interval say."""
    return (cur.object_id == lin.object_id and cur.valid_at == e.start
            and cur.invalid_at == e.end and cur.stated_invalid_at == lin.stated_invalid_at
            and cur.valid_precision == lin.valid_precision and cur.fact == lin.fact_text
            and cur.caused_by == e.caused_by)


def _symmetric_effective(
    w: WriteTx, group: str, predicate: str, changed: set[str]
) -> tuple[list[LineageState], dict[str, timeline.Effective]]:
    """The lineages touching the ``changed`` parties (whose timelines may have moved) and
    their effective intervals (:func:`kgmem.timeline.symmetric_timeline`), read with every
    relation of each party they touch so that both sides' timelines are complete."""
    touching = {p: w.lineages_touching(group, p, predicate) for p in sorted(changed)}
    affected = {lin.fact_id: lin for ls in touching.values() for lin in ls}
    for lin in list(affected.values()):
        for p in (lin.subject_id, lin.object_id):
            if p not in touching:
                touching[p] = w.lineages_touching(group, p, predicate)
    every = {lin.fact_id: lin for ls in touching.values() for lin in ls}
    believed = [
        (lin.subject_id, lin.object_id, timeline.Stated(
            lin.fact_id, lin.object_id, lin.valid_at, lin.stated_invalid_at, lin.seq))
        for lin in every.values() if lin.believed
    ]
    eff = timeline.symmetric_timeline(believed)
    lins = sorted(affected.values(), key=lambda lin: lin.seq)
    return lins, {f: e for f, e in eff.items() if f in affected}


def _end_precision(
    lin: LineageState, e: timeline.Effective, by_id: dict[str, LineageState]
) -> Precision:
    if e.end is None:
        return Precision.INSTANT
    if e.caused_by is not None and e.caused_by in by_id:
        return by_id[e.caused_by].valid_precision  # closed where the next value starts
    return lin.invalid_precision
