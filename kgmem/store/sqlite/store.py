"""Embedded store: one directory holding a SQLite database (WAL, synchronous=FULL).

Durability: every write block is one SQLite transaction committed with
``synchronous=FULL`` before the call returns, so an acknowledged write survives ``kill -9``
(and power loss). Times are stored as integer microseconds since the epoch (UTC);
``NULL`` means -inf for ``valid_at`` and +inf for ``invalid_at``/``expired_at``.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import uuid
from collections.abc import Collection, Hashable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import NotFoundError, StoreBusyError, StoreUnavailableError
from ...model import (
    Change,
    Entity,
    Episode,
    Erasure,
    ExtractionState,
    ExtractionStatus,
    FactVersion,
)
from ...timeutil import from_micros, opt_from_micros, opt_micros, to_micros
from ..base import (
    ChangeEffect,
    Declaration,
    LineageState,
    OrphanedLineage,
    SearchBackend,
    TimeFilter,
    episode_keyword_text,
    extraction_json,
    iter_chunks,
    trust_json,
)
from ..indexing import TimeMentions
from ..visibility import (
    after_change_sql,
    changed_sql,
    created_after_sql,
    known_sql,
    version_sql,
)
from .conns import DEFAULT_BUSY_TIMEOUT, SqliteConnections, is_busy
from .erase import EraseOps
from .facts_sql import facts_sql, read_vocabulary_stamp
from .rows import (
    CHANGE_SELECT,
    EPISODE_FULL,
    VERSION_COLS,
    VERSION_FROM,
    change_row,
    entity_row,
    episode_row,
    find_entities,
    get_entity,
    version_row,
)
from .search import SearchTables
from .summaries import SCHEMA as SUMMARY_SCHEMA
from .summaries import SummaryReads, SummaryWrites

if TYPE_CHECKING:
    from ...embed.base import Embedder
    from ..search_reads import SearchReads
    from .archive import EmbeddedArchiveReads
    from .check import EmbeddedIntegrityReads

SCHEMA_VERSION = "1"
log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities(
  id TEXT PRIMARY KEY, group_id TEXT NOT NULL, name TEXT NOT NULL, norm_name TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, entity_type TEXT);
CREATE INDEX IF NOT EXISTS entities_name ON entities(group_id, norm_name);
CREATE TABLE IF NOT EXISTS aliases(
  group_id TEXT NOT NULL, norm_alias TEXT NOT NULL, entity_id TEXT NOT NULL, alias TEXT NOT NULL,
  PRIMARY KEY(group_id, norm_alias, entity_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS aliases_entity ON aliases(entity_id);
CREATE TABLE IF NOT EXISTS episodes(
  id TEXT PRIMARY KEY, group_id TEXT NOT NULL, content TEXT NOT NULL, source TEXT NOT NULL,
  source_description TEXT NOT NULL, speaker TEXT, reference_time INTEGER NOT NULL,
  created_at INTEGER NOT NULL, content_hash TEXT NOT NULL, extraction_status TEXT,
  extraction TEXT, trust TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS episodes_hash ON episodes(group_id, content_hash);
CREATE INDEX IF NOT EXISTS episodes_time ON episodes(group_id, reference_time);
CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(
  content, episode_id UNINDEXED, group_id UNINDEXED, tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS mentions(
  episode_id TEXT NOT NULL, entity_id TEXT NOT NULL, PRIMARY KEY(episode_id, entity_id))
  WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mentions_entity ON mentions(entity_id);
CREATE TABLE IF NOT EXISTS lineages(
  fact_id TEXT PRIMARY KEY, group_id TEXT NOT NULL, subject_id TEXT NOT NULL,
  predicate TEXT NOT NULL, object_id TEXT NOT NULL, valid_at INTEGER, valid_precision TEXT NOT NULL,
  stated_invalid_at INTEGER, invalid_precision TEXT NOT NULL, believed INTEGER NOT NULL,
  seq INTEGER NOT NULL, fact_text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS lineages_sp ON lineages(group_id, subject_id, predicate);
CREATE INDEX IF NOT EXISTS lineages_object ON lineages(object_id);
CREATE TABLE IF NOT EXISTS versions(
  id TEXT PRIMARY KEY, fact_id TEXT NOT NULL, group_id TEXT NOT NULL, subject_id TEXT NOT NULL,
  predicate TEXT NOT NULL, object_id TEXT NOT NULL, fact_text TEXT NOT NULL,
  valid_at INTEGER, valid_precision TEXT NOT NULL, invalid_at INTEGER,
  invalid_precision TEXT NOT NULL, stated_invalid_at INTEGER, created_at INTEGER NOT NULL,
  expired_at INTEGER, change_id TEXT NOT NULL, reason TEXT NOT NULL, caused_by TEXT);
CREATE INDEX IF NOT EXISTS versions_subject ON versions(subject_id, predicate, created_at);
CREATE INDEX IF NOT EXISTS versions_object ON versions(object_id, created_at);
CREATE INDEX IF NOT EXISTS versions_fact ON versions(fact_id, created_at);
CREATE INDEX IF NOT EXISTS versions_created ON versions(group_id, created_at);
CREATE INDEX IF NOT EXISTS versions_expired ON versions(group_id, expired_at)
  WHERE expired_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS provenance(
  fact_id TEXT NOT NULL, episode_id TEXT NOT NULL, PRIMARY KEY(fact_id, episode_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS provenance_episode ON provenance(episode_id);
CREATE TABLE IF NOT EXISTS changes(
  id TEXT PRIMARY KEY, group_id TEXT NOT NULL, kind TEXT NOT NULL, created_at INTEGER NOT NULL,
  reason TEXT NOT NULL, undoes TEXT, undone_by TEXT, fact_ids TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_time ON changes(group_id, created_at);
CREATE TABLE IF NOT EXISTS change_effects(
  change_id TEXT NOT NULL, fact_id TEXT NOT NULL, before TEXT, after TEXT);
CREATE INDEX IF NOT EXISTS change_effects_change ON change_effects(change_id);
CREATE INDEX IF NOT EXISTS change_effects_fact ON change_effects(fact_id);
CREATE TABLE IF NOT EXISTS erasures(
  id TEXT PRIMARY KEY, group_id TEXT NOT NULL, kind TEXT NOT NULL, created_at INTEGER NOT NULL,
  counts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clocks(group_id TEXT PRIMARY KEY, last_tx_time INTEGER NOT NULL)
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS predicates(
  id TEXT PRIMARY KEY, group_id TEXT NOT NULL, name TEXT NOT NULL, cardinality TEXT NOT NULL,
  symmetric INTEGER NOT NULL, description TEXT NOT NULL, source TEXT NOT NULL,
  created_at INTEGER NOT NULL, change_id TEXT, expired_at INTEGER, expired_by TEXT);
CREATE INDEX IF NOT EXISTS predicates_name ON predicates(group_id, name, created_at);
CREATE INDEX IF NOT EXISTS predicates_change ON predicates(change_id) WHERE change_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS predicates_expired_by ON predicates(expired_by)
  WHERE expired_by IS NOT NULL;
"""

