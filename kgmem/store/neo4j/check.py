"""The reads :mod:`kgmem.jobs.check` needs, on the Neo4j store (parameterised Cypher).

Only kgmem's own data is judged where graphiti-core may write the same labels: versions are
``RELATES_TO`` edges with a ``fact_id``, kgmem episodes carry a ``content_hash``. Relationships
cannot dangle in Neo4j, so what can be orphaned is what refers by id: lineages naming entities,
versions naming their lineage (and the other way), ``RELATES_TO.episodes``, chunk and time
nodes of episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..base import FactInterval
from .queries import micros_of
from .schema import EMBEDDING_DIM, EPISODE_TOKENS

SAMPLE = 1000


def _in(x: str, group: str | None) -> str:
    """``x.group_id = $g``, or ``true`` for every group (a ``$g IS NULL OR ...`` would keep
    Neo4j from using the group indexes, and a shared database holds other groups' data)."""
    return "true" if group is None else f"{x}.group_id = $g"


#: The store's read of one parameterised query (``Neo4jStore.cypher``: rows as lists); taken as
#: a callable so that this module does not import the store that imports it.
Query = Callable[..., list[list[Any]]]


class Neo4jIntegrityReads:
    def __init__(self, query: Query) -> None:
        self.query = query

    def _q(self, query: str, group: str | None, **params: Any) -> list[list[Any]]:
        return self.query(query, g=group, limit=SAMPLE, **params)

    def lineages_with_several_current_versions(self, group: str | None
                                               ) -> list[tuple[str, str, int]]:
        rows = self._q(
            "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_id IS NOT NULL AND r.expired_at IS NULL "
            f"AND {_in('r', group)} WITH r.group_id AS g, r.fact_id AS f, count(*) AS n "
            "WHERE n > 1 RETURN g, f, n LIMIT $limit", group)
        return [(r[0], r[1], int(r[2])) for r in rows]

    def current_intervals(self, group: str | None, predicates: Sequence[str]
                          ) -> list[FactInterval]:
        rows = self._q(
            "MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) WHERE r.fact_id IS NOT NULL "
            f"AND r.expired_at IS NULL AND r.name IN $preds AND {_in('r', group)} "
            f"RETURN r.group_id, r.fact_id, s.uuid, o.uuid, r.name, {micros_of('r.valid_at')}, "
            f"{micros_of('r.invalid_at')}", group, preds=list(predicates))
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def versions_without_lineage(self, group: str | None) -> list[tuple[str, str, str]]:
        rows = self._q(
            "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_id IS NOT NULL "
            f"AND {_in('r', group)} AND NOT EXISTS {{ MATCH (:KgmemLineage "
            "{fact_id: r.fact_id}) } RETURN r.group_id, r.uuid, r.fact_id LIMIT $limit", group)
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def lineages_without_versions(self, group: str | None) -> list[tuple[str, str]]:
        rows = self._q(
            f"MATCH (l:KgmemLineage) WHERE {_in('l', group)} AND NOT EXISTS {{ MATCH "
            "()-[:RELATES_TO {fact_id: l.fact_id}]->() } RETURN l.group_id, l.fact_id "
            "LIMIT $limit", group)
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def missing_entity_refs(self, group: str | None) -> list[tuple[str, str, str, str]]:
        rows = self._q(
            f"MATCH (l:KgmemLineage) WHERE {_in('l', group)} "
            "UNWIND [l.subject_id, l.object_id] AS e WITH l, e "
            "WHERE NOT EXISTS { MATCH (:Entity {uuid: e}) } "
            "RETURN l.group_id, 'fact', l.fact_id, e LIMIT $limit", group)
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def provenance_to_missing_episodes(self, group: str | None
                                       ) -> list[tuple[str, str, str]]:
        rows = self._q(
            f"MATCH ()-[r:RELATES_TO]->() WHERE {_in('r', group)} "
            "UNWIND coalesce(r.episodes, []) AS e WITH r, e "
            "WHERE NOT EXISTS { MATCH (:Episodic {uuid: e}) } "
            "RETURN DISTINCT r.group_id, coalesce(r.fact_id, r.uuid), e LIMIT $limit", group)
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def mentions_to_missing(self, group: str | None) -> list[tuple[str, str, str]]:
        return []  # MENTIONS are relationships: both ends exist

    def keyword_index_problems(self, group: str | None) -> list[str]:
        rows = self._q(
            f"MATCH (e:Episodic) WHERE {_in('e', group)} AND e.content_hash IS NOT NULL "
            f"AND e.{EPISODE_TOKENS} IS NULL RETURN e.uuid LIMIT $limit", group)
        out = [f"kgmem episode {r[0]} has no keyword tokens ({EPISODE_TOKENS})" for r in rows]
        return out + self._indexes_not_online(["FULLTEXT"])

    def _indexes_not_online(self, types: list[str]) -> list[str]:
        rows = self.query("SHOW INDEXES YIELD name, type, state WHERE type IN $types "
                             "AND state <> 'ONLINE' RETURN name, state", types=types)
        return [f"index {r[0]} is {r[1]}" for r in rows]

    def vector_index_problems(self, group: str | None) -> list[str]:
        out = [f"chunk {r[0]} of episode {r[1]} has no episode" for r in self._q(
            f"MATCH (c:KgmemChunk) WHERE {_in('c', group)} AND NOT EXISTS {{ MATCH "
            "(:Episodic)-[:KGMEM_CHUNK]->(c) } RETURN c.uuid, c.episode_uuid LIMIT $limit",
            group)]
        out += [f"time mention of erased or unknown episode {r[0]}" for r in self._q(
            f"MATCH (t:KgmemEpisodeTime) WHERE {_in('t', group)} AND NOT EXISTS {{ MATCH "
            "(:Episodic)-[:KGMEM_TIME]->(t) } RETURN t.episode_uuid LIMIT $limit", group)]
        for what, query in (
            ("entity name", "MATCH (x:Entity) WHERE {g} AND x.name_embedding IS NOT NULL "
             "AND size(x.name_embedding) <> $dim RETURN x.uuid, size(x.name_embedding)"),
            ("fact", "MATCH ()-[x:RELATES_TO]->() WHERE {g} AND x.fact_embedding IS NOT NULL "
             "AND size(x.fact_embedding) <> $dim RETURN x.uuid, size(x.fact_embedding)"),
            ("chunk", "MATCH (x:KgmemChunk) WHERE {g} AND x.embedding IS NOT NULL "
             "AND size(x.embedding) <> $dim RETURN x.uuid, size(x.embedding)"),
        ):
            out += [f"{what} vector of {r[0]} has {r[1]} dims, not {EMBEDDING_DIM}"
                    for r in self._q(query.format(g=_in("x", group)) + " LIMIT $limit",
                                     group, dim=EMBEDDING_DIM)]
        return out + self._indexes_not_online(["VECTOR"])

    def extraction_rows(self, group: str | None
                        ) -> list[tuple[str, str, str | None, str | None]]:
        rows = self.query(
            f"MATCH (e:Episodic) WHERE {_in('e', group)} AND e.content_hash IS NOT NULL "
            "RETURN e.group_id, e.uuid, e.kgmem_extraction_status, e.kgmem_extraction", g=group)
        return [tuple(r) for r in rows]  # type: ignore[misc]
