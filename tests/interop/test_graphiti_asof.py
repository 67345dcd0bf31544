"""benchmarks/graphiti_asof.py on a tiny kgmem graph: graphiti-core's search() with kgmem's
visibility rule spelt in SearchFilters gives kgmem's answers; valid-time filters alone differ
exactly by superseded versions (graphiti's in-place edge semantics vs kgmem's versions)."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timezone

import pytest

pytest.importorskip("graphiti_core")

from benchmarks.graphiti_asof import KgmemEmbedder, compare, make_questions  # noqa: E402
from kgmem.embed import HashingEmbedder  # noqa: E402
from kgmem.errors import InvalidInputError  # noqa: E402
from kgmem.memory.facade import Memory  # noqa: E402
from tests.conftest import ManualClock, fresh_group, neo4j_store_or_skip  # noqa: E402

pytestmark = pytest.mark.neo4j


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHITI_TELEMETRY_ENABLED", "false")


def test_kgmem_embedder_adapter_speaks_graphiti() -> None:
    emb = KgmemEmbedder(HashingEmbedder(384))
    one = asyncio.run(emb.create("Alice lives in Denver"))
    same = asyncio.run(emb.create(["Alice lives in Denver"]))  # graphiti passes [query]
    batch = asyncio.run(emb.create_batch(["a b", "Alice lives in Denver"]))
    assert len(one) == 384 and one == same == batch[1]
    with pytest.raises(InvalidInputError):  # the library's adapter (kgmem.interop)
        asyncio.run(emb.create([1, 2, 3]))


def test_graphiti_search_agrees_with_kgmem_as_of() -> None:
    store = neo4j_store_or_skip()
    g = fresh_group("asof")
    clock = ManualClock(utc(2025, 1, 1))
    m = Memory(store=store, clock=clock)
    t_first = clock()
    # a small history: moves (supersession), a correction, a retraction, an invalidation
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2019", group=g)
    m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2018-05", group=g)
    m.assert_fact("Bob", "LIVES_IN", "Paris", valid_at="2020", group=g)
    bob_job = m.assert_fact("Bob", "WORKS_AT", "Initech", valid_at="2021", group=g)
    m.assert_fact("Bob", "KNOWS", "Alice", group=g)
    clock.advance(days=10)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2021-06", group=g)
    m.assert_fact("Bob", "LIVES_IN", "Rome", valid_at="2022-03", group=g)
    clock.advance(days=10)
    m.correct(bob_job.fact_id, object="Globex", group=g)
    carol = m.assert_fact("Carol", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    clock.advance(days=10)
    m.retract(carol.fact_id, group=g)
    m.assert_fact("Carol", "LIVES_IN", "Bergen", valid_at="2020", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Austin", valid_at="2023-09", group=g)
    clock.advance(days=10)
    m.invalidate(m.facts("Alice", predicate="WORKS_AT", group=g)[0].fact_id, "2022-01", group=g)
    clock.advance(days=1)

    qs = make_questions(m, g, ["Alice", "Bob", "Carol"], 40, random.Random(5),
                        (utc(2017, 1, 1), utc(2025, 1, 1)), (t_first, clock()))
    res = asyncio.run(compare(m, store, g, qs, HashingEmbedder(384), limit=20, warmup=2))

    bi, vo = res["bitemporal"], res["valid_time"]
    assert bi["agree_versions"] == 1.0 and bi["agree_answers"] == 1.0, bi
    assert res["kgmem_answer_sizes"]["max"] >= 2  # the questions have real answers
    # valid-time filters alone also return versions kgmem superseded (and not-yet-known ones
    # for past known_at): graphiti expects edges edited in place, kgmem keeps versions
    assert vo["agree_versions"] < 1.0
    assert set(vo["disagreements"]) <= {
        "graphiti+ superseded version (expired_at <= known_at)",
        "graphiti+ version not yet known at known_at",
    }, vo["disagreements"]
    assert "graphiti+ superseded version (expired_at <= known_at)" in vo["disagreements"]
    for mode in ("bitemporal", "valid_time"):
        assert res[mode]["graphiti"]["n"] == len(qs)