# Transaction clocks, one per group (kgmem.store.base). Stores written before per-group clocks
# kept one clock for the directory in meta('last_tx_time'); it remains the floor of every group
# that has no clock of its own yet, so no group can be written before data it may already hold.
_LAST_TX_SQL = (
    "SELECT coalesce((SELECT last_tx_time FROM clocks WHERE group_id = ?), "
    "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_tx_time'))"
)


def _last_tx_time(conn: sqlite3.Connection, group: str) -> datetime | None:
    row = conn.execute(_LAST_TX_SQL, (group,)).fetchone()
    return opt_from_micros(row[0]) if row else None


def _add_entity_type_column(c: sqlite3.Connection) -> None:
    """Entities' type (kgmem.entity_types): missing in stores written before types existed;
    their entities stay untyped until a fact gives them one."""
    if "entity_type" not in {r[1] for r in c.execute("PRAGMA table_info(entities)")}:
        c.execute("ALTER TABLE entities ADD COLUMN entity_type TEXT")


def _add_extraction_columns(c: sqlite3.Connection) -> None:
    """Episodes' extraction state (kgmem.model.ExtractionState): the columns are missing in
    stores written before it existed; their episodes keep a NULL state ("none")."""
    cols = {r[1] for r in c.execute("PRAGMA table_info(episodes)")}
    for name in ("extraction_status", "extraction", "trust"):  # trust: kgmem.trust, JSON
        if name not in cols:
            c.execute(f"ALTER TABLE episodes ADD COLUMN {name} TEXT")  # constant names
    c.execute("CREATE INDEX IF NOT EXISTS episodes_extraction "
              "ON episodes(group_id, extraction_status)")


# Predicate declarations (kgmem.store.base.Declaration); meta('vocabulary') is renewed with
# every write of one, so that readers can cache a group's declarations.
_DECL_SELECT = (
    "SELECT id, group_id, name, cardinality, symmetric, description, source, created_at, "
    "change_id, expired_at, expired_by FROM predicates"
)


def _declarations(rows: list[tuple[Any, ...]]) -> list[Declaration]:
    return [Declaration.from_row(r, opt_from_micros) for r in rows]


