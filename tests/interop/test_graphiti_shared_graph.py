"""graphiti-core and kgmem writing the same Neo4j group (issue 13, point 10), against the real
shared server and graphiti-core's own code (no LLM: fakes from tests/interop/fakes.py).

* graphiti's ``remove_episode`` on a kgmem episode deleted kgmem facts and left their lineages
  behind, believed: a later ``invalidate`` "succeeded" and wrote nothing, and the invisible
  fact still closed the subject's next value. Now orphans are listed (``Memory.orphans``),
  ignored by timelines, and changing one is ``orphaned_fact`` (409); facts another episode
  still supports stay.
* naive datetimes written by graphiti made ``facts()`` silently empty and ``history()`` raise
  CypherTypeError; they now read as UTC (as graphiti's own ``ensure_utc`` does).
* a kgmem episode ``source`` graphiti does not know broke graphiti's episode reads and search
  for the whole group; kgmem now writes one it accepts and keeps its own in ``kgmem_source``.
* ``Episodic.entity_edges`` was always ``[]``; it now lists the versions of the facts the
  episode supports.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import Any

import pytest

pytest.importorskip("graphiti_core")

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.edges import EntityEdge  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF  # noqa: E402

from kgmem.embed.hashing import HashingEmbedder  # noqa: E402
from kgmem.errors import KgmemError  # noqa: E402
from kgmem.memory.facade import Memory  # noqa: E402
from tests.api.conftest import client_for  # noqa: E402
from tests.conftest import fresh_group, neo4j_store_or_skip  # noqa: E402
from tests.interop.fakes import HashEmbedder, NoLLM, PassThroughReranker  # noqa: E402
from tests.interop.test_graphiti_interop import graphiti_driver  # noqa: E402

pytestmark = pytest.mark.neo4j


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHITI_TELEMETRY_ENABLED", "false")


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def _graphiti(driver: Any) -> Graphiti:
    return Graphiti(graph_driver=driver, llm_client=NoLLM(), embedder=HashEmbedder(),
                    cross_encoder=PassThroughReranker())


async def _with_graphiti(work: Any) -> Any:
    driver = await graphiti_driver()
    try:
        return await work(driver, _graphiti(driver))
    finally:
        await driver.close()


def test_graphiti_reads_and_searches_kgmem_episodes_of_any_source() -> None:
    store = neo4j_store_or_skip()
    m, g = Memory(store=store, extractor=None), fresh_group("gsrc")
    mail = m.add_episode("Note to self: Alice moved to Paris.", "2020-01-05", source="email",
                         group=g, extract=False)
    m.add_episode("Alice: hello", "2020-01-06", speaker="Alice", group=g, extract=False)

    async def work(driver: Any, gr: Graphiti) -> tuple[Any, list[Any], Any]:
        one = await EpisodicNode.get_by_uuid(driver, mail.id)
        last = await gr.retrieve_episodes(utc(2030, 1, 1), last_n=10, group_ids=[g])
        found = await gr.search_("Paris", config=COMBINED_HYBRID_SEARCH_RRF, group_ids=[g])
        return one, last, found

    one, last, found = asyncio.run(_with_graphiti(work))
    assert one.source is EpisodeType.text and one.content == mail.content
    assert sorted(e.source.value for e in last) == ["message", "text"]
    assert mail.id in {e.uuid for e in found.episodes}
    assert m.episode(mail.id, group=g).source == "email"  # kgmem keeps its own source


def _edges_of(store: Any, episode_id: str) -> set[str]:
    return set(store.cypher("MATCH (e:Episodic {uuid: $u}) RETURN e.entity_edges",
                        u=episode_id)[0][0])


def test_entity_edges_list_the_versions_of_the_facts_an_episode_supports() -> None:
    store = neo4j_store_or_skip()
    m, g = Memory(store=store, extractor=None), fresh_group("gedges")
    e1 = m.add_episode("Alice: I live in Paris.", "2020-02-01", speaker="Alice", group=g,
                       extract=False)
    e2 = m.add_episode("Alice: still in Paris.", "2020-03-01", speaker="Alice", group=g,
                       extract=False)
    paris = m.assert_fact("Alice", "LIVES_IN", "Paris", valid_at="2020-02", episode=e1.id,
                          group=g)
    m.assert_fact("Alice", "LIVES_IN", "Rome", valid_at="2021", group=g)  # closes Paris
    m.assert_fact("Alice", "LIVES_IN", "Paris", valid_at="2020-02", episode=e2.id, group=g)
    versions = {v.id for v in m.history(paris.fact_id, group=g)}
    assert len(versions) == 2  # the open one and the one closed by Rome
    assert _edges_of(store, e1.id) == versions == _edges_of(store, e2.id)
    assert {tuple(sorted(r[0])) for r in store.cypher(
        "MATCH ()-[r:RELATES_TO {fact_id: $f}]->() RETURN r.episodes", f=paris.fact_id)} == {
        tuple(sorted([e1.id, e2.id]))}


def test_kgmem_survives_graphiti_remove_episode() -> None:
    store = neo4j_store_or_skip()
    m, g = Memory(store=store, extractor=None), fresh_group("grm")
    e1 = m.add_episode("Alice: I live in Paris and work at Acme.", "2020-02-01",
                       speaker="Alice", group=g, extract=False)
    e2 = m.add_episode("Alice: Acme is great.", "2020-03-01", speaker="Alice", group=g,
                       extract=False)
    paris = m.assert_fact("Alice", "LIVES_IN", "Paris", valid_at="2020-02", episode=e1.id,
                          group=g)
    acme = m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2020", episode=e1.id, group=g)
    m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2020", episode=e2.id, group=g)
    knows = m.assert_fact("Bob", "KNOWS", "Alice", group=g)
    m.embedder = HashingEmbedder(384)
    m.index()  # graphiti re-saves the edges it keeps with their fact_embedding

    asyncio.run(_with_graphiti(lambda driver, gr: gr.remove_episode(e1.id)))

    # the fact only e1 supported went with it (graphiti deleted it and Paris, which only e1
    # mentioned); kgmem lists it as an orphan
    orphans = m.orphans(group=g)
    assert [(o.fact_id, o.missing) for o in orphans] == [(paris.fact_id, ("versions", "object"))]
    # the facts e2 (or nothing) supports stay, with their provenance
    now = {(f.subject, f.predicate, f.object): f for f in m.facts(group=g)}
    assert set(now) == {("Alice", "WORKS_AT", "Acme"), ("Bob", "KNOWS", "Alice")}
    assert now[("Alice", "WORKS_AT", "Acme")].episodes == [e2.id]
    assert [v.fact_id for v in m.history(acme.fact_id, group=g)] == [acme.fact_id]
    assert now[("Bob", "KNOWS", "Alice")].fact_id == knows.fact_id
    # changing the orphan is an error, not a silent no-op
    for change in (lambda: m.invalidate(paris.fact_id, "2022", group=g),
                   lambda: m.retract(paris.fact_id, group=g),
                   lambda: m.correct(paris.fact_id, object="Lyon", group=g)):
        with pytest.raises(KgmemError) as exc:
            change()
        assert exc.value.type == "orphaned_fact" and exc.value.http_status == 409
    c = client_for(m)
    c.headers["X-Group"] = g
    resp = c.post(f"/v1/facts/{paris.fact_id}/invalidate", json={"at": "2022"})
    assert resp.status_code == 409 and resp.json()["error"]["type"] == "orphaned_fact"
    # and the invisible fact no longer shapes the timeline: Rome is not closed by Paris
    rome = m.assert_fact("Alice", "LIVES_IN", "Rome", valid_at="2019", group=g)
    assert rome.invalid_at is None and rome.caused_by is None
    assert [f.object for f in m.facts("Alice", "LIVES_IN", valid_at="2020-06", group=g)] == [
        "Rome"]


def test_naive_datetimes_written_by_graphiti_read_as_utc() -> None:
    store = neo4j_store_or_skip()
    m, g = Memory(store=store, extractor=None), fresh_group("gnaive")
    m.embedder = HashingEmbedder(384)
    emb = HashEmbedder()

    async def work(driver: Any, gr: Graphiti) -> dict[str, str]:
        bob = EntityNode(name="Bob", group_id=g, labels=["Entity"], summary="",
                         created_at=utc(2024, 1, 1), name_embedding=await emb.create("Bob"))
        rome = EntityNode(name="Rome", group_id=g, labels=["Entity"], summary="",
                          created_at=utc(2024, 1, 1), name_embedding=await emb.create("Rome"))
        ep = EpisodicNode(name="chat", group_id=g, labels=[], source=EpisodeType.message,
                          source_description="chat", content="Bob: I moved to Rome in 2019.",
                          created_at=utc(2024, 1, 1), valid_at=datetime(2019, 3, 1, 12))
        edge = EntityEdge(source_node_uuid=bob.uuid, target_node_uuid=rome.uuid,
                          name="LIVES_IN", fact="Bob lives in Rome", group_id=g,
                          episodes=[ep.uuid], created_at=utc(2024, 1, 1),
                          valid_at=datetime(2019, 1, 1), invalid_at=datetime(2023, 1, 1),
                          fact_embedding=await emb.create("Bob lives in Rome"))
        for x in (bob, rome, ep, edge):
            await x.save(driver)
        return {"edge": edge.uuid, "episode": ep.uuid}

    ids = asyncio.run(_with_graphiti(work))
    assert store.cypher("MATCH ()-[r:RELATES_TO {uuid: $u}]->() RETURN r.valid_at IS :: "
                    "LOCAL DATETIME", u=ids["edge"]) == [[True]]  # graphiti wrote it naive
    store.adopt_graphiti_entities(g)

    def objects(**kw: Any) -> list[str]:
        return [f.object for f in m.facts("Bob", group=g, **kw)]

    assert objects(valid_at="2020") == ["Rome"]
    assert objects(valid_at="2018") == [] and objects(valid_at="2023-01-01") == []
    assert objects(valid_at="2022-12-31T23:59:59Z") == ["Rome"]
    assert objects(valid_at="2010", valid_to="2019-01-02") == ["Rome"]
    hist = m.history("Bob", group=g)
    assert [(v.valid_at, v.invalid_at) for v in hist] == [(utc(2019, 1, 1), utc(2023, 1, 1))]
    assert m.episode(ids["episode"], group=g).reference_time == utc(2019, 3, 1, 12)
    hits = m.search("where did Bob move in March 2019?", group=g, reference_time="2024-01-01")
    assert ids["episode"] in {h.id for h in hits}
