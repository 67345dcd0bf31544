"""Schema of the Neo4j store: constraints and indexes, created idempotently at startup.

Names follow graphiti-core wherever graphiti defines the same index (``relation_group_id``,
``created_at_edge_index``, ``episode_content``...), so that graphiti's own
``build_indices_and_constraints()`` finds them and does nothing. Where kgmem wants a
*uniqueness constraint* and graphiti a plain range index on the same property (Entity.uuid,
Episodic.uuid, RELATES_TO.uuid), the constraint takes graphiti's index name: graphiti's
``CREATE INDEX ... IF NOT EXISTS`` is then a no-op, and a plain index that graphiti created
first is replaced by the (equivalent, stricter) constraint.
"""

from __future__ import annotations

import logging
from typing import Any

from neo4j import Session
from neo4j.exceptions import ClientError

log = logging.getLogger(__name__)

EMBEDDING_DIM = 384  # all-MiniLM-L6-v2 (kgmem.embed)
# graphiti-core's EpisodeType values: any other Episodic.source breaks graphiti's episode reads
# (EpisodeType.from_str raises) for the whole group; kgmem keeps its own in kgmem_source
GRAPHITI_SOURCES = ("message", "json", "text", "fact_triple")


def graphiti_source(source: str) -> str:
    """The ``Episodic.source`` graphiti-core accepts for a kgmem episode source."""
    return source if source in GRAPHITI_SOURCES else "text"

# Episodic property: the FTS5 tokens of base.episode_keyword_text(content, speaker), spaced
EPISODE_TOKENS = "kgmem_tokens"

# (name, label or rel type, property, is_relationship)
UNIQUE: list[tuple[str, str, str, bool]] = [
    ("entity_uuid", "Entity", "uuid", False),
    ("episode_uuid", "Episodic", "uuid", False),
    ("relation_uuid", "RELATES_TO", "uuid", True),
    ("kgmem_lineage_fact_id", "KgmemLineage", "fact_id", False),
    ("kgmem_change_id", "KgmemChange", "id", False),
    ("kgmem_meta_key", "KgmemMeta", "key", False),
    ("kgmem_clock_group", "KgmemClock", "group_id", False),
    ("kgmem_predicate_id", "KgmemPredicate", "id", False),
]

