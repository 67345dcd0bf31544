"""Neo4j store: the query fragments shared by its reads, writes and search, and the decoders of
their rows (times as epoch microseconds, graphiti-core's edges read as one-version lineages)."""

from __future__ import annotations

import re
import uuid as _uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

import neo4j.time
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from ...errors import StoreBusyError, StoreUnavailableError
from ...model import (
    Change,
    Entity,
    Episode,
    FactVersion,
)
from ...timeutil import Precision, from_micros, to_utc
from ..base import (
    LineageState,
    OrphanedLineage,
    TimeFilter,
    extraction_from_json,
    trust_from_json,
)
from ..fts_tokens import fts5_tokens
from ..visibility import (
    source_cypher,
    version_cypher,
)
from .schema import (
    EPISODE_TOKENS,
)

GRAPHITI_REASON = "graphiti-core edge (read as a single version)"


class CypherReads(Protocol):
    """What a read module needs of :class:`kgmem.store.neo4j.Neo4jStore`: one parameterised
    auto-commit read, its rows as lists of the driver's values."""

    def cypher(self, query: str, **params: object) -> list[list[Any]]: ...


# ---------------------------------------------------------------------------------- values
def to_datetime(
    x: int | datetime | neo4j.time.DateTime | neo4j.time.LocalDateTime | None,
) -> datetime | None:
    """Neo4j DateTime (or :func:`micros_of` of one) -> aware UTC datetime (microseconds, like
    every kgmem instant). A LocalDateTime (naive: graphiti-core stores a naive
    ``reference_time`` as given) is UTC, as graphiti's own ``ensure_utc`` reads it."""
    if x is None:
        return None
    if isinstance(x, int):
        return from_micros(x)
    return to_utc(x if isinstance(x, datetime) else x.to_native())


def to_instant(
    x: int | datetime | neo4j.time.DateTime | neo4j.time.LocalDateTime | None,
) -> datetime:
    """A required instant (created_at, reference_time...)."""
    t = to_datetime(x)
    if t is None:
        raise ValueError("missing required time property in the graph")
    return t


def _new_id() -> str:
    return str(_uuid.uuid4())


def store_error(exc: BaseException, what: str) -> StoreUnavailableError | None:
    """The kgmem error (503) for a driver/server error that retrying may cure: the server
    gone or unavailable, or a transient conflict (deadlock, lock wait timeout); else None."""
    if isinstance(exc, (ServiceUnavailable, SessionExpired, DatabaseUnavailable,
                        ConnectionAcquisitionTimeoutError)):
        return StoreUnavailableError(f"Neo4j is unavailable ({what}): {exc}")
    if isinstance(exc, TransientError):
        return StoreBusyError(f"Neo4j reported a transient conflict ({what}): "
                              f"{exc.code or type(exc).__name__}; retry later",
                              code=exc.code or "")
    return None


# ---------------------------------------------------------------------------------- Cypher
# Every query is a constant string (or assembled from constant fragments); values are
# always parameters.

def micros_of(prop: str) -> str:
    """A DateTime property as epoch microseconds (null stays null). Hydrating DateTime values
    in the Python driver costs ~0.1-0.4 ms each (40% of a 3-hop paths call); integers are
    free, and :func:`to_datetime` turns them into the same datetimes. A LocalDateTime (written naive
    by graphiti-core, which has no epoch) is read as UTC."""
    return (f"CASE WHEN {prop} IS :: LOCAL DATETIME NOT NULL THEN datetime({{datetime: {prop}, "
            f"timezone: 'UTC'}}).epochSeconds * 1000000 + {prop}.microsecond "
            f"ELSE {prop}.epochSeconds * 1000000 + {prop}.microsecond END")


V_RETURN = (
    "RETURN r.uuid, r.fact_id, r.group_id, s.uuid, s.name, r.name, o.uuid, o.name, r.fact, "
    f"{micros_of('r.valid_at')}, r.valid_precision, {micros_of('r.invalid_at')}, "
    f"r.invalid_precision, {micros_of('r.stated_invalid_at')}, {micros_of('r.created_at')}, "
    f"{micros_of('r.expired_at')}, r.change_id, r.reason, r.caused_by"
)
# Provenance of kgmem versions comes from the lineage's KGMEM_SUPPORTS edges; graphiti's own
# edges carry theirs in r.episodes.
# A read with a TimeFilter lists only the links known under it (v_prov); graphiti's edges'
# lists carry no times and are returned whole.


def v_prov(when: TimeFilter | None) -> str:
    """The provenance column of a version ``r``: its lineage's supporting episodes whose link
    is known under ``when`` (kgmem.timeline.source_known, on ``$k``/``$kt`` as
    :func:`version_cypher` binds them); None: every link."""
    return (
        ", CASE WHEN r.fact_id IS NULL THEN coalesce(r.episodes, []) ELSE COLLECT { "
        "MATCH (:KgmemLineage {fact_id: r.fact_id})<-[sp:KGMEM_SUPPORTS]-(ep:Episodic) "
        f"WHERE {source_cypher('sp', when)} RETURN ep.uuid }} END"
    )


