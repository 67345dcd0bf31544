"""Physical deletion (erase) on the embedded store: the write-transaction half.

:class:`EraseOps` is mixed into the store's write transaction (``self.c`` is its open SQLite
connection). Search-side rows (FTS rows, vectors, time mentions) follow by the triggers of
:mod:`kgmem.store.sqlite.search`; :meth:`EraseOps.purge_erased` then rewrites the FTS5
segments, where a deleted row's tokens otherwise stay until a later merge. With the store's
``PRAGMA secure_delete=ON`` every freed byte is zeroed, and
:meth:`kgmem.store.sqlite.store.EmbeddedStore.after_erase` truncates the WAL after the commit, so
no file of the store keeps a copy (tests/erase/test_erase_suite.py scans the bytes).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from ..base import ERASED_CHANGE, ErasedContent, iter_chunks

FTS_TABLES = ("episodes_fts", "facts_fts", "entities_fts")


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))


class EraseOps:
    """Erase operations inside one open SQLite transaction."""

    c: sqlite3.Connection

    # summaries belong to their entity (kgmem.store.sqlite.summaries.SummaryWrites)
    def drop_summary_histories(self, group: str, entity_ids: Sequence[str]) -> None:
        raise NotImplementedError

    def drop_group_summaries(self, group: str) -> None:
        raise NotImplementedError

    def fact_ids_only_from_episode(self, group: str, episode_id: str) -> list[str]:
        rows = self.c.execute(
            "SELECT p.fact_id FROM provenance p JOIN lineages l ON l.fact_id = p.fact_id "
            "WHERE p.episode_id=? AND l.group_id=? AND NOT EXISTS (SELECT 1 FROM provenance q "
            "WHERE q.fact_id = p.fact_id AND q.episode_id <> p.episode_id)",
            (episode_id, group),
        ).fetchall()
        return [r[0] for r in rows]

    def fact_ids_touching_entity(self, group: str, entity_id: str) -> list[str]:
        # four indexed lookups ("group_id=? AND (s OR o)" scanned the group: 0.7 s at 100k facts)
        rows = self.c.execute(
            "SELECT fact_id FROM lineages WHERE group_id=? AND subject_id=? "
            "UNION SELECT fact_id FROM lineages WHERE object_id=? AND +group_id=? "
            "UNION SELECT fact_id FROM versions WHERE subject_id=? AND +group_id=? "
            "UNION SELECT fact_id FROM versions WHERE object_id=? AND +group_id=?",
            (group, entity_id, entity_id, group, entity_id, group, entity_id, group),
        ).fetchall()
        return [r[0] for r in rows]

    def entities_of_facts(self, fact_ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        for chunk in iter_chunks(list(fact_ids), 400):
            m = _marks(chunk)
            for s, o in self.c.execute(
                f"SELECT subject_id, object_id FROM lineages WHERE fact_id IN ({m}) UNION "
                f"SELECT subject_id, object_id FROM versions WHERE fact_id IN ({m})",
                [*chunk, *chunk],
            ):
                out.update((s, o))
        return out

    def episode_mentions(self, episode_id: str) -> list[str]:
        return [r[0] for r in self.c.execute(
            "SELECT entity_id FROM mentions WHERE episode_id=?", (episode_id,))]

    def unreferenced_entities(self, group: str, entity_ids: Collection[str]) -> list[str]:
        out: list[str] = []
        for chunk in iter_chunks(sorted(entity_ids), 400):
            out += [r[0] for r in self.c.execute(
                f"SELECT id FROM entities e WHERE id IN ({_marks(chunk)}) AND group_id=? "
                "AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.subject_id = e.id) "
                "AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.object_id = e.id) "
                "AND NOT EXISTS (SELECT 1 FROM lineages l WHERE l.group_id = e.group_id "
                "AND l.subject_id = e.id) "
                "AND NOT EXISTS (SELECT 1 FROM lineages l WHERE l.object_id = e.id) "
                "AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id)",
                [*chunk, group],
            )]
        return out

    def erased_content(
        self, group: str, fact_ids: Sequence[str], entity_ids: Sequence[str],
        episode_ids: Sequence[str],
    ) -> ErasedContent:
        texts: set[str] = set()
        for chunk in iter_chunks(list(fact_ids), 400):
            m = _marks(chunk)
            texts.update(r[0] for r in self.c.execute(
                f"SELECT fact_text FROM lineages WHERE fact_id IN ({m}) UNION "
                f"SELECT fact_text FROM versions WHERE fact_id IN ({m})", [*chunk, *chunk]))
        for chunk in iter_chunks(list(entity_ids), 400):
            m = _marks(chunk)
            texts.update(r[0] for r in self.c.execute(
                f"SELECT name FROM entities WHERE id IN ({m}) UNION SELECT alias FROM aliases "
                f"WHERE entity_id IN ({m}) AND substr(alias, 1, 2) <> char(126, 31)",
                [*chunk, *chunk]))
        episodes: list[tuple[str, str | None]] = []
        for chunk in iter_chunks(list(episode_ids), 400):
            episodes += [(r[0], r[1]) for r in self.c.execute(
                f"SELECT content, speaker FROM episodes WHERE id IN ({_marks(chunk)}) "
                "AND group_id=?", [*chunk, group])]
        return ErasedContent(texts=sorted(texts), episodes=episodes)

    def group_content(self, group: str) -> ErasedContent:
        texts = {r[0] for r in self.c.execute(
            "SELECT fact_text FROM versions WHERE group_id=? UNION "
            "SELECT fact_text FROM lineages WHERE group_id=? UNION "
            "SELECT name FROM entities WHERE group_id=? UNION "
            "SELECT alias FROM aliases WHERE group_id=? AND substr(alias, 1, 2) <> char(126, 31)",
            (group, group, group, group))}
        episodes = [(r[0], r[1]) for r in self.c.execute(
            "SELECT content, speaker FROM episodes WHERE group_id=?", (group,))]
        return ErasedContent(texts=sorted(texts), episodes=episodes)

    def erase_changes(self, group: str, fact_ids: Sequence[str], entity_ids: Collection[str]
                      ) -> int:
        """Changes about erased facts only go (their reasons are the caller's words about
        them): what a change is about is the lineages of its effects (``fact_ids`` also names
        the lineages its recomputation touched, e.g. the earlier fact an assert ended), or its
        ``fact_ids`` when it has no effects. The others forget the erased ids. Versions of surviving facts that such a change
        recomputed (they touch ``entity_ids``, the erased facts' parties) keep no copy of its
        reason. A surviving change's ``undoes``/``undone_by`` keeps the id of an erased one: that
        undo did happen. Returns how many changes were deleted."""
        gone = set(fact_ids)
        touched: set[str] = set()
        for chunk in iter_chunks(list(fact_ids), 400):
            m = _marks(chunk)
            touched.update(r[0] for r in self.c.execute(
                f"SELECT change_id FROM change_effects WHERE fact_id IN ({m}) UNION "
                f"SELECT change_id FROM versions WHERE fact_id IN ({m})", [*chunk, *chunk]))
        deleted: list[str] = []
        for chunk in iter_chunks(sorted(touched), 400):
            m = _marks(chunk)
            about: dict[str, set[str]] = {}
            for cid, fid in self.c.execute(
                    f"SELECT change_id, fact_id FROM change_effects WHERE change_id IN ({m})",
                    chunk):
                about.setdefault(cid, set()).add(fid)
            for cid, kind, raw in self.c.execute(
                f"SELECT id, kind, fact_ids FROM changes WHERE id IN ({m}) "
                "AND group_id=?", [*chunk, group]).fetchall():
                ids = json.loads(raw)
                left = [f for f in ids if f not in gone]
                if kind != "erase" and about.get(cid, set(ids)) <= gone:
                    deleted.append(cid)
                elif len(left) != len(ids):
                    self.c.execute("UPDATE changes SET fact_ids=? WHERE id=?",
                                   (json.dumps(left), cid))
        for chunk in iter_chunks(deleted, 400):
            m = _marks(chunk)
            self.c.execute(f"DELETE FROM changes WHERE id IN ({m})", chunk)
            self.c.execute(f"DELETE FROM change_effects WHERE change_id IN ({m})", chunk)
        ents = sorted(entity_ids)
        for chunk in iter_chunks(deleted, 200):
            for part in iter_chunks(ents, 300):
                e = _marks(part)
                self.c.execute(
                    f"UPDATE versions SET reason='{ERASED_CHANGE}' WHERE (subject_id IN ({e}) "
                    f"OR object_id IN ({e})) AND change_id IN ({_marks(chunk)})",
                    [*part, *part, *chunk])
        return len(deleted)

    def delete_lineages(self, fact_ids: Sequence[str]) -> int:
        n = 0
        for chunk in iter_chunks(list(fact_ids), 400):
            marks = _marks(chunk)
            n += self.c.execute(f"DELETE FROM versions WHERE fact_id IN ({marks})", chunk).rowcount
            self.c.execute(f"DELETE FROM lineages WHERE fact_id IN ({marks})", chunk)
            self.c.execute(f"DELETE FROM provenance WHERE fact_id IN ({marks})", chunk)
            # the change log keeps ids only; the lineage content it held is removed too
            self.c.execute(f"DELETE FROM change_effects WHERE fact_id IN ({marks})", chunk)
        return n

    def delete_episode(self, group: str, episode_id: str) -> int:
        n = self.c.execute(
            "DELETE FROM episodes WHERE id=? AND group_id=?", (episode_id, group)
        ).rowcount
        self.c.execute("DELETE FROM episodes_fts WHERE episode_id=?", (episode_id,))
        self.c.execute("DELETE FROM provenance WHERE episode_id=?", (episode_id,))
        self.c.execute("DELETE FROM mentions WHERE episode_id=?", (episode_id,))
        return n

    def delete_entity(self, group: str, entity_id: str) -> int:
        n = self.c.execute(
            "DELETE FROM entities WHERE id=? AND group_id=?", (entity_id, group)
        ).rowcount
        self.c.execute("DELETE FROM aliases WHERE entity_id=?", (entity_id,))
        self.c.execute("DELETE FROM mentions WHERE entity_id=?", (entity_id,))
        self.drop_summary_histories(group, [entity_id])
        return n

    def delete_alias_keys(self, group: str, norm_aliases: Sequence[str]) -> None:
        for chunk in iter_chunks(list(norm_aliases), 400):
            self.c.execute(
                f"DELETE FROM aliases WHERE group_id=? AND norm_alias IN ({_marks(chunk)})",
                [group, *chunk])

    def clear_summaries(self, group: str, entity_ids: Sequence[str]) -> None:
        for chunk in iter_chunks(list(entity_ids), 400):
            self.c.execute(
                f"UPDATE entities SET summary='' WHERE id IN ({_marks(chunk)}) AND group_id=? "
                "AND summary <> ''", [*chunk, group])
        self.drop_summary_histories(group, entity_ids)  # rebuilt from what is left

    def delete_group(self, group: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for table in ("versions", "lineages", "entities", "episodes", "changes"):
            counts[table] = self.c.execute(
                f"DELETE FROM {table} WHERE group_id=?", (group,)
            ).rowcount
        self.c.execute("DELETE FROM aliases WHERE group_id=?", (group,))
        self.c.execute("DELETE FROM predicates WHERE group_id=?", (group,))
        self.drop_group_summaries(group)
        self.c.execute("DELETE FROM episodes_fts WHERE group_id=?", (group,))
        self.c.execute("DELETE FROM provenance WHERE fact_id NOT IN (SELECT fact_id FROM lineages)")
        self.c.execute("DELETE FROM mentions WHERE episode_id NOT IN (SELECT id FROM episodes)")
        self.c.execute("DELETE FROM change_effects WHERE change_id NOT IN (SELECT id FROM changes)")
        return counts

    def scrub_caused_by(self, fact_ids: Sequence[str]) -> None:
        for chunk in iter_chunks(list(fact_ids), 400):
            self.c.execute(
                f"UPDATE versions SET caused_by=NULL, reason='closed by a fact that was erased' "
                f"WHERE caused_by IN ({_marks(chunk)})",
                chunk,
            )

    def purge_erased(self) -> None:
        """Rewrite the FTS5 indexes: a deleted row's tokens stay in the segments written
        before the delete until those are merged (SQLite 3.42's 'secure-delete' option would
        do it per row; 'optimize' works on every version). Cost grows with the index, not
        with what was erased: ~0.1 s for 100k facts (benchmarks/erase_latency.py)."""
        have = {r[0] for r in self.c.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name IN (?, ?, ?)",
            FTS_TABLES)}
        for table in FTS_TABLES:
            if table in have:  # a constant name, never input
                self.c.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
