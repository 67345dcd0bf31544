"""The real Neo4j server that kgmem's Neo4j store runs on (``scripts/neo4j.sh start``).

Checks the features kgmem and graphiti-core rely on: Bolt + Cypher vector functions, vector and
fulltext indexes, relationship vector properties, and the HTTP side (discovery JSON, Browser).
"""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from tests.neo4j_server.helpers import Neo4jEndpoint, require_neo4j

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def endpoint() -> Neo4jEndpoint:
    return require_neo4j()


@pytest.fixture(scope="module")
def driver(endpoint: Neo4jEndpoint) -> Iterator[object]:
    drv = endpoint.driver()
    try:
        yield drv
    finally:
        drv.close()


def _query(driver, endpoint: Neo4jEndpoint, cypher: str, **params):  # type: ignore[no-untyped-def]
    records, _, _ = driver.execute_query(cypher, params, database_=endpoint.database)
    return records


def _wait_online(  # type: ignore[no-untyped-def]
    driver, endpoint: Neo4jEndpoint, name: str, timeout: float = 60.0
) -> str:
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        rows = _query(
            driver,
            endpoint,
            "SHOW INDEXES YIELD name, state WHERE name = $name RETURN state",
            name=name,
        )
        state = rows[0]["state"] if rows else None
        if state in ("ONLINE", "FAILED"):
            break
        time.sleep(0.2)
    return str(state)


def test_bolt_answers_cosine(driver, endpoint: Neo4jEndpoint) -> None:
    rows = _query(
        driver,
        endpoint,
        "RETURN vector.similarity.cosine([1,0],[1,0]) AS same, "
        "vector.similarity.cosine([1,0],[0,1]) AS orthogonal",
    )
    assert rows[0]["same"] == pytest.approx(1.0)
    # Neo4j maps cosine into [0, 1]: (1 + cos) / 2.
    assert rows[0]["orthogonal"] == pytest.approx(0.5)


def test_vector_index_reaches_online(driver, endpoint: Neo4jEndpoint) -> None:
    tag = uuid.uuid4().hex[:10]
    name, label = f"kgmem_test_vec_{tag}", f"KgmemTestVec_{tag}"
    _query(
        driver,
        endpoint,
        f"UNWIND $rows AS r CREATE (n:{label} {{i: r.i}}) "
        "WITH n, r CALL db.create.setNodeVectorProperty(n, 'embedding', r.e)",
        rows=[{"i": 0, "e": [1.0, 0.0, 0.0]}, {"i": 1, "e": [0.0, 1.0, 0.0]}],
    )
    try:
        _query(
            driver,
            endpoint,
            f"CREATE VECTOR INDEX {name} FOR (n:{label}) ON (n.embedding) "
            "OPTIONS {indexConfig: {`vector.dimensions`: 3, "
            "`vector.similarity_function`: 'cosine'}}",
        )
        assert _wait_online(driver, endpoint, name) == "ONLINE"
        rows = _query(
            driver,
            endpoint,
            "CALL db.index.vector.queryNodes($name, 1, [0.9, 0.1, 0.0]) YIELD node, score "
            "RETURN node.i AS i, score",
            name=name,
        )
        assert [r["i"] for r in rows] == [0]
    finally:
        _query(driver, endpoint, f"DROP INDEX {name} IF EXISTS")
        _query(driver, endpoint, f"MATCH (n:{label}) DETACH DELETE n")


def test_graphiti_features(driver, endpoint: Neo4jEndpoint) -> None:
    """Fulltext index + relationship vector property (used by graphiti-core)."""
    tag = uuid.uuid4().hex[:10]
    name, label = f"kgmem_test_ft_{tag}", f"KgmemTestFt_{tag}"
    try:
        _query(driver, endpoint, f"CREATE FULLTEXT INDEX {name} FOR (n:{label}) ON EACH [n.name]")
        assert _wait_online(driver, endpoint, name) == "ONLINE"
        _query(
            driver,
            endpoint,
            f"CREATE (:{label} {{name: 'alice wonderland'}})-[r:KGMEM_TEST_R]->"
            f"(:{label} {{name: 'bob'}}) "
            "WITH r CALL db.create.setRelationshipVectorProperty(r, 'emb', [0.1, 0.2, 0.3])",
        )
        rows = _query(
            driver,
            endpoint,
            "CALL db.index.fulltext.queryNodes($name, 'alice') YIELD node RETURN node.name AS n",
            name=name,
        )
        assert [r["n"] for r in rows] == ["alice wonderland"]
        rows = _query(driver, endpoint, f"MATCH (:{label})-[r]->() RETURN r.emb AS emb")
        assert rows[0]["emb"] == pytest.approx([0.1, 0.2, 0.3], abs=1e-6)
    finally:
        _query(driver, endpoint, f"DROP INDEX {name} IF EXISTS")
        _query(driver, endpoint, f"MATCH (n:{label}) DETACH DELETE n")


def test_browser_is_served(endpoint: Neo4jEndpoint) -> None:
    req = urllib.request.Request(f"{endpoint.http_base}/browser/", method="HEAD")
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200
    with urllib.request.urlopen(f"{endpoint.http_base}/browser/", timeout=10) as resp:
        assert b"<title>Neo4j Browser</title>" in resp.read()


def test_root_returns_discovery_json(endpoint: Neo4jEndpoint) -> None:
    with urllib.request.urlopen(f"{endpoint.http_base}/", timeout=10) as resp:
        assert resp.status == 200
        assert resp.headers.get_content_type() == "application/json"
        doc = json.load(resp)
    assert doc["neo4j_version"].startswith("5.")
    assert doc["neo4j_edition"] == "community"
    bolt_port = urlparse(endpoint.uri).port or 7687
    assert doc["bolt_direct"] == f"bolt://{endpoint.host}:{bolt_port}"
    assert "transaction" in doc
