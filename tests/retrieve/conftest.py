"""Fixtures for kgmem.retrieve tests: an embedded Memory with a fast, deterministic embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory

UTC = timezone.utc


class StepClock:
    """Transaction clock that moves 1 ms per reading (monotonic); ``set`` jumps ahead."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = start or datetime(2024, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(milliseconds=1)
        return self.t

    def set(self, t: datetime) -> None:
        assert t >= self.t
        self.t = t


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def mem(tmp_path, clock) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path / "store", clock=clock, extractor=None)
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    yield m
    m.close()


def at(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=UTC)


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def smem(request, tmp_path):  # type: ignore[no-untyped-def]
    """(Memory, group) on each store, 384-dim hashing embedder, no extraction; on Neo4j a fresh
    group (and its "-other" sibling for isolation checks) erased afterwards."""
    from tests.conftest import fresh_group, neo4j_store_or_skip

    if request.param == "embedded":
        m = Memory(tmp_path / "store", clock=StepClock(), extractor=None)
        group = "default"
    else:
        m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
        group = fresh_group("smem")
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    yield m, group
    if request.param == "neo4j":  # the store is shared by the test session: not closed
        m.erase(whole_group=True, group=group)
        m.erase(whole_group=True, group=group + "-other")
    else:
        m.close()
