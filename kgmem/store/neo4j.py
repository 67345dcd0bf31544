"""Neo4j store (5.26 LTS): the store contract on a graph that graphiti-core can read too.

Graph layout (graphiti-core's vocabulary, kgmem extras as additional properties/labels):

* ``(:Entity {uuid, name, group_id, summary, created_at, norm_name, aliases, entity_type})``,
  with the type also a label (``:Entity:Person``, kgmem.entity_types.NEO4J_LABELS)
* ``(:Episodic {uuid, name, content, source, source_description, valid_at, created_at,
  group_id, speaker, content_hash, entity_edges, kgmem_tokens, kgmem_extraction_status,
  kgmem_extraction})``; ``valid_at`` is kgmem's reference time, ``kgmem_tokens`` the
  keyword-indexed FTS5 tokens of ``"speaker: content"``, ``kgmem_extraction`` the JSON of the
  episode's :class:`kgmem.model.ExtractionState` (its status also on its own, indexed)
* one ``(:Entity)-[:RELATES_TO {uuid, name, fact, episodes, valid_at, invalid_at, created_at,
  expired_at, group_id, fact_id, valid_precision, invalid_precision, stated_invalid_at,
  change_id, reason, caused_by, ins_seq}]->(:Entity)`` per fact *version* (``uuid`` is the
  version id, ``fact_id`` the lineage, ``name`` the predicate, ``fact`` the text)
* ``(:Episodic)-[:MENTIONS]->(:Entity)``
* kgmem bookkeeping: ``(:KgmemLineage)`` (stated belief of a lineage),
  ``(:Episodic)-[:KGMEM_SUPPORTS]->(:KgmemLineage)`` (provenance), ``(:KgmemChange)`` +
  ``(:KgmemEffect {before, after})`` (JSON), ``(:KgmemAlias)``, ``(:KgmemErasure)``,
  ``(:KgmemPredicate)`` (predicate declarations, :mod:`kgmem.store.neo4j_predicates`),
  ``(:KgmemMeta {key, value})`` (``seq``, ``ins``, ``vocabulary`` and the write ``lock``),
  ``(:KgmemClock {group_id, last_tx_time})``.

Transaction time is monotonic *per group* (the store contract, kgmem.store.base): one Neo4j
database serves many tenants, each of which may run its own injected clock (replays, tests
sharing a server). ``(:KgmemClock {group_id, last_tx_time})`` holds each group's clock; a write
reads it after taking the write lock and writes it back at commit.

Semantics mirror :mod:`kgmem.store.embedded` exactly (visibility, ordering, erase). Versions are
never edited except ``expired_at`` (set once), the erase-time scrubs that the embedded store
does too (``caused_by``; plus the erased episode's id in ``episodes``), and ``episodes``.

Times are Neo4j ``DateTime`` values in UTC, like graphiti's; a ``LocalDateTime`` (graphiti
stores a naive time as given) reads as UTC. kgmem reads provenance from ``KGMEM_SUPPORTS``;
``RELATES_TO.episodes`` and ``Episodic.entity_edges`` mirror it for graphiti (its
``remove_episode`` deletes the edges listed in the episode's ``entity_edges`` whose
``episodes`` it empties), so a later supporting episode is added to both. ``Episodic.source``
is one graphiti accepts, kgmem's own in ``kgmem_source``. Lineages whose versions or entities
another tool deleted are orphans: timelines skip them, changes to them are refused.

Edges written by graphiti-core (no ``fact_id``) are read as one-version lineages whose id is
their ``uuid`` and whose transaction interval is ``[created_at, +inf)``: graphiti closes facts
by editing ``invalid_at`` in place and its ``expired_at`` records when it learnt that, not a
retraction (see docs/neo4j-browser.md, "graphiti interop").

Writes: ``with store.write() as w`` is one explicit Neo4j transaction. It first writes the
``KgmemMeta {key: 'lock'}`` node, which serialises kgmem writers across processes like
SQLite's ``BEGIN IMMEDIATE`` (a Python lock does the same between threads).
"""

from __future__ import annotations

import json
import os
import re
import threading
import uuid as _uuid
from collections.abc import Collection, Hashable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import neo4j
from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from ..entity_types import NEO4J_LABELS, check_entity_type
from ..errors import StoreBusyError, StoreUnavailableError
from ..model import (
    Change,
    Entity,
    Episode,
    Erasure,
    ExtractionState,
    ExtractionStatus,
    FactVersion,
)
from ..names import normalize_name
from ..timeutil import Precision, from_micros, to_utc
from .base import (
    ChangeEffect,
    Declaration,
    LineageState,
    OrphanedLineage,
    SearchBackend,
    TimeFilter,
    episode_keyword_text,
    extraction_from_json,
    trust_from_json,
    trust_json,
    extraction_json,
)
from .fts_tokens import fts5_tokens, token_text
from .neo4j_erase import EraseOps
from .neo4j_predicates import (
    CURRENT,
    EVERY_GROUP,
    KNOWN_AT,
    STAMP,
    DeclarationWrites,
    declarations,
)
from .neo4j_schema import (
    EMBEDDING_DIM,
    EPISODE_TOKENS,
    backfill_episode_tokens,
    describe_schema,
    ensure_schema,
    graphiti_source,
)
from .visibility import (
    EXPIRED_AFTER_CYPHER,
    created_after_cypher,
    version_cypher,
    with_naive_twins,
)

__all__ = ["Neo4jStore", "settings_from_env"]

GRAPHITI_REASON = "graphiti-core edge (read as a single version)"