INDEXES: list[str] = [
    # RELATES_TO (fact versions); graphiti's names where graphiti has the same index
    "CREATE INDEX relation_group_id IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.group_id)",
    "CREATE INDEX name_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.name)",
    "CREATE INDEX created_at_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.created_at)",
    "CREATE INDEX expired_at_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.expired_at)",
    "CREATE INDEX valid_at_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.valid_at)",
    "CREATE INDEX invalid_at_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.invalid_at)",
    "CREATE INDEX kgmem_relation_fact_id IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.fact_id)",
    "CREATE INDEX kgmem_relation_caused_by IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.caused_by)",
    # changes since T (Memory.changed_versions): seek the group's versions created / expired
    # after T; the single-property indexes made it filter every version of the group (306 ms
    # for 0 results among 25k versions, 7.7 ms with these)
    "CREATE INDEX kgmem_relation_group_created IF NOT EXISTS "
    "FOR ()-[e:RELATES_TO]-() ON (e.group_id, e.created_at)",
    "CREATE INDEX kgmem_relation_group_expired IF NOT EXISTS "
    "FOR ()-[e:RELATES_TO]-() ON (e.group_id, e.expired_at)",
    # groups that may hold items without vectors (the background indexer's list)
    "CREATE INDEX kgmem_clock_backlog IF NOT EXISTS FOR (n:KgmemClock) ON (n.backlog)",
    # Entity / Episodic
    "CREATE INDEX entity_group_id IF NOT EXISTS FOR (n:Entity) ON (n.group_id)",
    "CREATE INDEX kgmem_entity_group_norm IF NOT EXISTS FOR (n:Entity) ON (n.group_id, n.norm_name)",
    "CREATE INDEX episode_group_id IF NOT EXISTS FOR (n:Episodic) ON (n.group_id)",
    # a group's episodes by time: sessions, neighbours, time windows (seek, not group scan)
    "CREATE INDEX kgmem_episode_group_time IF NOT EXISTS "
    "FOR (n:Episodic) ON (n.group_id, n.valid_at)",
    "CREATE INDEX kgmem_episode_group_hash IF NOT EXISTS "
    "FOR (n:Episodic) ON (n.group_id, n.content_hash)",
    # episodes whose extraction failed or is pending (kgmem extract --failed)
    "CREATE INDEX kgmem_episode_extraction IF NOT EXISTS "
    "FOR (n:Episodic) ON (n.group_id, n.kgmem_extraction_status)",
    # kgmem bookkeeping
    "CREATE INDEX kgmem_alias_lookup IF NOT EXISTS FOR (n:KgmemAlias) ON (n.group_id, n.norm_alias)",
    "CREATE INDEX kgmem_alias_entity IF NOT EXISTS FOR (n:KgmemAlias) ON (n.entity_id)",
    "CREATE INDEX kgmem_alias_group IF NOT EXISTS FOR (n:KgmemAlias) ON (n.group_id)",
    "CREATE INDEX kgmem_lineage_sp IF NOT EXISTS "
    "FOR (n:KgmemLineage) ON (n.group_id, n.subject_id, n.predicate)",
    "CREATE INDEX kgmem_lineage_subject IF NOT EXISTS FOR (n:KgmemLineage) ON (n.subject_id)",
    "CREATE INDEX kgmem_lineage_object IF NOT EXISTS FOR (n:KgmemLineage) ON (n.object_id)",
    "CREATE INDEX kgmem_lineage_group IF NOT EXISTS FOR (n:KgmemLineage) ON (n.group_id)",
    "CREATE INDEX kgmem_change_group_time IF NOT EXISTS "
    "FOR (n:KgmemChange) ON (n.group_id, n.created_at)",
    # the change feed's order: a page after a cursor seeks it (visibility.AFTER_CHANGE_*)
    "CREATE INDEX kgmem_change_feed IF NOT EXISTS "
    "FOR (n:KgmemChange) ON (n.group_id, n.created_at, n.ins_seq)",
    "CREATE INDEX kgmem_change_group IF NOT EXISTS FOR (n:KgmemChange) ON (n.group_id)",
    "CREATE INDEX kgmem_effect_change IF NOT EXISTS FOR (n:KgmemEffect) ON (n.change_id)",
    "CREATE INDEX kgmem_effect_fact IF NOT EXISTS FOR (n:KgmemEffect) ON (n.fact_id)",
    "CREATE INDEX kgmem_effect_group IF NOT EXISTS FOR (n:KgmemEffect) ON (n.group_id)",
    "CREATE INDEX kgmem_erasure_group IF NOT EXISTS FOR (n:KgmemErasure) ON (n.group_id)",
    "CREATE INDEX kgmem_predicate_group IF NOT EXISTS "
    "FOR (n:KgmemPredicate) ON (n.group_id, n.name)",
    "CREATE INDEX kgmem_predicate_change IF NOT EXISTS FOR (n:KgmemPredicate) ON (n.change_id)",
    "CREATE INDEX kgmem_predicate_expired_by IF NOT EXISTS "
    "FOR (n:KgmemPredicate) ON (n.expired_by)",
    # entity summaries' versions and build marks (kgmem.store.neo4j.summaries)
    "CREATE INDEX kgmem_summary_entity IF NOT EXISTS "
    "FOR (n:KgmemSummary) ON (n.group_id, n.entity_id)",
    "CREATE INDEX kgmem_summary_mark IF NOT EXISTS "
    "FOR (n:KgmemSummaryMark) ON (n.group_id, n.entity_id)",
    # fulltext: exactly graphiti-core's definitions (so its IF NOT EXISTS finds them)
    "CREATE FULLTEXT INDEX episode_content IF NOT EXISTS "
    "FOR (e:Episodic) ON EACH [e.content, e.source, e.source_description, e.group_id]",
    "CREATE FULLTEXT INDEX node_name_and_summary IF NOT EXISTS "
    "FOR (n:Entity) ON EACH [n.name, n.summary, n.group_id]",
    "CREATE FULLTEXT INDEX edge_name_and_fact IF NOT EXISTS "
    "FOR ()-[e:RELATES_TO]-() ON EACH [e.name, e.fact, e.group_id]",
    # kgmem's own episode keyword index: the embedded store's FTS5 tokens of "speaker:
    # content" (fts_tokens, base.episode_keyword_text) indexed as they are, so both stores
    # match the same words and see the same lengths; graphiti's indexes stay as graphiti made them
    "CREATE FULLTEXT INDEX kgmem_episode_tokens IF NOT EXISTS "
    f"FOR (e:Episodic) ON EACH [e.{EPISODE_TOKENS}] OPTIONS {{indexConfig: {{"
    "`fulltext.analyzer`: 'whitespace'}}",
    # vector (graphiti-core itself brute-forces cosine; these serve kgmem's vector search)
    "CREATE VECTOR INDEX kgmem_entity_name_embedding IF NOT EXISTS "
    "FOR (n:Entity) ON (n.name_embedding) OPTIONS {indexConfig: {"
    f"`vector.dimensions`: {EMBEDDING_DIM}, `vector.similarity_function`: 'cosine'}}}}",
    "CREATE VECTOR INDEX kgmem_fact_embedding IF NOT EXISTS "
    "FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding) OPTIONS {indexConfig: {"
    f"`vector.dimensions`: {EMBEDDING_DIM}, `vector.similarity_function`: 'cosine'}}}}",
]


