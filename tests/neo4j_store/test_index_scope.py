"""The Neo4j search index catch-up stays inside the groups it is asked for: on a server shared
by tenants (or test runs) it neither embeds another group's items nor deletes another group's
chunks, and a search catches up its own group only."""

from __future__ import annotations

import uuid

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import search
from kgmem.retrieve.backend import get_backend
from tests.conftest import fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


def _unembedded(store, group: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    row = store.cypher(
        "CALL () { MATCH (e:Entity {group_id: $g}) WHERE e.name_embedding IS NULL "
        "RETURN count(e) AS ents } "
        "CALL () { MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g AND r.fact_embedding IS NULL "
        "RETURN count(r) AS facts } "
        "CALL () { MATCH (e:Episodic {group_id: $g}) WHERE NOT (e)-[:KGMEM_CHUNK]->() "
        "RETURN count(e) AS eps } RETURN ents, facts, eps", g=group)[0]
    return dict(zip(("entities", "facts", "episodes"), row))


def _orphan(store, group: str) -> str:  # type: ignore[no-untyped-def]
    """A chunk whose episode was deleted outside kgmem (no KGMEM_CHUNK edge)."""
    cid = str(uuid.uuid4())
    with store.driver.session(database=store.database) as s:
        s.run("CREATE (:KgmemChunk {uuid: $id, episode_uuid: $ep, group_id: $g, chunk: 0, "
              "start: 0, end: 1, model: 'x'})", id=cid, ep=str(uuid.uuid4()), g=group).consume()
    return cid


def _exists(store, chunk_id: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(store.cypher("MATCH (c:KgmemChunk {uuid: $id}) RETURN c.uuid", id=chunk_id))


def test_index_pending_embeds_and_cleans_only_the_groups_asked_for() -> None:
    store = neo4j_store_or_skip()
    mine, theirs = fresh_group("idx-mine"), fresh_group("idx-theirs")
    m = Memory(store=store, extractor=None)
    for g in (mine, theirs):
        m.add_episode("Alice moved to Oslo.", group=g, reference_time="2021-03-01")
        m.assert_fact("Alice", "LIVES_IN", "Oslo", valid_at="2021-03", group=g)
    orphan_mine, orphan_theirs = _orphan(store, mine), _orphan(store, theirs)
    before = _unembedded(store, theirs)
    assert before == {"entities": 2, "facts": 1, "episodes": 1}

    backend = get_backend(m, HashingEmbedder(384))
    done = backend.index_pending(groups=[mine])
    assert done >= 4  # two entities, one fact version, one episode
    assert _unembedded(store, mine) == {"entities": 0, "facts": 0, "episodes": 0}
    assert _unembedded(store, theirs) == before  # untouched
    assert not _exists(store, orphan_mine)
    assert _exists(store, orphan_theirs)  # another tenant's: not this catch-up's to delete

    # a search (its own backend: another embedder) catches up the searched group only
    m2 = Memory(store=store, extractor=None)
    m2.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2020", group=mine)
    search(m2, "where does Alice live", group=mine, embedder=HashingEmbedder(384))
    assert _unembedded(store, mine) == {"entities": 0, "facts": 0, "episodes": 0}
    assert _unembedded(store, theirs) == before
    assert _exists(store, orphan_theirs)

    # the other group when it is asked for
    backend.index_pending(groups=[theirs])
    assert _unembedded(store, theirs) == {"entities": 0, "facts": 0, "episodes": 0}
    assert not _exists(store, orphan_theirs)