def settings_from_env() -> dict[str, str | None]:
    """Connection settings from ``KGMEM_NEO4J_*`` (password unset = no authentication)."""
    return {
        "uri": os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        "user": os.environ.get("KGMEM_NEO4J_USER", "neo4j"),
        "password": os.environ.get("KGMEM_NEO4J_PASSWORD"),
        "database": os.environ.get("KGMEM_NEO4J_DATABASE", "neo4j"),
    }


# ---------------------------------------------------------------------------------- values
def _dt(x: Any) -> datetime | None:
    """Neo4j DateTime (or :func:`_micros` of one) -> aware UTC datetime (microseconds, like
    every kgmem instant). A LocalDateTime (naive: graphiti-core stores a naive
    ``reference_time`` as given) is UTC, as graphiti's own ``ensure_utc`` reads it."""
    if x is None:
        return None
    if isinstance(x, int):
        return from_micros(x)
    return to_utc(x if isinstance(x, datetime) else x.to_native())


def _at(x: Any) -> datetime:
    """A required instant (created_at, reference_time...)."""
    t = _dt(x)
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

def _micros(prop: str) -> str:
    """A DateTime property as epoch microseconds (null stays null). Hydrating DateTime values
    in the Python driver costs ~0.1-0.4 ms each (40% of a 3-hop paths call); integers are
    free, and :func:`_dt` turns them into the same datetimes. A LocalDateTime (written naive
    by graphiti-core, which has no epoch) is read as UTC."""
    return (f"CASE WHEN {prop} IS :: LOCAL DATETIME NOT NULL THEN datetime({{datetime: {prop}, "
            f"timezone: 'UTC'}}).epochSeconds * 1000000 + {prop}.microsecond "
            f"ELSE {prop}.epochSeconds * 1000000 + {prop}.microsecond END")


_V_RETURN = (
    "RETURN r.uuid, r.fact_id, r.group_id, s.uuid, s.name, r.name, o.uuid, o.name, r.fact, "
    f"{_micros('r.valid_at')}, r.valid_precision, {_micros('r.invalid_at')}, "
    f"r.invalid_precision, {_micros('r.stated_invalid_at')}, {_micros('r.created_at')}, "
    f"{_micros('r.expired_at')}, r.change_id, r.reason, r.caused_by"
)
# Provenance of kgmem versions comes from the lineage's KGMEM_SUPPORTS edges; graphiti's own
# edges carry theirs in r.episodes.
_V_PROV = (
    ", CASE WHEN r.fact_id IS NULL THEN coalesce(r.episodes, []) ELSE COLLECT { "
    "MATCH (:KgmemLineage {fact_id: r.fact_id})<-[:KGMEM_SUPPORTS]-(ep:Episodic) "
    "RETURN ep.uuid } END"
)
_V_NOPROV = ", null"

_FACTS_ORDER = " ORDER BY s.uuid, r.name, r.valid_at IS NOT NULL, r.valid_at, r.created_at, r.uuid"


_FACTS_CACHE: dict[tuple[Any, ...], str] = {}


def _facts_query(subject: bool, predicate: bool, obj: bool, when: TimeFilter, limit: bool,
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
             f"WITH DISTINCT r WITH startNode(r) AS s, r, endNode(r) AS o {_V_RETURN}{_V_PROV}")
    else:
        s = "(s:Entity {uuid: $sid})" if subject else "(s:Entity)"
        o = "(o:Entity {uuid: $oid})" if obj else "(o:Entity)"
        q = f"MATCH {s}-[r:RELATES_TO]->{o} WHERE {' AND '.join(where)} {_V_RETURN}{_V_PROV}"
    q += _FACTS_ORDER
    if limit:
        q += " LIMIT $limit"
    _FACTS_CACHE[key] = q
    return q


def _adjacent_query(when: TimeFilter) -> str:
    """Versions touching any of ``$ids`` (subject side, then object side), visible at ``when``.

    Each side seeks the Entity.uuid constraint index and expands: the hot query of paths.
    """
    cond, _ = version_cypher(when)
    return (
        "CALL () { UNWIND $ids AS id MATCH (s:Entity {uuid: id})-[r:RELATES_TO]->(o:Entity) "
        f"WHERE r.group_id = $g AND {cond} RETURN s, r, o "
        "UNION ALL UNWIND $ids AS id MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity {uuid: id}) "
        f"WHERE r.group_id = $g AND {cond} RETURN s, r, o }} WITH s, r, o " + _V_RETURN + _V_NOPROV
    )


VERSIONS_OF_ENTITY = (
    "CALL () { MATCH (s:Entity {uuid: $e})-[r:RELATES_TO]->(o:Entity) "
    "WHERE r.group_id = $g RETURN s, r, o "
    "UNION ALL MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity {uuid: $e}) "
    "WHERE r.group_id = $g AND s.uuid <> $e RETURN s, r, o } WITH s, r, o " + _V_RETURN + _V_PROV
)


def _version(row: Sequence[Any], episodes: list[str] | None) -> FactVersion:
    adopted = row[1] is None  # written by graphiti-core
    invalid_at = _dt(row[11])
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
        valid_at=_dt(row[9]),
        valid_precision=Precision(row[10] or "instant"),
        invalid_at=invalid_at,
        invalid_precision=Precision(row[12] or "instant"),
        stated_invalid_at=invalid_at if adopted else _dt(row[13]),
        created_at=_at(row[14]),
        expired_at=None if adopted else _dt(row[15]),
        change_id=row[16] or "",
        reason=GRAPHITI_REASON if adopted else (row[17] or ""),
        caused_by=row[18],
        episodes=sorted(episodes) if episodes else [],
    )


def _versions(rows: list[list[Any]]) -> list[FactVersion]:
    return [_version(r[:19], r[19]) for r in rows]


_ENTITY_RETURN = (
    "RETURN e.uuid, e.group_id, e.name, e.summary, e.created_at, e.aliases, e.entity_type"
)


