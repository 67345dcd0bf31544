"""Physical deletion (erase) on the Neo4j store: the write-transaction half.

:class:`EraseOps` is mixed into :class:`kgmem.store.neo4j.Neo4jWriteTx` (``self.run`` runs a
parameterised query in its open transaction). Besides the nodes and relationships themselves,
erase removes every kgmem property that copies their content or ids elsewhere: the erased
episode's id in ``RELATES_TO.episodes``, erased versions' uuids in ``Episodic.entity_edges``,
the resolver's tracking aliases in ``Entity.aliases``, text-chunk vectors and time mentions of
the episode (:mod:`kgmem.store.neo4j.search_reads`), the reasons of changes that are erased.
Neo4j drops deleted nodes and relationships from its fulltext and vector indexes itself.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ...model import INTERNAL_ALIAS
from ..base import ERASED_CHANGE, ErasedContent


class EraseOps:
    """Erase operations inside one explicit Neo4j transaction."""

    def run(self, query: str, **params: object) -> list[list[Any]]:
        raise NotImplementedError  # provided by the write transaction

    def drop_summary_histories(self, group: str, entity_ids: Sequence[str]) -> None:
        raise NotImplementedError  # kgmem.store.neo4j.summaries.SummaryWrites

    def fact_ids_only_from_episode(self, group: str, episode_id: str) -> list[str]:
        rows = self.run(
            "MATCH (:Episodic {uuid: $e})-[:KGMEM_SUPPORTS]->(l:KgmemLineage) "
            "WHERE l.group_id = $g AND COUNT { (l)<-[:KGMEM_SUPPORTS]-() } = 1 "
            "RETURN l.fact_id AS f "
            # graphiti-core's own edges (no lineage) that only this episode produced
            "UNION MATCH (:Episodic {uuid: $e})-[:MENTIONS]->(:Entity)-[r:RELATES_TO]-() "
            "WHERE r.group_id = $g AND r.fact_id IS NULL AND r.episodes = [$e] "
            "RETURN r.uuid AS f",
            e=episode_id,
            g=group,
        )
        return [r[0] for r in rows]

    def fact_ids_touching_entity(self, group: str, entity_id: str) -> list[str]:
        rows = self.run(
            "CALL () { MATCH (l:KgmemLineage {subject_id: $e}) WHERE l.group_id = $g "
            "RETURN l.fact_id AS f "
            "UNION MATCH (l:KgmemLineage {object_id: $e}) WHERE l.group_id = $g "
            "RETURN l.fact_id AS f "
            "UNION MATCH (:Entity {uuid: $e})-[r:RELATES_TO]-() WHERE r.group_id = $g "
            "RETURN coalesce(r.fact_id, r.uuid) AS f } RETURN f",
            e=entity_id,
            g=group,
        )
        return [r[0] for r in rows]

    def entities_of_facts(self, fact_ids: Sequence[str]) -> set[str]:
        rows = self.run(
            "UNWIND $ids AS f CALL (f) { "
            "MATCH (l:KgmemLineage {fact_id: f}) RETURN [l.subject_id, l.object_id] AS p "
            "UNION MATCH (s)-[r:RELATES_TO {fact_id: f}]->(o) RETURN [s.uuid, o.uuid] AS p "
            "UNION MATCH (s)-[r:RELATES_TO {uuid: f}]->(o) WHERE r.fact_id IS NULL "
            "RETURN [s.uuid, o.uuid] AS p } RETURN DISTINCT p",
            ids=list(fact_ids),
        )
        return {x for r in rows for x in r[0] if x is not None}

    def episode_mentions(self, episode_id: str) -> list[str]:
        rows = self.run(
            "MATCH (:Episodic {uuid: $e})-[:MENTIONS]->(n:Entity) RETURN n.uuid", e=episode_id)
        return [r[0] for r in rows]

    def unreferenced_entities(self, group: str, entity_ids: Collection[str]) -> list[str]:
        rows = self.run(
            "UNWIND $ids AS id MATCH (e:Entity {uuid: id}) WHERE e.group_id = $g "
            "AND NOT (e)-[:RELATES_TO]-() AND NOT ()-[:MENTIONS]->(e) "
            "AND NOT EXISTS { MATCH (l:KgmemLineage {subject_id: id}) } "
            "AND NOT EXISTS { MATCH (l:KgmemLineage {object_id: id}) } RETURN e.uuid",
            ids=sorted(entity_ids),
            g=group,
        )
        return [r[0] for r in rows]

    def erased_content(
        self, group: str, fact_ids: Sequence[str], entity_ids: Sequence[str],
        episode_ids: Sequence[str],
    ) -> ErasedContent:
        rows = self.run(
            "CALL () { UNWIND $fs AS f MATCH (l:KgmemLineage {fact_id: f}) "
            "RETURN l.fact_text AS t "
            "UNION UNWIND $fs AS f MATCH ()-[r:RELATES_TO {fact_id: f}]->() RETURN r.fact AS t "
            "UNION UNWIND $fs AS f MATCH ()-[r:RELATES_TO {uuid: f}]->() RETURN r.fact AS t "
            "UNION UNWIND $es AS id MATCH (e:Entity {uuid: id}) RETURN e.name AS t "
            "UNION UNWIND $es AS id MATCH (a:KgmemAlias {entity_id: id}) "
            "WHERE NOT a.alias STARTS WITH $p RETURN a.alias AS t } "
            "RETURN t",
            fs=list(fact_ids), es=list(entity_ids), p=INTERNAL_ALIAS,
        )
        eps = self.run(
            "UNWIND $ids AS id MATCH (e:Episodic {uuid: id}) WHERE e.group_id = $g "
            "RETURN e.content, e.speaker",
            ids=list(episode_ids), g=group,
        )
        return ErasedContent(texts=sorted({r[0] for r in rows if r[0]}),
                             episodes=[(r[0] or "", r[1]) for r in eps])

    def group_content(self, group: str) -> ErasedContent:
        rows = self.run(
            "CALL () { MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g RETURN r.fact AS t "
            "UNION MATCH (l:KgmemLineage) WHERE l.group_id = $g RETURN l.fact_text AS t "
            "UNION MATCH (e:Entity) WHERE e.group_id = $g RETURN e.name AS t "
            "UNION MATCH (a:KgmemAlias) WHERE a.group_id = $g AND NOT a.alias STARTS WITH $p "
            "RETURN a.alias AS t } RETURN t",
            g=group, p=INTERNAL_ALIAS,
        )
        eps = self.run(
            "MATCH (e:Episodic) WHERE e.group_id = $g RETURN e.content, e.speaker", g=group)
        return ErasedContent(texts=sorted({r[0] for r in rows if r[0]}),
                             episodes=[(r[0] or "", r[1]) for r in eps])

    def erase_changes(self, group: str, fact_ids: Sequence[str], entity_ids: Collection[str]
                      ) -> int:
        ids = list(fact_ids)
        if not ids:
            return 0
        # the changes that touched the facts: through their effects and the versions they made
        rows = self.run(
            "CALL () { UNWIND $ids AS f MATCH (x:KgmemEffect {fact_id: f}) "
            "RETURN x.change_id AS cid "
            "UNION UNWIND $ids AS f MATCH ()-[r:RELATES_TO {fact_id: f}]->() "
            "RETURN r.change_id AS cid } "
            "MATCH (c:KgmemChange {id: cid}) WHERE c.group_id = $g "
            # what a change is about: its effects' lineages, else (none) its fact_ids (which
            # also name the lineages its recomputation touched); see the SQLite store's
            "OPTIONAL MATCH (e:KgmemEffect {change_id: c.id}) "
            "WITH c, collect(DISTINCT e.fact_id) AS own "
            "WITH c, [x IN c.fact_ids WHERE NOT x IN $ids] AS left, "
            "CASE WHEN size(own) > 0 THEN own ELSE c.fact_ids END AS about "
            "WITH c, left, c.kind <> 'erase' AND all(x IN about WHERE x IN $ids) AS gone "
            "FOREACH (_ IN CASE WHEN NOT gone AND size(left) <> size(c.fact_ids) "
            "THEN [1] ELSE [] END | SET c.fact_ids = left) "
            "RETURN c.id, gone",
            ids=ids, g=group,
        )
        deleted = [r[0] for r in rows if r[1]]
        if not deleted:
            return 0
        self.run(
            "UNWIND $cs AS cid MATCH (c:KgmemChange {id: cid}) "
            "OPTIONAL MATCH (x:KgmemEffect {change_id: cid}) DETACH DELETE c, x",
            cs=deleted,
        )
        self.run(
            "UNWIND $es AS id MATCH (:Entity {uuid: id})-[r:RELATES_TO]-() "
            "WHERE r.change_id IN $cs SET r.reason = $why",
            es=sorted(entity_ids), cs=deleted, why=ERASED_CHANGE,
        )
        return len(deleted)

    def delete_lineages(self, fact_ids: Sequence[str]) -> int:
        ids = list(fact_ids)
        if not ids:
            return 0
        # Episodic.entity_edges (graphiti's list of the edges an episode produced) keeps no
        # uuid of an erased version; the episodes are those the versions name
        self.run(
            "CALL () { UNWIND $ids AS f MATCH ()-[r:RELATES_TO {fact_id: f}]->() RETURN r "
            "UNION UNWIND $ids AS f MATCH ()-[r:RELATES_TO {uuid: f}]->() "
            "WHERE r.fact_id IS NULL RETURN r } "
            "WITH collect(r.uuid) AS gone, collect(DISTINCT r.episodes) AS lists "
            "UNWIND reduce(a = [], l IN lists | a + coalesce(l, [])) AS ep "
            "WITH DISTINCT ep, gone MATCH (x:Episodic {uuid: ep}) "
            "WHERE any(u IN coalesce(x.entity_edges, []) WHERE u IN gone) "
            "SET x.entity_edges = [u IN x.entity_edges WHERE NOT u IN gone]",
            ids=ids,
        )
        n = self.run(
            "CALL () { UNWIND $ids AS f MATCH ()-[r:RELATES_TO {fact_id: f}]->() RETURN r "
            "UNION UNWIND $ids AS f MATCH ()-[r:RELATES_TO {uuid: f}]->() "
            "WHERE r.fact_id IS NULL RETURN r } DELETE r RETURN count(r)",
            ids=ids,
        )[0][0]
        self.run("UNWIND $ids AS f MATCH (l:KgmemLineage {fact_id: f}) DETACH DELETE l", ids=ids)
        # the change log keeps ids only; the lineage content it held is removed too
        self.run("UNWIND $ids AS f MATCH (e:KgmemEffect {fact_id: f}) DELETE e", ids=ids)
        return int(n)

    def delete_episode(self, group: str, episode_id: str) -> int:
        # Versions keep no trace of the erased episode (graphiti readers see r.episodes).
        self.run(
            "MATCH (:Episodic {uuid: $e})-[:KGMEM_SUPPORTS]->(l:KgmemLineage) "
            "MATCH ()-[r:RELATES_TO {fact_id: l.fact_id}]->() WHERE $e IN r.episodes "
            "SET r.episodes = [x IN r.episodes WHERE x <> $e]",
            e=episode_id,
        )
        # search-side derivatives of the episode (kgmem.store.neo4j.search_reads): text-chunk
        # vectors and mentioned periods go in the same transaction
        self.run(
            "MATCH (ep:Episodic {uuid: $e})-[:KGMEM_CHUNK|KGMEM_TIME]->(x) WHERE ep.group_id = $g "
            "DETACH DELETE x",
            e=episode_id,
            g=group,
        )
        rows = self.run(
            "MATCH (ep:Episodic {uuid: $e}) WHERE ep.group_id = $g DETACH DELETE ep "
            "RETURN count(*)",
            e=episode_id,
            g=group,
        )
        return int(rows[0][0]) if rows else 0

    def delete_entity(self, group: str, entity_id: str) -> int:
        rows = self.run(
            "MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g DETACH DELETE e RETURN count(*)",
            id=entity_id,
            g=group,
        )
        self.run("MATCH (a:KgmemAlias {entity_id: $id}) DELETE a", id=entity_id)
        self.drop_summary_histories(group, [entity_id])
        return int(rows[0][0]) if rows else 0

    def delete_alias_keys(self, group: str, norm_aliases: Sequence[str]) -> None:
        # Entity.aliases lists the display forms (kgmem.store.neo4j add_alias): drop them too
        self.run(
            "UNWIND $ns AS n MATCH (a:KgmemAlias {group_id: $g, norm_alias: n}) "
            "OPTIONAL MATCH (e:Entity {uuid: a.entity_id}) "
            "SET e.aliases = [x IN coalesce(e.aliases, []) WHERE x <> a.alias] DELETE a",
            ns=list(norm_aliases), g=group,
        )

    def clear_summaries(self, group: str, entity_ids: Sequence[str]) -> None:
        self.run(
            "UNWIND $ids AS id MATCH (e:Entity {uuid: id}) WHERE e.group_id = $g "
            "AND coalesce(e.summary, '') <> '' SET e.summary = ''",
            ids=list(entity_ids), g=group,
        )
        self.drop_summary_histories(group, entity_ids)  # rebuilt from what is left

    def delete_group(self, group: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        counts["versions"] = int(
            self.run(
                "MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g DELETE r RETURN count(r)",
                g=group,
            )[0][0]
        )
        for key, label in (
            ("lineages", "KgmemLineage"),
            ("entities", "Entity"),
            ("episodes", "Episodic"),
            ("changes", "KgmemChange"),
        ):
            # label is one of the constants above, never user input
            counts[key] = int(
                self.run(
                    f"MATCH (n:{label}) WHERE n.group_id = $g DETACH DELETE n RETURN count(n)",
                    g=group,
                )[0][0]
            )
        for label in ("KgmemAlias", "KgmemEffect", "KgmemChunk", "KgmemEpisodeTime",
                      "KgmemPredicate", "KgmemSummary", "KgmemSummaryMark"):
            self.run(f"MATCH (n:{label}) WHERE n.group_id = $g DETACH DELETE n", g=group)
        # graphiti-only nodes of the group (communities, sagas) go too: nothing of the group
        # may survive an erase except the audit record.
        self.run("MATCH (n:Community|Saga) WHERE n.group_id = $g DETACH DELETE n", g=group)
        return counts

    def scrub_caused_by(self, fact_ids: Sequence[str]) -> None:
        if fact_ids:
            self.run(
                "UNWIND $ids AS f MATCH ()-[r:RELATES_TO {caused_by: f}]->() "
                "SET r.caused_by = null, r.reason = 'closed by a fact that was erased'",
                ids=list(fact_ids),
            )

    def purge_erased(self) -> None:
        """Nothing to rewrite: Neo4j's fulltext and vector indexes forget deleted nodes and
        relationships in the transaction that deletes them."""