V_PROV = v_prov(None)
V_NOPROV = ", null"

_FACTS_ORDER = " ORDER BY s.uuid, r.name, r.valid_at IS NOT NULL, r.valid_at, r.created_at, r.uuid"


_FACTS_CACHE: dict[tuple[Any, ...], str] = {}


def facts_at_query(subject: bool, predicate: bool, obj: bool, when: TimeFilter, limit: bool,
                 mirror: bool = False) -> str:
    key = (
        subject,
        predicate,
        obj,
        when.known_to is None,
        when.valid_to is None,
        when.any_valid,
        limit,
        mirror,
    )
    q = _FACTS_CACHE.get(key)
    if q is not None:
        return q
    where = ["r.group_id = $g"]
    if predicate:
        where.append("r.name = $p")
    cond, _ = version_cypher(when)
    where.append(cond)
    if mirror and (subject or obj):
        # symmetric predicates answer from either side: one seek, expand both directions
        a = "(a:Entity {uuid: $sid})" if subject else "(a:Entity)"
        b = "(b:Entity {uuid: $oid})" if obj else "(b:Entity)"
        forward = "startNode(r) = a" if subject else "endNode(r) = b"
        where.append(f"({forward} OR r.name IN $mirror)")
        q = (f"MATCH {a}-[r:RELATES_TO]-{b} WHERE {' AND '.join(where)} "
             f"WITH DISTINCT r WITH startNode(r) AS s, r, endNode(r) AS o {V_RETURN}"
             f"{v_prov(when)}")
    else:
        s = "(s:Entity {uuid: $sid})" if subject else "(s:Entity)"
        o = "(o:Entity {uuid: $oid})" if obj else "(o:Entity)"
        q = (f"MATCH {s}-[r:RELATES_TO]->{o} WHERE {' AND '.join(where)} {V_RETURN}"
             f"{v_prov(when)}")
    q += _FACTS_ORDER
    if limit:
        q += " LIMIT $limit"
    _FACTS_CACHE[key] = q
    return q


def adjacent_query(when: TimeFilter) -> str:
    """Versions touching any of ``$ids`` (subject side, then object side), visible at ``when``.

    Each side seeks the Entity.uuid constraint index and expands: the hot query of paths.
    """
    cond, _ = version_cypher(when)
    return (
        "CALL () { UNWIND $ids AS id MATCH (s:Entity {uuid: id})-[r:RELATES_TO]->(o:Entity) "
        f"WHERE r.group_id = $g AND {cond} RETURN s, r, o "
        "UNION ALL UNWIND $ids AS id MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity {uuid: id}) "
        f"WHERE r.group_id = $g AND {cond} RETURN s, r, o }} WITH s, r, o " + V_RETURN + V_NOPROV
    )


VERSIONS_OF_ENTITY = (
    "CALL () { MATCH (s:Entity {uuid: $e})-[r:RELATES_TO]->(o:Entity) "
    "WHERE r.group_id = $g RETURN s, r, o "
    "UNION ALL MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity {uuid: $e}) "
    "WHERE r.group_id = $g AND s.uuid <> $e RETURN s, r, o } WITH s, r, o " + V_RETURN + V_PROV
)


def row_version(row: Sequence[Any], episodes: list[str] | None) -> FactVersion:
    adopted = row[1] is None  # written by graphiti-core
    invalid_at = to_datetime(row[11])
    return FactVersion(
        id=row[0],
        fact_id=row[0] if adopted else row[1],
        group=row[2],
        subject_id=row[3],
        subject=row[4] or "",
        predicate=row[5] or "",
        object_id=row[6],
        object=row[7] or "",
        fact=row[8] or "",
        valid_at=to_datetime(row[9]),
        valid_precision=Precision(row[10] or "instant"),
        invalid_at=invalid_at,
        invalid_precision=Precision(row[12] or "instant"),
        stated_invalid_at=invalid_at if adopted else to_datetime(row[13]),
        created_at=to_instant(row[14]),
        expired_at=None if adopted else to_datetime(row[15]),
        change_id=row[16] or "",
        reason=GRAPHITI_REASON if adopted else (row[17] or ""),
        caused_by=row[18],
        episodes=sorted(episodes) if episodes else [],
    )


def row_versions(rows: list[list[Any]]) -> list[FactVersion]:
    return [row_version(r[:19], r[19]) for r in rows]


ENTITY_RETURN = (
    "RETURN e.uuid, e.group_id, e.name, e.summary, e.created_at, e.aliases, e.entity_type"
)


def row_entity(r: Sequence[Any]) -> Entity:
    return Entity(
        id=r[0],
        group=r[1],
        name=r[2] or "",
        summary=r[3] or "",
        aliases=sorted(r[5] or []),
        created_at=to_instant(r[4]),
        type=r[6] if len(r) > 6 else None,
    )