def _entity(r: Sequence[Any]) -> Entity:
    return Entity(
        id=r[0],
        group=r[1],
        name=r[2] or "",
        summary=r[3] or "",
        aliases=sorted(r[5] or []),
        created_at=_at(r[4]),
        type=r[6] if len(r) > 6 else None,
    )


_LAST_TX_TIME = "MATCH (c:KgmemClock {group_id: $g}) RETURN c.last_tx_time"

_GET_ENTITY = "MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g " + _ENTITY_RETURN
_FIND_ENTITIES = (
    "CALL () { MATCH (e:Entity {group_id: $g, norm_name: $n}) RETURN e "
    "UNION MATCH (a:KgmemAlias {group_id: $g, norm_alias: $n}) "
    "MATCH (e:Entity {uuid: a.entity_id}) RETURN e } "
    + _ENTITY_RETURN
    + " ORDER BY e.created_at, e.uuid"
)

_EPISODE_RETURN = (
    "RETURN e.uuid, e.group_id, e.content, coalesce(e.kgmem_source, e.source), "
    "e.source_description, e.speaker, "
    f"{_micros('e.valid_at')}, {_micros('e.created_at')}, e.kgmem_trust"
)
# ... with the extraction state (the reads of Memory; search reads need only the text)
_EPISODE_FULL = _EPISODE_RETURN + ", e.kgmem_extraction"


def _episode(r: Sequence[Any]) -> Episode:
    return Episode(
        id=r[0],
        group=r[1],
        content=r[2] or "",
        source=r[3] or "message",
        source_description=r[4] or "",
        speaker=r[5],
        reference_time=_at(r[6]),
        created_at=_at(r[7]),
        **trust_from_json(r[8]),
        extraction=extraction_from_json(r[9]) if len(r) > 9 else None,
    )


_CHANGE_RETURN = (
    "RETURN c.id, c.group_id, c.kind, c.created_at, c.reason, c.undoes, c.undone_by, c.fact_ids"
)


def _change(r: Sequence[Any]) -> Change:
    return Change(
        id=r[0],
        group=r[1],
        kind=r[2],
        created_at=_at(r[3]),
        reason=r[4] or "",
        undoes=r[5],
        undone_by=r[6],
        fact_ids=list(r[7] or []),
    )


_LINEAGE_RETURN = (
    "RETURN l.fact_id, l.group_id, l.subject_id, l.predicate, l.object_id, l.valid_at, "
    "l.valid_precision, l.stated_invalid_at, l.invalid_precision, l.believed, l.seq, l.fact_text"
)


def _lineage(r: Sequence[Any]) -> LineageState:
    return LineageState.from_row(r, _dt)


# A lineage left without versions or entities: another tool deleted them (graphiti-core's
# remove_episode deletes an episode's facts and the entities only it mentions). Timelines
# ignore such lineages, and changing one is an OrphanedFactError (kgmem.store.base).
_HAS = {
    "versions": "EXISTS { ()-[:RELATES_TO {fact_id: l.fact_id}]->() }",
    "subject": "EXISTS { (:Entity {uuid: l.subject_id}) }",
    "object": "EXISTS { (:Entity {uuid: l.object_id}) }",
}
_NOT_ORPHAN = (f"(l.fact_id IN $fresh OR {_HAS['versions']}) AND {_HAS['subject']} "
               f"AND {_HAS['object']}")
_ORPHAN_RETURN = (
    f"WITH l, {_HAS['versions']} AS v, {_HAS['subject']} AS s, {_HAS['object']} AS o "
    "WHERE NOT (v AND s AND o) "
    "RETURN l.fact_id, l.group_id, l.predicate, l.fact_text, NOT v, NOT s, NOT o ORDER BY l.seq"
)


def _orphans(rows: Sequence[Sequence[Any]]) -> list[OrphanedLineage]:
    return [OrphanedLineage(r[0], r[1], r[2], r[3] or "", tuple(
        what for what, gone in zip(("versions", "subject", "object"), r[4:7]) if gone))
        for r in rows]


def _lucene_escape(term: str) -> str:
    return re.sub(r'([+\-&|!(){}\[\]^"~*?:\\/])', r"\\\1", term)


def token_phrase(word: str) -> str | None:
    """``word`` as a Lucene phrase over kgmem's episode tokens (its FTS5 tokens, quoted, as
    FTS5 reads a quoted word), or None when it has no tokens."""
    toks = fts5_tokens(word)
    return f'"{_lucene_escape(" ".join(toks))}"' if toks else None


def _fulltext_query(text: str) -> str | None:
    """Lucene query over kgmem's episode tokens (OR of the words, like the embedded FTS5 query)."""
    phrases = [p for p in map(token_phrase, re.findall(r"\w+", text.lower())[:64]) if p]
    if not phrases:
        return None
    return f"{EPISODE_TOKENS}:(" + " OR ".join(phrases) + ")"


