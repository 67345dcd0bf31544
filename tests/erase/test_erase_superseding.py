"""Erasing the episode of a fact that superseded another (a functional predicate) leaves no
trace of it: the change that asserted it goes with its reason, although that change also
names the earlier fact it ended (``Change.fact_ids`` lists every lineage a change wrote), and
the earlier fact holds again. Both stores: the embedded store's files are scanned byte by
byte, the Neo4j graph property by property."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from kgmem.memory.facade import Memory
from tests.conftest import fresh_group, neo4j_store_or_skip

SECRET = "Zanzibarquux"  # only in the erased episode, fact and reason
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def mem(request, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "embedded":
        m = Memory(tmp_path / "store", extractor=None)
        yield m, "default", request.param
        m.close()
    else:
        m = Memory(store=neo4j_store_or_skip(), extractor=None)
        g = fresh_group("ersup")
        yield m, g, request.param
        m.erase(whole_group=True, group=g)


def _neo4j_hits(m: Memory, g: str, needle: str) -> list[str]:
    scan = ("UNWIND [k IN keys(x) WHERE NOT k ENDS WITH 'embedding' | x[k]] AS v "
            "WITH CASE WHEN valueType(v) STARTS WITH 'LIST' "
            "THEN reduce(s = '', y IN v | s + ' ' + toString(y)) ELSE toString(v) END AS text "
            "WITH text WHERE text CONTAINS $n RETURN text")
    q = m.store.cypher  # type: ignore[attr-defined]
    return [r[0] for r in q("MATCH (x) WHERE x.group_id = $g " + scan, g=g, n=needle)
            + q("MATCH ()-[x]->() WHERE x.group_id = $g " + scan, g=g, n=needle)]


def test_erasing_a_superseding_fact_leaves_no_trace(mem) -> None:  # type: ignore[no-untyped-def]
    m, g, kind = mem
    m.declare_predicate("LIVES_IN", functional=True, group=g)
    home = m.add_episode("I live in Harbourtown", T0, speaker="Ann", group=g)
    m.assert_fact("Ann", "LIVES_IN", "Harbourtown", valid_at=T0, episode=home.id, group=g,
                  reason="Ann said so")
    moved = m.add_episode(f"I moved to {SECRET}", datetime(2024, 6, 1, tzinfo=timezone.utc),
                          speaker="Ann", group=g)
    new = m.assert_fact("Ann", "LIVES_IN", SECRET, valid_at="2024-06-01", episode=moved.id,
                        group=g, reason=f"Ann moved to {SECRET}")
    asserted = [c for c in m.changes("1970-01-01T00:00:00Z", group=g) if c.kind == "assert"]
    assert len(asserted[-1].fact_ids) == 2  # the new fact and the one it ended
    assert [f.object for f in m.facts(group=g)] == [SECRET]
    m.erase(episode=moved.id, group=g)
    assert [f.object for f in m.facts(group=g)] == ["Harbourtown"]  # holds again
    for c in m.changes("1970-01-01T00:00:00Z", group=g):
        assert SECRET not in c.reason and new.fact_id not in c.fact_ids
    assert all(SECRET not in v.reason and SECRET not in v.fact
               for v in m.history("Ann", group=g))
    if kind == "embedded":
        path = m.store.path  # type: ignore[attr-defined]
        m.close()
        raw = b"".join(p.read_bytes() for p in Path(path).rglob("*") if p.is_file())
        assert SECRET.encode() not in raw
    else:
        assert _neo4j_hits(m, g, SECRET) == []
