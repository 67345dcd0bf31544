"""Profile pages: "what I remember about you" as Markdown to read and edit, and an edited
page applied as one undoable change (kgmem.memory.profile)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path
from pydantic import BaseModel, Field

from kgmem.errors import ForbiddenError, InvalidInputError
from kgmem.memory.profile_page import parse
from kgmem.model import Change

from ..deps import AsOfDep, GroupDep, MemoryDep
from ..errors import errors
from ..schemas import MAX_NAME

router = APIRouter(prefix="/entities", tags=["entities"])


class PageOut(BaseModel):
    entity: str
    page: str = Field(description="Markdown: facts, preferences and decisions with their "
                      "dates and ids")


class PageIn(BaseModel):
    page: str = Field(description="The page as edited")
    dry_run: bool = Field(default=False, description="Only say what applying it would do")


class PageApplied(BaseModel):
    dry_run: bool
    edits: list[str] = Field(description="One line per edit the page makes")
    change: Change | None = Field(default=None, description="The one change made (undo "
                                  "reverts the page); null for a dry run or no edits")


@router.get("/{entity}/page", response_model=PageOut, summary="The entity's profile page",
            responses=errors(404))
def get_page(entity: Annotated[str, Path(min_length=1, max_length=MAX_NAME)],
             memory: MemoryDep, group: GroupDep, at: AsOfDep) -> PageOut:
    """Facts, preferences and decisions about the entity, valid and known now, each with
    its dates and id, as Markdown. A page is written as of now (it is what an edit is
    compared with): ``valid_at`` / ``known_at`` are refused (422)."""
    if at.valid_at is not None or at.known_at is not None:
        raise InvalidInputError("a profile page is written as of now: drop valid_at/known_at "
                                "(read the past with GET /v1/entities/{entity})")
    return PageOut(entity=entity, page=memory.profile(entity, group=group))


@router.post("/{entity}/page", response_model=PageApplied, summary="Apply an edited page",
             responses=errors(404, 409, 413))
def apply_page(entity: Annotated[str, Path(min_length=1, max_length=MAX_NAME)],
               body: Annotated[PageIn, Body()], memory: MemoryDep, group: GroupDep
               ) -> PageApplied:
    """Changed lines become corrections, removed lines retractions, lines without id new
    facts, all as one change (``POST /v1/changes/{id}/undo`` reverts it). 409 when the
    memory moved on since the page was written; 403 for a page of another group."""
    page = parse(body.page)
    if page.group != group:
        raise ForbiddenError(f"the page is about group {page.group!r}, not the request's "
                             f"{group!r}", group=page.group)
    if parse(memory.profile(entity, group=group)).entity_id != page.entity_id:
        raise InvalidInputError(f"the page is not about {entity!r}", field="entity")
    r = memory.apply_profile(body.page, dry_run=body.dry_run)
    return PageApplied(dry_run=r.dry_run, edits=[e.describe() for e in r.edits],
                       change=r.change)
