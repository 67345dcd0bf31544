"""The time predicates of :mod:`kgmem.timeline` in the stores' query languages, side by side.

Each predicate has its rule in ``timeline`` (pure Python, the definition) and here its SQL
form (the embedded store: instants are epoch microseconds, integers) and its Cypher form (the
Neo4j store: ``DateTime`` values). Nothing else in kgmem compares times;
tests/property/test_visibility_seam.py checks that the three forms agree on random intervals
and probes (open ends, equal bounds, naive Neo4j times).

=====================================  ==============================  ====================
timeline                               SQL                             Cypher
=====================================  ==============================  ====================
``is_visible_under`` (version, point   :func:`version_sql`             :func:`version_cypher`
or range on each axis)
``recorded_by`` (entity, episode)      :func:`recorded_sql`            :func:`recorded_cypher`
``in_interval`` of K (declarations)    :func:`known_sql`               :func:`known_cypher`
``source_known`` (provenance links)    :func:`source_sql`              :func:`source_cypher`
``episode_visible``                    :func:`episode_sql`             :func:`episode_cypher`
``changed_after`` (versions, changes)  :func:`changed_sql`             :func:`created_after_cypher`,
                                                                       :data:`EXPIRED_AFTER_CYPHER`
``precedes_in_sitting``                :func:`sitting_sql`             :func:`sitting_cypher`
``mentions_window``                    :data:`MENTIONS_WINDOW_SQL`     :data:`MENTIONS_WINDOW_CYPHER`
=====================================  ==============================  ====================

Cypher: graphiti-core writes naive times (``LocalDateTime``), which Neo4j never orders against
a ``DateTime`` (the comparison is null). Where such a value can occur, a condition also
compares with the naive twin ``$p_l`` of its parameter (:func:`with_naive_twins`, applied by
the store to every read): ``(x <= $p OR x <= $p_l)`` matches whichever type ``x`` has, naive
values being UTC. kgmem's own bookkeeping times (an episode's or entity's ``created_at``, a
version's ``expired_at``) are always written aware and compare with ``$p`` alone. graphiti's
edges (``fact_id IS NULL``) ignore ``expired_at``: graphiti records there when it learnt an end,
not a retraction (see kgmem.store.neo4j).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from ..timeutil import UTC, to_micros

if TYPE_CHECKING:
    from .base import TimeFilter

#: A value bound to a ``?`` of SQLite (times as UTC micros).
SqlValue = str | int | float | bytes | None
SqlParams = list[SqlValue]
#: The ``$name`` parameters of a Cypher query (the driver binds any of its value types).
CypherParams = dict[str, object]

# ------------------------------------------------------------------ versions (is_visible_under)
# SQL: alias ``v`` of the versions table.
_SQL_KNOWN_POINT = "v.created_at <= ? AND (v.expired_at IS NULL OR v.expired_at > ?)"
_SQL_KNOWN_RANGE = "v.created_at < ? AND (v.expired_at IS NULL OR v.expired_at > ?)"
_SQL_VALID_POINT = (
    " AND (v.valid_at IS NULL OR v.valid_at <= ?) AND (v.invalid_at IS NULL OR v.invalid_at > ?)"
)
_SQL_VALID_RANGE = (
    " AND (v.valid_at IS NULL OR v.valid_at < ?) AND (v.invalid_at IS NULL OR v.invalid_at > ?)"
)

# Cypher: alias ``r`` of a RELATES_TO relationship. Module attributes, read at each call
# (benchmarks/neo4j_naive_times_ab.py swaps them for the forms of an older commit).
CYPHER_KNOWN_POINT = ("(r.created_at <= $k OR r.created_at <= $k_l) AND (r.expired_at IS NULL "
                      "OR r.expired_at > $k OR r.expired_at > $k_l OR r.fact_id IS NULL)")
CYPHER_KNOWN_RANGE = ("(r.created_at < $kt OR r.created_at < $kt_l) AND (r.expired_at IS NULL "
                      "OR r.expired_at > $k OR r.expired_at > $k_l OR r.fact_id IS NULL)")
CYPHER_VALID_POINT = (
    " AND (r.valid_at IS NULL OR r.valid_at <= $v OR r.valid_at <= $v_l) "
    "AND (r.invalid_at IS NULL OR r.invalid_at > $v OR r.invalid_at > $v_l)"
)
CYPHER_VALID_RANGE = (
    " AND (r.valid_at IS NULL OR r.valid_at < $vt OR r.valid_at < $vt_l) "
    "AND (r.invalid_at IS NULL OR r.invalid_at > $v OR r.invalid_at > $v_l)"
)


def version_sql(when: TimeFilter) -> tuple[str, SqlParams]:
    """:func:`kgmem.timeline.is_visible_under` over the versions table ``v``: the condition
    and its parameters."""
    k0 = to_micros(when.known_at)
    if when.known_to is None:
        sql = _SQL_KNOWN_POINT
        params: SqlParams = [k0, k0]
    else:
        sql = _SQL_KNOWN_RANGE
        params = [to_micros(when.known_to), k0]
    if when.any_valid:
        return sql, params
    v0 = to_micros(when.valid_at)
    if when.valid_to is None:
        sql += _SQL_VALID_POINT
        params += [v0, v0]
    else:
        sql += _SQL_VALID_RANGE
        params += [to_micros(when.valid_to), v0]
    return sql, params


def version_cypher(when: TimeFilter) -> tuple[str, CypherParams]:
    """:func:`kgmem.timeline.is_visible_under` over the relationship ``r``: the condition
    (the same for every filter of the same shape, so queries built from it can be cached) and
    its parameters ``$k``, ``$kt``, ``$v``, ``$vt``."""
    params: CypherParams = {"k": when.known_at}
    if when.known_to is None:
        cond = CYPHER_KNOWN_POINT
    else:
        cond = CYPHER_KNOWN_RANGE
        params["kt"] = when.known_to
    if when.any_valid:
        return cond, params
    params["v"] = when.valid_at
    if when.valid_to is None:
        cond += CYPHER_VALID_POINT
    else:
        cond += CYPHER_VALID_RANGE
        params["vt"] = when.valid_to
    return cond, params


def with_naive_twins(params: CypherParams) -> CypherParams:
    """``params`` plus, for every aware datetime ``p`` (and every None), ``p_l``: the same UTC
    instant as a naive (LocalDateTime) value, for the ``(x <= $p OR x <= $p_l)`` conditions."""
    extra = {f"{k}_l": None if v is None else v.astimezone(UTC).replace(tzinfo=None)
             for k, v in params.items()
             if v is None or (isinstance(v, datetime) and v.tzinfo is not None)}
    return {**params, **extra} if extra else params


# ------------------------------------------------------------------ records (recorded_by)
def recorded_sql(alias: str, known_at: datetime) -> tuple[str, SqlParams]:
    """:func:`kgmem.timeline.recorded_by`: `` AND`` and the condition on ``alias.created_at``."""
    return f" AND {alias}.created_at <= ?", [to_micros(known_at)]


def recorded_cypher(alias: str, param: str = "k") -> str:
    """:func:`kgmem.timeline.recorded_by` on ``alias.created_at`` (always aware) and ``$param``."""
    return f"{alias}.created_at <= ${param}"


def source_sql(alias: str, when: TimeFilter | None) -> tuple[str, SqlParams]:
    """:func:`kgmem.timeline.source_known` on the provenance row ``alias``: `` AND`` and the
    condition on ``alias.recorded_at`` (nothing when ``when`` is None: every link, as now)."""
    if when is None:
        return "", []
    if when.known_to is None:
        return (f" AND ({alias}.recorded_at IS NULL OR {alias}.recorded_at <= ?)",
                [to_micros(when.known_at)])
    return (f" AND ({alias}.recorded_at IS NULL OR {alias}.recorded_at < ?)",
            [to_micros(when.known_to)])


def source_cypher(alias: str, when: TimeFilter | None) -> str:
    """:func:`kgmem.timeline.source_known` on the KGMEM_SUPPORTS relationship ``alias``
    (kgmem writes ``recorded_at`` aware), on ``$k`` (a point) or ``$kt`` (a range): the
    parameters :func:`version_cypher` binds; ``true`` when ``when`` is None (every link)."""
    if when is None:
        return "true"
    if when.known_to is None:
        return f"({alias}.recorded_at IS NULL OR {alias}.recorded_at <= $k)"
    return f"({alias}.recorded_at IS NULL OR {alias}.recorded_at < $kt)"


def known_sql(known_at: datetime) -> tuple[str, SqlParams]:
    """A record versioned in transaction time (a predicate declaration) known at ``known_at``:
    :func:`kgmem.timeline.in_interval` of ``known_at`` in ``[created_at, expired_at)`` (no
    alias)."""
    k = to_micros(known_at)
    return "created_at <= ? AND (expired_at IS NULL OR expired_at > ?)", [k, k]


def known_cypher(alias: str) -> str:
    """:func:`known_sql` on the node ``alias`` and ``$k`` (kgmem writes these times aware)."""
    return f"{alias}.created_at <= $k AND ({alias}.expired_at IS NULL OR {alias}.expired_at > $k)"


def recorded_mask(created_micros: np.ndarray, known_at: datetime) -> np.ndarray:
    """:func:`kgmem.timeline.recorded_by` over an array of ``created_at`` micros."""
    return created_micros <= to_micros(known_at)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ episodes (episode_visible)
def episode_sql(
    sql: str,
    params: SqlParams,
    known_at: datetime | None,
    ref_max: datetime | None,
    window: tuple[datetime, datetime] | None,
) -> tuple[str, SqlParams]:
    """``sql`` and ``params`` with the conditions of :func:`kgmem.timeline.episode_visible`
    on the episodes table ``e`` appended (each filter left out when None)."""
    if known_at is not None:
        sql += " AND e.created_at <= ?"
        params.append(to_micros(known_at))
    if ref_max is not None:
        sql += " AND e.reference_time <= ?"
        params.append(to_micros(ref_max))
    if window is not None:
        sql += " AND e.reference_time >= ? AND e.reference_time < ?"
        params += [to_micros(window[0]), to_micros(window[1])]
    return sql, params


def episode_cypher(alias: str = "e", window: bool = True) -> str:
    """:func:`kgmem.timeline.episode_visible` on the Episodic ``alias`` (its ``valid_at`` is the
    reference time, naive when graphiti wrote it): ``$k``, ``$rmax`` (null: no bound) and, with
    ``window``, ``$w0`` / ``$w1`` (null: no window)."""
    cond = (f"{alias}.created_at <= $k "
            f"AND ($rmax IS NULL OR {alias}.valid_at <= $rmax OR {alias}.valid_at <= $rmax_l)")
    if window:
        cond += (f" AND ($w0 IS NULL OR ({alias}.valid_at >= $w0 AND {alias}.valid_at < $w1) "
                 f"OR ({alias}.valid_at >= $w0_l AND {alias}.valid_at < $w1_l))")
    return cond


def episode_stamps_visible(stamp: tuple[int, int], known_at: datetime,
                           ref_max: datetime | None) -> bool:
    """:func:`kgmem.timeline.episode_visible` of an episode's ``(created_at, reference_time)``
    micros (as the embedded store's ``episode_stamps`` reads them), without a window."""
    return stamp[0] <= to_micros(known_at) and (ref_max is None or stamp[1] <= to_micros(ref_max))


# ------------------------------------------------------------------ changes (changed_after)
def changed_sql(since: datetime) -> tuple[str, SqlParams]:
    """:func:`kgmem.timeline.changed_after` on the versions table ``v``."""
    t = to_micros(since)
    return "(v.created_at > ? OR v.expired_at > ?)", [t, t]


def created_after_sql(since: datetime) -> tuple[str, SqlParams]:
    """A record (change) written after ``since``: its ``created_at`` (no alias)."""
    return "created_at > ?", [to_micros(since)]


def after_change_sql(after: str) -> tuple[str, SqlParams]:
    """A change after change ``after`` in the feed's order (transaction time, then insertion):
    the continuation of a page; ties in transaction time are broken by insertion order."""
    return ("(created_at, rowid) > (SELECT a.created_at, a.rowid FROM changes a "
            "WHERE a.id = ? AND a.group_id = changes.group_id)"), [after]


# ``$after``'s change bound as ``a``: the continuation of a page is the union of its two
# halves, each a seek of the (group_id, created_at, ins_seq) index in the feed's order, so a
# page reads about ``limit`` changes however many share the cursor's transaction time (one
# condition with OR made each page of a 5,000-change batch sort the rest of the batch)
AFTER_CHANGE_SAME_TIME_CYPHER = "c.created_at = a.created_at AND c.ins_seq > a.ins_seq"
AFTER_CHANGE_LATER_CYPHER = "c.created_at > a.created_at"


def created_after_cypher(alias: str, param: str = "t") -> str:
    """``alias.created_at`` after ``$param``: the first half of
    :func:`kgmem.timeline.changed_after` (``$t_l``, the naive twin, for graphiti's edges)."""
    return f"{alias}.created_at > ${param}"


# The second half of changed_after: a kgmem version expired after ``$t`` (graphiti's edges
# do not expire).
EXPIRED_AFTER_CYPHER = "r.expired_at > $t AND r.fact_id IS NOT NULL"


# ------------------------------------------------------------------ sittings (precedes_in_sitting)
def sitting_sql(before: bool) -> str:
    """:func:`kgmem.timeline.precedes_in_sitting` between the episodes table ``e`` and a given
    episode (parameters: its reference time -/+ the gap in micros, then its reference time,
    created_at and id): ``e`` precedes it (``before``) or follows it."""
    if before:
        return "e.reference_time >= ? AND (e.reference_time, e.created_at, e.id) < (?, ?, ?)"
    return "e.reference_time <= ? AND (e.reference_time, e.created_at, e.id) > (?, ?, ?)"


def sitting_range_sql() -> str:
    """Episodes ``e`` said from a reference time to another, both included (parameters: the
    two, in micros): every turn that can neighbour the episodes of a sitting, read at once
    (:func:`kgmem.timeline.precedes_in_sitting` is then applied in order)."""
    return "e.reference_time >= ? AND e.reference_time <= ?"


def sitting_cypher(before: bool) -> str:
    """:func:`kgmem.timeline.precedes_in_sitting` between Episodic ``e`` and Episodic ``x``
    (``$gap`` a duration): ``e`` precedes ``x`` (``before``) or follows it."""
    if before:
        return ("e.valid_at >= x.valid_at - $gap "
                "AND e.valid_at <= x.valid_at AND (e.valid_at < x.valid_at OR e.created_at < "
                "x.created_at OR (e.created_at = x.created_at AND e.uuid < x.uuid))")
    return ("e.valid_at <= x.valid_at + $gap "
            "AND e.valid_at >= x.valid_at AND (e.valid_at > x.valid_at OR e.created_at > "
            "x.created_at OR (e.created_at = x.created_at AND e.uuid > x.uuid))")


# ------------------------------------------------------------------ mentions (mentions_window)
# A mentioned period ``t`` (start, end) overlapping the window, starting no earlier than a
# bound (mentions are at most so long: the bound lets the index seek). Parameters: w1, the
# bound, w0.
MENTIONS_WINDOW_SQL = 't.start < ? AND t.start >= ? AND t."end" > ?'
MENTIONS_WINDOW_CYPHER = "t.start < $w1 AND t.start >= $lo AND t.end > $w0"