LAST_TX_TIME = "MATCH (c:KgmemClock {group_id: $g}) RETURN c.last_tx_time"

GET_ENTITY = "MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g " + ENTITY_RETURN
FIND_ENTITIES = (
    "CALL () { MATCH (e:Entity {group_id: $g, norm_name: $n}) RETURN e "
    "UNION MATCH (a:KgmemAlias {group_id: $g, norm_alias: $n}) "
    "MATCH (e:Entity {uuid: a.entity_id}) RETURN e } "
    + ENTITY_RETURN
    + " ORDER BY e.created_at, e.uuid"
)

EPISODE_RETURN = (
    "RETURN e.uuid, e.group_id, e.content, coalesce(e.kgmem_source, e.source), "
    "e.source_description, e.speaker, "
    f"{micros_of('e.valid_at')}, {micros_of('e.created_at')}, e.kgmem_trust"
)
# ... with the extraction state (the reads of Memory; search reads need only the text)
EPISODE_FULL = EPISODE_RETURN + ", e.kgmem_extraction"


def row_episode(r: Sequence[Any]) -> Episode:
    return Episode(
        id=r[0],
        group=r[1],
        content=r[2] or "",
        source=r[3] or "message",
        source_description=r[4] or "",
        speaker=r[5],
        reference_time=to_instant(r[6]),
        created_at=to_instant(r[7]),
        **trust_from_json(r[8]),
        extraction=extraction_from_json(r[9]) if len(r) > 9 else None,
    )


# created_at as epoch microseconds (see micros_of): 5,000 changes took 733 ms with driver-hydrated
# DateTimes at 1M facts
CHANGE_RETURN = (
    f"RETURN c.id, c.group_id, c.kind, {micros_of('c.created_at')}, c.reason, c.undoes, "
    "c.undone_by, c.fact_ids"
)


def row_change(r: Sequence[Any]) -> Change:
    return Change(
        id=r[0],
        group=r[1],
        kind=r[2],
        created_at=to_instant(r[3]),
        reason=r[4] or "",
        undoes=r[5],
        undone_by=r[6],
        fact_ids=list(r[7] or []),
    )


LINEAGE_RETURN = (
    "RETURN l.fact_id, l.group_id, l.subject_id, l.predicate, l.object_id, l.valid_at, "
    "l.valid_precision, l.stated_invalid_at, l.invalid_precision, l.believed, l.seq, l.fact_text"
)


def row_lineage(r: Sequence[Any]) -> LineageState:
    return LineageState.from_row(r, to_datetime)


# A lineage left without versions or entities: another tool deleted them (graphiti-core's
# remove_episode deletes an episode's facts and the entities only it mentions). Timelines
# ignore such lineages, and changing one is an OrphanedFactError (kgmem.store.base).
_HAS = {
    "versions": "EXISTS { ()-[:RELATES_TO {fact_id: l.fact_id}]->() }",
    "subject": "EXISTS { (:Entity {uuid: l.subject_id}) }",
    "object": "EXISTS { (:Entity {uuid: l.object_id}) }",
}
NOT_ORPHAN = (f"(l.fact_id IN $fresh OR {_HAS['versions']}) AND {_HAS['subject']} "
               f"AND {_HAS['object']}")
ORPHAN_RETURN = (
    f"WITH l, {_HAS['versions']} AS v, {_HAS['subject']} AS s, {_HAS['object']} AS o "
    "WHERE NOT (v AND s AND o) "
    "RETURN l.fact_id, l.group_id, l.predicate, l.fact_text, NOT v, NOT s, NOT o ORDER BY l.seq"
)


def row_orphans(rows: Sequence[Sequence[Any]]) -> list[OrphanedLineage]:
    return [OrphanedLineage(r[0], r[1], r[2], r[3] or "", tuple(
        what for what, gone in zip(("versions", "subject", "object"), r[4:7]) if gone))
        for r in rows]


def lucene_escape(term: str) -> str:
    return re.sub(r'([+\-&|!(){}\[\]^"~*?:\\/])', r"\\\1", term)


def token_phrase(word: str) -> str | None:
    """``word`` as a Lucene phrase over kgmem's episode tokens (its FTS5 tokens, quoted, as
    FTS5 reads a quoted word), or None when it has no tokens."""
    toks = fts5_tokens(word)
    return f'"{lucene_escape(" ".join(toks))}"' if toks else None


def fulltext_query(text: str) -> str | None:
    """Lucene query over kgmem's episode tokens (OR of the words, like the embedded FTS5 query)."""
    phrases = [p for p in map(token_phrase, re.findall(r"\w+", text.lower())[:64]) if p]
    if not phrases:
        return None
    return f"{EPISODE_TOKENS}:(" + " OR ".join(phrases) + ")"