# ---------------------------------------------------------------------------------- store
class Neo4jStore:
    """The kgmem store contract on a Neo4j 5.26 database (thread-safe).

    ``Neo4jStore()`` reads ``KGMEM_NEO4J_URI`` / ``_USER`` / ``_PASSWORD`` / ``_DATABASE``
    (password unset = no authentication) and raises :class:`StoreUnavailableError` when the
    server cannot be reached. Constraints and indexes are created on first use.
    ``embedder`` (a :class:`kgmem.embed.Embedder` of dim 384) makes writes store
    ``name_embedding``/``fact_embedding`` too.
    """

    def __init__(
        self,
        uri: str | None = None,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        *,
        ensure_indexes: bool = True,
        connection_timeout: float = 10.0,
        embedder: Any = None,
        busy_timeout: float = 5.0,
    ) -> None:
        if embedder is not None and int(embedder.dim) != EMBEDDING_DIM:
            raise ValueError(
                f"the Neo4j vector indexes hold {EMBEDDING_DIM}-dim vectors; "
                f"embedder {getattr(embedder, 'name', embedder)!r} has dim {embedder.dim}"
            )
        # Optional kgmem.embed.Embedder: when set, entity names and fact texts are embedded
        # on write (name_embedding / fact_embedding), which graphiti's cosine search and the
        # vector indexes use.
        self.embedder = embedder
        self.busy_timeout = float(busy_timeout)  # the wait for this process's other writers
        env = settings_from_env()
        self.uri = uri or env["uri"] or "bolt://127.0.0.1:7687"
        self.database = database or env["database"] or "neo4j"
        user = user if user is not None else env["user"]
        if password is None:
            password = env["password"]
        auth = None if password is None else (user or "neo4j", password)
        where = f"Neo4j at {self.uri} (database {self.database!r})"
        try:
            self.driver = neo4j.GraphDatabase.driver(
                self.uri,
                auth=auth,
                connection_timeout=connection_timeout,
                max_transaction_retry_time=5.0,
                # "property key does not exist" warnings are expected on a fresh graph
                notifications_min_severity="OFF",
            )
        except (ValueError, Neo4jError) as exc:
            raise StoreUnavailableError(f"bad Neo4j settings for {where}: {exc}") from exc
        try:
            self.driver.verify_connectivity()
            with self.driver.session(database=self.database) as s:
                s.run("RETURN 1").consume()
                self.schema_notes = ensure_schema(s) if ensure_indexes else []
        except AuthError as exc:
            self.driver.close()
            raise StoreUnavailableError(
                f"{where} refused the credentials (set KGMEM_NEO4J_USER/KGMEM_NEO4J_PASSWORD): "
                f"{exc}"
            ) from exc
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            self.driver.close()
            raise StoreUnavailableError(
                f"cannot reach {where}: {exc}. Start a local server with scripts/neo4j.sh start"
            ) from exc
        except Neo4jError as exc:
            self.driver.close()
            raise StoreUnavailableError(f"{where} is not usable: {exc}") from exc
        self._local = threading.local()
        self._sessions: list[neo4j.Session] = []
        self._sessions_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._closed = False
        self._search_backends: dict[Hashable, SearchBackend] = {}

    # ------------------------------------------------------------------ plumbing
    def _session(self) -> neo4j.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            if self._closed:
                raise StoreUnavailableError("the Neo4j store is closed")
            s = self.driver.session(database=self.database)
            self._local.session = s
            with self._sessions_lock:
                self._sessions.append(s)
        return s

    def _drop_session(self) -> None:
        s = getattr(self._local, "session", None)
        self._local.session = None
        if s is not None:
            try:
                s.close()
            except Exception:  # noqa: BLE001 - the connection is already broken
                pass

    def _q(self, query: str, **params: Any) -> list[list[Any]]:
        """Run an auto-commit read on this thread's session (one retry on a lost connection).
        Every datetime parameter comes with its naive twin
        (:func:`kgmem.store.visibility.with_naive_twins`)."""
        params = with_naive_twins(params)
        for attempt in (0, 1):
            try:
                return self._session().run(query, params).values()
            except (ServiceUnavailable, SessionExpired) as exc:
                self._drop_session()
                if attempt:
                    raise StoreUnavailableError(f"lost the connection to Neo4j: {exc}") from exc
            except (TransientError, ConnectionAcquisitionTimeoutError) as exc:
                mapped = store_error(exc, "read")
                assert mapped is not None
                raise mapped from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._closed = True
        with self._sessions_lock:
            sessions, self._sessions = self._sessions, []
        for s in sessions:
            try:
                s.close()
            except Exception:  # noqa: BLE001
                pass
        self.driver.close()

    def search_backends(self) -> dict[Hashable, SearchBackend]:
        return self._search_backends

    def after_erase(self) -> None:
        """Nothing outside the graph to clean: deleted nodes leave the indexes at commit
        (the server's transaction logs follow its retention policy: docs/erase.md)."""

    def integrity_reads(self) -> Any:
        """The reads of ``kgmem check`` (:mod:`kgmem.check`, :mod:`.neo4j_check`)."""
        from .neo4j_check import Neo4jIntegrityReads

        return Neo4jIntegrityReads(self)

    @contextmanager
    def write(self) -> Iterator[_WriteTx]:
        if not self._write_lock.acquire(timeout=self.busy_timeout):
            raise StoreBusyError(f"another write of this process held the Neo4j store for "
                                 f"{self.busy_timeout:g} s (KGMEM_BUSY_TIMEOUT); retry later")
        try:
            if getattr(self._local, "in_write", False):
                raise RuntimeError("nested store.write() blocks are not supported")
            session = getattr(self._local, "wsession", None)
            if session is None:
                session = self.driver.session(database=self.database)
                self._local.wsession = session
                with self._sessions_lock:
                    self._sessions.append(session)
            try:
                tx = session.begin_transaction()
            except (ServiceUnavailable, SessionExpired) as exc:
                self._local.wsession = None
                raise StoreUnavailableError(f"cannot start a Neo4j transaction: {exc}") from exc
            self._local.in_write = True
            try:
                w = _WriteTx(tx, self.embedder)
                yield w
                w._flush_meta()
                tx.commit()
            except BaseException as exc:
                try:
                    if tx.closed() is False:
                        tx.rollback()
                except Exception:  # noqa: BLE001 - keep the original error
                    self._local.wsession = None
                mapped = store_error(exc, "write rolled back")
                if mapped is not None:
                    if not isinstance(mapped, StoreBusyError):
                        self._local.wsession = None  # its connection is gone
                    raise mapped from exc
                raise
            finally:
                self._local.in_write = False
        finally:
            self._write_lock.release()

    # ------------------------------------------------------------------ reads
    def last_tx_time(self, group: str) -> datetime | None:
        rows = self._q(_LAST_TX_TIME, g=group)
        return _dt(rows[0][0]) if rows else None

    def vocabulary_stamp(self) -> str | None:
        rows = self._q(STAMP)
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    def declarations(self, group: str | None, known_at: datetime | None = None
                     ) -> list[Declaration]:
        if group is None:  # every group's current declarations (kgmem check)
            return declarations(self._q(EVERY_GROUP))
        if known_at is None:
            return declarations(self._q(CURRENT, g=group))
        return declarations(self._q(KNOWN_AT, g=group, k=known_at))

    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        rows = self._q(_GET_ENTITY, id=entity_id, g=group)
        return _entity(rows[0]) if rows else None

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        return [_entity(r) for r in self._q(_FIND_ENTITIES, g=group, n=norm_name)]

    def list_entities(self, group: str, limit: int = 100, offset: int = 0) -> list[Entity]:
        rows = self._q(
            "MATCH (e:Entity) WHERE e.group_id = $g "
            + _ENTITY_RETURN
            + " ORDER BY e.created_at, e.uuid SKIP $offset LIMIT $limit",
            g=group,
            offset=offset,
            limit=limit,
        )
        return [_entity(r) for r in rows]

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        rows = self._q(
            "MATCH (e:Episodic {uuid: $id}) WHERE e.group_id = $g " + _EPISODE_FULL,
            id=episode_id,
            g=group,
        )
        return _episode(rows[0]) if rows else None

    def list_episodes(self, group: str, limit: int = 100, offset: int = 0) -> list[Episode]:
        rows = self._q(
            "MATCH (e:Episodic) WHERE e.group_id = $g "
            + _EPISODE_FULL
            + " ORDER BY e.valid_at, e.created_at, e.uuid SKIP $offset LIMIT $limit",
            g=group,
            offset=offset,
            limit=limit,
        )
        return [_episode(r) for r in rows]

    def episodes_by_hash(self, group: str, content_hashes: Sequence[str]) -> dict[str, Episode]:
        rows = self._q(
            "UNWIND $hs AS h MATCH (e:Episodic {group_id: $g, content_hash: h}) "
            + _EPISODE_FULL + ", h",
            g=group,
            hs=list(dict.fromkeys(content_hashes)),
        )
        return {r[10]: _episode(r) for r in rows}

    def episodes_by_extraction(
        self, group: str, statuses: Collection[ExtractionStatus], limit: int = 1000
    ) -> list[Episode]:
        rows = self._q(
            "MATCH (e:Episodic) WHERE e.group_id = $g AND e.kgmem_extraction_status IN $st "
            + _EPISODE_FULL
            + " ORDER BY e.valid_at, e.created_at, e.uuid LIMIT $limit",
            g=group,
            st=sorted(set(statuses)),
            limit=limit,
        )
        return [_episode(r) for r in rows]

    def extraction_counts(self, group: str) -> dict[str, int]:
        rows = self._q(
            "MATCH (e:Episodic) WHERE e.group_id = $g "
            "RETURN coalesce(e.kgmem_extraction_status, 'none'), count(*)",
            g=group,
        )
        return {r[0]: int(r[1]) for r in rows}

    def facts(
        self,
        group: str,
        when: TimeFilter,
        subject_id: str | None = None,
        predicate: str | None = None,
        object_id: str | None = None,
        limit: int | None = None,
        mirror: Collection[str] = (),
    ) -> list[FactVersion]:
        query = _facts_query(
            subject_id is not None,
            predicate is not None,
            object_id is not None,
            when,
            limit is not None,
            bool(mirror),
        )
        _, params = version_cypher(when)
        if mirror:
            params["mirror"] = sorted(mirror)
        params["g"] = group
        if subject_id is not None:
            params["sid"] = subject_id
        if predicate is not None:
            params["p"] = predicate
        if object_id is not None:
            params["oid"] = object_id
        if limit is not None:
            params["limit"] = limit
        return _versions(self._q(query, **params))

    def versions_of_fact(self, group: str, fact_id: str) -> list[FactVersion]:
        rows = self._q(
            "CALL () { MATCH (s:Entity)-[r:RELATES_TO {fact_id: $f}]->(o:Entity) RETURN s, r, o "
            "UNION MATCH (s:Entity)-[r:RELATES_TO {uuid: $f}]->(o:Entity) WHERE r.fact_id IS NULL "
            "RETURN s, r, o } WITH s, r, o WHERE r.group_id = $g "
            + _V_RETURN
            + _V_PROV
            + " ORDER BY r.created_at, r.ins_seq, r.uuid",
            f=fact_id,
            g=group,
        )
        return _versions(rows)

    def versions_of_entity(self, group: str, entity_id: str) -> list[FactVersion]:
        rows = self._q(VERSIONS_OF_ENTITY, e=entity_id, g=group)
        out = _versions(rows)
        out.sort(key=lambda v: (v.created_at, v.fact_id, v.id))
        return out

    def versions_changed_since(self, group: str, since: datetime) -> list[FactVersion]:
        rows = self._q(
            "CALL () { MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
            # one branch per time type (DateTime, graphiti's naive LocalDateTime), each told to
            # seek (group_id, created_at): the planner's estimate favours the group_id index,
            # which reads every version of the group (1,472 db hits for 151 versions, not 39)
            "USING INDEX r:RELATES_TO(group_id, created_at) "
            f"WHERE r.group_id = $g AND {created_after_cypher('r')} RETURN s, r, o "
            "UNION MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
            "USING INDEX r:RELATES_TO(group_id, created_at) "
            f"WHERE r.group_id = $g AND {created_after_cypher('r', 't_l')} RETURN s, r, o "
            "UNION MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
            "USING INDEX r:RELATES_TO(group_id, expired_at) "
            f"WHERE r.group_id = $g AND {EXPIRED_AFTER_CYPHER} "
            "RETURN s, r, o } WITH s, r, o "
            + _V_RETURN
            + _V_PROV
            + " ORDER BY r.created_at, r.ins_seq, r.uuid",
            g=group,
            t=since,
        )
        return _versions(rows)

    def changes_since(self, group: str, since: datetime) -> list[Change]:
        rows = self._q(
            "MATCH (c:KgmemChange) WHERE c.group_id = $g AND "
            f"{created_after_cypher('c')} "
            + _CHANGE_RETURN
            + " ORDER BY c.created_at, c.ins_seq",
            g=group,
            t=since,
        )
        return [_change(r) for r in rows]

    def adjacent(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter
    ) -> list[FactVersion]:
        _, params = version_cypher(when)
        rows = self._q(_adjacent_query(when), ids=list(entity_ids), g=group, **params)
        out: list[FactVersion] = []
        seen: set[str] = set()
        for v in _versions(rows):
            if v.id not in seen:
                seen.add(v.id)
                out.append(v)
        return out

    def erasures(self, group: str) -> list[Erasure]:
        rows = self._q(
            "MATCH (x:KgmemErasure) WHERE x.group_id = $g "
            "RETURN x.id, x.group_id, x.kind, x.created_at, x.counts ORDER BY x.created_at",
            g=group,
        )
        return [
            Erasure(id=r[0], group=r[1], kind=r[2], created_at=_at(r[3]), counts=json.loads(r[4]))
            for r in rows
        ]

    def counts(self, group: str | None = None) -> dict[str, int]:
        if group is None:
            row = self._q(
                "CALL () { MATCH (n:Entity) RETURN count(n) AS entities } "
                "CALL () { MATCH (n:Episodic) RETURN count(n) AS episodes } "
                "CALL () { MATCH (n:KgmemLineage) RETURN count(n) AS lineages } "
                "CALL () { MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS versions } "
                "CALL () { MATCH (n:KgmemChange) RETURN count(n) AS changes } "
                "RETURN entities, episodes, lineages, versions, changes"
            )[0]
        else:
            row = self._q(
                "CALL () { MATCH (n:Entity) WHERE n.group_id = $g RETURN count(n) AS entities } "
                "CALL () { MATCH (n:Episodic) WHERE n.group_id = $g RETURN count(n) AS episodes } "
                "CALL () { MATCH (n:KgmemLineage) WHERE n.group_id = $g RETURN count(n) AS lineages } "
                "CALL () { MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g "
                "RETURN count(r) AS versions } "
                "CALL () { MATCH (n:KgmemChange) WHERE n.group_id = $g RETURN count(n) AS changes } "
                "RETURN entities, episodes, lineages, versions, changes",
                g=group,
            )[0]
        return dict(zip(("entities", "episodes", "lineages", "versions", "changes"), row))

    def groups(self) -> list[str]:
        rows = self._q(
            "CALL () { MATCH (n:Entity) RETURN DISTINCT n.group_id AS g "
            "UNION MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g "
            "UNION MATCH (n:KgmemChange) RETURN DISTINCT n.group_id AS g } "
            "WITH g WHERE g IS NOT NULL RETURN g ORDER BY g")
        return [r[0] for r in rows]

    def group_counts(self) -> dict[str, dict[str, int]]:
        kinds = ("entities", "episodes", "lineages", "versions", "changes")
        rows = self._q(
            "CALL () { MATCH (n:Entity) RETURN n.group_id AS g, 'entities' AS k, count(n) AS c "
            "UNION ALL MATCH (n:Episodic) RETURN n.group_id AS g, 'episodes' AS k, count(n) AS c "
            "UNION ALL MATCH (n:KgmemLineage) RETURN n.group_id AS g, 'lineages' AS k, "
            "count(n) AS c UNION ALL MATCH ()-[r:RELATES_TO]->() RETURN r.group_id AS g, "
            "'versions' AS k, count(r) AS c UNION ALL MATCH (n:KgmemChange) "
            "RETURN n.group_id AS g, 'changes' AS k, count(n) AS c } "
            "WITH g, k, c WHERE g IS NOT NULL RETURN g, k, c")
        out: dict[str, dict[str, int]] = {}
        for g, k, c in rows:
            out.setdefault(g, dict.fromkeys(kinds, 0))[k] = c
        return dict(sorted(out.items()))

    def orphaned_lineages(self, group: str) -> list[OrphanedLineage]:
        return _orphans(self._q("MATCH (l:KgmemLineage) WHERE l.group_id = $g "
                                + _ORPHAN_RETURN, g=group))

    def keyword_episodes(self, group: str, query: str, limit: int = 20) -> list[tuple[str, float]]:
        """Episode ids ranked by Lucene BM25 (kgmem's ``kgmem_episode_tokens`` index: the
        embedded store's FTS5 tokens, speaker included). Episodes of the group written
        without tokens (by graphiti) get theirs first."""
        lucene = _fulltext_query(query)
        if lucene is None:
            return []
        with self.driver.session(database=self.database) as s:
            backfill_episode_tokens(s, group)
        rows = self._q(
            "CALL db.index.fulltext.queryNodes('kgmem_episode_tokens', $q) YIELD node, score "
            "WHERE node.group_id = $g RETURN node.uuid, score ORDER BY score DESC, node.uuid "
            "LIMIT $limit",
            q=lucene,
            g=group,
            limit=limit,
        )
        return [(r[0], float(r[1])) for r in rows]

    # ------------------------------------------------------------------ extras
    def adopt_graphiti_entities(self, group: str | None = None) -> int:
        """Give graphiti-written entities kgmem's lookup keys (``norm_name``, ``aliases``).

        Only kgmem bookkeeping properties are added; graphiti's own properties are untouched.
        Returns how many entities were adopted. Entities are then found by name in kgmem.
        """
        rows = self._q(
            "MATCH (e:Entity) WHERE e.norm_name IS NULL AND ($g IS NULL OR e.group_id = $g) "
            "RETURN e.uuid, e.name",
            g=group,
        )
        if not rows:
            return 0
        keys = [{"id": r[0], "n": normalize_name(r[1] or "")} for r in rows]
        with self.write() as w:
            w._run(
                "UNWIND $rows AS x MATCH (e:Entity {uuid: x.id}) "
                "SET e.norm_name = x.n, e.aliases = coalesce(e.aliases, [])",
                rows=keys,
            )
        return len(keys)

    def schema(self) -> list[dict[str, Any]]:
        with self.driver.session(database=self.database) as s:
            return describe_schema(s)


