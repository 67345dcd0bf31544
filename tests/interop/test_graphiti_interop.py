"""kgmem and graphiti-core share one Neo4j graph (same vocabulary, both directions).

(a) a graph written by graphiti-core's own objects (``EntityNode``/``EntityEdge``/
    ``EpisodicNode`` ``.save(driver)``, no LLM) reads in kgmem, and kgmem's valid-time views
    equal graphiti's ``search()`` with ``SearchFilters`` on valid_at/invalid_at;
(b) graphiti-core's ``search()`` runs over a graph written by kgmem, and graphiti's date
    filters on (valid_at, invalid_at, created_at, expired_at) reproduce kgmem's views.

Model clients are offline fakes (tests/interop/fakes.py). See docs/neo4j-browser.md,
"graphiti-core interop", for the semantic differences these tests pin.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("graphiti_core")

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
from graphiti_core.edges import EntityEdge, EpisodicEdge  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_core.search.search_config import (  # noqa: E402
    EdgeSearchConfig,
    EdgeSearchMethod,
    SearchConfig,
)
from graphiti_core.search.search_config_recipes import NODE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.search.search_filters import (  # noqa: E402
    ComparisonOperator,
    DateFilter,
    SearchFilters,
)

from kgmem.memory.facade import Memory  # noqa: E402
from kgmem.store.neo4j import Neo4jStore  # noqa: E402
from kgmem.store.neo4j.queries import GRAPHITI_REASON  # noqa: E402
from tests.conftest import ManualClock, fresh_group, neo4j_settings, neo4j_store_or_skip  # noqa: E402
from tests.interop.fakes import HashEmbedder, NoLLM, PassThroughReranker  # noqa: E402

pytestmark = pytest.mark.neo4j


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHITI_TELEMETRY_ENABLED", "false")


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


async def graphiti_driver() -> Neo4jDriver:
    """graphiti's driver; inside a loop it builds its indexes at once: they must be no-ops
    (or compatible) on kgmem's schema, so wait for that and let any error surface."""
    s = neo4j_settings()
    driver = Neo4jDriver(s["uri"], s["user"], s["password"], s["database"] or "neo4j")
    if driver._init_task is not None:
        await driver._init_task
    return driver


def graphiti(driver: Neo4jDriver) -> Graphiti:
    return Graphiti(
        graph_driver=driver,
        llm_client=NoLLM(),
        embedder=HashEmbedder(),
        cross_encoder=PassThroughReranker(),
    )


def valid_at_filter(v: datetime, *, known_at: datetime | None = None) -> SearchFilters:
    """graphiti's spelling of kgmem's visibility rule (valid time; optionally known_at)."""
    le, gt = ComparisonOperator.less_than_equal, ComparisonOperator.greater_than
    null = ComparisonOperator.is_null
    f = SearchFilters(
        valid_at=[
            [DateFilter(date=v, comparison_operator=le)],
            [DateFilter(comparison_operator=null)],
        ],
        invalid_at=[
            [DateFilter(date=v, comparison_operator=gt)],
            [DateFilter(comparison_operator=null)],
        ],
    )
    if known_at is not None:
        f.created_at = [[DateFilter(date=known_at, comparison_operator=le)]]
        f.expired_at = [
            [DateFilter(comparison_operator=null)],
            [DateFilter(date=known_at, comparison_operator=gt)],
        ]
    return f


ALL_EDGES = SearchConfig(
    edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25]), limit=100
)


async def graphiti_edge_ids(g: Graphiti, group: str, query: str, flt: SearchFilters) -> set[str]:
    res = await g.search_(query, config=ALL_EDGES, group_ids=[group], search_filter=flt)
    return {e.uuid for e in res.edges}


# ------------------------------------------------------------------------------ (a)
T0 = utc(2024, 1, 10)  # graphiti ingested the first episode
T1 = utc(2024, 2, 20)  # ... and learnt of the move (it edits the Boston edge in place)


