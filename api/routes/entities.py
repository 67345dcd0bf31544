"""Entities: list, profile ("what I remember about X"), history, merge, erase."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from kgmem.memory.facade import EntityFacts
from kgmem.model import Change, Erasure

from ..deps import AsOfDep, GroupDep, MemoryDep, PageDep, as_of_history, known_by, page_of
from ..errors import errors
from ..schemas import MAX_NAME, EntityPage, EntityProfile, MergeIn, VersionList

router = APIRouter(prefix="/entities", tags=["entities"])

EntityRef = Annotated[str, Path(min_length=1, max_length=MAX_NAME,
                                description="Entity id, name or alias (names containing '/' "
                                "must be addressed by id).")]


@router.get("", response_model=EntityPage, summary="List entities")
def list_entities(memory: MemoryDep, group: GroupDep, page: PageDep, at: AsOfDep) -> dict:
    """Entities, oldest first. ``known_at`` hides entities created after it."""
    items = memory.entities(group=group, limit=page.limit + 1, offset=page.offset)
    more = len(items) > page.limit
    return page_of(known_by(items[: page.limit], at), page, more)


@router.get("/{entity}", response_model=EntityProfile, summary="What I remember about an entity",
            responses=errors(404))
def get_entity(entity: EntityRef, memory: MemoryDep, group: GroupDep, at: AsOfDep
               ) -> EntityFacts:
    """The entity and the facts about it (as subject, and as object) at (valid_at,
    known_at)."""
    return memory.entity(entity, valid_at=at.valid_at, known_at=at.known_at, group=group)


@router.get("/{entity}/history", response_model=VersionList, summary="History of an entity",
            responses=errors(404))
def entity_history(entity: EntityRef, memory: MemoryDep, group: GroupDep,
                   at: AsOfDep) -> VersionList:
    """Every version of every fact about the entity. With ``known_at``: the history as
    recorded then; with ``valid_at``: only versions whose valid interval contains it."""
    return VersionList(items=as_of_history(memory.history(entity, group=group), at))


@router.post("/{entity}/merge", response_model=Change, summary="Merge another entity into this",
             responses=errors(404, 409, 413))
def merge_entity(entity: EntityRef, body: MergeIn, memory: MemoryDep, group: GroupDep) -> Change:
    """Merge ``other`` into the entity: ``other``'s facts become the entity's (functional
    timelines recomputed) and ``other``'s names and id mean the entity from now on. A change
    of kind ``merge``: ``POST /v1/changes/{change_id}/undo`` separates them again."""
    return memory.merge_entities(entity, body.other, group=group, reason=body.reason)


@router.delete("/{entity}", response_model=Erasure, summary="Erase an entity",
               responses=errors(404, 409))
def erase_entity(entity: EntityRef, memory: MemoryDep, group: GroupDep) -> Erasure:
    """Physically delete the entity and every fact touching it (privacy). Not undoable."""
    return memory.erase(entity=entity, group=group)
