"""The embedded store's facts statement (``EmbeddedStore.facts`` and ``facts_at_stamp``):
one subject / predicate / object filter at a (valid_at, known_at), symmetric predicates seen
from either side, optionally checked against the vocabulary stamp in the same statement."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any

from ..base import TimeFilter
from ..visibility import version_sql
from .rows import VERSION_COLS, VERSION_FROM


def read_vocabulary_stamp(conn: sqlite3.Connection) -> str | None:
    """The stamp that moves whenever a predicate declaration changes (kgmem.memory.named_reads)."""
    row = conn.execute("SELECT value FROM meta WHERE key='vocabulary'").fetchone()
    return row[0] if row else None


def facts_sql(group: str, when: TimeFilter, subject_id: str | None, predicate: str | None,
              object_id: str | None, limit: int | None, mirror: Collection[str],
              stamp_check: bool = False, stamp: str | None = None) -> tuple[str, list[Any]]:
    """The statement of ``EmbeddedStore.facts`` and its parameters; with ``stamp_check`` it
    returns rows only while the vocabulary stamp is ``stamp`` (a constant subquery: SQLite
    evaluates it once, before the scan)."""
    vis, params = version_sql(when)
    # "+v.group_id" keeps SQLite from picking the (group_id, created_at) index over the
    # far more selective subject/object/fact indexes.
    where = ["+v.group_id = ?" if (subject_id or object_id) else "v.group_id = ?", vis]
    params = [group, *params]
    if stamp_check:
        where.insert(0, "(SELECT value FROM meta WHERE key='vocabulary') IS ?")
        params.insert(0, stamp)
    if predicate is not None:
        where.append("v.predicate = ?")
        params.append(predicate)
    roles, role_params = _roles_sql(subject_id, object_id)
    if roles:
        if mirror:
            swapped, swapped_params = _roles_sql(object_id, subject_id)
            marks = ", ".join("?" for _ in mirror)
            roles = f"(({roles}) OR ({swapped} AND v.predicate IN ({marks})))"
            role_params += swapped_params + list(mirror)
        where.append(roles)
        params += role_params
    sql = (
        f"SELECT {VERSION_COLS} FROM {VERSION_FROM} WHERE {' AND '.join(where)} "
        "ORDER BY v.subject_id, v.predicate, v.valid_at, v.created_at, v.id"
    )
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return sql, params
def _roles_sql(subject_id: str | None, object_id: str | None) -> tuple[str, list[Any]]:
    """The subject/object part of a facts() filter ("" when neither is given)."""
    conds, params = [], []
    if subject_id is not None:
        conds.append("v.subject_id = ?")
        params.append(subject_id)
    if object_id is not None:
        conds.append("v.object_id = ?")
        params.append(object_id)
    return " AND ".join(conds), params
