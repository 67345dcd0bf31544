"""Undo: one change reversed as a new change (:meth:`kgmem.Memory.undo`).

Written through the memory's :class:`kgmem.core.writes.Writes`.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from ..core.predicates import undo_declarations
from ..core.supersede import listing
from ..core.writes import Writes
from ..errors import ConflictError, NotFoundError
from ..model import Change
from ..store.base import ChangeEffect, refuse_orphans
from .merges import remerged_moves, undo_merge_mark


def _new_id() -> str:
    return str(uuid.uuid4())


def undo_change(writes: Writes, change_id: str, group: str) -> Change:
    """Restore the lineages ``change_id`` replaced (or unstate those it created), recompute
    the timelines it touched, revert its predicate declarations or merge, as one new "undo"
    change. Refused when a later change moved any of its facts, or for an erase."""
    with writes.store.write() as w:
        change = w.get_change(group, change_id)
        if change is None:
            raise NotFoundError(
                f"no change {change_id!r} in group {group!r}", change_id=change_id
            )
        if change.undone_by is not None:
            raise ConflictError(
                f"change {change_id} was already undone by {change.undone_by}",
                change_id=change_id,
            )
        if change.kind == "erase":
            raise ConflictError("an erase cannot be undone (the data is gone)")
        effects = w.change_effects(change_id)
        refuse_orphans(w, [e.fact_id for e in effects])
        for e in effects:
            current = w.get_lineage(e.fact_id)
            if current != e.after:
                raise ConflictError(
                    f"fact {e.fact_id} changed after change {change_id}; undo the later "
                    "change first",
                    change_id=change_id,
                    fact_id=e.fact_id,
                )
        now = writes.tick(w, group)
        undo = Change(
            id=_new_id(),
            group=group,
            kind="undo",
            created_at=now,
            fact_ids=[e.fact_id for e in effects],
            undoes=change_id,
            reason=f"undo of {change.kind} {change_id}",
        )
        groups: set[tuple[str, str]] = set()
        objects: dict[tuple[str, str], set[str]] = {}
        reverse: list[ChangeEffect] = []
        for e in effects:
            if e.before is not None:
                restored = e.before
            elif e.after is not None:  # created by the change: stated no longer
                restored = replace(e.after, believed=False)
            else:  # existed neither before nor after: nothing to restore
                continue
            w.put_lineage(restored)
            reverse.append(ChangeEffect(e.fact_id, e.after, restored))
        moved = remerged_moves(w, group, change)  # merging again: what names the entity now
        reverse += moved
        undo = undo.model_copy(update={"fact_ids": [
            *undo.fact_ids, *(e.fact_id for e in moved if e.fact_id not in undo.fact_ids)]})
        for e in [*effects, *moved]:
            for lin in (e.before, e.after):
                if lin is not None:
                    groups.add((lin.subject_id, lin.predicate))
                    objects.setdefault((lin.subject_id, lin.predicate), set()).add(
                        lin.object_id)
        touched: list[str] = []
        for subject_id, pred in sorted(groups):
            touched += writes.recompute(w, group, subject_id, pred, undo, undo.reason,
                                         parties=objects.get((subject_id, pred), ()))
        undo = listing(undo, touched)
        recomputed = undo_declarations(w, group, change, undo)  # a "declare" change
        undo_merge_mark(w, group, change, undo)  # a "merge" change (or its undo)
        undo = listing(undo, recomputed)  # once each, after those already named
        w.insert_change(undo, reverse)
        w.mark_undone(change_id, undo.id)
    return undo

