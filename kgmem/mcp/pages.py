"""MCP tools for the profile page (:mod:`kgmem.memory.profile`): ``profile_page`` writes it,
``apply_profile_page`` reads an edited one back as one undoable change (``dry_run`` first)."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from ..memory.facade import Memory
from ..memory.profile_page import parse
from ..model import Change
from .calls import GroupGate, KgmemServer
from .calls import call as _call


class PageResult(BaseModel):
    entity: str
    page: str = Field(description="Markdown: facts, preferences and decisions with dates "
                      "and ids; edit and pass to apply_profile_page")


class PageApplied(BaseModel):
    dry_run: bool
    edits: list[str] = Field(description="what the page changes, one line per edit")
    change: Change | None = Field(default=None, description="the one change made (undo "
                                  "reverts the whole page); none for a dry run")


def register_pages(server: KgmemServer, memory: Callable[[], Memory], gate: GroupGate
                   ) -> None:
    @server.tool()
    def profile_page(ctx: Context, entity: str, group: str | None = None) -> PageResult:
        """"What I remember about you" as a page a person can read and correct: the
        entity's facts, preferences and decisions, each with its dates and id."""
        g = _call(gate.group, ctx, group)
        return PageResult(entity=entity, page=_call(memory().profile, entity, group=g))

    @server.tool()
    def apply_profile_page(ctx: Context, page: str, dry_run: bool = False) -> PageApplied:
        """Apply an edited profile page: changed lines are corrections, removed lines
        retractions (never true), lines without id new facts; all as one undoable change.
        dry_run: only say what it would do. A page the memory moved on from is refused."""
        _call(gate.group, ctx, _call(parse, page).group)  # the page's group, as the key allows
        r = _call(memory().apply_profile, page, dry_run=dry_run)
        return PageApplied(dry_run=r.dry_run, edits=[e.describe() for e in r.edits],
                           change=r.change)
