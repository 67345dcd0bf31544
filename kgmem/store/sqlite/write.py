"""Embedded store: the write transaction (:class:`EmbeddedWriteTx`, the :class:`kgmem.store.base.WriteTx`
of :meth:`kgmem.store.sqlite.store.EmbeddedStore.write`), every write inside one open SQLite
transaction that the store commits with ``synchronous=FULL``."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...model import Change, Entity, Episode, Erasure, ExtractionState, FactVersion
from ...timeutil import opt_from_micros, opt_micros, to_micros
from ..base import (
    ChangeEffect,
    Declaration,
    LineageState,
    episode_keyword_text,
    extraction_json,
    iter_chunks,
    trust_json,
)
from .erase import EraseOps
from .facts_sql import read_vocabulary_stamp
from .rows import (
    CHANGE_SELECT,
    DECL_SELECT,
    EPISODE_FULL,
    ORPHAN_SELECT,
    VERSION_COLS,
    VERSION_FROM,
    change_row,
    declarations_of,
    episode_row,
    find_entities,
    get_entity,
    orphans_of,
    read_last_tx_time,
    version_row,
)
from .summaries import SummaryWrites


class EmbeddedWriteTx(SummaryWrites, EraseOps):
    """Write operations inside one open SQLite transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn

    def _one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return self.c.execute(sql, params).fetchone()

    def last_tx_time(self, group: str) -> datetime | None:
        return read_last_tx_time(self.c, group)

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
            rows = self.c.execute(ORPHAN_SELECT + f"WHERE l.fact_id IN ({marks})",
                                  chunk).fetchall()
            out.update((o.fact_id, o.missing) for o in orphans_of(rows))
        return out

    def add_provenance(self, fact_id: str, episode_id: str, recorded_at: datetime) -> None:
        self.c.execute(  # a link already there keeps the time it was first recorded
            "INSERT OR IGNORE INTO provenance(fact_id, episode_id, recorded_at) VALUES(?,?,?)",
            (fact_id, episode_id, to_micros(recorded_at)),
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
        return declarations_of(self.c.execute(
            DECL_SELECT + " WHERE group_id=? AND expired_at IS NULL ORDER BY name", (group,)
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
        made = self.c.execute(DECL_SELECT + " WHERE change_id=? AND group_id=? ORDER BY name",
                              (change_id, group)).fetchall()
        ended = self.c.execute(DECL_SELECT + " WHERE expired_by=? AND group_id=? ORDER BY name",
                               (change_id, group)).fetchall()
        return declarations_of(made), declarations_of(ended)

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
        return [ChangeEffect.from_stored(r[0], r[1], r[2]) for r in rows]

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

