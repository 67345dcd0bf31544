"""Every Cypher block of docs/neo4j-browser.md runs and agrees with kgmem's own reads."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from kgmem.memory.facade import Memory
from tests.conftest import ManualClock, fresh_group, neo4j_apoc_store_or_skip

pytestmark = pytest.mark.neo4j

DOC = Path(__file__).resolve().parents[2] / "docs" / "neo4j-browser.md"


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def doc_queries() -> dict[str, str]:
    blocks = re.findall(r"```cypher\n(.*?)```", DOC.read_text(), flags=re.S)
    out = {}
    for b in blocks:
        first, _, body = b.partition("\n")
        assert first.startswith("// "), first
        out[first[3:].split(":")[0].strip()] = b
    return out


def test_doc_has_the_promised_queries() -> None:
    assert {"current view", "as of date", "as known on date", "history of an entity"} <= set(
        doc_queries()
    )
    grass = (DOC.parent / "neo4j-browser-style.grass").read_text()
    for selector in ("relationship.CURRENT", "relationship.ENDED", "relationship.SUPERSEDED",
                     "relationship.RELATES_TO", "node.Episode", "node.Person", "node.Place"):
        assert grass.count(selector + " {") == 1, selector


def test_doc_queries_agree_with_memory() -> None:
    store = neo4j_apoc_store_or_skip()
    clock = ManualClock(utc(2023, 1, 10))
    m, g = Memory(store=store, clock=clock, extractor=None), fresh_group("doc")
    ep = m.add_episode(
        "Alice: I live in Boston and work as an engineer", "2020-01-05", group=g, speaker="Alice"
    )
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", episode=ep.id, group=g)
    m.assert_fact("Alice", "HAS_ROLE", "engineer", valid_at="2020", group=g)
    clock.set(utc(2024, 6, 1))
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2022-07", group=g)
    m.assert_fact("Alice", "HAS_ROLE", "manager", valid_at="2022-07", group=g)
    params: dict[str, Any] = {
        "group": g,
        "date": utc(2022, 6, 1),
        "known": utc(2024, 1, 1),
        "entity": "alice",
    }
    q = doc_queries()
    now = datetime.now(timezone.utc)

    def run(name: str) -> list[Any]:
        with store.driver.session(database=store.database) as s:
            return list(s.run(q[name], params))

    def ids(rows: list[Any]) -> set[str]:
        return {r["r"]["uuid"] for r in rows}

    assert ids(run("current view")) == {f.id for f in m.facts(valid_at=now, known_at=now, group=g)}
    as_of = m.facts(valid_at=params["date"], known_at=now, group=g)
    assert ids(run("as of date")) == {f.id for f in as_of}
    assert sorted(f.object for f in as_of) == ["Boston", "engineer"]
    known = m.facts(valid_at=params["date"], known_at=params["known"], group=g)
    assert ids(run("as known on date")) == {f.id for f in known}

    hist = m.history("Alice", group=g)
    table = run("history of an entity")
    assert sorted((r["fact"], r["known_from"].to_native()) for r in table) == sorted(
        (v.fact_id, v.created_at) for v in hist
    )
    assert [r["known_from"] for r in table] == sorted(r["known_from"] for r in table)
    assert len(table) == len(hist) == 6
    graph = run("history of an entity as a graph")
    assert ids(graph) == {v.id for v in hist}
    states = {v.id: "SUPERSEDED" if v.expired_at else "ENDED" if v.invalid_at else "CURRENT"
              for v in hist}
    assert {r["r"]["uuid"]: r["r"].type for r in graph} == states
    told = [t for r in graph for t in r["told"]]
    episodes = [e for r in graph for e in r["episodes"]]
    assert [(e["uuid"], e["caption"]) for e in episodes] == [(ep.id, "Alice 2020-01-05")]
    assert [(t.start_node.element_id, t.end_node.element_id, t["caption"]) for t in told] == [
        (episodes[0].element_id, next(r["s"] for r in graph if r["s"]["name"] == "Alice")
         .element_id, "LIVES_IN")]  # one arrow per fact told, not per version

    closed = run("why was it closed")
    assert sorted((r["closed"], r["by"]) for r in closed) == [
        ("Alice HAS_ROLE engineer", "Alice HAS_ROLE manager"),
        ("Alice LIVES_IN Boston", "Alice LIVES_IN Denver"),
    ]
    assert (
        [r["kind"] for r in run("changes learnt or revised after $known")]
        == [c.kind for c in m.changes(params["known"], group=g)]
        == ["assert", "assert"]
    )