def _unique_stmt(name: str, label: str, prop: str, rel: bool) -> str:
    pattern = f"()-[x:{label}]-()" if rel else f"(x:{label})"
    return f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR {pattern} REQUIRE x.{prop} IS UNIQUE"


def _plain_index_on(session: Session, label: str, prop: str, rel: bool) -> str | None:
    rows = session.run(
        "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, owningConstraint "
        "WHERE type = 'RANGE' AND owningConstraint IS NULL AND labelsOrTypes = [$label] "
        "AND properties = [$prop] AND entityType = $kind RETURN name",
        label=label,
        prop=prop,
        kind="RELATIONSHIP" if rel else "NODE",
    ).values()
    return rows[0][0] if rows else None


def ensure_schema(session: Session, await_seconds: int = 300) -> list[str]:
    """Create constraints and indexes if missing and wait until all are ONLINE.

    Returns human-readable notes about anything adapted (e.g. a graphiti range index that
    was replaced by the equivalent uniqueness constraint).
    """
    notes: list[str] = []
    for name, label, prop, rel in UNIQUE:
        stmt = _unique_stmt(name, label, prop, rel)
        try:
            session.run(stmt).consume()
        except ClientError as exc:
            if "IndexAlreadyExists" not in (
                exc.code or ""
            ) and "already exists an index" not in str(exc):
                raise
            # graphiti-core (or an older kgmem) made a plain range index on this property:
            # the constraint's own index replaces it.
            old = _plain_index_on(session, label, prop, rel)
            if old is None:
                raise
            session.run("DROP INDEX $name IF EXISTS", name=old).consume()
            try:
                session.run(stmt).consume()
                notes.append(f"replaced range index {old} by uniqueness constraint {name}")
            except ClientError as exc2:  # duplicates in existing data: keep a plain index
                idx = (
                    f"CREATE INDEX {name} IF NOT EXISTS FOR ()-[x:{label}]-() ON (x.{prop})"
                    if rel
                    else f"CREATE INDEX {name} IF NOT EXISTS FOR (x:{label}) ON (x.{prop})"
                )
                session.run(idx).consume()
                notes.append(f"could not create constraint {name} ({exc2.message}); kept an index")
                log.warning("kgmem neo4j schema: %s", notes[-1])
    for stmt in INDEXES:
        try:
            session.run(stmt).consume()
        except ClientError as exc:
            # Concurrent startups can race on IF NOT EXISTS; equivalent rule = done.
            if "EquivalentSchemaRuleAlreadyExists" not in (exc.code or ""):
                raise
    session.run("MERGE (m:KgmemMeta {key: 'lock'}) ON CREATE SET m.touched = timestamp()").consume()
    session.run(
        "MERGE (m:KgmemMeta {key: 'schema_version'}) ON CREATE SET m.value = $v", v=SCHEMA_VERSION
    ).consume()
    _backfill_once(session)
    _graphiti_sources_once(session)
    _provenance_times_once(session)
    session.run("CALL db.awaitIndexes($s)", s=await_seconds).consume()
    return notes


