"""Neo4j store: the write operations inside one explicit transaction (kgmem.store.base.WriteTx)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import neo4j

from ...entity_types import NEO4J_LABELS, check_entity_type
from ...model import (
    Change,
    Entity,
    Episode,
    Erasure,
    ExtractionState,
    FactVersion,
)
from ..base import (
    ChangeEffect,
    LineageState,
    episode_keyword_text,
    extraction_json,
    trust_json,
)
from ..fts_tokens import token_text
from .erase import EraseOps
from .predicates import (
    DeclarationWrites,
)
from .queries import (
    CHANGE_RETURN,
    EPISODE_FULL,
    FIND_ENTITIES,
    GET_ENTITY,
    LAST_TX_TIME,
    LINEAGE_RETURN,
    NOT_ORPHAN,
    ORPHAN_RETURN,
    V_NOPROV,
    V_RETURN,
    row_change,
    row_entity,
    row_episode,
    row_lineage,
    row_orphans,
    row_versions,
    to_datetime,
)
from .schema import (
    graphiti_source,
)
from .summaries import SummaryWrites

if TYPE_CHECKING:
    from ...embed.base import Embedder


# ---------------------------------------------------------------------------------- writes
class _FreshLineages:
    """The lineages put in one transaction, by (group, predicate, subject) and (group,
    predicate, object) as last put (put_lineage is the only write of those properties).

    A read of lineages passes the fresh ids it could match (a fresh lineage has no version
    yet, so the orphan test must not drop it); passing all of them made each read carry
    every lineage of the batch so far: quadratic in the batch (a batch of 5,000 facts took
    about a minute)."""

    def __init__(self) -> None:
        self._keys: dict[str, tuple[tuple[str, str, str], tuple[str, str, str]]] = {}
        self._by_subject: dict[tuple[str, str, str], set[str]] = {}
        self._by_object: dict[tuple[str, str, str], set[str]] = {}

    def add(self, s: LineageState) -> None:
        old = self._keys.get(s.fact_id)
        if old is not None:
            self._by_subject[old[0]].discard(s.fact_id)
            self._by_object[old[1]].discard(s.fact_id)
        keys = ((s.group, s.predicate, s.subject_id), (s.group, s.predicate, s.object_id))
        self._keys[s.fact_id] = keys
        self._by_subject.setdefault(keys[0], set()).add(s.fact_id)
        self._by_object.setdefault(keys[1], set()).add(s.fact_id)

    def ids(self, group: str, predicate: str, entity_id: str, as_object: bool = False
            ) -> list[str]:
        """Fresh lineages of ``entity_id`` as subject (and as object, with ``as_object``)."""
        key = (group, predicate, entity_id)
        found = set(self._by_subject.get(key, ()))
        if as_object:
            found |= self._by_object.get(key, set())
        return sorted(found)


LOCK = ("MERGE (m:KgmemMeta {key: 'lock'}) SET m.touched = timestamp() "
        "WITH m CALL (m) { MATCH (x:KgmemMeta) "
        "WHERE x.key IN ['seq', 'ins', 'vocabulary'] RETURN collect([x.key, x.value]) AS kv } "
        "RETURN kv")


class Neo4jWriteTx(SummaryWrites, EraseOps, DeclarationWrites):
    """Write operations inside one explicit Neo4j transaction (holding the kgmem lock)."""

    def __init__(self, tx: neo4j.Transaction, embedder: Embedder | None = None,
                 record: Callable[[str, Mapping[str, object]], None] | None = None) -> None:
        self.tx = tx
        self._embedder = embedder
        self._record = record  # sees each statement (the store's readiness warm-up)
        # The lock: an exclusive write on one node, held until commit/rollback. The counters
        # are read after it (clause order), so they are the last committed ones.
        rows = self.run(LOCK)
        self.meta: dict[str, Any] = {k: v for k, v in rows[0][0]}
        self.dirty: set[str] = set()
        self._clocks: dict[str, datetime] = {}  # group -> transaction time set in this write
        self._fresh = _FreshLineages()  # lineages written in this transaction

    def run(self, query: str, **params: object) -> list[list[Any]]:
        if self._record is not None:
            self._record(query, params)
        return self.tx.run(query, params).values()

    def _embed(self, text: str) -> list[float] | None:
        if self._embedder is None or not text:
            return None
        return [float(x) for x in self._embedder.embed_one(text)]

    def flush_meta(self) -> None:
        """Before commit: write the clocks set in this transaction and the counters. Each
        group written gets a new ``backlog`` token on its clock: it may hold items without
        vectors, and the background indexer finds such groups by that index, not by scanning
        every entity, fact and episode of the server (:meth:`Neo4jSearchReads.index_round`)."""
        if not self._clocks and not self.dirty:
            return
        self.run(
            "CALL () { UNWIND $clocks AS c MERGE (k:KgmemClock {group_id: c[0]}) "
            "SET k.last_tx_time = c[1], k.backlog = randomUUID() RETURN count(*) AS clocks } "
            "CALL () { UNWIND $kv AS kv MERGE (m:KgmemMeta {key: kv[0]}) SET m.value = kv[1] "
            "RETURN count(*) AS n } "
            "RETURN 1",
            clocks=[[g, t] for g, t in sorted(self._clocks.items())],
            kv=[[k, self.meta[k]] for k in sorted(self.dirty)],
        )
        self.dirty.clear()

    def _next_ins(self) -> int:
        n = int(self.meta.get("ins") or 0) + 1
        self.meta["ins"] = n
        self.dirty.add("ins")
        return n

    # transaction clocks, one per group (read after the write lock, written at commit)
    def last_tx_time(self, group: str) -> datetime | None:
        if group in self._clocks:
            return self._clocks[group]
        rows = self.run(LAST_TX_TIME, g=group)
        return to_datetime(rows[0][0]) if rows else None

    def set_last_tx_time(self, group: str, t: datetime) -> None:
        self._clocks[group] = t

    def next_seq(self) -> int:
        n = int(self.meta.get("seq") or 0) + 1
        self.meta["seq"] = n
        self.dirty.add("seq")
        return n

    # entities
    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        rows = self.run(GET_ENTITY, id=entity_id, g=group)
        return row_entity(rows[0]) if rows else None

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        return [row_entity(r) for r in self.run(FIND_ENTITIES, g=group, n=norm_name)]

    def insert_entity(self, entity: Entity, norm_name: str) -> None:
        self.run(
            "CREATE (e:Entity {uuid: $id, group_id: $g, name: $name, norm_name: $n, "
            "summary: $summary, created_at: $t, aliases: $aliases}) "
            "WITH e WHERE $emb IS NOT NULL "
            "CALL db.create.setNodeVectorProperty(e, 'name_embedding', $emb)",
            emb=self._embed(entity.name),
            id=entity.id,
            g=entity.group,
            name=entity.name,
            n=norm_name,
            summary=entity.summary,
            t=entity.created_at,
            aliases=list(entity.aliases),
        )
        if entity.type is not None:
            self.set_entity_type(entity.group, entity.id, entity.type)

    def set_entity_type(self, group: str, entity_id: str, entity_type: str) -> None:
        # the type is a property, and a node label for Neo4j Browser styles; a label cannot be
        # a query parameter, so it comes from a fixed table, never from the input
        label = NEO4J_LABELS[check_entity_type(entity_type) or "other"]
        self.run(
            "MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g AND e.entity_type IS NULL "
            f"SET e.entity_type = $type, e:{label}",
            id=entity_id, g=group, type=entity_type,
        )

    def add_alias(self, group: str, entity_id: str, alias: str, norm_alias: str) -> None:
        # INSERT OR IGNORE on (group, norm_alias, entity): the display list grows only when
        # the alias key is new.
        self.run(
            "OPTIONAL MATCH (x:KgmemAlias {group_id: $g, norm_alias: $n, entity_id: $id}) "
            "WITH x WHERE x IS NULL "
            "CREATE (:KgmemAlias {group_id: $g, norm_alias: $n, entity_id: $id, alias: $alias}) "
            "WITH 1 AS one MATCH (e:Entity {uuid: $id}) "
            "SET e.aliases = coalesce(e.aliases, []) + $alias",
            g=group,
            n=norm_alias,
            id=entity_id,
            alias=alias,
        )

    # episodes
    def find_episode_by_hash(self, group: str, content_hash: str) -> Episode | None:
        rows = self.run(
            "MATCH (e:Episodic {group_id: $g, content_hash: $h}) " + EPISODE_FULL,
            g=group,
            h=content_hash,
        )
        return row_episode(rows[0]) if rows else None

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        rows = self.run("MATCH (e:Episodic {uuid: $id}) WHERE e.group_id = $g " + EPISODE_FULL,
                         id=episode_id, g=group)
        return row_episode(rows[0]) if rows else None

    def insert_episode(self, episode: Episode, content_hash: str) -> None:
        self.run(
            "CREATE (e:Episodic {uuid: $id, group_id: $g, name: $name, content: $content, "
            "source: $source, kgmem_source: $kgmem_source, source_description: $sd, "
            "speaker: $speaker, valid_at: $ref, created_at: $t, content_hash: $h, "
            "entity_edges: [], kgmem_tokens: $tokens, "
            "kgmem_extraction_status: $xs, kgmem_extraction: $xj, kgmem_trust: $trust})",
            id=episode.id,
            g=episode.group,
            name=f"{episode.source} {episode.reference_time.date().isoformat()}",
            content=episode.content,
            source=graphiti_source(episode.source),
            kgmem_source=episode.source,
            sd=episode.source_description,
            speaker=episode.speaker,
            ref=episode.reference_time,
            t=episode.created_at,
            h=content_hash,
            tokens=token_text(episode_keyword_text(episode.content, episode.speaker)),
            trust=trust_json(episode),
            **dict(zip(("xs", "xj"), extraction_json(episode.extraction), strict=True)),
        )

    def set_extraction(self, episode_id: str, state: ExtractionState) -> None:
        xs, xj = extraction_json(state)
        self.run(
            "MATCH (e:Episodic {uuid: $id}) "
            "SET e.kgmem_extraction_status = $xs, e.kgmem_extraction = $xj",
            id=episode_id, xs=xs, xj=xj,
        )

    def add_mentions(self, episode_id: str, entity_ids: Sequence[str]) -> None:
        self.run(
            "MATCH (ep:Episodic {uuid: $ep}) UNWIND $ids AS id MATCH (e:Entity {uuid: id}) "
            "MERGE (ep)-[m:MENTIONS]->(e) ON CREATE SET m.uuid = randomUUID(), "
            "m.group_id = ep.group_id, m.created_at = ep.created_at",
            ep=episode_id,
            ids=list(entity_ids),
        )

    # lineages, versions, provenance
    def get_lineage(self, fact_id: str) -> LineageState | None:
        rows = self.run("MATCH (l:KgmemLineage {fact_id: $f}) " + LINEAGE_RETURN, f=fact_id)
        return row_lineage(rows[0]) if rows else None

    def lineages_for(self, group: str, subject_id: str, predicate: str) -> list[LineageState]:
        rows = self.run(
            "MATCH (l:KgmemLineage {group_id: $g, subject_id: $s, predicate: $p}) "
            "WHERE " + NOT_ORPHAN + " " + LINEAGE_RETURN + " ORDER BY l.seq",
            g=group,
            s=subject_id,
            p=predicate,
            fresh=self._fresh.ids(group, predicate, subject_id),
        )
        return [row_lineage(r) for r in rows]

    def lineages_touching(
        self, group: str, entity_id: str, predicate: str
    ) -> list[LineageState]:
        rows = self.run(
            "CALL { MATCH (l:KgmemLineage {group_id: $g, subject_id: $e, predicate: $p}) "
            "RETURN l UNION MATCH (l:KgmemLineage {object_id: $e}) "
            "WHERE l.group_id = $g AND l.predicate = $p RETURN l } WITH l WHERE "
            + NOT_ORPHAN + " " + LINEAGE_RETURN + " ORDER BY l.seq",
            g=group, e=entity_id, p=predicate,
            fresh=self._fresh.ids(group, predicate, entity_id, as_object=True),
        )
        return [row_lineage(r) for r in rows]

    def put_lineage(self, s: LineageState) -> None:
        self._fresh.add(s)  # its versions come later in this transaction
        self.run(
            "MERGE (l:KgmemLineage {fact_id: $f}) SET l.group_id = $g, l.subject_id = $s, "
            "l.predicate = $p, l.object_id = $o, l.valid_at = $va, l.valid_precision = $vp, "
            "l.stated_invalid_at = $sia, l.invalid_precision = $ip, l.believed = $b, "
            "l.seq = $seq, l.fact_text = $text",
            f=s.fact_id,
            g=s.group,
            s=s.subject_id,
            p=s.predicate,
            o=s.object_id,
            va=s.valid_at,
            vp=s.valid_precision.value,
            sia=s.stated_invalid_at,
            ip=s.invalid_precision.value,
            b=s.believed,
            seq=s.seq,
            text=s.fact_text,
        )

    def current_versions(self, fact_ids: Sequence[str]) -> dict[str, FactVersion]:
        rows = self.run(
            "UNWIND $ids AS f MATCH (s:Entity)-[r:RELATES_TO {fact_id: f}]->(o:Entity) "
            "WHERE r.expired_at IS NULL " + V_RETURN + V_NOPROV,
            ids=list(fact_ids),
        )
        return {v.fact_id: v for v in row_versions(rows)}

    def insert_version(self, v: FactVersion) -> None:
        self.run(
            "MATCH (s:Entity {uuid: $sid}) MATCH (o:Entity {uuid: $oid}) "
            "CREATE (s)-[r:RELATES_TO]->(o) SET r = $props, r.episodes = COLLECT { "
            "MATCH (:KgmemLineage {fact_id: $props.fact_id})<-[:KGMEM_SUPPORTS]-(ep:Episodic) "
            "RETURN ep.uuid ORDER BY ep.uuid } "
            # graphiti's remove_episode finds an episode's facts in its entity_edges
            "WITH r CALL (r) { MATCH (:KgmemLineage {fact_id: r.fact_id})<-[:KGMEM_SUPPORTS]-"
            "(ep:Episodic) SET ep.entity_edges = coalesce(ep.entity_edges, []) + r.uuid } "
            "WITH r WHERE $emb IS NOT NULL "
            "CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', $emb)",
            emb=self._embed(v.fact),
            sid=v.subject_id,
            oid=v.object_id,
            props={
                "uuid": v.id,
                "fact_id": v.fact_id,
                "group_id": v.group,
                "name": v.predicate,
                "fact": v.fact,
                "valid_at": v.valid_at,
                "valid_precision": v.valid_precision.value,
                "invalid_at": v.invalid_at,
                "invalid_precision": v.invalid_precision.value,
                "stated_invalid_at": v.stated_invalid_at,
                "created_at": v.created_at,
                "expired_at": v.expired_at,
                "change_id": v.change_id,
                "reason": v.reason,
                "caused_by": v.caused_by,
                "ins_seq": self._next_ins(),
            },
        )

    def expire_version(self, version_id: str, at: datetime) -> None:
        # The only update a version ever gets: closing its transaction interval, once.
        self.run(
            "MATCH ()-[r:RELATES_TO {uuid: $id}]->() WHERE r.expired_at IS NULL "
            "SET r.expired_at = $at",
            id=version_id,
            at=at,
        )

    def add_provenance(self, fact_id: str, episode_id: str, recorded_at: datetime) -> None:
        # A new supporting episode also goes into the graphiti mirrors of provenance: the
        # versions' episodes and the episode's entity_edges (else graphiti's remove_episode
        # of the first episode would delete versions another episode still supports).
        self.run(
            "MATCH (l:KgmemLineage {fact_id: $f}) MATCH (ep:Episodic {uuid: $e}) "
            "WHERE NOT EXISTS { (ep)-[:KGMEM_SUPPORTS]->(l) } "
            "CREATE (ep)-[:KGMEM_SUPPORTS {recorded_at: $t}]->(l) WITH ep, l "
            "CALL (ep, l) { MATCH ()-[r:RELATES_TO {fact_id: l.fact_id}]->() "
            "SET r.episodes = coalesce(r.episodes, []) + ep.uuid "
            "WITH collect(r.uuid) AS ids "
            "SET ep.entity_edges = coalesce(ep.entity_edges, []) + ids }",
            f=fact_id,
            e=episode_id,
            t=recorded_at,
        )

    def orphaned(self, fact_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        rows = self.run("UNWIND $ids AS f MATCH (l:KgmemLineage {fact_id: f}) "
                         + ORPHAN_RETURN, ids=list(fact_ids))
        return {o.fact_id: o.missing for o in row_orphans(rows)}
    def lineages_of_predicate(self, group: str, predicate: str) -> list[LineageState]:
        rows = self.run("MATCH (l:KgmemLineage {group_id: $g}) WHERE l.predicate = $p "
                         + LINEAGE_RETURN + " ORDER BY l.seq", g=group, p=predicate)
        return [row_lineage(r) for r in rows]

    # changes
    def insert_change(self, change: Change, effects: Sequence[ChangeEffect]) -> None:
        self.run(
            "CREATE (c:KgmemChange {id: $id, group_id: $g, kind: $kind, created_at: $t, "
            "reason: $reason, undoes: $undoes, undone_by: $undone_by, fact_ids: $fact_ids, "
            "ins_seq: $ins}) "
            "WITH c UNWIND $effects AS e CREATE (:KgmemEffect {change_id: c.id, group_id: c.group_id, "
            "ord: e.ord, fact_id: e.fact_id, before: e.before, after: e.after})",
            id=change.id,
            g=change.group,
            kind=change.kind,
            t=change.created_at,
            reason=change.reason,
            undoes=change.undoes,
            undone_by=change.undone_by,
            fact_ids=list(change.fact_ids),
            ins=self._next_ins(),
            effects=[
                {
                    "ord": i,
                    "fact_id": e.fact_id,
                    "before": json.dumps(e.before.to_json()) if e.before else None,
                    "after": json.dumps(e.after.to_json()) if e.after else None,
                }
                for i, e in enumerate(effects)
            ],
        )

    def get_change(self, group: str, change_id: str) -> Change | None:
        rows = self.run(
            "MATCH (c:KgmemChange {id: $id}) WHERE c.group_id = $g " + CHANGE_RETURN,
            id=change_id,
            g=group,
        )
        return row_change(rows[0]) if rows else None

    def change_effects(self, change_id: str) -> list[ChangeEffect]:
        rows = self.run(
            "MATCH (e:KgmemEffect {change_id: $id}) RETURN e.fact_id, e.before, e.after "
            "ORDER BY e.ord",
            id=change_id,
        )
        return [ChangeEffect.from_stored(r[0], r[1], r[2]) for r in rows]

    def mark_undone(self, change_id: str, undone_by: str) -> None:
        self.run(
            "MATCH (c:KgmemChange {id: $id}) SET c.undone_by = $by", id=change_id, by=undone_by
        )

    # erase (physical): kgmem/store/neo4j_erase.py (EraseOps)
    def insert_erasure(self, erasure: Erasure) -> None:
        self.run(
            "CREATE (:KgmemErasure {id: $id, group_id: $g, kind: $kind, created_at: $t, "
            "counts: $counts})",
            id=erasure.id,
            g=erasure.group,
            kind=erasure.kind,
            t=erasure.created_at,
            counts=json.dumps(erasure.counts),
        )
