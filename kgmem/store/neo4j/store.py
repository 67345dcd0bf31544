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
  ``(:KgmemPredicate)`` (predicate declarations, :mod:`kgmem.store.neo4j.predicates`),
  ``(:KgmemMeta {key, value})`` (``seq``, ``ins``, ``vocabulary`` and the write ``lock``),
  ``(:KgmemClock {group_id, last_tx_time})``.

Transaction time is monotonic *per group* (the store contract, kgmem.store.base): one Neo4j
database serves many tenants, each of which may run its own injected clock (replays, tests
sharing a server). ``(:KgmemClock {group_id, last_tx_time})`` holds each group's clock; a write
reads it after taking the write lock and writes it back at commit.

Semantics mirror :mod:`kgmem.store.sqlite` exactly (visibility, ordering, erase). Versions are
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
import threading
from collections.abc import Collection, Hashable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import neo4j
from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from ...errors import InvalidInputError, NotFoundError, StoreBusyError, StoreUnavailableError
from ...model import (
    Change,
    Entity,
    Episode,
    Erasure,
    ExtractionStatus,
    FactVersion,
)
from ...names import normalize_name
from ...settings import Settings
from ..base import (
    Declaration,
    OrphanedLineage,
    SearchBackend,
    TimeFilter,
)
from ..indexing import TimeMentions
from ..named_reads import NamedRead, NameKey
from ..search_reads import SearchReads
from ..visibility import (
    AFTER_CHANGE_LATER_CYPHER,
    AFTER_CHANGE_SAME_TIME_CYPHER,
    EXPIRED_AFTER_CYPHER,
    created_after_cypher,
    version_cypher,
    with_naive_twins,
)
from . import named
from .predicates import (
    CURRENT,
    EVERY_GROUP,
    KNOWN_AT,
    STAMP,
    declarations,
)
from .queries import (
    CHANGE_RETURN,
    ENTITY_RETURN,
    EPISODE_FULL,
    FIND_ENTITIES,
    GET_ENTITY,
    LAST_TX_TIME,
    ORPHAN_RETURN,
    V_PROV,
    v_prov,
    V_RETURN,
    VERSIONS_OF_ENTITY,
    adjacent_query,
    facts_at_query,
    fulltext_query,
    row_change,
    row_entity,
    row_episode,
    row_orphans,
    row_versions,
    store_error,
    to_datetime,
    to_instant,
)
from .readiness import Readiness
from .schema import (
    EMBEDDING_DIM,
    backfill_episode_tokens,
    describe_schema,
    ensure_schema,
)
from .summaries import SummaryReads
from .write import Neo4jWriteTx

if TYPE_CHECKING:
    from ...embed.base import Embedder
    from .archive import Neo4jArchiveReads
    from .check import Neo4jIntegrityReads

__all__ = ["Neo4jStore", "settings_from_env"]

def settings_from_env() -> dict[str, str | None]:
    """Connection settings from ``KGMEM_NEO4J_*`` as :class:`kgmem.settings.Settings` reads
    them (password unset = no authentication)."""
    s = Settings()
    return {"uri": s.neo4j_uri, "user": s.neo4j_user, "password": s.neo4j_password,
            "database": s.neo4j_database}


# ---------------------------------------------------------------------------------- store

def _lineage_versions(lineage: str) -> str:
    """The versions ``(s)-[r]->(o)`` of lineage ``lineage`` (a parameter or a variable):
    kgmem's by ``fact_id``, a graphiti edge (no ``fact_id``) by its own ``uuid``."""
    return (f"MATCH (s:Entity)-[r:RELATES_TO {{fact_id: {lineage}}}]->(o:Entity) RETURN s, r, o "
            f"UNION MATCH (s:Entity)-[r:RELATES_TO {{uuid: {lineage}}}]->(o:Entity) "
            "WHERE r.fact_id IS NULL RETURN s, r, o")

