"""Helpers for the API tests: an in-process client over a given Memory, and a seeded
bi-temporal scenario shared by the single-store and both-store tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from kgmem.memory.facade import Memory
from kgmem.settings import Settings
from tests.conftest import ManualClock, fresh_group


def make_settings(**kw: Any) -> Settings:
    # no background indexer unless a test asks: it would embed with MiniLM whatever the test's
    # Memory holds, and on the shared Neo4j server every group of every session
    base: dict[str, Any] = {"api_keys": None, "extractor": "none", "index_interval": 0}
    base.update(kw)
    return Settings(_env_file=None, **base)  # type: ignore[call-arg]


def client_for(memory: Memory, **settings: Any) -> TestClient:
    return TestClient(create_app(make_settings(**settings), memory=memory))


@dataclass
class Seeded:
    """Alice lived in Boston from 2021, learnt at t0; Denver from 2023-03, learnt at t1;
    Alice and Bob work at Acme from 2022, learnt at t2."""

    memory: Memory
    group: str
    clock: ManualClock
    episode_id: str
    boston: str  # fact ids
    denver: str
    alice_acme: str
    bob_acme: str
    t0: datetime
    t1: datetime
    t2: datetime


def seed(memory: Memory, clock: ManualClock, group: str | None = None) -> Seeded:
    g = group or fresh_group("api")
    t0 = clock.t
    ep = memory.add_episode("Alice moved to Boston in 2021.", "2021-01-05", group=g,
                            extract=False)
    boston = memory.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g,
                                episode=ep.id)
    t1 = clock.advance(days=1)
    denver = memory.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
    t2 = clock.advance(days=1)
    a = memory.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022", group=g)
    b = memory.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2022", group=g)
    clock.advance(days=1)
    return Seeded(memory, g, clock, ep.id, boston.fact_id, denver.fact_id, a.fact_id,
                  b.fact_id, t0, t1, t2)


@pytest.fixture
def memory(tmp_path, clock: ManualClock) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path / "store", clock=clock, extractor=None)
    yield m
    m.close()


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with client_for(memory) as c:
        yield c


def assert_error(resp: Any, status: int, type: str | None = None) -> dict[str, Any]:
    """The response is an error in the API's one error shape."""
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}, body
    err = body["error"]
    assert set(err) == {"type", "message", "details"}, err
    assert isinstance(err["message"], str) and err["message"]
    assert isinstance(err["details"], dict)
    if type is not None:
        assert err["type"] == type, err
    return err
