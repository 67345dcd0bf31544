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
    ExtractionStatus,
    FactVersion,
)
from ...timeutil import from_micros
from ..base import (
    Declaration,
    OrphanedLineage,
    SearchBackend,
    TimeFilter,
    iter_chunks,
)
from ..indexing import TimeMentions
from ..visibility import (
    after_change_sql,
    changed_sql,
    created_after_sql,
    known_sql,
    source_sql,
    version_sql,
)
from .conns import DEFAULT_BUSY_TIMEOUT, SqliteConnections, is_busy
from .facts_sql import facts_sql, read_vocabulary_stamp
from .rows import (
    CHANGE_SELECT,
    DECL_SELECT,
    EPISODE_FULL,
    ORPHAN_SELECT,
    VERSION_COLS,
    VERSION_FROM,
    change_row,
    declarations_of,
    entity_row,
    episode_row,
    find_entities,
    get_entity,
    orphans_of,
    read_last_tx_time,
    version_row,
)
from .search import SearchTables
from .summaries import SCHEMA as SUMMARY_SCHEMA
from .summaries import SummaryReads
from .write import EmbeddedWriteTx

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
  fact_id TEXT NOT NULL, episode_id TEXT NOT NULL, recorded_at INTEGER NOT NULL,
  PRIMARY KEY(fact_id, episode_id)) WITHOUT ROWID;
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


def _add_provenance_time(c: sqlite3.Connection) -> None:
    """Provenance links' transaction time (kgmem.timeline.source_known): missing in stores
    written before it existed. Their links get a lower bound of when they were recorded: the
    later of the episode's recording and the lineage's first version (a link cannot predate
    either), so a read before that never lists them."""
    if "recorded_at" in {r[1] for r in c.execute("PRAGMA table_info(provenance)")}:
        return
    c.execute("ALTER TABLE provenance ADD COLUMN recorded_at INTEGER")
    c.execute(
        "UPDATE provenance SET recorded_at = max("
        "coalesce((SELECT e.created_at FROM episodes e WHERE e.id = provenance.episode_id), 0), "
        "coalesce((SELECT min(v.created_at) FROM versions v "
        "WHERE v.fact_id = provenance.fact_id), 0))")


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
            _add_provenance_time(c)
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

    def ready(self) -> None:
        """A one-row read answers (a held write lock still lets reads through)."""
        self.last_tx_time("default")

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
    def write(self) -> Iterator[EmbeddedWriteTx]:
        with self._db.write() as conn:
            yield EmbeddedWriteTx(conn)

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.query(sql, params)

    # ------------------------------------------------------------------ reads
    def last_tx_time(self, group: str) -> datetime | None:
        with self._db.read() as c:
            return read_last_tx_time(c, group)

    def vocabulary_stamp(self) -> str | None:
        with self._db.read() as c:  # a reader: never waits behind a writer
            return read_vocabulary_stamp(c)

    def declarations(self, group: str | None, known_at: datetime | None = None
                     ) -> list[Declaration]:
        where, params = ("group_id=?", [group]) if group is not None else ("1=1", [])
        if known_at is None or group is None:  # every group: their current declarations
            return declarations_of(self._q(
                f"{DECL_SELECT} WHERE {where} AND expired_at IS NULL ORDER BY group_id, name",
                params))
        known, kparams = known_sql(known_at)
        return declarations_of(self._q(
            f"{DECL_SELECT} WHERE {where} AND {known} ORDER BY group_id, name",
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
        return self._versions(self._q(sql, params), when=when)

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
        return self._versions(rows, when=when)

    def versions_of_fact(self, group: str, fact_id: str,
                         sources_at: TimeFilter | None = None) -> list[FactVersion]:
        rows = self._q(
            f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.fact_id=? AND +v.group_id=? "
            "ORDER BY v.created_at, v.rowid",
            (fact_id, group),
        )
        return self._versions(rows, when=sources_at)

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
        return orphans_of(self._q(ORPHAN_SELECT + "WHERE l.group_id=? ORDER BY l.seq", (group,)))

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
        self, rows: list[tuple[Any, ...]], with_provenance: bool = True,
        when: TimeFilter | None = None,
    ) -> list[FactVersion]:
        """Versions of ``rows`` with their provenance: the links known under ``when`` (None:
        every link, as now)."""
        prov: dict[str, list[str]] = {}
        known, kparams = source_sql("p", when)
        if with_provenance and rows:
            ids = list({r[1] for r in rows})
            for chunk in iter_chunks(ids, 500):
                marks = ",".join("?" * len(chunk))
                for fid, eid in self._q(
                    f"SELECT p.fact_id, p.episode_id FROM provenance p "
                    f"WHERE p.fact_id IN ({marks}){known} ORDER BY p.episode_id",
                    [*chunk, *kparams],
                ):
                    prov.setdefault(fid, []).append(eid)
        return [version_row(r, prov.get(r[1], [])) for r in rows]


def _fts_query(text: str) -> str:
    import re

    words = re.findall(r"\w+", text.lower())
    return " OR ".join(f'"{w}"' for w in words[:64])