class Neo4jStore(SummaryReads):
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
        embedder: Embedder | None = None,
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
        self.readiness = Readiness(lambda: self.driver, self.database)
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

    def cypher(self, query: str, **params: object) -> list[list[Any]]:
        """Run an auto-commit read on this thread's session (one retry on a lost connection).
        Every datetime parameter comes with its naive twin
        (:func:`kgmem.store.visibility.with_naive_twins`)."""
        params = with_naive_twins(params)
        self.readiness.record(query, params)
        for attempt in (0, 1):
            try:
                return self._session().run(query, params).values()
            except (ServiceUnavailable, SessionExpired) as exc:
                self._drop_session()
                if attempt:
                    self.readiness.lost_connection()
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

    def search_reads(self, embedder: Embedder | None, mentions: TimeMentions) -> SearchReads:
        """This store's search half for ``embedder`` (kgmem.retrieve keeps one per embedder
        in :meth:`search_backends`)."""
        from .search_reads import Neo4jSearchReads

        return Neo4jSearchReads(self, embedder, mentions)

    def reset_search_vectors(self, embedder: Embedder) -> None:
        """Not needed here: Neo4j's chunks record the model that made them (each embedder
        searches its own)."""
        raise InvalidInputError("reindex is only needed (and available) for the embedded store")

    def scrub_search_files(self) -> None:
        """Nothing: Neo4j keeps no search files beside the graph."""

    def search_backends(self) -> dict[Hashable, SearchBackend]:
        return self._search_backends

    def after_erase(self) -> None:
        """Nothing outside the graph to clean: deleted nodes leave the indexes at commit
        (the server's transaction logs follow its retention policy: docs/erase.md)."""

    def archive_reads(self) -> Neo4jArchiveReads:
        """The raw reads of an export (:mod:`kgmem.archive`)."""
        from .archive import Neo4jArchiveReads

        return Neo4jArchiveReads(self.cypher)

    def integrity_reads(self) -> Neo4jIntegrityReads:
        """The reads of ``kgmem check`` (:mod:`kgmem.jobs.check`, :mod:`.neo4j_check`)."""
        from .check import Neo4jIntegrityReads

        return Neo4jIntegrityReads(self.cypher)

    @contextmanager
    def write(self) -> Iterator[Neo4jWriteTx]:
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
                self.readiness.lost_connection()
                raise StoreUnavailableError(f"cannot start a Neo4j transaction: {exc}") from exc
            self._local.in_write = True
            try:
                w = Neo4jWriteTx(tx, self.embedder, record=self.readiness.record)
                yield w
                w.flush_meta()
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
                        self.readiness.lost_connection()
                    raise mapped from exc
                raise
            finally:
                self._local.in_write = False
        finally:
            self._write_lock.release()

    def ready(self) -> None:
        """Return when a write would succeed now, else raise :class:`StoreUnavailableError`:
        a rolled-back write, and after an outage a warm-up first (:mod:`.readiness`)."""
        self.readiness.check()

    # ------------------------------------------------------------------ reads
    def last_tx_time(self, group: str) -> datetime | None:
        rows = self.cypher(LAST_TX_TIME, g=group)
        return to_datetime(rows[0][0]) if rows else None

    def vocabulary_stamp(self) -> str | None:
        rows = self.cypher(STAMP)
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    def declarations(self, group: str | None, known_at: datetime | None = None
                     ) -> list[Declaration]:
        if group is None:  # every group's current declarations (kgmem check)
            return declarations(self.cypher(EVERY_GROUP))
        if known_at is None:
            return declarations(self.cypher(CURRENT, g=group))
        return declarations(self.cypher(KNOWN_AT, g=group, k=known_at))

    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        rows = self.cypher(GET_ENTITY, id=entity_id, g=group)
        return row_entity(rows[0]) if rows else None

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        return [row_entity(r) for r in self.cypher(FIND_ENTITIES, g=group, n=norm_name)]

    def list_entities(self, group: str, limit: int = 100, offset: int = 0) -> list[Entity]:
        rows = self.cypher(
            "MATCH (e:Entity) WHERE e.group_id = $g "
            + ENTITY_RETURN
            + " ORDER BY e.created_at, e.uuid SKIP $offset LIMIT $limit",
            g=group,
            offset=offset,
            limit=limit,
        )
        return [row_entity(r) for r in rows]

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        rows = self.cypher(
            "MATCH (e:Episodic {uuid: $id}) WHERE e.group_id = $g " + EPISODE_FULL,
            id=episode_id,
            g=group,
        )
        return row_episode(rows[0]) if rows else None

    def list_episodes(self, group: str, limit: int = 100, offset: int = 0) -> list[Episode]:
        rows = self.cypher(
            "MATCH (e:Episodic) WHERE e.group_id = $g "
            + EPISODE_FULL
            + " ORDER BY e.valid_at, e.created_at, e.uuid SKIP $offset LIMIT $limit",
            g=group,
            offset=offset,
            limit=limit,
        )
        return [row_episode(r) for r in rows]

    def episodes_by_hash(self, group: str, content_hashes: Sequence[str]) -> dict[str, Episode]:
        rows = self.cypher(
            "UNWIND $hs AS h MATCH (e:Episodic {group_id: $g, content_hash: h}) "
            + EPISODE_FULL + ", h",
            g=group,
            hs=list(dict.fromkeys(content_hashes)),
        )
        return {r[10]: row_episode(r) for r in rows}

    def episodes_by_extraction(
        self, group: str, statuses: Collection[ExtractionStatus], limit: int = 1000
    ) -> list[Episode]:
        rows = self.cypher(
            "MATCH (e:Episodic) WHERE e.group_id = $g AND e.kgmem_extraction_status IN $st "
            + EPISODE_FULL
            + " ORDER BY e.valid_at, e.created_at, e.uuid LIMIT $limit",
            g=group,
            st=sorted(set(statuses)),
            limit=limit,
        )
        return [row_episode(r) for r in rows]

    def extraction_counts(self, group: str) -> dict[str, int]:
        rows = self.cypher(
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
        query = facts_at_query(
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
        return row_versions(self.cypher(query, **params))

    def fact_ids_starting(self, group: str, prefix: str, limit: int = 2) -> list[str]:
        rows = self.cypher("MATCH (l:KgmemLineage) WHERE l.fact_id STARTS WITH $p AND "
                       "l.group_id = $g RETURN l.fact_id ORDER BY l.fact_id LIMIT $n",
                       p=prefix, g=group, n=limit)
        return [r[0] for r in rows]

    def versions_of_fact(self, group: str, fact_id: str,
                         sources_at: TimeFilter | None = None) -> list[FactVersion]:
        rows = self.cypher(
            f"CALL () {{ {_lineage_versions('$f')} }} WITH s, r, o WHERE r.group_id = $g "
            + V_RETURN
            + v_prov(sources_at)
            + " ORDER BY r.created_at, r.ins_seq, r.uuid",
            f=fact_id,
            g=group,
            **({} if sources_at is None else version_cypher(sources_at)[1]),
        )
        return row_versions(rows)

    def versions_of_entity(self, group: str, entity_id: str) -> list[FactVersion]:
        rows = self.cypher(VERSIONS_OF_ENTITY, e=entity_id, g=group)
        out = row_versions(rows)
        out.sort(key=lambda v: (v.created_at, v.fact_id, v.id))
        return out

    def versions_changed_since(self, group: str, since: datetime) -> list[FactVersion]:
        rows = self.cypher(
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
            + V_RETURN
            + V_PROV
            + " ORDER BY r.created_at, r.ins_seq, r.uuid",
            g=group,
            t=since,
        )
        return row_versions(rows)

    def versions_written_by(self, group: str, changes: Sequence[Change]) -> list[FactVersion]:
        fact_ids = sorted({f for c in changes for f in c.fact_ids})
        if not fact_ids:
            return []
        rows = self.cypher(  # as versions_of_fact, one seek per lineage the page names
            f"UNWIND $fs AS f CALL (f) {{ {_lineage_versions('f')} }} "
            "WITH s, r, o WHERE r.group_id = $g AND r.change_id IN $cs "
            + V_RETURN
            + V_PROV
            + " ORDER BY r.created_at, r.ins_seq, r.uuid",
            fs=fact_ids,
            cs=[c.id for c in changes],
            g=group,
        )
        return row_versions(rows)

    def changes_since(self, group: str, since: datetime, limit: int | None = None,
                      after: str | None = None) -> list[Change]:
        cut = "" if limit is None else "LIMIT $limit "
        order = "ORDER BY c.created_at, c.ins_seq "
        first = f"MATCH (c:KgmemChange) WHERE c.group_id = $g AND {created_after_cypher('c')} "
        if after is None:
            match = first + "WITH c " + order + cut
        else:  # the cursor's two halves, each at most a page (see AFTER_CHANGE_*_CYPHER)
            match = ("MATCH (a:KgmemChange {id: $after}) WHERE a.group_id = $g CALL (a) { "
                     f"{first}AND {AFTER_CHANGE_SAME_TIME_CYPHER} RETURN c {order}{cut}"
                     f"UNION {first}AND {AFTER_CHANGE_LATER_CYPHER} RETURN c {order}{cut}"
                     "} WITH c " + order + cut)
        rows = self.cypher(
            # one record holding a list of lists: 5,000 changes 2.2x faster than as 5,000
            # records (benchmarks/results/2026-12-02/neo4j-changes)
            match + "RETURN collect([" + CHANGE_RETURN.removeprefix("RETURN ") + "])",
            g=group,
            t=since,
            after=after,
            limit=limit,
        )[0][0]
        if not rows and after is not None and not self.cypher(
                "MATCH (a:KgmemChange {id: $after}) WHERE a.group_id = $g RETURN 1",
                after=after, g=group):
            raise NotFoundError(f"no change {after!r} in group {group!r}", change=after)
        return [row_change(r) for r in rows]

    def adjacent(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter
    ) -> list[FactVersion]:
        _, params = version_cypher(when)
        rows = self.cypher(adjacent_query(when), ids=list(entity_ids), g=group, **params)
        out: list[FactVersion] = []
        seen: set[str] = set()
        for v in row_versions(rows):
            if v.id not in seen:
                seen.add(v.id)
                out.append(v)
        return out

    def erasures(self, group: str) -> list[Erasure]:
        rows = self.cypher(
            "MATCH (x:KgmemErasure) WHERE x.group_id = $g "
            "RETURN x.id, x.group_id, x.kind, x.created_at, x.counts ORDER BY x.created_at",
            g=group,
        )
        return [
            Erasure(id=r[0], group=r[1], kind=r[2], created_at=to_instant(r[3]), counts=json.loads(r[4]))
            for r in rows
        ]

    def counts(self, group: str | None = None) -> dict[str, int]:
        if group is None:
            row = self.cypher(
                "CALL () { MATCH (n:Entity) RETURN count(n) AS entities } "
                "CALL () { MATCH (n:Episodic) RETURN count(n) AS episodes } "
                "CALL () { MATCH (n:KgmemLineage) RETURN count(n) AS lineages } "
                "CALL () { MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS versions } "
                "CALL () { MATCH (n:KgmemChange) RETURN count(n) AS changes } "
                "RETURN entities, episodes, lineages, versions, changes"
            )[0]
        else:
            row = self.cypher(
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
        rows = self.cypher(
            "CALL () { MATCH (n:Entity) RETURN DISTINCT n.group_id AS g "
            "UNION MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g "
            "UNION MATCH (n:KgmemChange) RETURN DISTINCT n.group_id AS g } "
            "WITH g WHERE g IS NOT NULL RETURN g ORDER BY g")
        return [r[0] for r in rows]

    def group_counts(self) -> dict[str, dict[str, int]]:
        kinds = ("entities", "episodes", "lineages", "versions", "changes")
        rows = self.cypher(
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
        return row_orphans(self.cypher("MATCH (l:KgmemLineage) WHERE l.group_id = $g "
                                + ORPHAN_RETURN, g=group))

    def keyword_episodes(self, group: str, query: str, limit: int = 20) -> list[tuple[str, float]]:
        """Episode ids ranked by Lucene BM25 (kgmem's ``kgmem_episode_tokens`` index: the
        embedded store's FTS5 tokens, speaker included). Episodes of the group written
        without tokens (by graphiti) get theirs first."""
        lucene = fulltext_query(query)
        if lucene is None:
            return []
        with self.driver.session(database=self.database) as s:
            backfill_episode_tokens(s, group)
        rows = self.cypher(
            "CALL db.index.fulltext.queryNodes('kgmem_episode_tokens', $q) YIELD node, score "
            "WHERE node.group_id = $g RETURN node.uuid, score ORDER BY score DESC, node.uuid "
            "LIMIT $limit",
            q=lucene,
            g=group,
            limit=limit,
        )
        return [(r[0], float(r[1])) for r in rows]

    # ------------------------------------------------------------------ one round trip
    # kgmem.store.named_reads: Memory's reads with the name lookup inside the query
    def facts_named(self, group: str, when: TimeFilter, subject: NameKey | None,
                    predicate: str | None, object: NameKey | None, limit: int | None,
                    mirror: Collection[str]) -> NamedRead:
        return named.facts_named(self, group, when, subject, predicate, object, limit, mirror)

    def entity_named(self, group: str, key: NameKey, when: TimeFilter) -> NamedRead:
        return named.entity_named(self, group, key, when)

    def history_named(self, group: str, fact_id: str, key: NameKey) -> NamedRead:
        return named.history_named(self, group, fact_id, key)

    def neighbourhood_named(self, group: str, a: NameKey, b: NameKey, depth_a: int,
                            depth_b: int, when: TimeFilter) -> NamedRead:
        return named.neighbourhood_named(self, group, a, b, depth_a, depth_b, when)

    def sources_of_versions(self, group: str, version_ids: Sequence[str],
                            when: TimeFilter | None = None) -> dict[str, list[str]]:
        return named.sources_of_versions(self, group, version_ids, when)

    # ------------------------------------------------------------------ extras
    def adopt_graphiti_entities(self, group: str | None = None) -> int:
        """Give graphiti-written entities kgmem's lookup keys (``norm_name``, ``aliases``).

        Only kgmem bookkeeping properties are added; graphiti's own properties are untouched.
        Returns how many entities were adopted. Entities are then found by name in kgmem.
        """
        rows = self.cypher(
            "MATCH (e:Entity) WHERE e.norm_name IS NULL AND ($g IS NULL OR e.group_id = $g) "
            "RETURN e.uuid, e.name",
            g=group,
        )
        if not rows:
            return 0
        keys = [{"id": r[0], "n": normalize_name(r[1] or "")} for r in rows]
        with self.write() as w:
            w.run(
                "UNWIND $rows AS x MATCH (e:Entity {uuid: x.id}) "
                "SET e.norm_name = x.n, e.aliases = coalesce(e.aliases, [])",
                rows=keys,
            )
        return len(keys)

    def schema(self) -> list[dict[str, Any]]:
        with self.driver.session(database=self.database) as s:
            return describe_schema(s)
