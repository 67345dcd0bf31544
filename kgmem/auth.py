"""API keys and the groups each may use (``KGMEM_API_KEYS``), shared by REST and MCP over HTTP.

``"key1,key2=groupA|groupB"``: a key without ``=`` may use every group, ``key=g1|g2`` only
those. The REST guard (:mod:`api.middleware`) and the MCP HTTP guard
(:mod:`kgmem.mcp.http`) read the same spec with :func:`parse_api_keys` and match a
presented key with :func:`match_key`.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass


@dataclass(frozen=True)
class ApiKey:
    key: str
    groups: frozenset[str] | None  # None: every group

    def allows(self, group: str) -> bool:
        return self.groups is None or group in self.groups


def parse_api_keys(spec: str | None) -> list[ApiKey]:
    """``"key1,key2=groupA|groupB"`` -> keys; a key without ``=`` may use every group."""
    if spec is None or not spec.strip():
        return []
    keys: list[ApiKey] = []
    for raw in spec.split(","):
        entry = raw.strip()
        if not entry:
            continue
        key, sep, groups = entry.partition("=")
        key = key.strip()
        if not key:
            raise ValueError("KGMEM_API_KEYS: an entry has an empty key")
        if sep:
            names = frozenset(g.strip() for g in groups.split("|") if g.strip())
            if not names:
                raise ValueError(f"KGMEM_API_KEYS: key entry {key[:4]}... lists no groups")
            keys.append(ApiKey(key, names))
        else:
            keys.append(ApiKey(key, None))
    return keys


def match_key(keys: list[ApiKey], presented: str | None) -> ApiKey | None:
    """The configured key equal to ``presented`` (compared against every key: no early-exit
    timing signal), or ``None``."""
    if not presented:
        return None
    found = None
    p = presented.encode()
    for k in keys:
        if hmac.compare_digest(p, k.key.encode()):
            found = k
    return found


def presented_key(authorization: str | None, x_api_key: str | None) -> str | None:
    """The key a request presents: ``Authorization: Bearer <key>``, else ``X-API-Key``."""
    if authorization is not None:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return x_api_key
