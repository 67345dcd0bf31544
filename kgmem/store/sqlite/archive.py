"""The embedded store's reads for :mod:`kgmem.archive` (:class:`~kgmem.store.base.
ArchiveReads`), each in one read transaction."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...timeutil import from_micros, opt_from_micros
from ..base import ChangeEffect, Declaration, LineageState
from .conns import SqliteConnections

_LINEAGE_COLS = ("fact_id, group_id, subject_id, predicate, object_id, valid_at, "
                 "valid_precision, stated_invalid_at, invalid_precision, believed, seq, fact_text")
_DECL_COLS = ("id, group_id, name, cardinality, symmetric, description, source, created_at, "
              "change_id, expired_at, expired_by")


class EmbeddedArchiveReads:
    def __init__(self, db: SqliteConnections) -> None:
        self.db = db

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self.db.read() as c:
            return c.execute(sql, params).fetchall()

    def entity_keys(self, group: str) -> dict[str, str]:
        return dict(self._rows("SELECT id, norm_name FROM entities WHERE group_id=?", (group,)))

    def episode_hashes(self, group: str) -> dict[str, str]:
        return dict(self._rows("SELECT id, content_hash FROM episodes WHERE group_id=?",
                               (group,)))

    def alias_rows(self, group: str) -> list[tuple[str, str, str]]:
        return [(r[0], r[1], r[2]) for r in self._rows(
            "SELECT entity_id, alias, norm_alias FROM aliases WHERE group_id=? "
            "ORDER BY entity_id, norm_alias, alias", (group,))]

    def mention_rows(self, group: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self._rows(
            "SELECT m.episode_id, m.entity_id FROM mentions m JOIN episodes e "
            "ON e.id = m.episode_id WHERE e.group_id=? ORDER BY 1, 2", (group,))]

    def provenance_rows(self, group: str) -> list[tuple[str, str, datetime]]:
        return [(r[0], r[1], from_micros(r[2])) for r in self._rows(
            "SELECT p.fact_id, p.episode_id, p.recorded_at FROM provenance p JOIN lineages l "
            "ON l.fact_id = p.fact_id WHERE l.group_id=? ORDER BY 1, 2", (group,))]

    def lineages(self, group: str) -> list[LineageState]:
        return [LineageState.from_row(r, opt_from_micros) for r in self._rows(
            f"SELECT {_LINEAGE_COLS} FROM lineages WHERE group_id=? ORDER BY seq", (group,))]

    def effects(self, group: str) -> dict[str, list[ChangeEffect]]:
        out: dict[str, list[ChangeEffect]] = defaultdict(list)
        for cid, fid, before, after in self._rows(
                "SELECT e.change_id, e.fact_id, e.before, e.after FROM change_effects e "
                "JOIN changes c ON c.id = e.change_id WHERE c.group_id=? ORDER BY e.rowid",
                (group,)):
            out[cid].append(ChangeEffect.from_stored(fid, before, after))
        return dict(out)

    def declaration_versions(self, group: str) -> list[Declaration]:
        return [Declaration.from_row(r, opt_from_micros) for r in self._rows(
            f"SELECT {_DECL_COLS} FROM predicates WHERE group_id=? ORDER BY created_at, rowid",
            (group,))]
