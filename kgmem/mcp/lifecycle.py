"""MCP tools for the rest of a memory's life: revise, undo, erase, profile, changes, groups.

Each tool is one library call with the library's semantics (see DESIGN.md section 2):
``invalidate`` ends a fact's valid time, ``retract`` says it was never true (past beliefs
kept for ``known_at`` before now), ``correct`` changes its object or dates in the same
lineage, ``undo`` reverses one change by its id, ``erase`` deletes physically and needs
``confirm=true``. Registered by :func:`kgmem.mcp.server.create_server`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from mcp.server.mcpserver import Context

from ..errors import InvalidInputError
from ..memory.facade import Memory
from ..model import Change, FactVersion
from ..timeutil import parse_instant
from .calls import GroupGate, KgmemServer
from .calls import call as _call
from .results import ChangeResult, ChangesResult, EraseResult, GroupsResult, ProfileResult

MAX_CHANGES = 1000


def _current(m: Memory, fact_id: str, group: str) -> FactVersion | None:
    """The version of a lineage believed now (whatever its valid time), if any."""
    believed = [v for v in m.history(fact_id, group=group) if v.expired_at is None]
    return believed[-1] if believed else None


def _changed(m: Memory, change: Change, group: str) -> ChangeResult:
    return ChangeResult(change=change,
                        facts=[_current(m, fid, group) for fid in change.fact_ids])


def register_lifecycle(server: KgmemServer, memory: Callable[[], Memory], gate: GroupGate) -> None:
    @server.tool()
    def invalidate(ctx: Context, fact_id: str, at: str, reason: str | None = None,
                   group: str | None = None) -> ChangeResult:
        """The fact stopped being true at `at` ("Alice moved out of Boston in May 2024"):
        its valid time ends there; what was true before stays true."""
        g = _call(gate.group, ctx, group)
        m = memory()
        return _changed(m, _call(m.invalidate, fact_id, at, reason=reason, group=g), g)

    @server.tool()
    def retract(ctx: Context, fact_id: str, reason: str | None = None,
                group: str | None = None) -> ChangeResult:
        """The fact was never true (a mistake): it is no longer believed from now on, while
        reads with an earlier known_at still show what was believed then."""
        g = _call(gate.group, ctx, group)
        m = memory()
        return _changed(m, _call(m.retract, fact_id, reason=reason, group=g), g)

    @server.tool()
    def correct(ctx: Context, fact_id: str, object: str | None = None,
                valid_at: str | None = None, invalid_at: str | None = None,
                reason: str | None = None, group: str | None = None) -> ChangeResult:
        """Fix a fact: another object ("not Boston but Cambridge") and/or other valid dates.
        The old statement is retracted and the new one takes its place in the same fact."""
        g = _call(gate.group, ctx, group)
        m = memory()
        change = _call(m.correct, fact_id, object=object, valid_at=valid_at,
                       invalid_at=invalid_at, reason=reason, group=g)
        return _changed(m, change, g)

    @server.tool()
    def undo(ctx: Context, change_id: str, group: str | None = None) -> ChangeResult:
        """Reverse one change (an assert, invalidate, retract, correct, merge or declare) by
        its id, e.g. a wrong automatic supersession; recorded as a new change. Erases cannot
        be undone."""
        g = _call(gate.group, ctx, group)
        m = memory()
        return _changed(m, _call(m.undo, change_id, group=g), g)

    @server.tool()
    def erase(ctx: Context, what: Literal["episode", "entity", "group"], target: str,
              confirm: bool = False, group: str | None = None) -> EraseResult:
        """Delete for good (privacy, "forget that"): an episode (by id), an entity (by name
        or id) or the whole group (target = the group's name), with everything derived only
        from it, at every known_at. Cannot be undone; only an audit record without content
        remains. Refused unless confirm=true."""
        g = _call(gate.group, ctx, group)
        if not confirm:
            _call(_refuse, f"erase deletes the {what} {target!r} permanently and cannot be "
                  "undone: call again with confirm=true")
        m = memory()
        if what == "group":
            if target != g:
                _call(_refuse, f"target {target!r} is not the group {g!r}: to erase a whole "
                      "group, pass its name as both target and group", "target")
            erasure = _call(m.erase, group=g, whole_group=True)
        elif what == "episode":
            erasure = _call(m.erase, episode=target, group=g)
        else:
            erasure = _call(m.erase, entity=target, group=g)
        return EraseResult(erasure=erasure)

    @server.tool()
    def entity_profile(ctx: Context, entity: str, valid_at: str | None = None,
                       known_at: str | None = None, group: str | None = None) -> ProfileResult:
        """What the memory holds about an entity (name, alias or id) at valid_at, as known
        at known_at (both default to now): its facts, the facts pointing at it, and its
        summary as known at known_at (entity.summary)."""
        g = _call(gate.group, ctx, group)
        m = memory()
        p = _call(m.entity, entity, valid_at=valid_at, known_at=known_at, group=g)
        now = m.now()
        v = now if valid_at is None else _call(parse_instant, valid_at, "valid_at")
        k = now if known_at is None else _call(parse_instant, known_at, "known_at")
        facts, incoming = p["facts"], p["incoming"]
        return ProfileResult(entity=p["entity"], facts=facts, incoming=incoming,
                             described=[f.describe() for f in [*facts, *incoming]],
                             valid_at=v, known_at=k)

    @server.tool()
    def changes_since(ctx: Context, since: str, limit: int = 100, after: str | None = None,
                      group: str | None = None) -> ChangesResult:
        """What the memory learnt or revised after `since` (a transaction time), oldest
        first: the changes and the fact versions they wrote. When more than `limit`, pass
        next_after as `after` (same `since`) to read on: no change lost or repeated."""
        g = _call(gate.group, ctx, group)
        m = memory()
        limit = max(1, min(limit, MAX_CHANGES))
        changes = _call(m.changes, since, group=g, limit=limit + 1, after=after)
        cut = len(changes) > limit
        changes = changes[:limit]
        versions = _call(m.versions_written_by, changes, group=g)
        return ChangesResult(changes=changes, versions=versions,
                             next_since=changes[-1].created_at if cut else None,
                             next_after=changes[-1].id if cut else None)

    @server.tool()
    def list_groups(ctx: Context) -> GroupsResult:
        """The memory's groups (tenants) that hold data and that this caller may use; pass
        one as `group` to any tool. Nothing crosses groups."""
        m = memory()
        return GroupsResult(groups=_call(gate.visible, ctx, _call(m.groups)),
                            default_group=gate.default)


def _refuse(message: str, field: str = "confirm") -> None:
    raise InvalidInputError(message, field=field)
