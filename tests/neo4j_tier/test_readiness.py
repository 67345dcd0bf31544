"""Readiness on Neo4j (issue 32): ``ready()`` is a write that is rolled back, and after this
process lost the database it says 503 until a warm-up replayed the statements it had run
(each in a transaction rolled back), so that /ready's 200 means writes take their usual time.
Nothing of the probe or the warm-up is ever committed."""

from __future__ import annotations

import time

import pytest

from kgmem.errors import StoreUnavailableError
from kgmem.memory.facade import Memory
from kgmem.store.neo4j import Neo4jStore
from tests.conftest import fresh_group, neo4j_settings, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


def test_ready_after_an_outage_waits_for_the_warm_up_and_commits_nothing() -> None:
    neo4j_store_or_skip()
    store = Neo4jStore(**neo4j_settings())  # its own readiness state, not the shared store's
    m = Memory(store=store, extractor=None)
    g = fresh_group("ready")
    try:
        m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g)
        m.add_episode("Alice moved to Boston.", "2021-01-05", group=g, extract=False)
        assert m.facts(group=g)
        before = store.counts(g)
        probes = store.cypher("MATCH (p:KgmemReadyProbe) RETURN count(p)")[0][0]
        store.ready()  # up: a rolled-back write succeeds
        assert store.readiness.statements  # the statements run so far are known

        store.readiness.lost_connection()  # as a driver error during an outage does
        with pytest.raises(StoreUnavailableError, match="warming up"):
            store.ready()
        deadline = time.monotonic() + 120
        while True:
            try:
                store.ready()
                break
            except StoreUnavailableError:
                assert time.monotonic() < deadline, "the warm-up did not finish"
                time.sleep(0.1)
        warmed = store.readiness.last_warm_up
        assert any("KgmemMeta {key: 'lock'}" in q for q in warmed), list(warmed)
        assert len(warmed) >= 5
        # the replayed writes (the lock, entities, the fact, the change) were rolled back
        assert store.counts(g) == before
        assert store.cypher("MATCH (p:KgmemReadyProbe) RETURN count(p)")[0][0] == probes == 0
        assert [f.object for f in m.facts(group=g)] == ["Boston"]
    finally:
        m.erase(group=g, whole_group=True)
        store.close()
