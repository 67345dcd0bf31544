"""Neo4j's vector indexes are shared by all groups: a small group's nearest items must still be
found when other groups' items crowd the top of the index (widening), and nothing of another
group may come back."""

from __future__ import annotations

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.retrieve.backend import get_backend
from tests.conftest import fresh_group, neo4j_store_or_skip

from .conftest import StepClock

pytestmark = pytest.mark.neo4j

QUERY = "quantum physics laboratory in the old harbour"


def test_small_group_finds_its_items_under_a_crowd_of_other_groups() -> None:
    m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    small, crowd = fresh_group("vsmall"), fresh_group("vcrowd")
    try:
        # the crowd: 60 near-copies of the query, as episodes, entities and facts
        for i in range(60):
            m.add_episode(f"{QUERY} number {i}", f"2023-05-{1 + i % 28:02d}", group=crowd)
            m.assert_fact(f"{QUERY} {i}", "LOCATED_IN", f"{QUERY} site {i}", group=crowd)
        # the small group: one weaker match of each kind
        ep = m.add_episode("the harbour laboratory", "2023-05-02", group=small)
        f = m.assert_fact("harbour laboratory", "LOCATED_IN", "old harbour", group=small)
        index_pending(m)
        be = get_backend(m)
        q = m.embedder.embed([QUERY])[0]  # type: ignore[attr-defined]
        now = m.now()

        eps = be.vector_episodes(small, q, 1, now, None, None)
        assert [e for e, _, _ in eps] == [ep.id]
        ents = be.vector_entities(small, q, 1, now)
        assert ents and ents[0][0] in {f.subject_id, f.object_id}
        facts = be.vector_facts(small, q, 1, m._when(None, None, None, None))
        assert [v.fact_id for v, _ in facts] == [f.fact_id]
        # the crowd's own answers stay the crowd's
        crowd_eps = be.vector_episodes(crowd, q, 5, now, None, None)
        assert len(crowd_eps) == 5 and ep.id not in {e for e, _, _ in crowd_eps}
    finally:
        m.erase(whole_group=True, group=small)
        m.erase(whole_group=True, group=crowd)


class _Negated(HashingEmbedder):
    """Another 384-dim embedder (its own name): every vector points the other way."""

    def __init__(self) -> None:
        super().__init__(384)
        self.name = "negated-hashing-384"

    def embed(self, texts):  # type: ignore[no-untyped-def]
        return -super().embed(texts)


def test_another_embedder_on_the_server_does_not_replace_a_groups_vectors() -> None:
    """Two processes with different 384-dim embedders share the server (a test suite next to a
    MiniLM benchmark): whichever indexes pending episodes first, each searches with vectors of
    its own embedder (chunks record their model), never the other's."""
    store = neo4j_store_or_skip()
    mine = Memory(store=store, clock=StepClock(), extractor=None)
    mine.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    other = Memory(store=store, clock=StepClock(), extractor=None)
    other.embedder = _Negated()  # type: ignore[attr-defined]
    g = fresh_group("vmodel")
    try:
        near = mine.add_episode(QUERY, "2023-05-02", group=g)
        far = mine.add_episode("a recipe for lemon cake with blueberries", "2023-05-03", group=g)
        index_pending(other)  # the other process embeds everyone's pending episodes first
        index_pending(mine)
        q = mine.embedder.embed([QUERY])[0]  # type: ignore[attr-defined]
        got = get_backend(mine).vector_episodes(g, q, 2, mine.now(), None, None)
        assert [e for e, _, _ in got] == [near.id, far.id]
        assert got[0][1] > 0.9  # its own vector (the other embedder's would be about -1)
        window = get_backend(mine).vector_episodes(g, q, 2, mine.now(), None, {near.id, far.id})
        assert [e for e, _, _ in window] == [near.id, far.id]
        theirs = get_backend(other).vector_episodes(
            g, other.embedder.embed([QUERY])[0], 2, mine.now(), None, None)  # type: ignore[attr-defined]
        assert [e for e, _, _ in theirs] == [near.id, far.id]
    finally:
        mine.erase(whole_group=True, group=g)
