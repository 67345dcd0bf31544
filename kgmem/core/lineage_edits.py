"""The edits of one lineage that invalidate, retract and correct make (``Memory`` and the
extraction pipeline's corrections): each validates its input when built, before anything is
written, and returns the lineage as it will be stored; the interval rule is timeline's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from .. import timeline
from ..errors import UnchangedError
from ..model import Entity
from ..names import clean_name
from ..store.base import LineageState, WriteTx
from ..timeutil import parse_instant_with_precision

TimeLike = datetime | str  # as Memory's

#: resolve(w, group, name, now) -> the entity an object name means (Writes.resolve_entity, kgmem.core.writes)
Resolve = Callable[[WriteTx, str, str, datetime], Entity]


def invalidation(at: TimeLike) -> Callable[[LineageState], LineageState]:
    """"This stopped being true at ``at``": the stated end of the valid interval."""
    end, eprec = parse_instant_with_precision(at, "at")

    def edit(lin: LineageState) -> LineageState:
        timeline.check_interval(lin.valid_at, end)
        return replace(lin, stated_invalid_at=end, invalid_precision=eprec)

    return edit


def retraction(lin: LineageState) -> LineageState:
    """"This was never true": the lineage stops being believed."""
    return replace(lin, believed=False)


def correction(
    resolve: Resolve, object: str | None, valid_at: TimeLike | None,
    invalid_at: TimeLike | None,
) -> Callable[[LineageState, WriteTx, datetime], LineageState]:
    """A new object and/or interval (the object's entity resolved inside the write)."""
    o_name = clean_name(object, "object") if object is not None else None
    start = end = None
    if valid_at is not None:
        start = parse_instant_with_precision(valid_at, "valid_at")
    if invalid_at is not None:
        end = parse_instant_with_precision(invalid_at, "invalid_at")

    def edit(lin: LineageState, w: WriteTx, now: datetime) -> LineageState:
        new = lin
        if o_name is not None:
            o = resolve(w, lin.group, o_name, now)
            subj = w.get_entity(lin.group, lin.subject_id)
            new = replace(new, object_id=o.id, fact_text=f"{subj.name if subj else '?'} "
                          f"{lin.predicate.lower().replace('_', ' ')} {o.name}")
        if start is not None:
            new = replace(new, valid_at=start[0], valid_precision=start[1])
        if end is not None:
            new = replace(new, stated_invalid_at=end[0], invalid_precision=end[1])
        timeline.check_interval(new.valid_at, new.stated_invalid_at)
        return new

    return edit


def refuse_noop(lin: LineageState, new: LineageState) -> None:
    """A caller's edit that leaves the lineage as it is: nothing to write, and no change may
    claim otherwise."""
    if new == lin:
        raise UnchangedError(
            f"fact {lin.fact_id} already says that: nothing was written", fact_id=lin.fact_id)


def refuse_invisible(w: WriteTx, kind: str, lin: LineageState) -> None:
    """After a caller's edit and the timeline's recomputation: a fact left without any version
    (a later fact with the same start replaced it whole) was not changed in any way a read can
    see; refuse (the caller's write rolls back) and name the fact that replaced it."""
    if kind == "retract" or w.current_versions([lin.fact_id]).get(lin.fact_id) is not None:
        return
    later = sorted((x for x in w.lineages_for(lin.group, lin.subject_id, lin.predicate)
                    if x.believed and x.fact_id != lin.fact_id and x.valid_at == lin.valid_at
                    and x.seq > lin.seq), key=lambda x: x.seq)
    by = later[-1].fact_id if later else None
    raise UnchangedError(
        f"fact {lin.fact_id} has no version a read can see"
        + (f": fact {by} (same start, stated later) replaced it whole" if by else "")
        + f", and this {kind} leaves it so: nothing was written; "
        + (f"{kind} fact {by} instead, or undo it first" if by else "change its start"),
        fact_id=lin.fact_id, replaced_by=by)
