"""The reads :mod:`kgmem.jobs.check` needs, on the embedded store (SQL over its tables).

Every read of one :class:`EmbeddedIntegrityReads` runs in one read transaction, so the checks
see one snapshot however many writers run meanwhile; the FTS5 ``integrity-check`` commands
(which SQLite runs as writes) take the write lock briefly at the end.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from ..base import FactInterval, iter_chunks
from .conns import SqliteConnections

SAMPLE = 1000  # rows listed per read (counts are exact up to it)


def _group(alias: str, group: str | None) -> tuple[str, list[Any]]:
    return ("", []) if group is None else (f" AND {alias}.group_id = ?", [group])


class _CheckedStore(Protocol):
    """What the checks use of the embedded store (typed here, so that this module does not
    import the store that imports it)."""

    def write(self) -> AbstractContextManager[Any]: ...


class EmbeddedIntegrityReads:
    def __init__(self, store: _CheckedStore, db: SqliteConnections) -> None:
        self.store = store
        self.db = db  # the store's connections: every check reads in one transaction

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        with self.db.read() as c:
            c.execute("BEGIN")
            try:
                yield c
            finally:
                c.execute("COMMIT")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._snapshot() as c:
            return c.execute(sql, params).fetchall()

    def _has_table(self, c: sqlite3.Connection, name: str) -> bool:
        return c.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() \
            is not None

    def lineages_with_several_current_versions(self, group: str | None
                                               ) -> list[tuple[str, str, int]]:
        g, p = _group("v", group)
        return [(r[0], r[1], int(r[2])) for r in self._rows(
            "SELECT v.group_id, v.fact_id, count(*) FROM versions v WHERE v.expired_at IS NULL"
            f"{g} GROUP BY v.group_id, v.fact_id HAVING count(*) > 1 LIMIT {SAMPLE}", p)]

    def current_intervals(self, group: str | None, predicates: Sequence[str]
                          ) -> list[FactInterval]:
        out: list[FactInterval] = []
        g, p = _group("v", group)
        for chunk in iter_chunks(list(predicates), 200):
            marks = ",".join("?" * len(chunk))
            out += [tuple(r) for r in self._rows(  # type: ignore[misc]
                "SELECT v.group_id, v.fact_id, v.subject_id, v.object_id, v.predicate, "
                f"v.valid_at, v.invalid_at FROM versions v WHERE v.expired_at IS NULL{g} "
                f"AND v.predicate IN ({marks})", [*p, *chunk])]
        return out

    def versions_without_lineage(self, group: str | None) -> list[tuple[str, str, str]]:
        g, p = _group("v", group)
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT v.group_id, v.id, v.fact_id FROM versions v WHERE NOT EXISTS (SELECT 1 "
            f"FROM lineages l WHERE l.fact_id = v.fact_id){g} LIMIT {SAMPLE}", p)]

    def lineages_without_versions(self, group: str | None) -> list[tuple[str, str]]:
        g, p = _group("l", group)
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT l.group_id, l.fact_id FROM lineages l WHERE NOT EXISTS (SELECT 1 FROM "
            f"versions v WHERE v.fact_id = l.fact_id){g} LIMIT {SAMPLE}", p)]

    def missing_entity_refs(self, group: str | None) -> list[tuple[str, str, str, str]]:
        out: list[tuple[str, str, str, str]] = []
        for table, kind, key in (("lineages", "fact", "fact_id"), ("versions", "version", "id")):
            for col in ("subject_id", "object_id"):
                g, p = _group("x", group)
                out += [(r[0], kind, r[1], r[2]) for r in self._rows(
                    f"SELECT x.group_id, x.{key}, x.{col} FROM {table} x WHERE NOT EXISTS "  # noqa: S608 - constants
                    f"(SELECT 1 FROM entities e WHERE e.id = x.{col}){g} LIMIT {SAMPLE}", p)]
        return out

    def provenance_to_missing_episodes(self, group: str | None
                                       ) -> list[tuple[str, str, str]]:
        g, p = _group("l", group)
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT coalesce(l.group_id, '?'), pr.fact_id, pr.episode_id FROM provenance pr "
            "LEFT JOIN lineages l ON l.fact_id = pr.fact_id WHERE NOT EXISTS (SELECT 1 FROM "
            f"episodes e WHERE e.id = pr.episode_id){g} LIMIT {SAMPLE}", p)]

    def mentions_to_missing(self, group: str | None) -> list[tuple[str, str, str]]:
        g, p = ("", []) if group is None else (" AND coalesce(e.group_id, n.group_id) = ?",
                                                [group])
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT coalesce(e.group_id, n.group_id, '?'), m.episode_id, m.entity_id FROM "
            "mentions m LEFT JOIN episodes e ON e.id = m.episode_id LEFT JOIN entities n ON "
            f"n.id = m.entity_id WHERE (e.id IS NULL OR n.id IS NULL){g} LIMIT {SAMPLE}", p)]

    def keyword_index_problems(self, group: str | None) -> list[str]:
        problems: list[str] = []
        g, p = _group("e", group)
        with self._snapshot() as c:
            rows = c.execute(f"SELECT e.id FROM episodes e WHERE 1=1{g}", p).fetchall()
            episodes = {r[0] for r in rows}
            fg, fp = ("", []) if group is None else (" WHERE group_id = ?", [group])
            indexed: dict[str, int] = {}
            for eid, n in c.execute(
                    f"SELECT episode_id, count(*) FROM episodes_fts{fg} GROUP BY episode_id", fp):
                indexed[eid] = n
            search = self._has_table(c, "search_fact_texts")
            if search:
                problems += self._search_text_problems(c, group)
        problems += [f"episode {e} is not in the keyword index (episodes_fts)"
                     for e in sorted(episodes - set(indexed))]
        problems += [f"episodes_fts holds {n} rows for episode {e}"
                     for e, n in sorted(indexed.items()) if n > 1 and e in episodes]
        problems += [f"episodes_fts holds erased or unknown episode {e}"
                     for e in sorted(set(indexed) - episodes)]
        problems += self._fts_integrity(search)
        return problems

    @staticmethod
    def _search_text_problems(c: sqlite3.Connection, group: str | None) -> list[str]:
        g, p = _group("v", group)
        out = [f"fact text of version {r[0]} (fact {r[1]}) is not in search_fact_texts"
               for r in c.execute(
                   "SELECT v.id, v.fact_id FROM versions v WHERE NOT EXISTS (SELECT 1 FROM "
                   "search_fact_texts t WHERE t.fact_id = v.fact_id AND t.text = v.fact_text)"
                   f"{g} LIMIT {SAMPLE}", p)]
        g, p = _group("t", group)
        out += [f"search_fact_texts row {r[0]} belongs to no version of fact {r[1]}"
                for r in c.execute(
                    "SELECT t.id, t.fact_id FROM search_fact_texts t WHERE NOT EXISTS (SELECT 1 "
                    "FROM versions v WHERE v.fact_id = t.fact_id AND v.fact_text = t.text)"
                    f"{g} LIMIT {SAMPLE}", p)]
        g, p = _group("n", group)
        out += [f"search_entity_names row {r[0]} names missing entity {r[1]}"
                for r in c.execute(
                    "SELECT n.id, n.entity_id FROM search_entity_names n WHERE NOT EXISTS "
                    f"(SELECT 1 FROM entities e WHERE e.id = n.entity_id){g} LIMIT {SAMPLE}", p)]
        return out

    def _fts_integrity(self, search: bool) -> list[str]:
        """FTS5's own checks (an external-content index against its table, with rank=1)."""
        tables = [("episodes_fts", "")]
        if search:
            tables += [("facts_fts", ", rank"), ("entities_fts", ", rank")]
        out = []
        with self.store.write() as w:
            for name, rank in tables:
                try:  # table names are the constants above
                    w.c.execute(f"INSERT INTO {name}({name}{rank}) VALUES('integrity-check'"
                                f"{', 1' if rank else ''})")
                except sqlite3.DatabaseError as exc:
                    out.append(f"{name} fails FTS5's integrity-check: {exc}")
        return out

    def vector_index_problems(self, group: str | None) -> list[str]:
        with self._snapshot() as c:
            if not self._has_table(c, "search_vectors"):
                return []
            g, p = _group("x", group)
            rows = c.execute(
                "SELECT x.kind, x.item, x.label FROM search_vectors x WHERE NOT CASE x.kind "
                "WHEN 'episode' THEN EXISTS (SELECT 1 FROM episodes e WHERE e.id = x.item) "
                "WHEN 'fact' THEN EXISTS (SELECT 1 FROM search_fact_texts t "
                "WHERE t.id = CAST(x.item AS INTEGER)) "
                "WHEN 'entity' THEN EXISTS (SELECT 1 FROM search_entity_names n "
                "WHERE n.id = CAST(x.item AS INTEGER)) ELSE 0 END"
                f"{g} LIMIT {SAMPLE}", p).fetchall()
            out = [f"vector {lab} ({kind} {item}) belongs to nothing that exists"
                   for kind, item, lab in rows]
            dims = c.execute(f"SELECT x.kind, length(x.vec), count(*) FROM search_vectors x "
                             f"WHERE 1=1{g} GROUP BY 1, 2", p).fetchall()
            by_kind: dict[str, list[tuple[int, int]]] = {}
            for kind, size, n in dims:
                by_kind.setdefault(kind, []).append((size, n))
            out += [f"{kind} vectors have {len(sizes)} different sizes: "
                    + ", ".join(f"{n} of {size // 4} dims" for size, n in sorted(sizes))
                    for kind, sizes in sorted(by_kind.items()) if len(sizes) > 1]
            out += [f"time mention of erased or unknown episode {r[0]}" for r in c.execute(
                "SELECT x.episode_id FROM search_episode_times x WHERE NOT EXISTS (SELECT 1 "
                f"FROM episodes e WHERE e.id = x.episode_id){g} LIMIT {SAMPLE}", p)]
        return out

    def extraction_rows(self, group: str | None
                        ) -> list[tuple[str, str, str | None, str | None]]:
        g, p = _group("e", group)
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            f"SELECT e.group_id, e.id, e.extraction_status, e.extraction FROM episodes e "
            f"WHERE 1=1{g}", p)]
