"""How an MCP tool call runs: library errors as tool errors that start with the stable error
type of docs/api.md, and the group a call may use (its API key over HTTP). Shared by
:mod:`kgmem.mcp.server` and :mod:`kgmem.mcp.lifecycle`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver import MCPServer as _Server  # mcp >= 2 (pyproject pins it)
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

from ..auth import ApiKey, match_key, presented_key
from ..errors import ForbiddenError, KgmemError, StoreUnavailableError

log = logging.getLogger("kgmem.mcp")

P = ParamSpec("P")
T = TypeVar("T")


def call(fn: Callable[P, T], *args: P.args, **kw: P.kwargs) -> T:
    """Run a library call; kgmem errors become tool errors the model can read."""
    try:
        return fn(*args, **kw)
    except KgmemError as exc:
        raise ToolError(f"{exc.type}: {_public(exc)}") from exc


def _public(exc: KgmemError) -> str:
    """What a client is told: a store error without paths, addresses or driver text (the
    server logs those)."""
    if isinstance(exc, StoreUnavailableError):
        log.error("store error: %s", exc.message)
        return exc.public_message
    return exc.message


def error_text(exc: BaseException, tool: str) -> str:
    """A failed call's text, starting with the stable error type of docs/api.md."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, KgmemError):
            return f"{cause.type}: {_public(cause)}"
        if isinstance(cause, ValidationError):
            where = sorted({".".join(str(p) for p in e["loc"]) or "arguments"
                            for e in cause.errors()})
            return f"invalid_input: bad arguments for {tool}: {', '.join(where)}"
        cause = cause.__cause__
    if isinstance(exc, UnexpectedToolError):
        return f"internal_error: {tool} failed (the server logged it)"
    text = str(exc)
    if text.startswith("Unknown tool"):
        return f"not_found: {text}"
    return f"invalid_input: {text.removeprefix(f'Error executing tool {tool}: ')}"


_NAMED_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def trim_schema(node: Any, *, descriptions: bool, names: bool = False) -> Any:
    """A JSON schema without what a model does not need: ``title`` everywhere, and with
    ``descriptions=False`` the ``description`` of every node too. Validation is unchanged
    (neither keyword constrains); keys of ``properties`` maps (``names``) are kept."""
    if isinstance(node, list):
        return [trim_schema(x, descriptions=descriptions) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if not names and isinstance(v, str) and (
                k == "title" or (k == "description" and not descriptions)):
            continue
        out[k] = trim_schema(v, descriptions=descriptions,
                             names=not names and k in _NAMED_MAPS)
    return out


class KgmemServer(_Server):  # type: ignore[misc]
    """The SDK's server with errors that start with kgmem's stable error type (the SDK
    prefixes them with "Error executing tool X"), and a tool list that costs little: input
    schemas without titles, output schemas without titles or descriptions (a client
    validates with them; a model need not read them)."""

    async def list_tools(self) -> list[MCPTool]:
        return [t.model_copy(update={
            "input_schema": trim_schema(t.input_schema, descriptions=True),
            "output_schema": None if t.output_schema is None
            else trim_schema(t.output_schema, descriptions=False),
        }) for t in await super().list_tools()]

    kgmem_memory: Any = None  # the memory create_server opens lazily (closed at shutdown)

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None
                        ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            raise UnexpectedToolError(error_text(exc, name)) from exc
        except ToolError as exc:
            raise ToolError(error_text(exc, name)) from exc


class GroupGate:
    """The group a call uses (its ``group`` argument or the server's default), checked
    against the caller's API key over HTTP (stdio has no keys: the spawning process owns
    the memory)."""

    def __init__(self, default_group: str, keys: list[ApiKey]) -> None:
        self.default = default_group
        self.keys = keys

    def _key(self, ctx: Context | None) -> ApiKey | None:
        """The caller's key; ``None`` when keys do not apply (stdio, no keys configured)."""
        if not self.keys or ctx is None:
            return None
        try:
            request = ctx.request_context.request
        except ValueError:  # no request context (called in-process)
            return None
        headers = getattr(request, "headers", None)
        if headers is None:
            return None
        key = match_key(self.keys, presented_key(headers.get("authorization"),
                                                 headers.get("x-api-key")))
        if key is None:
            raise ForbiddenError("a valid API key is required")
        return key

    def group(self, ctx: Context | None, group: str | None) -> str:
        g = group or self.default
        key = self._key(ctx)
        if key is not None and not key.allows(g):
            raise ForbiddenError("this API key may not use this group", group=g[:128])
        return g

    def visible(self, ctx: Context | None, groups: list[str]) -> list[str]:
        key = self._key(ctx)
        return [g for g in groups if key is None or key.allows(g)]
