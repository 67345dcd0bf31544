"""Shared fixtures: the store tiers every contract/property test runs on.

``make_memory`` is parametrised over the embedded store and Neo4j. The Neo4j tier needs a
running server (``scripts/neo4j.sh start``): locally it is skipped with that hint; under
``CI=true`` a missing server is a failure, never a silent skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone

import pytest

from kgmem.memory.facade import Memory

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


class ManualClock:
    """An injectable transaction clock for tests and replays."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = start or datetime(2025, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, **kw: float) -> datetime:
        self.t += timedelta(**kw)
        return self.t

    def set(self, t: datetime) -> None:
        self.t = t


def neo4j_settings() -> dict[str, str | None]:
    return {
        "uri": os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        "user": os.environ.get("KGMEM_NEO4J_USER", "neo4j"),
        "password": os.environ.get("KGMEM_NEO4J_PASSWORD"),
        "database": os.environ.get("KGMEM_NEO4J_DATABASE", "neo4j"),
    }


_neo4j_store = None


def neo4j_store_or_skip():  # type: ignore[no-untyped-def]
    """One shared Neo4jStore per test session (tests isolate themselves by group)."""
    global _neo4j_store
    if _neo4j_store is not None:
        return _neo4j_store
    try:
        from kgmem.store.neo4j import Neo4jStore
    except ImportError as exc:  # pragma: no cover - the module is part of the package
        pytest.fail(f"kgmem.store.neo4j cannot be imported: {exc}")
    try:
        _neo4j_store = Neo4jStore(**neo4j_settings())
    except Exception as exc:
        msg = (f"Neo4j not reachable at {neo4j_settings()['uri']} ({exc}); "
               "start it with: scripts/neo4j.sh start")
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return _neo4j_store


def neo4j_apoc_store_or_skip():  # type: ignore[no-untyped-def]
    """The shared Neo4jStore, on a server with APOC core loaded (the Browser's ready queries
    draw virtual graphs with it; scripts/neo4j.sh installs it in plugins/)."""
    store = neo4j_store_or_skip()
    try:
        with store.driver.session(database=store.database) as s:
            s.run("RETURN apoc.version()").consume()
    except Exception as exc:
        msg = (f"the Neo4j server at {neo4j_settings()['uri']} has no APOC core ({exc}); "
               "scripts/neo4j.sh start installs it in plugins/ (a running server loads it "
               "at its next restart)")
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return store


STORES = ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)]


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def make_memory(store_kind: str, tmp_path) -> Iterator[Callable[..., Memory]]:  # type: ignore[no-untyped-def]
    """Factory: ``make_memory(clock=...)`` -> a Memory on the parametrised store.

    On Neo4j every Memory shares the server; tests use ``fresh_group()`` names so that they
    never see each other's data.
    """
    made: list[Memory] = []

    def factory(**kw) -> Memory:  # type: ignore[no-untyped-def]
        # contract tests pin the store's semantics on explicit writes; extraction (the
        # library's default) is tested on its own, so it is off unless a test passes one
        kw.setdefault("extractor", None)
        if store_kind == "embedded":
            m = Memory(tmp_path / f"store-{len(made)}", **kw)
        else:
            m = Memory(store=neo4j_store_or_skip(), **kw)
        made.append(m)
        return m

    yield factory
    for m in made:
        if store_kind == "embedded":
            m.close()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def fresh_group(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