# ---------------------------------------------------------------------------------- writes
class _WriteTx(EraseOps, DeclarationWrites):
    """Write operations inside one explicit Neo4j transaction (holding the kgmem lock)."""

    def __init__(self, tx: neo4j.Transaction, embedder: Any = None) -> None:
        self.tx = tx
        self._embedder = embedder
        # The lock: an exclusive write on one node, held until commit/rollback. The counters
        # are read after it (clause order), so they are the last committed ones.
        rows = tx.run(
            "MERGE (m:KgmemMeta {key: 'lock'}) SET m.touched = timestamp() "
            "WITH m CALL (m) { MATCH (x:KgmemMeta) "
            "WHERE x.key IN ['seq', 'ins', 'vocabulary'] RETURN collect([x.key, x.value]) AS kv } "
            "RETURN kv"
        ).values()
        self._meta: dict[str, Any] = {k: v for k, v in rows[0][0]}
        self._dirty: set[str] = set()
        self._clocks: dict[str, datetime] = {}  # group -> transaction time set in this write
        self._fresh: set[str] = set()  # lineages written in this transaction

    def _run(self, query: str, **params: Any) -> list[list[Any]]:
        return self.tx.run(query, params).values()

    def _embed(self, text: str) -> list[float] | None:
        if self._embedder is None or not text:
            return None
        return [float(x) for x in self._embedder.embed_one(text)]

    def _flush_meta(self) -> None:
        """Before commit: write the clocks set in this transaction and the counters."""
        if not self._clocks and not self._dirty:
            return
        self._run(
            "CALL () { UNWIND $clocks AS c MERGE (k:KgmemClock {group_id: c[0]}) "
            "SET k.last_tx_time = c[1] RETURN count(*) AS clocks } "
            "CALL () { UNWIND $kv AS kv MERGE (m:KgmemMeta {key: kv[0]}) SET m.value = kv[1] "
            "RETURN count(*) AS n } "
            "RETURN 1",
            clocks=[[g, t] for g, t in sorted(self._clocks.items())],
            kv=[[k, self._meta[k]] for k in sorted(self._dirty)],
        )
        self._dirty.clear()

    def _next_ins(self) -> int:
        n = int(self._meta.get("ins") or 0) + 1
        self._meta["ins"] = n
        self._dirty.add("ins")
        return n

    # transaction clocks, one per group (read after the write lock, written at commit)
    def last_tx_time(self, group: str) -> datetime | None:
        if group in self._clocks:
            return self._clocks[group]
        rows = self._run(_LAST_TX_TIME, g=group)
        return _dt(rows[0][0]) if rows else None

    def set_last_tx_time(self, group: str, t: datetime) -> None:
        self._clocks[group] = t

    def next_seq(self) -> int:
        n = int(self._meta.get("seq") or 0) + 1
        self._meta["seq"] = n
        self._dirty.add("seq")
        return n

    # entities
    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        rows = self._run(_GET_ENTITY, id=entity_id, g=group)
        return _entity(rows[0]) if rows else None

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        return [_entity(r) for r in self._run(_FIND_ENTITIES, g=group, n=norm_name)]

    def insert_entity(self, entity: Entity, norm_name: str) -> None:
        self._run(
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
        self._run(
            "MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g AND e.entity_type IS NULL "
            f"SET e.entity_type = $type, e:{label}",
            id=entity_id, g=group, type=entity_type,
        )

    def add_alias(self, group: str, entity_id: str, alias: str, norm_alias: str) -> None:
        # INSERT OR IGNORE on (group, norm_alias, entity): the display list grows only when
        # the alias key is new.
        self._run(
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
        rows = self._run(
            "MATCH (e:Episodic {group_id: $g, content_hash: $h}) " + _EPISODE_FULL,
            g=group,
            h=content_hash,
        )
        return _episode(rows[0]) if rows else None

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        rows = self._run("MATCH (e:Episodic {uuid: $id}) WHERE e.group_id = $g " + _EPISODE_FULL,
                         id=episode_id, g=group)
        return _episode(rows[0]) if rows else None

    def insert_episode(self, episode: Episode, content_hash: str) -> None:
        self._run(
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
        self._run(
            "MATCH (e:Episodic {uuid: $id}) "
            "SET e.kgmem_extraction_status = $xs, e.kgmem_extraction = $xj",
            id=episode_id, xs=xs, xj=xj,
        )

    def add_mentions(self, episode_id: str, entity_ids: Sequence[str]) -> None:
        self._run(
            "MATCH (ep:Episodic {uuid: $ep}) UNWIND $ids AS id MATCH (e:Entity {uuid: id}) "
            "MERGE (ep)-[m:MENTIONS]->(e) ON CREATE SET m.uuid = randomUUID(), "
            "m.group_id = ep.group_id, m.created_at = ep.created_at",
            ep=episode_id,
            ids=list(entity_ids),
        )

    # lineages, versions, provenance
    def get_lineage(self, fact_id: str) -> LineageState | None:
        rows = self._run("MATCH (l:KgmemLineage {fact_id: $f}) " + _LINEAGE_RETURN, f=fact_id)
        return _lineage(rows[0]) if rows else None

    def lineages_for(self, group: str, subject_id: str, predicate: str) -> list[LineageState]:
        rows = self._run(
            "MATCH (l:KgmemLineage {group_id: $g, subject_id: $s, predicate: $p}) "
            "WHERE " + _NOT_ORPHAN + " " + _LINEAGE_RETURN + " ORDER BY l.seq",
            g=group,
            s=subject_id,
            p=predicate,
            fresh=sorted(self._fresh),
        )
        return [_lineage(r) for r in rows]

    def lineages_touching(
        self, group: str, entity_id: str, predicate: str
    ) -> list[LineageState]:
        rows = self._run(
            "CALL { MATCH (l:KgmemLineage {group_id: $g, subject_id: $e, predicate: $p}) "
            "RETURN l UNION MATCH (l:KgmemLineage {object_id: $e}) "
            "WHERE l.group_id = $g AND l.predicate = $p RETURN l } WITH l WHERE "
            + _NOT_ORPHAN + " " + _LINEAGE_RETURN + " ORDER BY l.seq",
            g=group, e=entity_id, p=predicate, fresh=sorted(self._fresh),
        )
        return [_lineage(r) for r in rows]

    def put_lineage(self, s: LineageState) -> None:
        self._fresh.add(s.fact_id)  # its versions come later in this transaction
        self._run(
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
        rows = self._run(
            "UNWIND $ids AS f MATCH (s:Entity)-[r:RELATES_TO {fact_id: f}]->(o:Entity) "
            "WHERE r.expired_at IS NULL " + _V_RETURN + _V_NOPROV,
            ids=list(fact_ids),
        )
        return {v.fact_id: v for v in _versions(rows)}

    def insert_version(self, v: FactVersion) -> None:
        self._run(
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
        self._run(
            "MATCH ()-[r:RELATES_TO {uuid: $id}]->() WHERE r.expired_at IS NULL "
            "SET r.expired_at = $at",
            id=version_id,
            at=at,
        )

    def add_provenance(self, fact_id: str, episode_id: str) -> None:
        # A new supporting episode also goes into the graphiti mirrors of provenance: the
        # versions' episodes and the episode's entity_edges (else graphiti's remove_episode
        # of the first episode would delete versions another episode still supports).
        self._run(
            "MATCH (l:KgmemLineage {fact_id: $f}) MATCH (ep:Episodic {uuid: $e}) "
            "WHERE NOT EXISTS { (ep)-[:KGMEM_SUPPORTS]->(l) } "
            "CREATE (ep)-[:KGMEM_SUPPORTS]->(l) WITH ep, l "
            "CALL (ep, l) { MATCH ()-[r:RELATES_TO {fact_id: l.fact_id}]->() "
            "SET r.episodes = coalesce(r.episodes, []) + ep.uuid "
            "WITH collect(r.uuid) AS ids "
            "SET ep.entity_edges = coalesce(ep.entity_edges, []) + ids }",
            f=fact_id,
            e=episode_id,
        )

    def orphaned(self, fact_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        rows = self._run("UNWIND $ids AS f MATCH (l:KgmemLineage {fact_id: f}) "
                         + _ORPHAN_RETURN, ids=list(fact_ids))
        return {o.fact_id: o.missing for o in _orphans(rows)}
    def lineages_of_predicate(self, group: str, predicate: str) -> list[LineageState]:
        rows = self._run("MATCH (l:KgmemLineage {group_id: $g}) WHERE l.predicate = $p "
                         + _LINEAGE_RETURN + " ORDER BY l.seq", g=group, p=predicate)
        return [_lineage(r) for r in rows]

    # changes
    def insert_change(self, change: Change, effects: Sequence[ChangeEffect]) -> None:
        self._run(
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
        rows = self._run(
            "MATCH (c:KgmemChange {id: $id}) WHERE c.group_id = $g " + _CHANGE_RETURN,
            id=change_id,
            g=group,
        )
        return _change(rows[0]) if rows else None

    def change_effects(self, change_id: str) -> list[ChangeEffect]:
        rows = self._run(
            "MATCH (e:KgmemEffect {change_id: $id}) RETURN e.fact_id, e.before, e.after "
            "ORDER BY e.ord",
            id=change_id,
        )
        return [
            ChangeEffect(
                r[0],
                LineageState.from_json(json.loads(r[1])) if r[1] else None,
                LineageState.from_json(json.loads(r[2])) if r[2] else None,
            )
            for r in rows
        ]

    def mark_undone(self, change_id: str, undone_by: str) -> None:
        self._run(
            "MATCH (c:KgmemChange {id: $id}) SET c.undone_by = $by", id=change_id, by=undone_by
        )

    # erase (physical): kgmem/store/neo4j_erase.py (EraseOps)
    def insert_erasure(self, erasure: Erasure) -> None:
        self._run(
            "CREATE (:KgmemErasure {id: $id, group_id: $g, kind: $kind, created_at: $t, "
            "counts: $counts})",
            id=erasure.id,
            g=erasure.group,
            kind=erasure.kind,
            t=erasure.created_at,
            counts=json.dumps(erasure.counts),
        )