async def write_graphiti_graph(group: str) -> dict[str, str]:
    """What graphiti's pipeline would leave after two episodes, written with its own models."""
    emb = HashEmbedder()
    driver = await graphiti_driver()
    try:
        names = ["Alice", "Boston", "Denver", "Acme", "Bob"]
        nodes = {
            n: EntityNode(
                name=n,
                group_id=group,
                labels=["Entity"],
                summary=f"{n} summary",
                created_at=T0,
                name_embedding=await emb.create(n),
            )
            for n in names
        }
        for node in nodes.values():
            await node.save(driver)
        ep = EpisodicNode(
            name="chat 1",
            group_id=group,
            labels=[],
            source=EpisodeType.message,
            source_description="chat",
            content="Alice: I moved from Boston to Denver in June 2021",
            created_at=T0,
            valid_at=utc(2021, 6, 15),
        )

        def edge(
            s: str,
            pred: str,
            o: str,
            fact: str,
            valid: datetime | None,
            invalid: datetime | None = None,
            created: datetime = T0,
            expired: datetime | None = None,
        ) -> EntityEdge:
            return EntityEdge(
                source_node_uuid=nodes[s].uuid,
                target_node_uuid=nodes[o].uuid,
                name=pred,
                fact=fact,
                group_id=group,
                episodes=[ep.uuid],
                created_at=created,
                valid_at=valid,
                invalid_at=invalid,
                expired_at=expired,
            )

        edges = {
            "boston": edge(
                "Alice",
                "LIVES_IN",
                "Boston",
                "Alice lives in Boston",
                utc(2019, 1, 1),
                invalid=utc(2021, 6, 1),
                expired=T1,
            ),
            "denver": edge(
                "Alice", "LIVES_IN", "Denver", "Alice lives in Denver", utc(2021, 6, 1), created=T1
            ),
            "acme": edge("Alice", "WORKS_AT", "Acme", "Alice works at Acme", utc(2020, 1, 1)),
            "knows": edge("Bob", "KNOWS", "Alice", "Bob knows Alice", None),
        }
        ep.entity_edges = [e.uuid for e in edges.values()]
        await ep.save(driver)
        for e in edges.values():
            e.fact_embedding = await emb.create(e.fact)
            await e.save(driver)
        await EpisodicEdge(
            source_node_uuid=ep.uuid,
            target_node_uuid=nodes["Alice"].uuid,
            group_id=group,
            created_at=T0,
        ).save(driver)
        return {
            **{k: v.uuid for k, v in edges.items()},
            "episode": ep.uuid,
            **{n.lower() + "_node": nodes[n].uuid for n in names},
        }
    finally:
        await driver.close()


def test_graphiti_written_graph_reads_in_kgmem_at_the_right_times() -> None:
    store = neo4j_store_or_skip()
    group = fresh_group("gw")
    ids = asyncio.run(write_graphiti_graph(group))
    assert store.adopt_graphiti_entities(group) == 5
    m = Memory(store=store, extractor=None)  # wall clock: graphiti's created_at are in the past

    def objects(**kw) -> list[str]:  # type: ignore[no-untyped-def]
        """Alice's own statements (a symmetric KNOWS stated by Bob also answers about Alice)."""
        return sorted(f.object for f in m.facts("Alice", group=group, **kw)
                      if f.subject == "Alice")

    assert objects() == ["Acme", "Denver"]
    assert [(f.subject, f.object) for f in m.facts("Alice", "KNOWS", group=group)] == [
        ("Bob", "Alice")]
    assert objects(valid_at="2020-06-01") == ["Acme", "Boston"]
    assert objects(valid_at="2019-06-01") == ["Boston"]
    assert objects(valid_at="2021-06-01") == ["Acme", "Denver"]  # closed-open interval
    assert objects(valid_at="2020-06-01", known_at=T0 - timedelta(days=1)) == []
    # Denver arrived at T1: as known between T0 and T1 it is unknown
    assert objects(valid_at="2022-01-01", known_at=T1 - timedelta(seconds=1)) == ["Acme"]

    boston = m.fact(ids["boston"], valid_at="2020-01-01", group=group)
    assert boston is not None
    # one version per graphiti edge: its uuid is the lineage id; graphiti's expired_at
    # (when it learnt the end) is not a retraction
    assert boston.fact_id == boston.id == ids["boston"]
    assert boston.expired_at is None and boston.reason == GRAPHITI_REASON
    assert (boston.valid_at, boston.invalid_at) == (utc(2019, 1, 1), utc(2021, 6, 1))
    assert boston.episodes == [ids["episode"]] and boston.fact == "Alice lives in Boston"
    assert [v.id for v in m.history(ids["boston"], group=group)] == [ids["boston"]]
    knows = m.facts("Bob", "KNOWS", valid_at="1900-01-01", group=group)
    assert [f.object for f in knows] == ["Alice"] and knows[0].valid_at is None

    paths = m.paths("Bob", "Denver", max_hops=2, valid_at="2022-01-01", group=group)
    assert [[h.fact.predicate for h in p.hops] for p in paths] == [["KNOWS", "LIVES_IN"]]
    assert m.paths("Bob", "Denver", max_hops=2, valid_at="2020-01-01", group=group) == []

    ep = m.episode(ids["episode"], group=group)
    assert ep.reference_time == utc(2021, 6, 15) and "Denver" in ep.content
    assert [e for e, _ in store.keyword_episodes(group, "Boston")] == [ids["episode"]]


