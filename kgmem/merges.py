"""Undoing merges: :func:`split_alias` (a merge made by the resolver, or an alias a user
added) and the facade's seam for them.

This module takes what it needs of :class:`kgmem.memory.Memory` through the narrow
:class:`Facade` protocol (Memory passes itself) and never imports the facade, so the layers
stay one-way: memory -> merges -> resolve -> store.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from .model import Change, Entity, FactVersion
from .resolve import Resolver, record_split, start_split
from .store.base import Store, WriteTx
from .timeutil import Precision


class Facade(Protocol):
    """What merges and splits need of the facade (:class:`kgmem.memory.Memory`)."""

    store: Store
    resolver: Resolver

    def _tick(self, w: WriteTx, *groups: str) -> datetime: ...
    def _lookup_entity(self, group: str, name_or_id: str) -> Entity: ...
    def correct(self, fact_id: str, object: str | None = None, valid_at: str | None = None,
                invalid_at: str | None = None, reason: str | None = None,
                group: str = ...) -> Change: ...
    def retract(self, fact_id: str, reason: str | None = None, group: str = ...) -> Change: ...
    def assert_fact(self, subject: str, predicate: str, object: str,
                    valid_at: datetime | None = None, invalid_at: datetime | None = None,
                    group: str = ..., episode: str | None = None, fact: str | None = None,
                    reason: str = "", valid_precision: Precision | None = None,
                    invalid_precision: Precision | None = None) -> FactVersion: ...


class SplitResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    entity: Entity
    alias: str
    new_entity: Entity
    facts: list[dict[str, str]] = Field(default_factory=list)
    resumed: bool = False


def split_alias(memory: Facade, entity: str, alias: str, group: str,
                reason: str | None = None) -> SplitResult:
    """Undo a merge: ``alias`` stops resolving to ``entity`` and names an entity of its own
    (an existing one with exactly that name, else a new one). Facts asserted through the alias
    move: an object by :meth:`Memory.correct`, a subject by retracting the fact and asserting
    it again for the new entity (same valid times and provenance). Safe to call again after a
    failure: it resumes and moves what is left.
    """
    ent = memory._lookup_entity(group, entity)
    with memory.store.write() as w:
        now = memory._tick(w, group)
        start = start_split(w, group, ent.id, alias, now, memory.resolver)
    why = reason or f"alias {start.alias!r} split off {ent.name!r} ({ent.id})"
    moved = [m for fid, roles in start.tracked.items()
             if (m := _move_fact(memory, group, fid, roles, ent, start.new_id, why))]
    with memory.store.write() as w:
        record_split(w, group, ent.id, start, memory._tick(w, group), moved, why)
    return SplitResult(entity=memory._lookup_entity(group, ent.id), alias=start.alias,
                       new_entity=memory._lookup_entity(group, start.new_id), facts=moved,
                       resumed=start.resumed)


def _move_fact(memory: Facade, group: str, fact_id: str, roles: set[str], ent: Entity,
               new_id: str, why: str) -> dict[str, str] | None:
    with memory.store.write() as w:
        lin = w.get_lineage(fact_id)
    if lin is None or lin.group != group or not lin.believed:
        return None
    as_subject = "subject" in roles and lin.subject_id == ent.id
    as_object = "object" in roles and lin.object_id == ent.id
    if not as_subject:
        if not as_object:
            return None  # corrected or moved since: leave it
        change = memory.correct(fact_id, object=new_id, reason=why, group=group)
        return {"fact_id": fact_id, "role": "object", "action": "corrected",
                "change_id": change.id}
    # correct() cannot change a subject: assert the fact again for the new entity, then
    # retract this one (in that order, so that a failure in between loses nothing).
    obj = new_id if as_object else lin.object_id
    subj_old = memory.store.get_entity(group, lin.subject_id)
    obj_old = memory.store.get_entity(group, lin.object_id)
    default_text = (f"{subj_old.name if subj_old else ''} "
                    f"{lin.predicate.lower().replace('_', ' ')} {obj_old.name if obj_old else ''}")
    text = None if lin.fact_text == default_text else lin.fact_text
    episodes = sorted({e for v in memory.store.versions_of_fact(group, fact_id)
                       for e in v.episodes})
    v = memory.assert_fact(
        new_id, lin.predicate, obj, valid_at=lin.valid_at, invalid_at=lin.stated_invalid_at,
        group=group, fact=text, reason=f"{why}; was fact {fact_id}",
        valid_precision=lin.valid_precision, invalid_precision=lin.invalid_precision)
    if episodes:
        with memory.store.write() as w:
            for ep in episodes:
                w.add_provenance(v.fact_id, ep)
                w.add_mentions(ep, [new_id])
    change = memory.retract(fact_id, reason=f"{why}; now fact {v.fact_id}", group=group)
    return {"fact_id": fact_id, "role": "subject+object" if as_object else "subject",
            "action": "reasserted", "new_fact_id": v.fact_id, "change_id": change.id}
