"""The same search semantics on the Neo4j store (needs a server: scripts/neo4j.sh start)."""

from __future__ import annotations

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import context, index_pending, search
from tests.conftest import fresh_group, neo4j_store_or_skip

from .conftest import StepClock

pytestmark = pytest.mark.neo4j


@pytest.fixture
def nmem():
    store = neo4j_store_or_skip()
    m = Memory(store=store, clock=StepClock(), extractor=None)
    m.embedder = HashingEmbedder(384)  # the Neo4j vector indexes are 384-dim
    return m


def test_neo4j_hybrid_time_and_fact_visibility(nmem):
    g = fresh_group("ret")
    m = nmem
    a = m.add_episode("Let's talk about the pottery class", "2023-05-08T13:56:00Z", group=g,
                      speaker="Maya")
    b = m.add_episode("Yesterday the pottery teacher was sick", "2023-05-09T10:00:00Z", group=g)
    c = m.add_episode("More pottery: I bought a wheel", "2023-05-20T10:00:00Z", group=g)
    m.assert_fact("Maya", "LIVES_IN", "Boston", valid_at="2019-01", group=g)
    m.assert_fact("Maya", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
    index_pending(m)
    got = [r.id for r in search(m, "pottery wheel", kinds=("episodes",), group=g)]
    assert got[0] == c.id and set(got) == {a.id, b.id, c.id}
    day = search(m, "What did we discuss on May 8th?", kinds=("episodes",), group=g,
                 reference_time="2023-10-01")
    assert [r.id for r in day] == [a.id, b.id]
    now = search(m, "where does Maya live", kinds=("facts",), group=g)
    assert [r.text for r in now] == ["Maya lives in Denver"]
    then = search(m, "where does Maya live", kinds=("facts",), group=g, valid_at="2020-01-01")
    assert [r.text for r in then] == ["Maya lives in Boston"]
    block = context(m, "Where does Maya live?", budget_tokens=200, group=g)
    assert "Denver" in block.text and "Boston" not in block.text
    m.erase(episode=c.id, group=g)
    index_pending(m)
    assert c.id not in [r.id for r in search(m, "pottery wheel", kinds=("episodes",), group=g)]
    m.erase(whole_group=True, group=g)
