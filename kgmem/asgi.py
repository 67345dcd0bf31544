"""The small ASGI pieces the REST guard (api/middleware.py) and the MCP HTTP guard
(kgmem/mcp/http.py) share: header lookup, the stable JSON error reply, a bounded body read."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers") or ():
        if k.lower() == name:
            return str(v.decode("latin-1"))
    return None


async def send_error(send: Send, status: int, type: str, message: str,
                     details: Mapping[str, object] | None = None,
                     extra_headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """The error JSON of docs/api.md (``{"error": {"type", "message", "details"}}``)."""
    body = json.dumps({"error": {"type": type, "message": message,
                                 "details": details or {}}}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), *(extra_headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive: Receive, send: Send, max_bytes: int) -> bytes | None:
    """The whole request body, read up front and bounded (a chunked body or one longer than
    it declared is refused too: 413 sent). ``None`` when refused or the client left."""
    chunks: list[bytes] = []
    total = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        total += len(chunk)
        if total > max_bytes:
            await send_error(send, 413, "request_too_large",
                             f"request body exceeds {max_bytes} bytes",
                             {"max_request_bytes": max_bytes})
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replaying(body: bytes, receive: Receive) -> Receive:
    """The ``receive`` of an app whose request body was read up front (:func:`read_body`):
    the whole ``body`` first, then whatever the client sends next (a disconnect)."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
