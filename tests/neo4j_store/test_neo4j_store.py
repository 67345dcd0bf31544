"""Neo4j-specific behaviour of kgmem.store.neo4j (the shared contract lives in tests/contract).

Pins: the schema (constraints, range/fulltext/vector indexes ONLINE), graphiti's property
vocabulary, versions never edited except expired_at, physical erase (index entries too),
per-group transaction clocks, serialised concurrent writers, index use of the hot reads, and a
clear error when the server is unreachable.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from kgmem.errors import StoreUnavailableError
from kgmem.memory.facade import Memory
from kgmem.store.base import TimeFilter
from kgmem.store.neo4j import Neo4jStore, settings_from_env
from kgmem.store.neo4j.queries import facts_at_query
from tests.conftest import ManualClock, fresh_group, neo4j_settings, neo4j_store_or_skip


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def cypher(store: Neo4jStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session(database=store.database) as s:
        return s.run(query, params).data()


def rel_props(store: Neo4jStore, group: str) -> dict[str, dict[str, Any]]:
    rows = cypher(
        store,
        "MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g RETURN r.uuid AS id, properties(r) AS p",
        g=group,
    )
    return {r["id"]: r["p"] for r in rows}


# ------------------------------------------------------------------ no server needed
def test_unreachable_server_raises_store_unavailable_quickly() -> None:
    t = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="scripts/neo4j.sh start"):
        Neo4jStore(uri="bolt://127.0.0.1:1", connection_timeout=2.0)
    assert time.monotonic() - t < 30


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("URI", "USER", "PASSWORD", "DATABASE"):
        monkeypatch.delenv(f"KGMEM_NEO4J_{k}", raising=False)
    assert settings_from_env() == {
        "uri": "bolt://127.0.0.1:7687",
        "user": "neo4j",
        "password": None,
        "database": "neo4j",
    }
    monkeypatch.setenv("KGMEM_NEO4J_URI", "bolt://db:7688")
    monkeypatch.setenv("KGMEM_NEO4J_PASSWORD", "s3cret")
    assert settings_from_env()["uri"] == "bolt://db:7688"
    assert settings_from_env()["password"] == "s3cret"


def test_queries_are_constant_strings_with_parameters() -> None:
    """Values never enter query text: the facts query is the same for every value."""
    a = TimeFilter(valid_at=utc(2020, 1, 1), known_at=utc(2024, 1, 1))
    b = TimeFilter(valid_at=utc(1999, 5, 5), known_at=utc(2030, 1, 1))
    assert facts_at_query(True, True, False, a, True) == facts_at_query(True, True, False, b, True)
    assert "$sid" in facts_at_query(True, False, False, a, False)


# ------------------------------------------------------------------ server tier


@pytest.fixture
def store() -> Neo4jStore:
    return neo4j_store_or_skip()


@pytest.mark.neo4j
def test_schema_constraints_and_indexes_are_online(store: Neo4jStore) -> None:
    idx = {r["name"]: r for r in store.schema()}
    for name in (
        "entity_uuid",
        "episode_uuid",
        "relation_uuid",
        "kgmem_lineage_fact_id",
        "kgmem_change_id",
    ):
        assert idx[name]["owningConstraint"] == name, name  # uniqueness constraints
    assert idx["relation_uuid"]["entityType"] == "RELATIONSHIP"
    for name in (
        "kgmem_relation_fact_id",
        "relation_group_id",
        "created_at_edge_index",
        "expired_at_edge_index",
        "valid_at_edge_index",
        "invalid_at_edge_index",
        "kgmem_entity_group_norm",
        "kgmem_episode_group_hash",
    ):
        assert idx[name]["type"] == "RANGE", name
    for name in ("node_name_and_summary", "edge_name_and_fact", "episode_content"):
        assert idx[name]["type"] == "FULLTEXT", name
    for name in ("kgmem_entity_name_embedding", "kgmem_fact_embedding"):
        assert idx[name]["type"] == "VECTOR", name
    assert {r["state"] for r in idx.values()} == {"ONLINE"}
    again = Neo4jStore(**neo4j_settings())  # type: ignore[arg-type]
    assert again.schema_notes == []  # idempotent second start
    again.close()


@pytest.mark.neo4j
def test_versions_use_graphiti_vocabulary(store: Neo4jStore) -> None:
    m, g = Memory(store=store, clock=ManualClock(), extractor=None), fresh_group()
    ep = m.add_episode("Alice lives in Boston", "2021-02-03", group=g, source="message")
    f = m.assert_fact("Alice", "LIVES_IN", "Boston", episode=ep.id, group=g)
    (p,) = rel_props(store, g).values()
    assert p["uuid"] == f.id and p["fact_id"] == f.fact_id and p["name"] == "LIVES_IN"
    assert p["fact"] == "Alice lives in Boston" and p["episodes"] == [ep.id]
    assert p["group_id"] == g and "expired_at" not in p and "invalid_at" not in p
    assert p["valid_at"].to_native() == utc(2021, 2, 3)  # a Neo4j DateTime, in UTC
    (e,) = cypher(store, "MATCH (e:Episodic {uuid: $id}) RETURN properties(e) AS p", id=ep.id)
    assert e["p"]["valid_at"].to_native() == utc(2021, 2, 3)
    assert e["p"]["content"] == "Alice lives in Boston"
    assert e["p"]["entity_edges"] == [f.id]  # the versions of the facts it supports
    assert e["p"]["source"] == e["p"]["kgmem_source"] == "message"
    mentions = cypher(
        store,
        "MATCH (:Episodic {uuid: $id})-[:MENTIONS]->(e:Entity) RETURN e.name AS n ORDER BY n",
        id=ep.id,
    )
    assert [r["n"] for r in mentions] == ["Alice", "Boston"]


@pytest.mark.neo4j
def test_versions_are_never_edited_except_expired_at_once(store: Neo4jStore) -> None:
    clock = ManualClock()
    m, g = Memory(store=store, clock=clock, extractor=None), fresh_group()
    b = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g)
    before = rel_props(store, g)
    clock.advance(days=1)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2022", group=g)
    clock.advance(days=1)
    m.retract(b.fact_id, group=g)
    after = rel_props(store, g)
    for vid, p in before.items():
        changed = {k for k in p.keys() | after[vid].keys() if p.get(k) != after[vid].get(k)}
        assert changed == {"expired_at"}
        assert after[vid]["expired_at"].to_native() == clock() - timedelta(days=1)
    # Boston [2020,) ; Boston [2020,2022) + Denver [2022,) ; the retraction expires Boston #2
    assert len(after) == 3
    assert sum("expired_at" not in p for p in after.values()) == 1


@pytest.mark.neo4j
def test_erase_episode_removes_fulltext_hits_and_episode_ids(store: Neo4jStore) -> None:
    clock = ManualClock()
    m, g = Memory(store=store, clock=clock, extractor=None), fresh_group()
    e1 = m.add_episode("Eve skis in Oslo every winter", "2021-01-01", group=g)
    e2 = m.add_episode("Eve told us about Oslo again", "2021-02-01", group=g)
    m.assert_fact("Eve", "LIVES_IN", "Oslo", episode=e1.id, group=g)
    m.assert_fact("Eve", "LIVES_IN", "Oslo", episode=e1.id, group=g)
    shared = m.assert_fact("Eve", "LIKES", "skiing", episode=e1.id, group=g)
    m.assert_fact("Eve", "LIKES", "skiing", valid_at=shared.valid_at, episode=e2.id, group=g)
    assert {e for e, _ in store.keyword_episodes(g, "oslo")} == {e1.id, e2.id}
    clock.advance(days=1)
    m.erase(episode=e1.id, group=g)
    assert [e for e, _ in store.keyword_episodes(g, "oslo")] == [e2.id]
    assert [e for e, _ in store.keyword_episodes(g, "skis winter")] == []
    props = rel_props(store, g)
    assert all(e1.id not in p.get("episodes", []) for p in props.values())
    assert [f.object for f in m.facts("Eve", group=g)] == ["skiing"]
    assert m.facts("Eve", group=g)[0].episodes == [e2.id]
    assert cypher(store, "MATCH (n) WHERE n.uuid = $id RETURN n", id=e1.id) == []


@pytest.mark.neo4j
def test_keyword_search_is_group_scoped_and_escapes_lucene_syntax(store: Neo4jStore) -> None:
    m, g, other = Memory(store=store, clock=ManualClock(), extractor=None), fresh_group(), fresh_group()
    mine = m.add_episode("the quarterly report (draft) is due", "2024-01-01", group=g)
    m.add_episode("the quarterly report is late", "2024-01-01", group=other)
    assert [e for e, _ in store.keyword_episodes(g, "quarterly")] == [mine.id]
    for q in ('report AND "due', "draft) OR (x:*", "report~ ^2 \\", "NOT report", "???"):
        store.keyword_episodes(g, q)  # never a Lucene syntax error
    assert store.keyword_episodes(g, "  ") == []


@pytest.mark.neo4j
def test_concurrent_writers_serialise_across_store_instances() -> None:
    neo4j_store_or_skip()
    g = fresh_group()
    stores = [Neo4jStore(**neo4j_settings()) for _ in range(2)]  # like two processes
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        m = Memory(store=stores[i % 2], extractor=None)
        try:
            for j in range(6):
                m.assert_fact(
                    "Alice",
                    "LIVES_IN",
                    f"City{i}-{j}",
                    valid_at=f"{2000 + 6 * i + j}-01-01",
                    group=g,
                )
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    m = Memory(store=stores[0], extractor=None)
    believed = sorted(
        (v.valid_at, v.invalid_at) for v in m.history("Alice", group=g) if v.expired_at is None
    )
    assert len(believed) == 18
    for (s1, e1), (s2, _) in zip(believed, believed[1:]):
        assert e1 == s2  # a functional timeline: no overlap, no gap
    seqs = cypher(stores[0], "MATCH (l:KgmemLineage) WHERE l.group_id = $g RETURN l.seq AS s", g=g)
    assert len({r["s"] for r in seqs}) == 18
    for s in stores:
        s.close()


def _plan_operators(store: Neo4jStore, query: str, **params: Any) -> set[str]:
    with store.driver.session(database=store.database) as s:
        plan = s.run("EXPLAIN " + query, params).consume().plan
    ops: set[str] = set()

    def walk(p: Any) -> None:
        ops.add(p["operatorType"].split("@")[0])
        for c in p.get("children", []):
            walk(c)

    walk(plan)
    return ops


@pytest.mark.neo4j
def test_hot_reads_seek_indexes(store: Neo4jStore) -> None:
    when = TimeFilter(valid_at=utc(2020, 1, 1), known_at=utc(2024, 1, 1))
    scans = {
        "AllNodesScan",
        "NodeByLabelScan",
        "DirectedAllRelationshipsScan",
        "UndirectedAllRelationshipsScan",
        "DirectedRelationshipTypeScan",
        "UndirectedRelationshipTypeScan",
    }
    for subject, obj in ((True, False), (False, True), (False, False)):
        ops = _plan_operators(
            store,
            facts_at_query(subject, False, obj, when, False),
            g="g",
            sid="s",
            oid="o",
            k=when.known_at,
            v=when.valid_at,
        )
        assert not ops & scans, ops
        assert any("IndexSeek" in o or "IndexContainsScan" in o for o in ops), ops


@pytest.mark.neo4j
def test_embedder_writes_vectors_that_the_vector_indexes_find() -> None:
    neo4j_store_or_skip()
    pytest.importorskip("graphiti_core")
    from tests.interop.fakes import HashEmbedder

    emb = HashEmbedder()
    store = Neo4jStore(**neo4j_settings(), embedder=emb)  # type: ignore[arg-type]
    try:
        m, g = Memory(store=store, clock=ManualClock(), extractor=None), fresh_group()
        f = m.assert_fact("Alice", "LIVES_IN", "Boston", group=g)
        m.assert_fact("Bob", "LIKES", "jazz", group=g)
        q = [float(x) for x in emb.embed_one("Alice lives in Boston")]
        rows = cypher(
            store,
            "CALL db.index.vector.queryRelationships('kgmem_fact_embedding', "
            "50, $q) YIELD relationship AS r, score WHERE r.group_id = $g "
            "RETURN r.uuid AS id ORDER BY score DESC",
            q=q,
            g=g,
        )
        assert rows and rows[0]["id"] == f.id
        rows = cypher(
            store,
            "CALL db.index.vector.queryNodes('kgmem_entity_name_embedding', "
            "50, $q) YIELD node, score WHERE node.group_id = $g "
            "RETURN node.name AS n ORDER BY score DESC",
            q=[float(x) for x in emb.embed_one("Alice")],
            g=g,
        )
        assert rows and rows[0]["n"] == "Alice"
    finally:
        store.close()
