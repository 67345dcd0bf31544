"""The embedded store's search tables: keyword (FTS5) and vector tables, kept in step by
SQLite triggers, and the SQL reads of search over them.

:class:`SearchTables` works on the store's :class:`~kgmem.store.sqlite.conns.SqliteConnections`;
the store keeps one (:meth:`kgmem.store.sqlite.store.EmbeddedStore.search_tables`), and its
search reads (:mod:`kgmem.store.sqlite.search_reads`) rank over it.

What :meth:`search_ensure_schema` installs in the store's database (once, idempotent):

* ``search_fact_texts`` (one row per distinct text of a fact lineage) and ``facts_fts`` over it;
  ``search_entity_names`` (an entity's name and aliases) and ``entities_fts`` over it.
* ``search_vectors``: the embeddings, float32 blobs, one row per episode chunk / fact text /
  entity name. This table is the source of truth; the ANN index files in ``<store>/search/``
  are caches rebuilt from it. ``label`` (autoincrement, never reused) is the ANN label.
* ``search_queue``: items inserted but not yet embedded (filled by triggers, drained by
  :func:`kgmem.retrieve.index_pending`).
* ``search_vec_deleted``: labels (no content) of deleted vectors, so that ANN indexes loaded
  elsewhere or persisted earlier are scrubbed.
* ``search_episode_times``: time periods mentioned in episodes ("yesterday" said on May 8
  -> May 7), resolved at indexing time against the episode's reference time.
* triggers on ``episodes``, ``versions``, ``entities`` and ``aliases``: an insert enqueues the
  new text; a delete (erase) removes its FTS rows, vectors and time mentions **in the same
  transaction** as the erase, so an acknowledged erase leaves no searchable trace in SQLite.

Installing the triggers backfills everything already in the store (enqueued, FTS indexed).
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from ...model import Entity, Episode, FactVersion
from ...timeutil import to_micros
from ..base import TimeFilter, iter_chunks
from ..visibility import (
    MENTIONS_WINDOW_SQL,
    episode_sql,
    recorded_sql,
    sitting_range_sql,
    sitting_sql,
    source_sql,
    version_sql,
)
from .conns import SqliteConnections
from .rows import EPISODE_SELECT, VERSION_COLS, VERSION_FROM, episode_row, get_entity, version_row

NEIGHBOUR_RANGE_ROWS = 2000  # episode_neighbours reads a range at once up to this many
SEARCH_SCHEMA_VERSION = "2"  # 2: search_queue.group_id (a group's backlog on its own)

_TABLES = """
CREATE TABLE IF NOT EXISTS search_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS search_queue(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, item TEXT NOT NULL, group_id TEXT);
CREATE TABLE IF NOT EXISTS search_fact_texts(
  id INTEGER PRIMARY KEY AUTOINCREMENT, fact_id TEXT NOT NULL, group_id TEXT NOT NULL,
  text TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS search_fact_texts_key ON search_fact_texts(fact_id, text);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
  text, content='search_fact_texts', content_rowid='id', tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS search_entity_names(
  id INTEGER PRIMARY KEY AUTOINCREMENT, entity_id TEXT NOT NULL, group_id TEXT NOT NULL,
  name TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS search_entity_names_key ON search_entity_names(entity_id, name);
CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(
  name, content='search_entity_names', content_rowid='id', tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS search_vectors(
  label INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, item TEXT NOT NULL,
  chunk INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
  group_id TEXT NOT NULL, vec BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS search_vectors_item ON search_vectors(kind, item);
CREATE INDEX IF NOT EXISTS search_vectors_group ON search_vectors(kind, group_id, label);
CREATE TABLE IF NOT EXISTS search_vec_deleted(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, group_id TEXT NOT NULL,
  label INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS search_vec_deleted_group ON search_vec_deleted(kind, group_id, seq);
CREATE TABLE IF NOT EXISTS search_ann_files(
  kind TEXT NOT NULL, group_id TEXT NOT NULL, file TEXT NOT NULL, model TEXT NOT NULL,
  dim INTEGER NOT NULL, max_label INTEGER NOT NULL, del_seq INTEGER NOT NULL,
  count INTEGER NOT NULL, PRIMARY KEY(kind, group_id));
CREATE TABLE IF NOT EXISTS search_episode_times(
  episode_id TEXT NOT NULL, group_id TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
  precision TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS search_episode_times_start ON search_episode_times(group_id, start);
CREATE INDEX IF NOT EXISTS search_episode_times_episode ON search_episode_times(episode_id)
"""

# Triggers are separated by "|" because their bodies contain ";".
_TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS search_tr_episode_ins AFTER INSERT ON episodes BEGIN
  INSERT INTO search_queue(kind, item, group_id) VALUES ('episode', NEW.id, NEW.group_id);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_episode_del AFTER DELETE ON episodes BEGIN
  DELETE FROM search_vectors WHERE kind = 'episode' AND item = OLD.id;
  DELETE FROM search_episode_times WHERE episode_id = OLD.id;
END|
CREATE TRIGGER IF NOT EXISTS search_tr_version_ins AFTER INSERT ON versions BEGIN
  INSERT OR IGNORE INTO search_fact_texts(fact_id, group_id, text)
    VALUES (NEW.fact_id, NEW.group_id, NEW.fact_text);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_version_del AFTER DELETE ON versions BEGIN
  DELETE FROM search_fact_texts WHERE fact_id = OLD.fact_id AND text = OLD.fact_text
    AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.fact_id = OLD.fact_id
                    AND v.fact_text = OLD.fact_text);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_fact_text_ins AFTER INSERT ON search_fact_texts BEGIN
  INSERT INTO facts_fts(rowid, text) VALUES (NEW.id, NEW.text);
  INSERT INTO search_queue(kind, item, group_id) VALUES ('fact', CAST(NEW.id AS TEXT), NEW.group_id);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_fact_text_del AFTER DELETE ON search_fact_texts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
  DELETE FROM search_vectors WHERE kind = 'fact' AND item = CAST(OLD.id AS TEXT);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_entity_ins AFTER INSERT ON entities BEGIN
  INSERT OR IGNORE INTO search_entity_names(entity_id, group_id, name)
    VALUES (NEW.id, NEW.group_id, NEW.name);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_entity_del AFTER DELETE ON entities BEGIN
  DELETE FROM search_entity_names WHERE entity_id = OLD.id;
END|
CREATE TRIGGER IF NOT EXISTS search_tr_alias_ins AFTER INSERT ON aliases
  WHEN substr(NEW.alias, 1, 2) <> char(126, 31) BEGIN
  INSERT OR IGNORE INTO search_entity_names(entity_id, group_id, name)
    VALUES (NEW.entity_id, NEW.group_id, NEW.alias);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_alias_del AFTER DELETE ON aliases BEGIN
  DELETE FROM search_entity_names WHERE entity_id = OLD.entity_id AND name = OLD.alias
    AND NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = OLD.entity_id AND e.name = OLD.alias);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_entity_name_ins AFTER INSERT ON search_entity_names BEGIN
  INSERT INTO entities_fts(rowid, name) VALUES (NEW.id, NEW.name);
  INSERT INTO search_queue(kind, item, group_id)
    VALUES ('entity', CAST(NEW.id AS TEXT), NEW.group_id);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_entity_name_del AFTER DELETE ON search_entity_names BEGIN
  INSERT INTO entities_fts(entities_fts, rowid, name) VALUES ('delete', OLD.id, OLD.name);
  DELETE FROM search_vectors WHERE kind = 'entity' AND item = CAST(OLD.id AS TEXT);
END|
CREATE TRIGGER IF NOT EXISTS search_tr_vector_del AFTER DELETE ON search_vectors BEGIN
  INSERT INTO search_vec_deleted(kind, group_id, label) VALUES (OLD.kind, OLD.group_id, OLD.label);
END
"""

_BACKFILL = [
    "INSERT OR IGNORE INTO search_fact_texts(fact_id, group_id, text) "
    "SELECT fact_id, group_id, fact_text FROM versions ORDER BY rowid",
    "INSERT OR IGNORE INTO search_entity_names(entity_id, group_id, name) "
    "SELECT id, group_id, name FROM entities ORDER BY rowid",
    "INSERT OR IGNORE INTO search_entity_names(entity_id, group_id, name) "
    "SELECT entity_id, group_id, alias FROM aliases WHERE substr(alias, 1, 2) <> char(126, 31)",
    "INSERT INTO search_queue(kind, item, group_id) SELECT 'episode', id, group_id FROM episodes "
    "ORDER BY rowid",
]

# Version 1 -> 2: the queue learns each item's group (an index on it), and the enqueueing
# triggers are made again to fill it.
_MIGRATE_2 = [
    "ALTER TABLE search_queue ADD COLUMN group_id TEXT",
    "UPDATE search_queue SET group_id = (SELECT group_id FROM episodes e "
    "WHERE e.id = search_queue.item) WHERE kind = 'episode'",
    "UPDATE search_queue SET group_id = (SELECT group_id FROM search_fact_texts f "
    "WHERE f.id = CAST(search_queue.item AS INTEGER)) WHERE kind = 'fact'",
    "UPDATE search_queue SET group_id = (SELECT group_id FROM search_entity_names n "
    "WHERE n.id = CAST(search_queue.item AS INTEGER)) WHERE kind = 'entity'",
    "DROP TRIGGER IF EXISTS search_tr_episode_ins",
    "DROP TRIGGER IF EXISTS search_tr_fact_text_ins",
    "DROP TRIGGER IF EXISTS search_tr_entity_name_ins",
]
_QUEUE_INDEX = "CREATE INDEX IF NOT EXISTS search_queue_group ON search_queue(group_id, seq)"

def fts_match(words: list[str]) -> str:
    """An FTS5 expression matching any of ``words`` (each quoted: no FTS syntax leaks)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


class SearchTables:
    """Search tables and queries of one embedded store (see module docstring)."""

    def __init__(self, db: SqliteConnections, path: Path) -> None:
        self._db = db
        self.path = path  # the store's directory (its ANN files live in path / "search")
        self._ready = False

    # ------------------------------------------------------------------ plumbing
    def _sq(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.query(sql, params)

    @contextmanager
    def _swrite(self) -> Iterator[sqlite3.Connection]:
        with self._db.write() as conn:
            yield conn

    def search_ensure_schema(self) -> None:
        """Create the search tables and triggers (and backfill) if not done yet."""
        if self._ready:
            return
        with self._db.lock:  # one thread installs it
            if self._ready:
                return
            row = None
            try:
                row = self._db.writer.execute(
                    "SELECT value FROM search_meta WHERE key='schema_version'"
                ).fetchone()
            except sqlite3.OperationalError:
                row = None
            if row is None or row[0] != SEARCH_SCHEMA_VERSION:
                with self._swrite() as c:
                    if row is not None and row[0] == "1":
                        for stmt in _MIGRATE_2:
                            c.execute(stmt)
                    for stmt in _TABLES.split(";"):
                        if stmt.strip():
                            c.execute(stmt)
                    c.execute(_QUEUE_INDEX)
                    fresh = c.execute(
                        "SELECT value FROM search_meta WHERE key='schema_version'"
                    ).fetchone() is None
                    for stmt in _TRIGGERS.split("|"):
                        if stmt.strip():
                            c.execute(stmt)
                    if fresh:
                        for stmt in _BACKFILL:
                            c.execute(stmt)
                    c.execute(
                        "INSERT OR REPLACE INTO search_meta(key, value) "
                        "VALUES('schema_version', ?)",
                        (SEARCH_SCHEMA_VERSION,),
                    )
            self._ready = True

    def search_meta_get(self, key: str) -> str | None:
        rows = self._sq("SELECT value FROM search_meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def search_meta_set(self, key: str, value: str) -> None:
        with self._swrite() as c:
            c.execute("INSERT OR REPLACE INTO search_meta(key, value) VALUES(?, ?)", (key, value))

    # ------------------------------------------------------------------ indexing queue
    def search_queue_batch(self, limit: int, group: str | None = None, after: int = 0
                           ) -> list[tuple[int, str, str]]:
        """The oldest ``limit`` queued items after ``after`` (of ``group``; None: of every
        group)."""
        if group is None:
            rows = self._sq("SELECT seq, kind, item FROM search_queue WHERE seq > ? "
                            "ORDER BY seq LIMIT ?", (after, limit))
        else:
            rows = self._sq("SELECT seq, kind, item FROM search_queue WHERE group_id = ? "
                            "AND seq > ? ORDER BY seq LIMIT ?", (group, after, limit))
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def search_queue_size(self, group: str | None = None) -> int:
        if group is None:
            return int(self._sq("SELECT count(*) FROM search_queue")[0][0])
        return int(self._sq("SELECT count(*) FROM search_queue WHERE group_id = ?",
                            (group,))[0][0])

    def search_queue_groups(self) -> list[str | None]:
        """The groups with queued items (None: items queued before the queue knew groups)."""
        return [r[0] for r in self._sq("SELECT DISTINCT group_id FROM search_queue")]

    def search_episode_sizes(self, ids: Sequence[str]) -> dict[str, int]:
        """id -> characters of the episode's content (what embedding it costs)."""
        out: dict[str, int] = {}
        for chunk in iter_chunks(list(ids), 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                f"SELECT id, length(content) + length(coalesce(speaker, '')) FROM episodes "
                f"WHERE id IN ({marks})", chunk,
            ):
                out[r[0]] = int(r[1])
        return out

    def search_episode_rows(self, ids: Sequence[str]
                            ) -> dict[str, tuple[str, str, str | None, int]]:
        """id -> (group, content, speaker, reference_time micros)."""
        out: dict[str, tuple[str, str, str | None, int]] = {}
        for chunk in iter_chunks(list(ids), 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                f"SELECT id, group_id, content, speaker, reference_time FROM episodes "
                f"WHERE id IN ({marks})",
                chunk,
            ):
                out[r[0]] = (r[1], r[2], r[3], r[4])
        return out

    def search_fact_text_rows(self, ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """text row id -> (group, fact_id, text)."""
        out: dict[str, tuple[str, str, str]] = {}
        for chunk in iter_chunks([int(i) for i in ids], 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                f"SELECT id, group_id, fact_id, text FROM search_fact_texts WHERE id IN ({marks})",
                chunk,
            ):
                out[str(r[0])] = (r[1], r[2], r[3])
        return out

    def search_entity_name_rows(self, ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """name row id -> (group, entity_id, name)."""
        out: dict[str, tuple[str, str, str]] = {}
        for chunk in iter_chunks([int(i) for i in ids], 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                f"SELECT id, group_id, entity_id, name FROM search_entity_names "
                f"WHERE id IN ({marks})",
                chunk,
            ):
                out[str(r[0])] = (r[1], r[2], r[3])
        return out

    def search_commit(
        self,
        vectors: Sequence[tuple[str, str, int, int, int, str, bytes]],
        done_seqs: Sequence[int],
        episode_times: Sequence[tuple[str, str, int, int, str]] = (),
    ) -> int:
        """Store vectors ``(kind, item, chunk, start, end, group, blob)`` and time mentions,
        and dequeue ``done_seqs``, in one transaction.

        Items deleted meanwhile (an erase between embedding and commit) and items that already
        have vectors are skipped, so an erased text is never resurrected and a retry is
        harmless. Returns the number of vector rows written.
        """
        exists_sql = {
            "episode": "SELECT 1 FROM episodes WHERE id=?",
            "fact": "SELECT 1 FROM search_fact_texts WHERE id=CAST(? AS INTEGER)",
            "entity": "SELECT 1 FROM search_entity_names WHERE id=CAST(? AS INTEGER)",
        }
        n = 0
        with self._swrite() as c:
            ok: dict[tuple[str, str], bool] = {}
            for kind, item, chunk, start, end, group, blob in vectors:
                key = (kind, item)
                if key not in ok:
                    alive = c.execute(exists_sql[kind], (item,)).fetchone() is not None
                    has = c.execute(
                        "SELECT 1 FROM search_vectors WHERE kind=? AND item=? LIMIT 1", key
                    ).fetchone() is not None
                    ok[key] = alive and not has
                    if ok[key] and kind == "episode":
                        c.execute("DELETE FROM search_episode_times WHERE episode_id=?", (item,))
                if ok[key]:
                    c.execute(
                        'INSERT INTO search_vectors(kind, item, chunk, start, "end", group_id, vec) '
                        "VALUES(?,?,?,?,?,?,?)",
                        (kind, item, chunk, start, end, group, blob),
                    )
                    n += 1
            rows = [t for t in episode_times if ok.get(("episode", t[0]), False)]
            c.executemany(
                'INSERT INTO search_episode_times(episode_id, group_id, start, "end", precision) '
                "VALUES(?,?,?,?,?)",
                rows,
            )
            for chunk_ in iter_chunks(list(done_seqs), 400):
                marks = ",".join("?" * len(chunk_))
                c.execute(f"DELETE FROM search_queue WHERE seq IN ({marks})", chunk_)
        return n

    def search_reset_vectors(self) -> None:
        """Drop every vector (and ANN file record) and re-enqueue everything (model change)."""
        with self._swrite() as c:
            c.execute("DELETE FROM search_vectors")
            c.execute("DELETE FROM search_ann_files")
            c.execute("DELETE FROM search_queue")
            c.execute("DELETE FROM search_episode_times")
            c.execute(
                "INSERT INTO search_queue(kind, item, group_id) SELECT 'fact', CAST(id AS TEXT), "
                "group_id FROM search_fact_texts ORDER BY id"
            )
            c.execute(
                "INSERT INTO search_queue(kind, item, group_id) SELECT 'entity', "
                "CAST(id AS TEXT), group_id FROM search_entity_names ORDER BY id"
            )
            c.execute(
                "INSERT INTO search_queue(kind, item, group_id) SELECT 'episode', id, group_id "
                "FROM episodes ORDER BY rowid"
            )

    # ------------------------------------------------------------------ vectors
    def search_vectors_after(
        self, kind: str, group: str, after_label: int, limit: int = 50_000
    ) -> list[tuple[int, bytes]]:
        return self._sq(
            "SELECT label, vec FROM search_vectors WHERE kind=? AND group_id=? AND label>? "
            "ORDER BY label LIMIT ?",
            (kind, group, after_label, limit),
        )

    def search_vector_count(self, kind: str, group: str) -> int:
        return int(
            self._sq(
                "SELECT count(*) FROM search_vectors WHERE kind=? AND group_id=?", (kind, group)
            )[0][0]
        )

    def search_deleted_after(self, kind: str, group: str, after_seq: int) -> list[tuple[int, int]]:
        """``(seq, label)`` of vectors deleted after ``after_seq``."""
        return self._sq(
            "SELECT seq, label FROM search_vec_deleted WHERE kind=? AND group_id=? AND seq>? "
            "ORDER BY seq",
            (kind, group, after_seq),
        )

    def search_max_deleted_seq(self) -> int:
        return int(self._sq("SELECT coalesce(max(seq), 0) FROM search_vec_deleted")[0][0])

    def search_label_rows(
        self, labels: Sequence[int]
    ) -> dict[int, tuple[str, str, int, int, int, str]]:
        """label -> (kind, item, chunk, start, end, group) for labels that still exist."""
        out: dict[int, tuple[str, str, int, int, int, str]] = {}
        for chunk in iter_chunks([int(x) for x in labels], 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                f'SELECT label, kind, item, chunk, start, "end", group_id FROM search_vectors '
                f"WHERE label IN ({marks})",
                chunk,
            ):
                out[int(r[0])] = (r[1], r[2], int(r[3]), int(r[4]), int(r[5]), r[6])
        return out

    def search_item_vectors(
        self, kind: str, items: Sequence[str]
    ) -> list[tuple[int, str, int, int, int, bytes]]:
        """``(label, item, chunk, start, end, blob)`` of the given items' vectors."""
        out: list[tuple[int, str, int, int, int, bytes]] = []
        for chunk in iter_chunks(list(items), 400):
            marks = ",".join("?" * len(chunk))
            out += self._sq(
                f'SELECT label, item, chunk, start, "end", vec FROM search_vectors '
                f"WHERE kind=? AND item IN ({marks})",
                [kind, *chunk],
            )
        return out

    def search_ann_file(self, kind: str, group: str
                        ) -> tuple[str, str, int, int, int, int] | None:
        """``(file, model, dim, max_label, del_seq, count)`` of the persisted ANN index."""
        rows = self._sq(
            "SELECT file, model, dim, max_label, del_seq, count FROM search_ann_files "
            "WHERE kind=? AND group_id=?",
            (kind, group),
        )
        return rows[0] if rows else None

    def search_ann_files(self) -> list[tuple[str, str, str, int]]:
        return self._sq("SELECT kind, group_id, file, del_seq FROM search_ann_files")

    def search_set_ann_file(
        self,
        kind: str,
        group: str,
        file: str | None,
        model: str = "",
        dim: int = 0,
        max_label: int = 0,
        del_seq: int = 0,
        count: int = 0,
    ) -> None:
        with self._swrite() as c:
            if file is None:
                c.execute("DELETE FROM search_ann_files WHERE kind=? AND group_id=?", (kind, group))
            else:
                c.execute(
                    "INSERT OR REPLACE INTO search_ann_files(kind, group_id, file, model, dim, "
                    "max_label, del_seq, count) VALUES(?,?,?,?,?,?,?,?)",
                    (kind, group, file, model, dim, max_label, del_seq, count),
                )

    # ------------------------------------------------------------------ keyword
    def keyword_doc_freq(self, table: str, word: str) -> int:
        """How many rows of FTS table ``table`` match ``word`` (cheap: a doclist length)."""
        if table not in ("facts_fts", "entities_fts", "episodes_fts"):
            raise ValueError(table)
        phrase = '"' + word.replace('"', '""') + '"'
        return int(self._sq(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (phrase,))[0][0])

    def keyword_facts(
        self, group: str, match: str, limit: int, newest: int | None = None
    ) -> list[tuple[str, str, float]]:
        """BM25 over fact texts: ``(text_row_id, fact_id, score)`` best first; with ``newest``
        only that many of the group's newest matches are scored (see :func:`_best_of`)."""
        if not match:
            return []
        if newest is not None:
            rows = _best_of(self._sq(
                "SELECT t.id, t.fact_id, bm25(facts_fts) FROM facts_fts JOIN search_fact_texts t "
                "ON t.id = facts_fts.rowid WHERE facts_fts MATCH ? AND t.group_id=? "
                "ORDER BY facts_fts.rowid DESC LIMIT ?",
                (match, group, max(newest, limit)),
            ), limit)
        else:
            rows = self._sq(
                "SELECT t.id, t.fact_id, f.score FROM (SELECT rowid AS rid, bm25(facts_fts) AS "
                "score FROM facts_fts WHERE facts_fts MATCH ?) f JOIN search_fact_texts t "
                "ON t.id = f.rid WHERE t.group_id=? ORDER BY f.score LIMIT ?",
                (match, group, limit),
            )
        return [(str(r[0]), r[1], -float(r[2])) for r in rows]

    def keyword_entities(
        self, group: str, match: str, limit: int, known_at: datetime | None = None,
        newest: int | None = None,
    ) -> list[tuple[str, str, float]]:
        """BM25 over entity names and aliases: ``(name_row_id, entity_id, score)``; with
        ``newest`` only that many of the newest matches are scored."""
        if not match:
            return []
        if newest is not None:
            sql = (
                "SELECT n.id, n.entity_id, bm25(entities_fts) FROM entities_fts "
                "JOIN search_entity_names n ON n.id = entities_fts.rowid "
                "JOIN entities e ON e.id = n.entity_id "
                "WHERE entities_fts MATCH ? AND n.group_id=?"
            )
        else:
            sql = (
                "SELECT n.id, n.entity_id, f.score FROM (SELECT rowid AS rid, "
                "bm25(entities_fts) AS score FROM entities_fts WHERE entities_fts MATCH ?) f "
                "JOIN search_entity_names n ON n.id = f.rid JOIN entities e ON e.id = n.entity_id "
                "WHERE n.group_id=?"
            )
        params: list[Any] = [match, group]
        if known_at is not None:
            known, kparams = recorded_sql("e", known_at)
            sql += known
            params += kparams
        if newest is not None:
            sql += " ORDER BY entities_fts.rowid DESC LIMIT ?"
            params.append(max(newest, limit))
            rows = _best_of(self._sq(sql, params), limit)
        else:
            sql += " ORDER BY f.score LIMIT ?"
            params.append(limit)
            rows = self._sq(sql, params)
        return [(str(r[0]), r[1], -float(r[2])) for r in rows]

    def keyword_episodes_filtered(
        self,
        group: str,
        match: str,
        limit: int,
        known_at: datetime | None = None,
        ref_max: datetime | None = None,
        window: tuple[datetime, datetime] | None = None,
        newest: int | None = None,
    ) -> list[tuple[str, float]]:
        """BM25 over episodes (the store's ``episodes_fts``), visible by
        :func:`kgmem.timeline.episode_visible` (``known_at``, ``ref_max``, ``window``); with
        ``newest`` only that many of the newest visible matches are scored."""
        if newest is not None and match:
            sql = (
                "SELECT e.id, bm25(episodes_fts) FROM episodes_fts JOIN episodes e "
                "ON e.id = episodes_fts.episode_id WHERE episodes_fts MATCH ? "
                "AND episodes_fts.group_id=?"
            )
            params: list[Any] = [match, group]
            sql, params = episode_sql(sql, params, known_at, ref_max, window)
            sql += " ORDER BY episodes_fts.rowid DESC LIMIT ?"
            params.append(max(newest, limit))
            rows = _best_of(self._sq(sql, params), limit)
        else:
            rows = self._episodes_matching(group, match, limit, known_at, ref_max, window, True)
        return [(r[0], -float(r[1])) for r in rows]

    def _episodes_matching(
        self,
        group: str,
        match: str,
        limit: int,
        known_at: datetime | None,
        ref_max: datetime | None,
        window: tuple[datetime, datetime] | None,
        ranked: bool,
    ) -> list[Any]:
        """(id, bm25 score) best first when ``ranked``, else (id, reference time), unordered."""
        if not match:
            return []
        sql = (
            "SELECT e.id, f.score FROM (SELECT episode_id, bm25(episodes_fts) AS score "
            "FROM episodes_fts WHERE episodes_fts MATCH ? AND group_id=?) f "
            "JOIN episodes e ON e.id = f.episode_id WHERE 1=1"
            if ranked else
            "SELECT e.id, e.reference_time FROM episodes_fts f JOIN episodes e "
            "ON e.id = f.episode_id WHERE episodes_fts MATCH ? AND f.group_id=?"
        )
        params: list[Any] = [match, group]
        sql, params = episode_sql(sql, params, known_at, ref_max, window)
        sql += " ORDER BY f.score LIMIT ?" if ranked else " LIMIT ?"
        params.append(limit)
        return list(self._sq(sql, params))

    # ------------------------------------------------------------------ episodes by time
    def episodes_in_window(
        self,
        group: str,
        window: tuple[datetime, datetime],
        limit: int,
        known_at: datetime | None = None,
        ref_max: datetime | None = None,
    ) -> list[tuple[str, int]]:
        """``(episode_id, reference_time micros)`` with reference time in ``window``,
        oldest first."""
        sql = "SELECT e.id, e.reference_time FROM episodes e WHERE e.group_id=?"
        params: list[Any] = [group]
        sql, params = episode_sql(sql, params, known_at, ref_max, window)
        sql += " ORDER BY e.reference_time, e.created_at, e.id LIMIT ?"
        params.append(limit)
        return [(r[0], int(r[1])) for r in self._sq(sql, params)]

    def episodes_mentioning_window(
        self,
        group: str,
        window: tuple[datetime, datetime],
        limit: int,
        known_at: datetime | None = None,
        ref_max: datetime | None = None,
        max_span_days: int = 400,
    ) -> list[tuple[str, int]]:
        """Episodes that *mention* a period overlapping ``window`` (e.g. "yesterday")."""
        w0, w1 = to_micros(window[0]), to_micros(window[1])
        lo = w0 - max_span_days * 86_400_000_000
        sql = (
            "SELECT DISTINCT e.id, e.reference_time FROM search_episode_times t "
            f"JOIN episodes e ON e.id = t.episode_id WHERE t.group_id=? AND {MENTIONS_WINDOW_SQL}"
        )
        params: list[Any] = [group, w1, lo, w0]
        sql, params = episode_sql(sql, params, known_at, ref_max, None)
        sql += " ORDER BY e.reference_time LIMIT ?"
        params.append(limit)
        return [(r[0], int(r[1])) for r in self._sq(sql, params)]

    def change_stamp(self) -> int:
        """Changes when anything was written to the database since the last call (by any
        connection of any process)."""
        return self._db.change_stamp()

    def episode_time_rows(self, group: str) -> list[tuple[int, int]]:
        """``(reference_time, created_at)`` micros of all the group's episodes, by reference
        time."""
        return self._sq(
            "SELECT reference_time, created_at FROM episodes WHERE group_id=? "
            "ORDER BY reference_time", (group,))

    def episode_times(self, group: str, known_at: datetime | None = None) -> list[int]:
        """Reference times (micros, ascending) of the group's episodes stored by ``known_at``
        (for session boundaries)."""
        sql = "SELECT e.reference_time FROM episodes e WHERE e.group_id=?"
        params: list[Any] = [group]
        if known_at is not None:
            known, kparams = recorded_sql("e", known_at)
            sql += known
            params += kparams
        sql += " ORDER BY e.reference_time"
        return [int(r[0]) for r in self._sq(sql, params)]

    def episode_neighbours(
        self,
        group: str,
        ids: Sequence[str],
        gap_micros: int,
        known_at: datetime | None = None,
        ref_max: datetime | None = None,
    ) -> dict[str, tuple[str | None, str | None]]:
        """id -> (previous, next) visible episode of the same group in the order
        ``(reference_time, created_at, id)``, each at most ``gap_micros`` away in reference
        time (the turns said just before and after, in the same session).

        The episodes within ``gap_micros`` of the given ones are read once per run of
        overlapping ranges (a session's turns share one read) and ordered here; a range
        holding more than ``NEIGHBOUR_RANGE_ROWS`` episodes is looked up episode by episode
        (:meth:`_neighbours_one_by_one`)."""
        stamps = self.episode_stamps(group, ids)
        wanted = [i for i in dict.fromkeys(ids) if i in stamps]
        vis, vparams = episode_sql("", [], known_at, ref_max, None)
        ranges: list[list[Any]] = []  # [start, end, ids]
        for i in sorted(wanted, key=lambda i: stamps[i][1]):
            ref = stamps[i][1]
            if ranges and ref - gap_micros <= ranges[-1][1]:
                ranges[-1][1] = ref + gap_micros
                ranges[-1][2].append(i)
            else:
                ranges.append([ref - gap_micros, ref + gap_micros, [i]])
        out: dict[str, tuple[str | None, str | None]] = {}
        slow: list[str] = []
        sql = ("SELECT e.reference_time, e.created_at, e.id FROM episodes e WHERE e.group_id=? "
               "AND " + sitting_range_sql() + vis
               + f" ORDER BY e.reference_time, e.created_at, e.id LIMIT {NEIGHBOUR_RANGE_ROWS + 1}")
        with self._db.read() as conn:
            for start, end, members in ranges:
                rows = [(int(r), int(c), str(e)) for r, c, e in
                        conn.execute(sql, [group, start, end, *vparams]).fetchall()]
                if len(rows) > NEIGHBOUR_RANGE_ROWS:
                    slow += members
                    continue
                for i in members:
                    created, ref = stamps[i]
                    at = bisect_left(rows, (ref, created, i))
                    j = at + 1 if at < len(rows) and rows[at][2] == i else at
                    prev = rows[at - 1] if at > 0 else None
                    nxt = rows[j] if j < len(rows) else None
                    out[i] = (prev[2] if prev is not None and prev[0] >= ref - gap_micros
                              else None,
                              nxt[2] if nxt is not None and nxt[0] <= ref + gap_micros
                              else None)
        if slow:
            out.update(self._neighbours_one_by_one(group, slow, stamps, gap_micros, vis,
                                                   vparams))
        return {i: out[i] for i in wanted}

    def _neighbours_one_by_one(
        self, group: str, ids: Sequence[str], stamps: Mapping[str, tuple[int, int]],
        gap_micros: int, vis: str, vparams: Sequence[Any],
    ) -> dict[str, tuple[str | None, str | None]]:
        """:meth:`episode_neighbours` with one statement per episode (for crowded ranges):
        (previous, next) as two scalar subqueries."""
        both = (
            "SELECT (SELECT e.id FROM episodes e WHERE e.group_id=? AND "
            + sitting_sql(before=True) + vis
            + " ORDER BY e.reference_time DESC, e.created_at DESC, e.id DESC LIMIT 1), "
            "(SELECT e.id FROM episodes e WHERE e.group_id=? AND "
            + sitting_sql(before=False) + vis
            + " ORDER BY e.reference_time, e.created_at, e.id LIMIT 1)"
        )
        out: dict[str, tuple[str | None, str | None]] = {}
        with self._db.read() as conn:
            for i in ids:
                created, ref = stamps[i]
                prev, nxt = conn.execute(
                    both,
                    [group, ref - gap_micros, ref, created, i, *vparams,
                     group, ref + gap_micros, ref, created, i, *vparams],
                ).fetchone()
                out[i] = (prev, nxt)
        return out

    def episodes_saying(
        self,
        group: str,
        match: str,
        limit: int,
        known_at: datetime | None = None,
        ref_max: datetime | None = None,
        window: tuple[datetime, datetime] | None = None,
    ) -> list[tuple[str, int]]:
        """(id, reference time in micros) of up to ``limit`` visible episodes matching the FTS5
        expression ``match``, unranked (membership only: no BM25 to compute)."""
        rows = self._episodes_matching(group, match, limit, known_at, ref_max, window, False)
        return [(r[0], int(r[1])) for r in rows]

    def episode_stamps(self, group: str, ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """id -> (created_at, reference_time) in micros (cheap visibility checks)."""
        out: dict[str, tuple[int, int]] = {}
        for chunk in iter_chunks(list(dict.fromkeys(ids)), 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                # "+group_id": with a long id list SQLite (no ANALYZE stats) would scan the
                # whole group through (group_id, reference_time) instead of seeking each id
                f"SELECT id, created_at, reference_time FROM episodes WHERE +group_id=? "
                f"AND id IN ({marks})",
                [group, *chunk],
            ):
                out[r[0]] = (int(r[1]), int(r[2]))
        return out

    def episodes_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Episode]:
        out: dict[str, Episode] = {}
        for chunk in iter_chunks(list(dict.fromkeys(ids)), 400):
            marks = ",".join("?" * len(chunk))
            for r in self._sq(
                EPISODE_SELECT + f" WHERE +group_id=? AND id IN ({marks})", [group, *chunk]
            ):
                out[r[0]] = episode_row(r)
        return out

    def facts_from_episodes(
        self, group: str, episode_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]:
        """Visible facts whose provenance includes one of ``episode_ids``."""
        if not episode_ids:
            return []
        fids: list[str] = []
        known, kparams = source_sql("p", when)  # a link recorded later was not known then
        for chunk in iter_chunks(list(dict.fromkeys(episode_ids)), 400):
            marks = ",".join("?" * len(chunk))
            fids += [
                r[0]
                for r in self._sq(
                    f"SELECT DISTINCT p.fact_id FROM provenance p "
                    f"WHERE p.episode_id IN ({marks}){known}", [*chunk, *kparams]
                )
            ]
        return self.visible_versions(group, fids[: limit * 4], when)[:limit]

    # ------------------------------------------------------------------ facts and entities
    def visible_versions(
        self, group: str, fact_ids: Sequence[str], when: TimeFilter
    ) -> list[FactVersion]:
        """Versions of ``fact_ids`` visible under ``when`` (with provenance)."""
        vis, vparams = version_sql(when)
        rows: list[tuple[Any, ...]] = []
        for chunk in iter_chunks(list(dict.fromkeys(fact_ids)), 400):
            marks = ",".join("?" * len(chunk))
            rows += self._sq(
                # "+v.group_id": keep SQLite (without ANALYZE stats) off the
                # (group_id, created_at) index, which scans the whole group
                f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE +v.group_id=? "
                f"AND v.fact_id IN ({marks}) AND {vis}",
                [group, *chunk, *vparams],
            )
        return _versions_with_provenance(self, rows, when)

    def graph_facts(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]:
        """Visible facts touching ``entity_ids`` (subject or object), newest first, capped."""
        vis, vparams = version_sql(when)
        rows: list[tuple[Any, ...]] = []
        seen: set[str] = set()
        for eid in list(dict.fromkeys(entity_ids)):
            for col in ("subject_id", "object_id"):
                for r in self._sq(
                    f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE v.{col}=? "
                    f"AND +v.group_id=? AND {vis} ORDER BY v.created_at DESC LIMIT ?",
                    [eid, group, *vparams, limit],
                ):
                    if r[0] not in seen:
                        seen.add(r[0])
                        rows.append(r)
        return _versions_with_provenance(self, rows, when)

    def entities_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Entity]:
        out: dict[str, Entity] = {}
        with self._db.read() as conn:
            for eid in dict.fromkeys(ids):
                e = get_entity(conn, group, eid)
                if e is not None:
                    out[eid] = e
        return out

    def entities_by_norm_names(self, group: str, norms: Sequence[str]) -> list[tuple[str, str]]:
        """``(norm_name, entity_id)`` for entities (or aliases) whose normalised name is in
        ``norms``."""
        out: list[tuple[str, str]] = []
        for chunk in iter_chunks(list(dict.fromkeys(norms)), 400):
            marks = ",".join("?" * len(chunk))
            out += self._sq(
                f"SELECT norm_name, id FROM entities WHERE group_id=? AND norm_name IN ({marks}) "
                f"UNION SELECT norm_alias, entity_id FROM aliases WHERE group_id=? "
                f"AND norm_alias IN ({marks})",
                [group, *chunk, group, *chunk],
            )
        return out


def _best_of(rows: list[tuple[Any, ...]], limit: int) -> list[tuple[Any, ...]]:
    """The ``limit`` best of ``rows`` (newest first, a bm25 score last: lower is better), ties
    oldest first as in the full ranking. A query whose words all match more than ``DF_MAX``
    rows scores only its newest matches (:data:`kgmem.store.search_reads.COMMON_POOL`)."""
    return sorted(reversed(rows), key=lambda r: float(r[-1]))[:limit]


def _versions_with_provenance(store: SearchTables, rows: list[tuple[Any, ...]],
                              when: TimeFilter) -> list[FactVersion]:
    """Versions of ``rows`` with the provenance links known under ``when``."""
    prov: dict[str, list[str]] = {}
    ids = list({r[1] for r in rows})
    known, kparams = source_sql("p", when)
    for chunk in iter_chunks(ids, 400):
        marks = ",".join("?" * len(chunk))
        for fid, eid in store._sq(
            f"SELECT p.fact_id, p.episode_id FROM provenance p WHERE p.fact_id IN ({marks})"
            f"{known} ORDER BY p.episode_id",
            [*chunk, *kparams],
        ):
            prov.setdefault(fid, []).append(eid)
    return [version_row(r, prov.get(r[1], [])) for r in rows]
