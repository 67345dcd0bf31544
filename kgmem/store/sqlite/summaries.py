"""Entity summaries on the embedded store (:mod:`kgmem.memory.summaries`): their versions in
transaction time, how far they were built, and which episodes they quote.

``entities.summary`` holds the current text (what ``Entity.summary`` reads);
``entity_summaries`` every version; ``summary_marks`` the build mark; ``summary_cites`` the
episodes each entity's versions quote, so that erasing an episode finds every summary that
quotes it (kgmem/memory/erase.py drops those histories in the erase's transaction, and the store's
``secure_delete`` zeroes their bytes).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ...timeutil import from_micros, opt_from_micros, opt_micros, to_micros
from ..base import SummaryHistory, SummaryVersion, current_text, iter_chunks
from .conns import SqliteConnections

SCHEMA = """
CREATE TABLE IF NOT EXISTS entity_summaries(
  group_id TEXT NOT NULL, entity_id TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL,
  created_at INTEGER NOT NULL, expired_at INTEGER, episodes TEXT NOT NULL,
  PRIMARY KEY(group_id, entity_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS summary_marks(
  group_id TEXT NOT NULL, entity_id TEXT NOT NULL, through INTEGER NOT NULL,
  links INTEGER NOT NULL, PRIMARY KEY(group_id, entity_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS summary_cites(
  group_id TEXT NOT NULL, episode_id TEXT NOT NULL, entity_id TEXT NOT NULL,
  PRIMARY KEY(group_id, episode_id, entity_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS summary_cites_entity ON summary_cites(group_id, entity_id);
"""

TABLES = ("entity_summaries", "summary_marks", "summary_cites")


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))


def read_history(c: sqlite3.Connection, group: str, entity_id: str) -> SummaryHistory:
    """``c``: a connection of the store."""
    rows = c.execute(
        "SELECT text, created_at, expired_at, episodes FROM entity_summaries "
        "WHERE group_id=? AND entity_id=? ORDER BY seq", (group, entity_id)).fetchall()
    mark = c.execute("SELECT through, links FROM summary_marks WHERE group_id=? AND "
                     "entity_id=?", (group, entity_id)).fetchone()
    versions = tuple(SummaryVersion(r[0], from_micros(r[1]), opt_from_micros(r[2]),
                                    tuple(json.loads(r[3]))) for r in rows)
    if mark is None:
        return SummaryHistory(versions)
    return SummaryHistory(versions, from_micros(mark[0]), int(mark[1]))


class SummaryReads:
    """Mixed into the embedded store: its reads of summaries (``self._db``: its connections)."""

    _db: SqliteConnections

    def summary_history(self, group: str, entity_id: str) -> SummaryHistory:
        with self._db.read() as c:
            return read_history(c, group, entity_id)

    def summarized_entities(self, group: str) -> list[str]:
        """The entities of ``group`` with a stored summary history."""
        with self._db.read() as c:
            return [r[0] for r in c.execute(
                "SELECT entity_id FROM summary_marks WHERE group_id=? ORDER BY entity_id",
                (group,)).fetchall()]


class SummaryWrites:
    """Mixed into the embedded store's write transaction (``self.c``)."""

    c: sqlite3.Connection

    def put_summary_history(self, group: str, entity_id: str, h: SummaryHistory,
                            keep: int = 0) -> None:
        """Replace the entity's summary versions from the ``keep``-th on (those before are
        stored as they are) and its mark; ``entities.summary`` becomes the current text,
        unless it holds a summary kgmem did not write (imported from graphiti-core). Nothing
        is written for an entity that is gone (erased meanwhile)."""
        if self.c.execute("SELECT 1 FROM entities WHERE id=? AND group_id=?",
                          (entity_id, group)).fetchone() is None:
            return
        before = current_text(read_history(self.c, group, entity_id))
        self.c.execute("DELETE FROM entity_summaries WHERE group_id=? AND entity_id=? AND "
                       "seq >= ?", (group, entity_id, keep))
        self.c.execute("DELETE FROM summary_marks WHERE group_id=? AND entity_id=?",
                       (group, entity_id))
        self.c.executemany(
            "INSERT INTO entity_summaries(group_id, entity_id, seq, text, created_at, "
            "expired_at, episodes) VALUES(?,?,?,?,?,?,?)",
            [(group, entity_id, i, v.text, to_micros(v.created_at), opt_micros(v.expired_at),
              json.dumps(list(v.episodes))) for i, v in enumerate(h.versions) if i >= keep])
        # citations only grow until the history is dropped (an extra one costs a rebuild)
        self.c.executemany(
            "INSERT OR IGNORE INTO summary_cites(group_id, episode_id, entity_id) VALUES(?,?,?)",
            [(group, e, entity_id)
             for e in sorted({e for v in h.versions[keep:] for e in v.episodes})])
        if h.through is not None:
            self.c.execute("INSERT INTO summary_marks(group_id, entity_id, through, links) "
                           "VALUES(?,?,?,?)", (group, entity_id, to_micros(h.through), h.links))
        # a summary kgmem did not write (imported from graphiti-core) stays
        self.c.execute("UPDATE entities SET summary=? WHERE id=? AND group_id=? "
                       "AND summary IN ('', ?)", (current_text(h), entity_id, group, before))

    def summary_entities_citing(self, group: str, episode_ids: Sequence[str]) -> list[str]:
        out: set[str] = set()
        for chunk in iter_chunks(list(episode_ids), 400):
            out.update(r[0] for r in self.c.execute(
                f"SELECT entity_id FROM summary_cites WHERE group_id=? AND episode_id IN "
                f"({_marks(chunk)})", [group, *chunk]).fetchall())
        return sorted(out)

    def drop_summary_histories(self, group: str, entity_ids: Sequence[str]) -> None:
        """Delete the entities' summary versions, marks and citations (rebuilt on the next
        read from the facts as they now are)."""
        for chunk in iter_chunks(list(entity_ids), 400):
            for table in TABLES:  # one of the constants above, never user input
                self.c.execute(f"DELETE FROM {table} WHERE group_id=? AND entity_id IN "
                               f"({_marks(chunk)})", [group, *chunk])

    def drop_group_summaries(self, group: str) -> None:
        for table in TABLES:
            self.c.execute(f"DELETE FROM {table} WHERE group_id=?", (group,))
