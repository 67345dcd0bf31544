"""Rows of the embedded store's tables as kgmem's model: the SELECT lists and the row
decoders that the store (store.py), its write transaction (write.py) and its search reads
(search.py) share: versions, episodes, changes, entities, the transaction clocks, predicate
declarations and orphaned lineages."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from ...model import Change, Entity, Episode, FactVersion
from ...timeutil import Precision, from_micros, opt_from_micros
from ..base import Declaration, OrphanedLineage, extraction_from_json, trust_from_json

VERSION_COLS = (
    "v.id, v.fact_id, v.group_id, v.subject_id, s.name, v.predicate, v.object_id, o.name, "
    "v.fact_text, v.valid_at, v.valid_precision, v.invalid_at, v.invalid_precision, "
    "v.stated_invalid_at, v.created_at, v.expired_at, v.change_id, v.reason, v.caused_by"
)
VERSION_FROM = (
    "versions v JOIN entities s ON s.id = v.subject_id JOIN entities o ON o.id = v.object_id"
)

EPISODE_SELECT = (
    "SELECT id, group_id, content, source, source_description, speaker, reference_time, "
    "created_at, trust FROM episodes"
)
# ... with the extraction state (the reads of Memory; search reads need only the text)
EPISODE_FULL = EPISODE_SELECT.replace(" FROM episodes", ", extraction FROM episodes")
CHANGE_SELECT = (
    "SELECT id, group_id, kind, created_at, reason, undoes, undone_by, fact_ids FROM changes"
)


def episode_row(r: tuple[Any, ...]) -> Episode:
    return Episode(
        id=r[0],
        group=r[1],
        content=r[2],
        source=r[3],
        source_description=r[4],
        speaker=r[5],
        reference_time=from_micros(r[6]),
        created_at=from_micros(r[7]),
        **trust_from_json(r[8]),
        extraction=extraction_from_json(r[9]) if len(r) > 9 else None,
    )


def change_row(r: tuple[Any, ...]) -> Change:
    return Change(
        id=r[0],
        group=r[1],
        kind=r[2],
        created_at=from_micros(r[3]),
        reason=r[4],
        undoes=r[5],
        undone_by=r[6],
        fact_ids=json.loads(r[7]),
    )


def version_row(r: tuple[Any, ...], episodes: list[str]) -> FactVersion:
    return FactVersion(
        id=r[0],
        fact_id=r[1],
        group=r[2],
        subject_id=r[3],
        subject=r[4],
        predicate=r[5],
        object_id=r[6],
        object=r[7],
        fact=r[8],
        valid_at=opt_from_micros(r[9]),
        valid_precision=Precision(r[10]),
        invalid_at=opt_from_micros(r[11]),
        invalid_precision=Precision(r[12]),
        stated_invalid_at=opt_from_micros(r[13]),
        created_at=from_micros(r[14]),
        expired_at=opt_from_micros(r[15]),
        change_id=r[16],
        reason=r[17],
        caused_by=r[18],
        episodes=episodes,
    )


def entity_row(conn: sqlite3.Connection, r: tuple[Any, ...]) -> Entity:
    aliases = [
        a
        for (a,) in conn.execute(
            "SELECT alias FROM aliases WHERE entity_id=? ORDER BY alias", (r[0],)
        ).fetchall()
    ]
    return Entity(
        id=r[0], group=r[1], name=r[2], summary=r[3], aliases=aliases, created_at=from_micros(r[4]),
        type=r[5],
    )


def get_entity(conn: sqlite3.Connection, group: str, entity_id: str) -> Entity | None:
    row = conn.execute(
        "SELECT id, group_id, name, summary, created_at, entity_type FROM entities "
        "WHERE id=? AND group_id=?",
        (entity_id, group),
    ).fetchone()
    return entity_row(conn, row) if row else None


def find_entities(conn: sqlite3.Connection, group: str, norm_name: str) -> list[Entity]:
    rows = conn.execute(
        "SELECT id, group_id, name, summary, created_at, entity_type FROM entities "
        "WHERE group_id=? AND norm_name=? UNION "
        "SELECT e.id, e.group_id, e.name, e.summary, e.created_at, e.entity_type FROM aliases a "
        "JOIN entities e ON e.id = a.entity_id WHERE a.group_id=? AND a.norm_alias=? "
        "ORDER BY 5, 1",
        (group, norm_name, group, norm_name),
    ).fetchall()
    return [entity_row(conn, r) for r in rows]


# Transaction clocks, one per group (kgmem.store.base). Stores written before per-group clocks
# kept one clock for the directory in meta('last_tx_time'); it remains the floor of every group
# that has no clock of its own yet, so no group can be written before data it may already hold.
LAST_TX_SQL = (
    "SELECT coalesce((SELECT last_tx_time FROM clocks WHERE group_id = ?), "
    "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_tx_time'))"
)


def read_last_tx_time(conn: sqlite3.Connection, group: str) -> datetime | None:
    row = conn.execute(LAST_TX_SQL, (group,)).fetchone()
    return opt_from_micros(row[0]) if row else None


# Predicate declarations (kgmem.store.base.Declaration); meta('vocabulary') is renewed with
# every write of one, so that readers can cache a group's declarations.
DECL_SELECT = (
    "SELECT id, group_id, name, cardinality, symmetric, description, source, created_at, "
    "change_id, expired_at, expired_by FROM predicates"
)


def declarations_of(rows: Iterable[Sequence[object]]) -> list[Declaration]:
    return [Declaration.from_row(r, opt_from_micros) for r in rows]


# Lineages left without versions or entities. kgmem itself never leaves one (erase removes a
# lineage with its versions); only something editing the database behind it can.
ORPHAN_SELECT = (
    "SELECT l.fact_id, l.group_id, l.predicate, l.fact_text, "
    "NOT EXISTS (SELECT 1 FROM versions v WHERE v.fact_id = l.fact_id), "
    "NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = l.subject_id), "
    "NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = l.object_id) FROM lineages l "
)


def orphans_of(rows: Sequence[tuple[Any, ...]]) -> list[OrphanedLineage]:
    out = []
    for r in rows:
        missing = tuple(what for what, gone in zip(("versions", "subject", "object"), r[4:7])
                        if gone)
        if missing:
            out.append(OrphanedLineage(r[0], r[1], r[2], r[3], missing))
    return out