class EmbeddedStore(SummaryReads):
    """SQLite-backed store in a directory. Thread-safe: writes are serialised on one
    connection (waiting at most ``busy_timeout`` seconds for the database's lock, then
    :class:`~kgmem.errors.StoreBusyError`); reads run on connections of their own and never
    wait for a writer (:mod:`kgmem.store.sqlite.conns`)."""

    def __init__(self, path: str | Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self.db_path = self.path / "kgmem.sqlite3"
            self._db = SqliteConnections(self.db_path, busy_timeout)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise StoreBusyError(f"the store at {self.path} is busy: {exc}") from exc
            raise StoreUnavailableError(f"cannot open store at {self.path}: {exc}") from exc
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailableError(f"cannot open store at {self.path}: {exc}") from exc
        # the write connection; tests and benchmarks use it directly (from one thread)
        self._conn = self._db.writer
        self._lock = self._db.lock
        self._search_backends: dict[Hashable, SearchBackend] = {}
        self._search_tables: SearchTables | None = None
        # erase leaves no bytes behind: freed cells and pages are zeroed (kgmem/memory/erase.py); the
        # write connection is the only one that deletes
        self._conn.execute("PRAGMA secure_delete=ON")
        with self._db.write() as c:
            for stmt in (_SCHEMA + SUMMARY_SCHEMA).split(";"):
                if stmt.strip():
                    c.execute(stmt)
            _add_extraction_columns(c)
            _add_entity_type_column(c)
            fresh = c.execute("SELECT 1 FROM meta WHERE key='schema_version'").fetchone() is None
            c.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)",
                (SCHEMA_VERSION,),
            )
            if fresh:  # zeroed since its first byte: no VACUUM owed (after_erase)
                c.execute("INSERT INTO meta(key, value) VALUES('secure_delete', '1')")
        with self._lock:  # a WAL left by a kill -9 may hold pages from before an erase
            self._truncate_wal(busy_ms=0)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._db.close()

    def search_backends(self) -> dict[Hashable, SearchBackend]:
        return self._search_backends

    def search_tables(self) -> SearchTables:
        """The store's search tables (:mod:`kgmem.store.sqlite.search`), installed on first use."""
        tables = self._search_tables
        if tables is None:
            with self._lock:
                if self._search_tables is None:
                    self._search_tables = SearchTables(self._db, self.path)
                tables = self._search_tables
        tables.search_ensure_schema()
        return tables

    def search_reads(self, embedder: Embedder | None, mentions: TimeMentions) -> SearchReads:
        """This store's search half for ``embedder`` (kgmem.retrieve keeps one per embedder
        in :meth:`search_backends`)."""
        from .search_reads import EmbeddedSearchReads

        return EmbeddedSearchReads(self.search_tables(), embedder, mentions)

    def reset_search_vectors(self, embedder: Embedder) -> None:
        """Drop every stored vector and the ANN files, and stamp ``embedder`` as the model the
        vectors to come are made with (kgmem.retrieve.reindex re-embeds everything)."""
        tables = self.search_tables()
        tables.search_reset_vectors()
        tables.search_meta_set("model", embedder.name)
        tables.search_meta_set("dim", str(int(embedder.dim)))
        self._search_backends.clear()
        shutil.rmtree(self.path / "search", ignore_errors=True)

    def scrub_search_files(self) -> None:
        """After an erase, once the loaded search reads caught up: rewrite the ANN files of
        models that no search reads of this process have loaded."""
        from .vectors import scrub_ann_files

        scrub_ann_files(self.search_tables())

    def after_erase(self) -> None:
        """After an erase: a store written before ``secure_delete`` was on may keep erased
        bytes in its free space (earlier deletes and updates), so its first erase VACUUMs it
        once; then the WAL, which still holds the pages from before the erase, is truncated."""
        with self._lock:
            if not self._q("SELECT 1 FROM meta WHERE key='secure_delete'"):
                log.info("erase: vacuuming %s once (written before secure_delete)", self.db_path)
                self._conn.execute("VACUUM")
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES('secure_delete', '1')")
            if not self._truncate_wal(busy_ms=5000):
                log.warning("erase: other connections kept the WAL of %s busy; it is truncated "
                            "at the next erase, open or last close", self.db_path)

    def _truncate_wal(self, busy_ms: int) -> bool:
        """Checkpoint and truncate the WAL to zero bytes; False if other connections kept it
        busy (waiting at most ``busy_ms``)."""
        c = self._conn
        before = int(c.execute("PRAGMA busy_timeout").fetchone()[0])
        c.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
        try:
            return bool(c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0)
        finally:
            c.execute(f"PRAGMA busy_timeout={before}")

    def integrity_reads(self) -> EmbeddedIntegrityReads:
        """The reads of ``kgmem check`` (:mod:`kgmem.jobs.check`)."""
        from .check import EmbeddedIntegrityReads

        return EmbeddedIntegrityReads(self, self._db)

    def archive_reads(self) -> EmbeddedArchiveReads:
        """The raw reads of an export (:mod:`kgmem.archive`)."""
        from .archive import EmbeddedArchiveReads

        return EmbeddedArchiveReads(self._db)

    @contextmanager
    def write(self) -> Iterator[_WriteTx]:
        with self._db.write() as conn:
            yield _WriteTx(conn)

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.query(sql, params)

    # ------------------------------------------------------------------ reads
    def last_tx_time(self, group: str) -> datetime | None:
        with self._db.read() as c:
            return _last_tx_time(c, group)

    def vocabulary_stamp(self) -> str | None:
        with self._db.read() as c:  # a reader: never waits behind a writer
            return read_vocabulary_stamp(c)

    def declarations(self, group: str | None, known_at: datetime | None = None
                     ) -> list[Declaration]:
        where, params = ("group_id=?", [group]) if group is not None else ("1=1", [])
        if known_at is None or group is None:  # every group: their current declarations
            return _declarations(self._q(
                f"{_DECL_SELECT} WHERE {where} AND expired_at IS NULL ORDER BY group_id, name",
                params))
        known, kparams = known_sql(known_at)
        return _declarations(self._q(
            f"{_DECL_SELECT} WHERE {where} AND {known} ORDER BY group_id, name",
            [*params, *kparams]))

    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        with self._db.read() as c:
            return get_entity(c, group, entity_id)

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        with self._db.read() as c:
            return find_entities(c, group, norm_name)

    def list_entities(self, group: str, limit: int = 100, offset: int = 0) -> list[Entity]:
        with self._db.read() as c:  # one query for the rows (aliases are read per entity)
            rows = c.execute(
                "SELECT id, group_id, name, summary, created_at, entity_type FROM entities "
                "WHERE group_id=? "
                "ORDER BY created_at, id LIMIT ? OFFSET ?",
                (group, limit, offset),
            ).fetchall()
            return [entity_row(c, r) for r in rows]

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        rows = self._q(EPISODE_FULL + " WHERE id=? AND group_id=?", (episode_id, group))
        return episode_row(rows[0]) if rows else None

    def list_episodes(self, group: str, limit: int = 100, offset: int = 0) -> list[Episode]:
        rows = self._q(
            EPISODE_FULL
            + " WHERE group_id=? ORDER BY reference_time, created_at, id LIMIT ? OFFSET ?",
            (group, limit, offset),
        )
        return [episode_row(r) for r in rows]

    def episodes_by_hash(self, group: str, content_hashes: Sequence[str]) -> dict[str, Episode]:
        out: dict[str, Episode] = {}
        for chunk in iter_chunks(list(dict.fromkeys(content_hashes)), 400):
            marks = ",".join("?" * len(chunk))
            rows = self._q(
                EPISODE_FULL.replace(" FROM", ", content_hash FROM")
                + f" WHERE group_id=? AND content_hash IN ({marks})", [group, *chunk])
            out.update((r[10], episode_row(r)) for r in rows)
        return out

    def episodes_by_extraction(
        self, group: str, statuses: Collection[ExtractionStatus], limit: int = 1000
    ) -> list[Episode]:
        wanted = sorted(set(statuses))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        rows = self._q(
            EPISODE_FULL + f" WHERE group_id=? AND extraction_status IN ({marks}) "
            "ORDER BY reference_time, created_at, id LIMIT ?",
            (group, *wanted, limit),
        )
        return [episode_row(r) for r in rows]

    def extraction_counts(self, group: str) -> dict[str, int]:
        rows = self._q("SELECT coalesce(extraction_status, 'none'), count(*) FROM episodes "
                       "WHERE group_id=? GROUP BY 1", (group,))
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
        sql, params = facts_sql(group, when, subject_id, predicate, object_id, limit, mirror)
        return self._versions(self._q(sql, params))

    def facts_at_stamp(
        self,
        stamp: str | None,
        group: str,
        when: TimeFilter,
        subject_id: str | None,
        predicate: str | None,
        object_id: str | None,
        limit: int | None,
        mirror: Collection[str],
    ) -> list[FactVersion] | None:
        """``facts``, read only while the vocabulary stamp is ``stamp`` (the one ``mirror`` was
        computed at), checked in the same statement (one snapshot); None when it moved.
        (kgmem.store.named_reads.StampedFacts)"""
        sql, params = facts_sql(group, when, subject_id, predicate, object_id, limit, mirror,
                                stamp_check=True, stamp=stamp)
        with self._db.read() as c:
            rows = c.execute(sql, params).fetchall()
            if not rows and read_vocabulary_stamp(c) != stamp:  # no rows: which of the two?
                return None
        return self._versions(rows)

    def versions_of_fact(self, group: str, fact_id: str) -> list[FactVersion]:
        rows = self._q(
            f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.fact_id=? AND +v.group_id=? "
            "ORDER BY v.created_at, v.rowid",
            (fact_id, group),
        )
        return self._versions(rows)

    def fact_ids_starting(self, group: str, prefix: str, limit: int = 2) -> list[str]:
        rows = self._q("SELECT fact_id FROM lineages WHERE fact_id >= ? AND fact_id < ? "
                       "AND group_id=? ORDER BY fact_id LIMIT ?",
                       (prefix, prefix + "\U0010ffff", group, limit))
        return [r[0] for r in rows]

    def versions_of_entity(self, group: str, entity_id: str) -> list[FactVersion]:
        rows = self._q(
            f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE +v.group_id=? AND v.subject_id=? "
            f"UNION ALL SELECT {VERSION_COLS} FROM {VERSION_FROM} "
            "WHERE +v.group_id=? AND v.object_id=? AND v.subject_id<>?",
            (group, entity_id, group, entity_id, entity_id),
        )
        out = self._versions(rows)
        out.sort(key=lambda v: (v.created_at, v.fact_id, v.id))
        return out

    def versions_changed_since(self, group: str, since: datetime) -> list[FactVersion]:
        changed, params = changed_sql(since)
        rows = self._q(
            f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.group_id=? AND "
            f"{changed} ORDER BY v.created_at, v.rowid",
            (group, *params),
        )
        return self._versions(rows)

    def versions_written_by(self, group: str, changes: Sequence[Change]) -> list[FactVersion]:
        fact_ids = sorted({f for c in changes for f in c.fact_ids})
        if not fact_ids:
            return []
        rows = self._q(  # one JSON parameter each, whatever the page's size (no 999 limit)
            f"SELECT {VERSION_COLS} FROM {VERSION_FROM} "
            "WHERE v.fact_id IN (SELECT value FROM json_each(?)) AND +v.group_id=? "
            "AND +v.change_id IN (SELECT value FROM json_each(?)) ORDER BY v.created_at, v.rowid",
            (json.dumps(fact_ids), group, json.dumps([c.id for c in changes])),
        )
        return self._versions(rows)

    def changes_since(self, group: str, since: datetime, limit: int | None = None,
                      after: str | None = None) -> list[Change]:
        cond, params = created_after_sql(since)
        if after is not None:
            more, more_params = after_change_sql(after)
            cond, params = f"{cond} AND {more}", [*params, *more_params]
        rows = self._q(
            CHANGE_SELECT + f" WHERE group_id=? AND {cond} ORDER BY created_at, rowid"
            + ("" if limit is None else " LIMIT ?"),
            (group, *params, *(() if limit is None else (limit,))),
        )
        if not rows and after is not None and not self._q(
                "SELECT 1 FROM changes WHERE id=? AND group_id=?", (after, group)):
            raise NotFoundError(f"no change {after!r} in group {group!r}", change=after)
        return [change_row(r) for r in rows]

    def adjacent(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter
    ) -> list[FactVersion]:
        vis, vparams = version_sql(when)
        out: list[FactVersion] = []
        seen: set[str] = set()
        for chunk in iter_chunks(list(entity_ids), 400):
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.subject_id IN ({marks}) "
                f"AND +v.group_id=? AND {vis} UNION ALL "
                f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.object_id IN ({marks}) "
                f"AND +v.group_id=? AND {vis}"
            )
            params = [*chunk, group, *vparams, *chunk, group, *vparams]
            for v in self._versions(self._q(sql, params), with_provenance=False):
                if v.id not in seen:
                    seen.add(v.id)
                    out.append(v)
        return out

    def erasures(self, group: str) -> list[Erasure]:
        rows = self._q(
            "SELECT id, group_id, kind, created_at, counts FROM erasures WHERE group_id=? "
            "ORDER BY created_at",
            (group,),
        )
        return [
            Erasure(
                id=r[0],
                group=r[1],
                kind=r[2],
                created_at=from_micros(r[3]),
                counts=json.loads(r[4]),
            )
            for r in rows
        ]

    def counts(self, group: str | None = None) -> dict[str, int]:
        out = {}
        for table in ("entities", "episodes", "lineages", "versions", "changes"):
            if group is None:
                out[table] = self._q(f"SELECT count(*) FROM {table}")[0][0]
            else:
                out[table] = self._q(f"SELECT count(*) FROM {table} WHERE group_id=?", (group,))[0][
                    0
                ]
        return out

    def groups(self) -> list[str]:
        return [r[0] for r in self._q(
            "SELECT group_id FROM entities UNION SELECT group_id FROM episodes "
            "UNION SELECT group_id FROM changes ORDER BY 1")]

    def group_counts(self) -> dict[str, dict[str, int]]:
        tables = ("entities", "episodes", "lineages", "versions", "changes")
        out: dict[str, dict[str, int]] = {}
        for table in tables:
            for g, n in self._q(f"SELECT group_id, count(*) FROM {table} GROUP BY group_id"):
                out.setdefault(g, dict.fromkeys(tables, 0))[table] = n
        return dict(sorted(out.items()))

    def orphaned_lineages(self, group: str) -> list[OrphanedLineage]:
        return _orphans(self._q(_ORPHAN_SELECT + "WHERE l.group_id=? ORDER BY l.seq", (group,)))

    def keyword_episodes(self, group: str, query: str, limit: int = 20) -> list[tuple[str, float]]:
        """BM25-ranked episode ids for a keyword query (FTS5)."""
        match = _fts_query(query)
        if not match:
            return []
        rows = self._q(
            "SELECT episode_id, bm25(episodes_fts) FROM episodes_fts WHERE episodes_fts MATCH ? "
            "AND group_id=? ORDER BY bm25(episodes_fts) LIMIT ?",
            (match, group, limit),
        )
        return [(r[0], -float(r[1])) for r in rows]

    # ------------------------------------------------------------------ helpers
    def _versions(
        self, rows: list[tuple[Any, ...]], with_provenance: bool = True
    ) -> list[FactVersion]:
        prov: dict[str, list[str]] = {}
        if with_provenance and rows:
            ids = list({r[1] for r in rows})
            for chunk in iter_chunks(ids, 500):
                marks = ",".join("?" * len(chunk))
                for fid, eid in self._q(
                    f"SELECT fact_id, episode_id FROM provenance WHERE fact_id IN ({marks}) "
                    "ORDER BY episode_id",
                    chunk,
                ):
                    prov.setdefault(fid, []).append(eid)
        return [version_row(r, prov.get(r[1], [])) for r in rows]


