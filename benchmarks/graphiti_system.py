"""graphiti-core's own search as a system under test, over the graph kgmem wrote to Neo4j.

A :class:`GraphitiSearchSystem` reads the group that a Neo4j-backed
:class:`~benchmarks.kgmem_system.KgmemSystem` (its ``source``) replayed for the current
haystack: the same nodes and edges, no second ingestion. When the source has not indexed the
haystack yet (graphiti run alone), ``index`` asks it to.

Per question it calls ``Graphiti.search_`` (graphiti-core's search entry point returning
graph objects) with :data:`SEARCH_CONFIG`, graphiti's ``COMBINED_HYBRID_SEARCH_RRF`` recipe
without communities (kgmem writes none):

* edges (``RELATES_TO`` facts): BM25 over ``fact`` + cosine over ``fact_embedding``, RRF;
* nodes (``Entity``): BM25 over ``name``/``summary`` + cosine over ``name_embedding``, RRF;
* episodes (``Episodic``): BM25 over ``content`` (graphiti has no episode vectors);

cosine hits below graphiti's default ``sim_min_score`` (0.6) are dropped by graphiti itself.
``SearchFilters`` keep edges known at the question's ``known_at`` (``created_at <= known``,
``expired_at`` null or later): kgmem's transaction-time rule, so no fact stated after the
question leaks in; graphiti's episode search takes no filters (every episode is replayed
before the questions, so none is in the future). Query vectors come from kgmem's offline
MiniLM (:class:`kgmem.interop.graphiti_pipeline.KgmemEmbedder`), the embedder that wrote
the graph's vectors.

Mapping back to turns: an episode is its turn; an edge stands for the turns of its
``episodes`` list; a node for the episodes that ``MENTIONS`` it (newest first). The three
turn lists are fused with graphiti's own ``rrf`` (rank constant 1), ties kept in first-seen
order. Without extraction there are no facts, but speakers are entities, so the node layer
maps to the newest turns mentioning a speaker. ``layers`` restricts the search (system
``graphiti-episodes``: episodes only, i.e. graphiti's Lucene BM25 over turns).
"""

from __future__ import annotations

import asyncio
from typing import Any

from benchmarks.kgmem_system import KgmemSystem
from benchmarks.task import Haystack, Question, Ranking

LAYERS = ("edges", "nodes", "episodes")


def search_config(limit: int, layers: tuple[str, ...] = LAYERS) -> Any:
    from graphiti_core.search.search_config import (
        EdgeReranker,
        EdgeSearchConfig,
        EdgeSearchMethod,
        EpisodeReranker,
        EpisodeSearchConfig,
        EpisodeSearchMethod,
        NodeReranker,
        NodeSearchConfig,
        NodeSearchMethod,
        SearchConfig,
    )

    return SearchConfig(
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
            reranker=EdgeReranker.rrf,
        ) if "edges" in layers else None,
        node_config=NodeSearchConfig(
            search_methods=[NodeSearchMethod.bm25, NodeSearchMethod.cosine_similarity],
            reranker=NodeReranker.rrf,
        ) if "nodes" in layers else None,
        episode_config=EpisodeSearchConfig(
            search_methods=[EpisodeSearchMethod.bm25], reranker=EpisodeReranker.rrf
        ) if "episodes" in layers else None,
        limit=limit,
    )


def known_at_filter(known: Any) -> Any:
    """Edges believed at ``known``: created by then and not expired by then."""
    from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

    le, gt = ComparisonOperator.less_than_equal, ComparisonOperator.greater_than
    return SearchFilters(
        created_at=[[DateFilter(date=known, comparison_operator=le)]],
        expired_at=[
            [DateFilter(comparison_operator=ComparisonOperator.is_null)],
            [DateFilter(date=known, comparison_operator=gt)],
        ],
    )


MENTIONS = (
    "UNWIND $ids AS id MATCH (e:Episodic)-[:MENTIONS]->(n:Entity {uuid: id}) "
    "WHERE e.group_id = $g RETURN id, e.uuid ORDER BY e.valid_at DESC"
)


class GraphitiSearchSystem:
    def __init__(self, source: KgmemSystem, name: str = "graphiti", limit: int = 50,
                 layers: tuple[str, ...] = LAYERS) -> None:
        if not layers or set(layers) - set(LAYERS):
            raise ValueError(f"layers must be a non-empty subset of {LAYERS}")
        if source.store_kind != "neo4j":
            raise ValueError("graphiti search needs the kgmem replay on Neo4j (--store neo4j)")
        self.name = name
        self.source = source
        self.limit = limit
        self.layers = tuple(layers)
        self._loop = asyncio.new_event_loop()
        self._g: Any = None
        self.counts = {"edges": 0, "nodes": 0, "episodes": 0}

    def _graphiti(self) -> Any:
        if self._g is None:
            from benchmarks.graphiti_clients import offline_graphiti

            store = self.source.neo4j_store()
            args = self.source._neo4j_args
            from kgmem.store.neo4j import settings_from_env

            env = settings_from_env()
            self._g = self._loop.run_until_complete(offline_graphiti(
                store.uri, args.get("user", env["user"]), args.get("password", env["password"]),
                store.database,
            ))
        return self._g

    def index(self, haystack: Haystack) -> None:
        if self.source.haystack_id != haystack.haystack_id:
            self.source.index(haystack)
        self._graphiti()

    def rank(self, question: Question, k: int) -> Ranking:
        return self._loop.run_until_complete(self._rank(question, k))

    async def _rank(self, question: Question, k: int) -> Ranking:
        from graphiti_core.search.search_utils import rrf

        g, src = self._graphiti(), self.source
        group = src.group
        _asked, known = src.times(question)
        res = await g.search_(question.question, config=search_config(max(k, self.limit), self.layers),
                              group_ids=[group], search_filter=known_at_filter(known))
        turn_of = src.turn_of

        def turns(episode_ids: list[str]) -> list[str]:
            return [t for e in episode_ids if (t := turn_of.get(e)) is not None]

        episode_turns = turns([e.uuid for e in res.episodes])
        edge_turns = [t for e in res.edges for t in turns(list(e.episodes or []))]
        node_turns: list[str] = []
        if res.nodes:
            rows, _, _ = await g.driver.execute_query(
                MENTIONS, ids=[n.uuid for n in res.nodes], g=group, routing_="r")
            by_node: dict[str, list[str]] = {}
            for r in rows:
                by_node.setdefault(r["id"], []).append(r["e.uuid"])
            node_turns = [t for n in res.nodes for t in turns(by_node.get(n.uuid, []))]
        lists = [_dedupe(x) for x in (edge_turns, node_turns, episode_turns) if x]
        ranked, _scores = rrf(lists, rank_const=1) if lists else ([], [])
        self.counts["edges"] += len(res.edges)
        self.counts["nodes"] += len(res.nodes)
        self.counts["episodes"] += len(res.episodes)
        return Ranking(turn_ids=ranked, info={"edges": len(res.edges), "nodes": len(res.nodes),
                                              "episodes": len(res.episodes)})

    def close(self) -> None:
        """Close graphiti's driver and the source (erasing its last group; closing twice is
        harmless, so a source that is also a system of the run may be closed again)."""
        if self._g is not None:
            self._loop.run_until_complete(self._g.close())
            self._g = None
        self._loop.close()
        self.source.close()


def _dedupe(ids: list[str]) -> list[str]:
    seen: set[str] = set()
    return [x for x in ids if not (x in seen or seen.add(x))]
