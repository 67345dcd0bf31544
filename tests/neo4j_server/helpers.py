"""Reachability helper for tests that need a real Neo4j server (``scripts/neo4j.sh start``).

``require_neo4j()`` returns the connection settings when the server answers on Bolt. When it
does not: under ``CI=true`` the test fails with a clear message (CI must start the server, a
silent skip would hide that); elsewhere it is skipped with a hint on how to start it.

Settings come from the same environment variables as kgmem itself:
``KGMEM_NEO4J_URI`` (default ``bolt://127.0.0.1:7687``), ``KGMEM_NEO4J_USER`` (``neo4j``),
``KGMEM_NEO4J_PASSWORD`` (unset: no auth, as the script's server runs with auth disabled),
``KGMEM_NEO4J_DATABASE`` (``neo4j``) and ``KGMEM_NEO4J_HTTP_PORT`` (``7474``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlparse

import pytest

SKIP_MESSAGE = "Neo4j not running: start it with scripts/neo4j.sh start"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class Neo4jEndpoint:
    uri: str
    user: str
    password: str | None
    database: str
    http_port: int

    @property
    def host(self) -> str:
        return urlparse(self.uri).hostname or "127.0.0.1"

    @property
    def http_base(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    @property
    def auth(self) -> tuple[str, str] | None:
        return (self.user, self.password) if self.password else None

    def driver(self, **config):  # type: ignore[no-untyped-def]
        """A new ``neo4j.Driver`` for this endpoint (caller closes it)."""
        from neo4j import GraphDatabase

        return GraphDatabase.driver(self.uri, auth=self.auth, **config)


def endpoint_from_env() -> Neo4jEndpoint:
    return Neo4jEndpoint(
        uri=os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        user=os.environ.get("KGMEM_NEO4J_USER", "neo4j"),
        password=os.environ.get("KGMEM_NEO4J_PASSWORD") or None,
        database=os.environ.get("KGMEM_NEO4J_DATABASE", "neo4j"),
        http_port=int(os.environ.get("KGMEM_NEO4J_HTTP_PORT", "7474")),
    )


# Probe once per process: a down server should cost one connection attempt, not one per test.
_probe: tuple[Neo4jEndpoint, str | None] | None = None


def _probe_server(ep: Neo4jEndpoint) -> str | None:
    """None when Bolt answers a query, else the reason."""
    try:
        # Plain session.run, not execute_query: the latter retries for 30 s on a down server.
        with ep.driver(connection_timeout=5.0, connection_acquisition_timeout=10.0) as drv:
            with drv.session(database=ep.database) as session:
                session.run("RETURN 1").consume()
    except Exception as exc:  # ServiceUnavailable, AuthError, OSError, ...
        return f"{type(exc).__name__}: {exc}"
    return None


def require_neo4j() -> Neo4jEndpoint:
    """Return the endpoint if Neo4j answers; else fail (CI) or skip (elsewhere)."""
    global _probe
    ep = endpoint_from_env()
    if _probe is None or _probe[0] != ep:
        _probe = (ep, _probe_server(ep))
    reason = _probe[1]
    if reason is not None:
        if in_ci():
            pytest.fail(
                f"Neo4j is not reachable at {ep.uri} under CI=true ({reason}). "
                "CI must run `scripts/neo4j.sh start` before the tests.",
                pytrace=False,
            )
        pytest.skip(f"{SKIP_MESSAGE} (unreachable at {ep.uri}: {reason})")
    return ep
