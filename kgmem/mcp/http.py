"""The MCP server over streamable HTTP, behind the same API keys and group rules as REST.

With ``KGMEM_API_KEYS`` set, every request needs a key (``Authorization: Bearer <key>`` or
``X-API-Key``): none or an unknown one is answered **401** before the MCP layer sees it. A
``tools/call`` naming a group the key may not use (its ``group`` argument, or the server's
default group when it has none) is answered **403**. Both bodies have REST's stable shape
``{"error": {"type", "message", "details"}}``. The tools check the group again themselves
(:func:`kgmem.mcp.server.create_server`), so nothing reaches the store for another group
even in a JSON-RPC batch.
"""

from __future__ import annotations

import json

from ..asgi import ASGIApp, Receive, Scope, Send, header, read_body, replaying, send_error
from ..auth import ApiKey, match_key, presented_key

# Tools that read no group's data (list_groups filters its answer by the key itself).
GROUPLESS_TOOLS = frozenset({"list_groups"})


def called_groups(body: bytes, default_group: str) -> list[str]:
    """The groups the ``tools/call`` messages of a JSON-RPC body (one or a batch) use."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return []  # not ours to judge: the MCP layer answers a parse error
    out = []
    for msg in data if isinstance(data, list) else [data]:
        if not isinstance(msg, dict) or msg.get("method") != "tools/call":
            continue
        params = msg.get("params")
        if isinstance(params, dict) and params.get("name") in GROUPLESS_TOOLS:
            continue
        args = params.get("arguments") if isinstance(params, dict) else None
        g = args.get("group") if isinstance(args, dict) else None
        out.append(g if isinstance(g, str) and g else default_group)
    return out


class McpGuard:
    """ASGI wrapper of the SDK's Starlette app: keys (401) and groups (403)."""

    def __init__(self, app: ASGIApp, keys: list[ApiKey], default_group: str,
                 max_request_bytes: int) -> None:
        self.app = app
        self.keys = keys
        self.default_group = default_group
        self.max_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.keys:
            await self.app(scope, receive, send)
            return
        key = match_key(self.keys, presented_key(header(scope, b"authorization"),
                                                 header(scope, b"x-api-key")))
        if key is None:
            await send_error(send, 401, "unauthorized",
                              "a valid API key is required (Authorization: Bearer <key> or "
                              "X-API-Key)", extra_headers=[(b"www-authenticate", b"Bearer")])
            return
        if scope.get("method") != "POST" or key.groups is None:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, send, self.max_bytes)
        if body is None:
            return
        for g in called_groups(body, self.default_group):
            if not key.allows(g):
                await send_error(send, 403, "forbidden", "this API key may not use this group",
                                  {"group": g[:128]})
                return
        await self.app(scope, replaying(body, receive), send)
