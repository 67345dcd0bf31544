"""ASGI guard in front of every route: API keys, group permission, request size.

It runs before routing and before any body parsing, so a request without a valid key is
answered 401 (a key limited to other groups 403, an oversized body 413) without the store
ever being touched.
"""

from __future__ import annotations

from kgmem.asgi import (
    ASGIApp,
    Receive,
    Scope,
    Send,
    header,
    read_body,
    replaying,
    send_error,
)
from kgmem.auth import ApiKey, match_key, parse_api_keys, presented_key

__all__ = ["ApiKey", "GuardMiddleware", "parse_api_keys"]


DEFAULT_GROUP = "default"
# Open without a key: liveness and the API's own documentation.
OPEN_PATHS = frozenset({"/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


class GuardMiddleware:
    def __init__(self, app: ASGIApp, keys: list[ApiKey], max_request_bytes: int) -> None:
        self.app = app
        self.keys = keys
        self.max_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if self.keys and path not in OPEN_PATHS:
            presented = presented_key(header(scope, b"authorization"),
                                      header(scope, b"x-api-key"))
            key = match_key(self.keys, presented)
            if key is None:
                await send_error(
                    send, 401, "unauthorized",
                    "a valid API key is required (Authorization: Bearer <key> or X-API-Key)",
                    extra_headers=[(b"www-authenticate", b"Bearer")],
                )
                return
            group = header(scope, b"x-group") or DEFAULT_GROUP
            if not key.allows(group):
                await send_error(send, 403, "forbidden", "this API key may not use this group",
                                  {"group": group[:128]})
                return

        declared = header(scope, b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                await send_error(send, 400, "bad_request", "invalid Content-Length header")
                return
            if n > self.max_bytes:
                await send_error(send, 413, "request_too_large",
                                  f"request body exceeds {self.max_bytes} bytes",
                                  {"max_request_bytes": self.max_bytes})
                return
        if scope.get("method") in ("GET", "HEAD", "DELETE", "OPTIONS") and declared is None:
            await self.app(scope, receive, send)
            return

        # Read the body up front (bounded), so a body without Content-Length (chunked) or
        # one longer than it declared is refused as well.
        body = await read_body(receive, send, self.max_bytes)
        if body is None:
            return
        await self.app(scope, replaying(body, receive), send)