# Lineages left without versions or entities. kgmem itself never leaves one (erase removes a
# lineage with its versions); only something editing the database behind it can.
_ORPHAN_SELECT = (
    "SELECT l.fact_id, l.group_id, l.predicate, l.fact_text, "
    "NOT EXISTS (SELECT 1 FROM versions v WHERE v.fact_id = l.fact_id), "
    "NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = l.subject_id), "
    "NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = l.object_id) FROM lineages l "
)


def _orphans(rows: Sequence[tuple[Any, ...]]) -> list[OrphanedLineage]:
    out = []
    for r in rows:
        missing = tuple(what for what, gone in zip(("versions", "subject", "object"), r[4:7])
                        if gone)
        if missing:
            out.append(OrphanedLineage(r[0], r[1], r[2], r[3], missing))
    return out


def _fts_query(text: str) -> str:
    import re

    words = re.findall(r"\w+", text.lower())
    return " OR ".join(f'"{w}"' for w in words[:64])








class _WriteTx(SummaryWrites, EraseOps):
    """Write operations inside one open SQLite transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn

    def _one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return self.c.execute(sql, params).fetchone()

    def last_tx_time(self, group: str) -> datetime | None:
        return _last_tx_time(self.c, group)

    def set_last_tx_time(self, group: str, t: datetime) -> None:
        self.c.execute(
            "INSERT INTO clocks(group_id, last_tx_time) VALUES(?, ?) "
            "ON CONFLICT(group_id) DO UPDATE SET last_tx_time=excluded.last_tx_time",
            (group, to_micros(t)),
        )

    def next_seq(self) -> int:
        row = self._one("SELECT value FROM meta WHERE key='seq'")
        n = int(row[0]) + 1 if row else 1
        self.c.execute(
            "INSERT INTO meta(key, value) VALUES('seq', ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (str(n),),
        )
        return n

    # entities
    def get_entity(self, group: str, entity_id: str) -> Entity | None:
        return get_entity(self.c, group, entity_id)

    def find_entities(self, group: str, norm_name: str) -> list[Entity]:
        return find_entities(self.c, group, norm_name)

    def insert_entity(self, entity: Entity, norm_name: str) -> None:
        self.c.execute(
            "INSERT INTO entities(id, group_id, name, norm_name, summary, created_at, entity_type) "
            "VALUES(?,?,?,?,?,?,?)",
            (
                entity.id,
                entity.group,
                entity.name,
                norm_name,
                entity.summary,
                to_micros(entity.created_at),
                entity.type,
            ),
        )

    def set_entity_type(self, group: str, entity_id: str, entity_type: str) -> None:
        self.c.execute(
            "UPDATE entities SET entity_type=? WHERE id=? AND group_id=? AND entity_type IS NULL",
            (entity_type, entity_id, group),
        )

    def add_alias(self, group: str, entity_id: str, alias: str, norm_alias: str) -> None:
        self.c.execute(
            "INSERT OR IGNORE INTO aliases(group_id, norm_alias, entity_id, alias) VALUES(?,?,?,?)",
            (group, norm_alias, entity_id, alias),
        )

    # episodes
    def find_episode_by_hash(self, group: str, content_hash: str) -> Episode | None:
        row = self._one(
            EPISODE_FULL + " WHERE group_id=? AND content_hash=?", (group, content_hash)
        )
        return episode_row(row) if row else None

    def get_episode(self, group: str, episode_id: str) -> Episode | None:
        row = self._one(EPISODE_FULL + " WHERE id=? AND group_id=?", (episode_id, group))
        return episode_row(row) if row else None

    def insert_episode(self, episode: Episode, content_hash: str) -> None:
        self.c.execute(
            "INSERT INTO episodes(id, group_id, content, source, source_description, speaker, "
            "reference_time, created_at, content_hash, extraction_status, extraction, trust) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                episode.id,
                episode.group,
                episode.content,
                episode.source,
                episode.source_description,
                episode.speaker,
                to_micros(episode.reference_time),
                to_micros(episode.created_at),
                content_hash,
                *extraction_json(episode.extraction),
                trust_json(episode),
            ),
        )
        text = episode_keyword_text(episode.content, episode.speaker)
        self.c.execute(
            "INSERT INTO episodes_fts(content, episode_id, group_id) VALUES(?,?,?)",
            (text, episode.id, episode.group),
        )

    def set_extraction(self, episode_id: str, state: ExtractionState) -> None:
        self.c.execute("UPDATE episodes SET extraction_status=?, extraction=? WHERE id=?",
                       (*extraction_json(state), episode_id))

    def add_mentions(self, episode_id: str, entity_ids: Sequence[str]) -> None:
        self.c.executemany(
            "INSERT OR IGNORE INTO mentions(episode_id, entity_id) VALUES(?,?)",
            [(episode_id, e) for e in entity_ids],
        )

    # lineages and versions
    _LINEAGE_COLS = (
        "fact_id, group_id, subject_id, predicate, object_id, valid_at, valid_precision, "
        "stated_invalid_at, invalid_precision, believed, seq, fact_text"
    )

    @staticmethod
    def _lineage(r: tuple[Any, ...]) -> LineageState:
        return LineageState.from_row(r, opt_from_micros)

    def get_lineage(self, fact_id: str) -> LineageState | None:
        row = self._one(f"SELECT {self._LINEAGE_COLS} FROM lineages WHERE fact_id=?", (fact_id,))
        return self._lineage(row) if row else None

    def lineages_for(self, group: str, subject_id: str, predicate: str) -> list[LineageState]:
        rows = self.c.execute(
            f"SELECT {self._LINEAGE_COLS} FROM lineages WHERE group_id=? AND subject_id=? "
            "AND predicate=? ORDER BY seq",
            (group, subject_id, predicate),
        ).fetchall()
        return [self._lineage(r) for r in rows]

    def lineages_touching(
        self, group: str, entity_id: str, predicate: str
    ) -> list[LineageState]:
        rows = self.c.execute(
            f"SELECT {self._LINEAGE_COLS} FROM lineages WHERE group_id=? AND predicate=? "
            "AND subject_id=? UNION "
            f"SELECT {self._LINEAGE_COLS} FROM lineages WHERE group_id=? AND predicate=? "
            "AND object_id=? ORDER BY seq",
            (group, predicate, entity_id, group, predicate, entity_id),
        ).fetchall()
        return [self._lineage(r) for r in rows]

    def put_lineage(self, s: LineageState) -> None:
        self.c.execute(
            f"INSERT OR REPLACE INTO lineages({self._LINEAGE_COLS}) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                s.fact_id,
                s.group,
                s.subject_id,
                s.predicate,
                s.object_id,
                opt_micros(s.valid_at),
                s.valid_precision.value,
                opt_micros(s.stated_invalid_at),
                s.invalid_precision.value,
                int(s.believed),
                s.seq,
                s.fact_text,
            ),
        )

    def current_versions(self, fact_ids: Sequence[str]) -> dict[str, FactVersion]:
        out: dict[str, FactVersion] = {}
        for chunk in iter_chunks(list(fact_ids), 400):
            marks = ",".join("?" * len(chunk))
            rows = self.c.execute(
                f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.fact_id IN ({marks}) "
                "AND v.expired_at IS NULL",
                chunk,
            ).fetchall()
            for r in rows:
                out[r[1]] = version_row(r, [])
        return out

    def insert_version(self, v: FactVersion) -> None:
        self.c.execute(
            "INSERT INTO versions(id, fact_id, group_id, subject_id, predicate, object_id, "
            "fact_text, valid_at, valid_precision, invalid_at, invalid_precision, "
            "stated_invalid_at, created_at, expired_at, change_id, reason, caused_by) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                v.id,
                v.fact_id,
                v.group,
                v.subject_id,
                v.predicate,
                v.object_id,
                v.fact,
                opt_micros(v.valid_at),
                v.valid_precision.value,
                opt_micros(v.invalid_at),
                v.invalid_precision.value,
                opt_micros(v.stated_invalid_at),
                to_micros(v.created_at),
                opt_micros(v.expired_at),
                v.change_id,
                v.reason,
                v.caused_by,
            ),
        )

    def expire_version(self, version_id: str, at: datetime) -> None:
        # The only update a version ever gets: closing its transaction interval, once.
        self.c.execute(
            "UPDATE versions SET expired_at=? WHERE id=? AND expired_at IS NULL",
            (to_micros(at), version_id),
        )

    def orphaned(self, fact_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for chunk in iter_chunks(list(fact_ids), 400):
            marks = ",".join("?" * len(chunk))
            rows = self.c.execute(_ORPHAN_SELECT + f"WHERE l.fact_id IN ({marks})",
                                  chunk).fetchall()
            out.update((o.fact_id, o.missing) for o in _orphans(rows))
        return out

    def add_provenance(self, fact_id: str, episode_id: str) -> None:
        self.c.execute(
            "INSERT OR IGNORE INTO provenance(fact_id, episode_id) VALUES(?,?)",
            (fact_id, episode_id),
        )

    def lineages_of_predicate(self, group: str, predicate: str) -> list[LineageState]:
        rows = self.c.execute(
            f"SELECT {self._LINEAGE_COLS} FROM lineages WHERE group_id=? AND predicate=? "
            "ORDER BY seq",
            (group, predicate),
        ).fetchall()
        return [self._lineage(r) for r in rows]

    # predicate declarations
    def vocabulary_stamp(self) -> str | None:
        return read_vocabulary_stamp(self.c)

    def _renew_vocabulary_stamp(self) -> None:
        self.c.execute(
            "INSERT INTO meta(key, value) VALUES('vocabulary', ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (uuid.uuid4().hex,),
        )

    def declarations(self, group: str) -> list[Declaration]:
        return _declarations(self.c.execute(
            _DECL_SELECT + " WHERE group_id=? AND expired_at IS NULL ORDER BY name", (group,)
        ).fetchall())

    def insert_declaration(self, d: Declaration) -> None:
        self.c.execute(
            "INSERT INTO predicates(id, group_id, name, cardinality, symmetric, description, "
            "source, created_at, change_id, expired_at, expired_by) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
            (d.id, d.group, d.name, d.cardinality.value, int(d.symmetric), d.description,
             d.source, to_micros(d.created_at), d.change_id, opt_micros(d.expired_at),
             d.expired_by),
        )
        self._renew_vocabulary_stamp()

    def expire_declaration(self, declaration_id: str, at: datetime, by: str | None) -> None:
        self.c.execute(
            "UPDATE predicates SET expired_at=?, expired_by=? WHERE id=? AND expired_at IS NULL",
            (to_micros(at), by, declaration_id),
        )
        self._renew_vocabulary_stamp()

    def declarations_of_change(
        self, group: str, change_id: str
    ) -> tuple[list[Declaration], list[Declaration]]:
        made = self.c.execute(_DECL_SELECT + " WHERE change_id=? AND group_id=? ORDER BY name",
                              (change_id, group)).fetchall()
        ended = self.c.execute(_DECL_SELECT + " WHERE expired_by=? AND group_id=? ORDER BY name",
                               (change_id, group)).fetchall()
        return _declarations(made), _declarations(ended)

    # changes
    def insert_change(self, change: Change, effects: Sequence[ChangeEffect]) -> None:
        self.c.execute(
            "INSERT INTO changes(id, group_id, kind, created_at, reason, undoes, undone_by, "
            "fact_ids) VALUES(?,?,?,?,?,?,?,?)",
            (
                change.id,
                change.group,
                change.kind,
                to_micros(change.created_at),
                change.reason,
                change.undoes,
                change.undone_by,
                json.dumps(change.fact_ids),
            ),
        )
        self.c.executemany(
            "INSERT INTO change_effects(change_id, fact_id, before, after) VALUES(?,?,?,?)",
            [
                (
                    change.id,
                    e.fact_id,
                    json.dumps(e.before.to_json()) if e.before else None,
                    json.dumps(e.after.to_json()) if e.after else None,
                )
                for e in effects
            ],
        )

    def get_change(self, group: str, change_id: str) -> Change | None:
        row = self._one(CHANGE_SELECT + " WHERE id=? AND group_id=?", (change_id, group))
        return change_row(row) if row else None

    def change_effects(self, change_id: str) -> list[ChangeEffect]:
        rows = self.c.execute(
            "SELECT fact_id, before, after FROM change_effects WHERE change_id=? ORDER BY rowid",
            (change_id,),
        ).fetchall()
        return [
            ChangeEffect(
                r[0],
                LineageState.from_json(json.loads(r[1])) if r[1] else None,
                LineageState.from_json(json.loads(r[2])) if r[2] else None,
            )
            for r in rows
        ]

    def mark_undone(self, change_id: str, undone_by: str) -> None:
        self.c.execute("UPDATE changes SET undone_by=? WHERE id=?", (undone_by, change_id))

    # erase: kgmem/store/sqlite/erase.py (EraseOps)
    def insert_erasure(self, erasure: Erasure) -> None:
        self.c.execute(
            "INSERT INTO erasures(id, group_id, kind, created_at, counts) VALUES(?,?,?,?,?)",
            (
                erasure.id,
                erasure.group,
                erasure.kind,
                to_micros(erasure.created_at),
                json.dumps(erasure.counts),
            ),
        )