@pytest.mark.parametrize(
    "v", ["2018-06-01", "2019-01-01", "2020-06-01", "2021-05-31", "2021-06-01", "2023-01-01", None]
)
def test_kgmem_valid_time_views_equal_graphiti_search_filters_on_graphiti_graph(v) -> None:  # type: ignore[no-untyped-def]
    store = neo4j_store_or_skip()
    group = fresh_group("gw")
    asyncio.run(write_graphiti_graph(group))
    store.adopt_graphiti_entities(group)
    m = Memory(store=store, extractor=None)
    at = m.now() if v is None else datetime.fromisoformat(v).replace(tzinfo=timezone.utc)
    kgmem = {f.fact_id for f in m.facts(valid_at=at, group=group)}

    async def run() -> set[str]:
        driver = await graphiti_driver()
        try:
            return await graphiti_edge_ids(graphiti(driver), group, "Alice", valid_at_filter(at))
        finally:
            await driver.close()

    assert kgmem == asyncio.run(run())
    assert kgmem  # every probe sees something except before 2019... and 2018 sees KNOWS


# ------------------------------------------------------------------------------ (b)
def write_kgmem_graph(group: str) -> tuple[Memory, dict[str, object]]:
    neo4j_store_or_skip()  # skip/fail like the other tests when the server is down
    store = Neo4jStore(**neo4j_settings(), embedder=HashEmbedder())  # type: ignore[arg-type]
    clock = ManualClock(utc(2025, 3, 1))
    m = Memory(store=store, clock=clock, extractor=None)
    ep = m.add_episode("Alice said she moved to Denver in March 2023", "2023-03-02", group=group)
    boston = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=group)
    t_boston = clock()
    clock.advance(days=1)
    denver = m.assert_fact(
        "Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=group, episode=ep.id
    )
    acme = m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2020", group=group)
    clock.advance(days=1)
    return m, {
        "episode": ep,
        "boston": boston,
        "denver": denver,
        "acme": acme,
        "t_boston": t_boston,
    }


def test_graphiti_search_runs_over_a_kgmem_graph() -> None:
    group = fresh_group("kw")
    m, w = write_kgmem_graph(group)
    try:

        async def run() -> None:
            driver = await graphiti_driver()
            try:
                g = graphiti(driver)
                edges = await g.search("Alice lives in Denver", group_ids=[group], num_results=20)
                by_id = {e.uuid: e for e in edges}
                denver = w["denver"]
                assert denver.id in by_id  # type: ignore[attr-defined]
                e = by_id[denver.id]  # type: ignore[attr-defined]
                assert (e.name, e.fact, e.valid_at, e.invalid_at) == (
                    "LIVES_IN",
                    "Alice lives in Denver",
                    utc(2023, 3, 1),
                    None,
                )
                assert e.episodes == [w["episode"].id]  # type: ignore[attr-defined]
                assert e.attributes["fact_id"] == denver.fact_id  # type: ignore[attr-defined]
                # graphiti sees every kgmem *version*: the first Boston version is expired
                all_ids = await graphiti_edge_ids(g, group, "Alice", SearchFilters())
                versions = {v.id for v in m.history("Alice", group=group)}
                assert all_ids == versions and len(versions) == 4
                # cosine search over the fact embeddings kgmem wrote
                cos = SearchConfig(
                    edge_config=EdgeSearchConfig(
                        search_methods=[EdgeSearchMethod.cosine_similarity]
                    ),
                    limit=3,
                )
                res = await g.search_("Alice lives in Denver", config=cos, group_ids=[group])
                assert res.edges and res.edges[0].uuid == denver.id  # type: ignore[attr-defined]
                nodes = await g.search_("Alice", config=NODE_HYBRID_SEARCH_RRF, group_ids=[group])
                assert "Alice" in {n.name for n in nodes.nodes}
                eps = await EpisodicNode.get_by_group_ids(driver, [group])
                assert [x.content for x in eps] == [w["episode"].content]  # type: ignore[attr-defined]
            finally:
                await driver.close()

        asyncio.run(run())
    finally:
        m.close()


@pytest.mark.parametrize(
    "v,k",
    [
        ("2020-06-01", None),
        ("2022-01-01", None),
        ("2024-01-01", None),
        (None, None),
        ("2024-01-01", "t_boston"),
        ("2022-01-01", "t_boston"),
    ],
)
def test_graphiti_filters_reproduce_kgmem_views_on_a_kgmem_graph(v, k) -> None:  # type: ignore[no-untyped-def]
    group = fresh_group("kw")
    m, w = write_kgmem_graph(group)
    try:
        at = m.now() if v is None else datetime.fromisoformat(v).replace(tzinfo=timezone.utc)
        known = m.now() if k is None else w[k]
        kgmem = {f.id for f in m.facts(valid_at=at, known_at=known, group=group)}

        async def run() -> set[str]:
            driver = await graphiti_driver()
            try:
                flt = valid_at_filter(at, known_at=known)  # type: ignore[arg-type]
                return await graphiti_edge_ids(graphiti(driver), group, "Alice", flt)
            finally:
                await driver.close()

        assert kgmem == asyncio.run(run())
    finally:
        m.close()
