"""Merges a user asks for and their undoing: :func:`merge_entities` (a recorded change that
``Memory.undo`` reverses), :func:`split_alias` (undo a merge the resolver made, or an alias a
user added), written through the memory's :class:`kgmem.core.writes.Writes`.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from ..core import lineage_edits as edits
from ..core.resolve import (
    mark_merged,
    mark_unmerged,
    merged_by,
    record_split,
    start_split,
    tracked_through,
)
from ..core.supersede import listing
from ..core.writes import Writes
from ..errors import InvalidInputError
from ..model import Change, Entity
from ..store.base import ChangeEffect, LineageState, WriteTx


def merge_entities(writes: Writes, a: str, b: str, group: str, reason: str | None) -> Change:
    """Merge entity ``b`` into ``a`` in one write (``Memory.merge_entities``): every lineage
    naming ``b`` names ``a`` instead (a fact that duplicates one of ``a``'s is retracted), the
    timelines of both are recomputed, and ``b`` is marked as merged into ``a``."""
    keep = writes.lookup_entity(group, a)
    gone = writes.lookup_entity(group, b)
    if keep.id == gone.id:
        raise InvalidInputError(f"{a!r} and {b!r} are already one entity ({keep.id})",
                                entity=keep.id)
    with writes.store.write() as w:
        now = writes.tick(w, group)
        effects = _moved(w, group, gone, keep)
        change = Change(id=str(uuid.uuid4()), group=group, kind="merge", created_at=now,
                        fact_ids=[e.fact_id for e in effects],
                        reason=reason or f"merged {gone.name!r} ({gone.id}) into "
                        f"{keep.name!r} ({keep.id})")
        pairs: dict[tuple[str, str], set[str]] = {}
        for e in effects:
            for lin in (e.before, e.after):
                if lin is not None:
                    pairs.setdefault((lin.subject_id, lin.predicate), set()).add(lin.object_id)
        touched: list[str] = []
        for (subject_id, predicate), objects in sorted(pairs.items()):
            touched += writes.recompute(w, group, subject_id, predicate, change,
                                         change.reason, parties=objects)
        change = listing(change, touched)
        mark_merged(w, group, gone.id, keep.id, change.id)
        w.insert_change(change, effects)
    return change


def _moved(w: WriteTx, group: str, gone: Entity, keep: Entity) -> list[ChangeEffect]:
    """Every lineage naming ``gone`` written again naming ``keep``."""
    lins = sorted((lin for f in w.fact_ids_touching_entity(group, gone.id)
                   if (lin := w.get_lineage(f)) is not None and lin.group == group
                   and gone.id in (lin.subject_id, lin.object_id)), key=lambda lin: lin.seq)
    names = {gone.id: gone.name, keep.id: keep.name}
    known: dict[tuple[str, str], list[LineageState]] = {}
    effects = []
    for lin in lins:
        s = keep.id if lin.subject_id == gone.id else lin.subject_id
        o = keep.id if lin.object_id == gone.id else lin.object_id
        new = replace(lin, subject_id=s, object_id=o)
        for x in (lin.subject_id, lin.object_id):
            if x not in names:
                ent = w.get_entity(group, x)
                names[x] = ent.name if ent is not None else ""
        if lin.fact_text == _text(names, lin.subject_id, lin.predicate, lin.object_id):
            new = replace(new, fact_text=_text(names, s, lin.predicate, o))
        pair = known.setdefault((s, lin.predicate), w.lineages_for(group, s, lin.predicate))
        if new.believed and any(
                x.believed and x.fact_id != lin.fact_id and x.object_id == o
                and (x.valid_at, x.stated_invalid_at) == (new.valid_at, new.stated_invalid_at)
                for x in pair):
            new = replace(new, believed=False)  # the same fact, told of both entities
        w.put_lineage(new)
        pair.append(new)
        effects.append(ChangeEffect(lin.fact_id, lin, new))
    return effects


def _text(names: dict[str, str], s: str, predicate: str, o: str) -> str:
    """The text kgmem writes for a fact given without one."""
    return f"{names[s]} {predicate.lower().replace('_', ' ')} {names[o]}"


def undo_merge_mark(w: WriteTx, group: str, change: Change, undo: Change) -> None:
    """The entity half of undoing ``change`` (``Memory.undo``; the facts are restored there):
    a merged entity gets its names back; undoing the undo of a merge merges it again."""
    found = merged_by(w, group, change.id) if change.kind in ("merge", "undo") else None
    if found is not None:  # a merge, or the undo of an undo that merged again
        mark_unmerged(w, group, found[0], change.id)
    elif change.kind == "undo" and change.undoes is not None:
        again = merged_by(w, group, change.undoes)
        if again is not None:
            mark_merged(w, group, again[0], again[1], undo.id)


def remerged_moves(w: WriteTx, group: str, change: Change) -> list[ChangeEffect]:
    """When undoing ``change`` merges again (it is the undo of a merge's undo): the lineages
    that name the merged entity now -- said through its names meanwhile, or given back to it
    when the merge was undone (:func:`return_merged_facts`) -- go to the entity it merges
    into, as the merge moved them; else they would name an entity every lookup now passes
    by, and no read by name would find them."""
    if change.kind != "undo" or change.undoes is None:
        return []
    again = merged_by(w, group, change.undoes)
    if again is None:
        return []
    gone, keep = w.get_entity(group, again[0]), w.get_entity(group, again[1])
    return [] if gone is None or keep is None else _moved(w, group, gone, keep)


def return_merged_facts(writes: Writes, group: str, change_id: str) -> list[dict[str, str]]:
    """After the undo of merge ``change_id``: the facts asserted through a name of the merged
    entity while it was merged (they went to the survivor) move back to it, as a split moves
    the facts asserted through an alias (an object corrected; a subject asserted again and
    the old fact retracted). The facts the merge itself moved were restored by the undo."""
    with writes.store.write() as w:
        found = merged_by(w, group, change_id)
        tracked = {} if found is None else tracked_through(w, group, found[1], found[0])
    if found is None or not tracked:
        return []
    gone_id, keep_id = found
    keep = writes.lookup_entity(group, keep_id)
    why = f"undo of merge {change_id}: said of a name of {gone_id}"
    return [m for fid, roles in sorted(tracked.items())
            if (m := _move_fact(writes, group, fid, roles, keep, gone_id, why))]


def resume_merge_undo(writes: Writes, group: str, change_id: str) -> Change | None:
    """Finish an undo of ``change_id`` that stopped half-way (``Memory.undo`` called again).

    Undoing a merge is two steps: the undo change (one write), then
    :func:`return_merged_facts` (one write per fact moved back). A crash between them left
    the undo recorded and facts still on the survivor; calling undo again moves what is left
    and returns the undo change. ``None`` when there is nothing to finish (``change_id`` is
    not undone, its undo was undone in turn, or no fact is left to move): the caller refuses
    or undoes as usual."""
    with writes.store.write() as w:
        change = w.get_change(group, change_id)
        if change is None or change.undone_by is None:
            return None
        undo = w.get_change(group, change.undone_by)
    if undo is None or undo.undone_by is not None:
        return None  # undone in turn: the merge stands again, its facts rightly merged
    return undo if return_merged_facts(writes, group, change_id) else None


class SplitResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    entity: Entity
    alias: str
    new_entity: Entity
    facts: list[dict[str, str]] = Field(default_factory=list)
    resumed: bool = False


def split_alias(writes: Writes, entity: str, alias: str, group: str,
                reason: str | None = None) -> SplitResult:
    """Undo a merge: ``alias`` stops resolving to ``entity`` and names an entity of its own
    (an existing one with exactly that name, else a new one). Facts asserted through the alias
    move: an object by :meth:`Memory.correct`, a subject by retracting the fact and asserting
    it again for the new entity (same valid times and provenance). Safe to call again after a
    failure: it resumes and moves what is left.
    """
    ent = writes.lookup_entity(group, entity)
    with writes.store.write() as w:
        now = writes.tick(w, group)
        start = start_split(w, group, ent.id, alias, now, writes.resolver)
    why = reason or f"alias {start.alias!r} split off {ent.name!r} ({ent.id})"
    moved = [m for fid, roles in start.tracked.items()
             if (m := _move_fact(writes, group, fid, roles, ent, start.new_id, why))]
    with writes.store.write() as w:
        record_split(w, group, ent.id, start, writes.tick(w, group), moved, why)
    return SplitResult(entity=writes.lookup_entity(group, ent.id), alias=start.alias,
                       new_entity=writes.lookup_entity(group, start.new_id), facts=moved,
                       resumed=start.resumed)


def _move_fact(writes: Writes, group: str, fact_id: str, roles: set[str], ent: Entity,
               new_id: str, why: str) -> dict[str, str] | None:
    with writes.store.write() as w:
        lin = w.get_lineage(fact_id)
    if lin is None or lin.group != group or not lin.believed:
        return None
    as_subject = "subject" in roles and lin.subject_id == ent.id
    as_object = "object" in roles and lin.object_id == ent.id
    if not as_subject:
        if not as_object:
            return None  # corrected or moved since: leave it
        change = writes.change_lineage(
            group, fact_id, "correct", edits.correction(writes.resolve_entity, new_id, None, None),
            why, needs_tx=True)
        return {"fact_id": fact_id, "role": "object", "action": "corrected",
                "change_id": change.id}
    # correct() cannot change a subject: assert the fact again for the new entity, then
    # retract this one (in that order, so that a failure in between loses nothing).
    obj = new_id if as_object else lin.object_id
    subj_old = writes.store.get_entity(group, lin.subject_id)
    obj_old = writes.store.get_entity(group, lin.object_id)
    default_text = (f"{subj_old.name if subj_old else ''} "
                    f"{lin.predicate.lower().replace('_', ' ')} {obj_old.name if obj_old else ''}")
    text = None if lin.fact_text == default_text else lin.fact_text
    episodes = sorted({e for v in writes.store.versions_of_fact(group, fact_id)
                       for e in v.episodes})
    v = writes.assert_one(writes.parse_assertion(
        new_id, lin.predicate, obj, lin.valid_at, lin.stated_invalid_at, group, None, text,
        f"{why}; was fact {fact_id}", lin.valid_precision, lin.invalid_precision))
    if episodes:
        with writes.store.write() as w:
            for ep in episodes:
                w.add_provenance(v.fact_id, ep, v.created_at)  # from the new lineage on
                w.add_mentions(ep, [new_id])
    change = writes.change_lineage(group, fact_id, "retract", edits.retraction,
                                   f"{why}; now fact {v.fact_id}")
    return {"fact_id": fact_id, "role": "subject+object" if as_object else "subject",
            "action": "reasserted", "new_fact_id": v.fact_id, "change_id": change.id}