def backfill_episode_tokens(session: Session, group: str | None = None,
                            batch: int = 2000) -> int:
    """Give episodes without keyword tokens theirs (written before the index existed, or by
    graphiti / bulk tools); returns how many. Idempotent."""
    from ..base import episode_keyword_text
    from ..fts_tokens import fts5_tokens_many

    done = 0
    last = ""  # a uuid cursor (constraint index order): one pass, not a rescan per batch
    while True:
        where = "e.group_id = $g" if group is not None else "e.uuid > $last"
        order = "" if group is not None else " ORDER BY e.uuid"
        rows = session.run(
            f"MATCH (e:Episodic) WHERE {where} AND e.{EPISODE_TOKENS} IS NULL "
            f"AND e.content IS NOT NULL RETURN e.uuid, e.content, e.speaker{order} LIMIT $n",
            g=group, n=batch, last=last,
        ).values()
        if not rows:
            return done
        last = rows[-1][0]
        toks = fts5_tokens_many([episode_keyword_text(r[1], r[2]) for r in rows])
        session.run(
            "UNWIND $rows AS x MATCH (e:Episodic {uuid: x[0]}) "
            f"SET e.{EPISODE_TOKENS} = x[1]",
            rows=[[r[0], " ".join(t)] for r, t in zip(rows, toks)],
        ).consume()
        done += len(rows)
        if len(rows) < batch:
            return done


def _backfill_once(session: Session) -> None:
    """Once per database: tokens for the episodes stored before kgmem_episode_tokens."""
    if session.run("MATCH (m:KgmemMeta {key: 'episode_tokens'}) RETURN m.value").values():
        return
    backfill_episode_tokens(session)
    session.run("MERGE (m:KgmemMeta {key: 'episode_tokens'}) SET m.value = 'done'").consume()


def _graphiti_sources_once(session: Session) -> None:
    """Once per database: kgmem episodes written with a source graphiti-core does not know
    (which breaks graphiti's episode reads and search for the whole group) keep it in
    ``kgmem_source`` and get ``source: 'text'`` (kgmem.store.neo4j.graphiti_source)."""
    if session.run("MATCH (m:KgmemMeta {key: 'graphiti_sources'}) RETURN m.value").values():
        return
    session.run(
        "MATCH (e:Episodic) WHERE e.content_hash IS NOT NULL AND e.kgmem_source IS NULL "
        "CALL (e) { SET e.kgmem_source = e.source, e.source = CASE WHEN e.source IN "
        "$known THEN e.source ELSE 'text' END } IN TRANSACTIONS OF 10000 ROWS",
        known=list(GRAPHITI_SOURCES),
    ).consume()
    session.run("MERGE (m:KgmemMeta {key: 'graphiti_sources'}) SET m.value = 'done'").consume()


def _provenance_times_once(session: Session) -> None:
    """Once per database: provenance links (KGMEM_SUPPORTS) written before they carried their
    transaction time get a lower bound of it (kgmem.timeline.source_known): the later of the
    episode's recording and the lineage's first version (a link cannot predate either)."""
    if session.run("MATCH (m:KgmemMeta {key: 'provenance_times'}) RETURN m.value").values():
        return
    session.run(
        "MATCH (ep:Episodic)-[sp:KGMEM_SUPPORTS]->(l:KgmemLineage) WHERE sp.recorded_at IS NULL "
        "CALL (ep, sp, l) { OPTIONAL MATCH ()-[r:RELATES_TO {fact_id: l.fact_id}]->() "
        "WITH ep, sp, min(r.created_at) AS first UNWIND [first, ep.created_at] AS t "
        "WITH sp, max(t) AS at SET sp.recorded_at = at } IN TRANSACTIONS OF 10000 ROWS"
    ).consume()
    session.run("MERGE (m:KgmemMeta {key: 'provenance_times'}) SET m.value = 'done'").consume()


SCHEMA_VERSION = "1"


def describe_schema(session: Session) -> list[dict[str, Any]]:
    """Indexes and constraints as Neo4j reports them (for diagnostics and docs)."""
    return session.run(
        "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state, "
        "owningConstraint RETURN name, type, entityType, labelsOrTypes, properties, state, "
        "owningConstraint ORDER BY name"
    ).data()
