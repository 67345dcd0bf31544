"""The time seam: the SQL (SQLite, in memory) and Cypher (the real Neo4j server) forms of
every time predicate in kgmem.store.visibility agree with kgmem.timeline's rule, on random
intervals and probes drawn from a few instants (so bounds are often equal, and some differ
by one microsecond), open ends, the ends of the calendar, and the naive times graphiti-core
writes to Neo4j.

Cypher is evaluated on maps (``UNWIND $rows AS r``): a property read is the same on a map as
on a node or relationship, and the store's read path adds the naive twins of the parameters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgmem import timeline
from kgmem.store import visibility as vis
from kgmem.store.base import TimeFilter
from kgmem.timeutil import to_micros
from tests.conftest import neo4j_store_or_skip

UTC = timezone.utc
BASE = datetime(2024, 3, 1, tzinfo=UTC)
EDGES = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
LANGS = ["sql", pytest.param("cypher", marks=pytest.mark.neo4j)]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _instant(i: int) -> datetime:
    """Instants two by two one microsecond apart, a second between pairs."""
    return BASE + timedelta(seconds=i // 2, microseconds=i % 2)


# near instants for sittings (their gap arithmetic must stay inside the calendar)
near = st.integers(0, 3).map(_instant)
instants = st.one_of(near, near, near, st.sampled_from(EDGES))
maybe = st.one_of(st.none(), instants)


def _sql_ids(create: str, rows: list[dict[str, Any]], where: str, params: list[Any]) -> set[str]:
    con = sqlite3.connect(":memory:")
    con.execute(create)
    cols = list(rows[0]) if rows else []
    table = create.split()[2].split("(")[0]
    for r in rows:
        con.execute(f"INSERT INTO {table}({','.join(cols)}) VALUES ({','.join('?' * len(cols))})",
                    [to_micros(v) if isinstance(v, datetime) else v for v in r.values()])
    alias = {"versions": "v", "episodes": "e", "mentions": "t", "provenance": "p"}[table]
    return {i for (i,) in con.execute(f"SELECT {alias}.id FROM {table} {alias} WHERE {where}",
                                      params)}


def _cypher_ids(alias: str, rows: list[dict[str, Any]], cond: str, **params: Any) -> set[str]:
    store = neo4j_store_or_skip()
    got = store.cypher(f"UNWIND $rows AS {alias} WITH {alias} WHERE {cond} RETURN {alias}.id",
                   rows=rows, **params)
    return {r[0] for r in got}


def _naive(t: datetime | None) -> datetime | None:
    return None if t is None else t.replace(tzinfo=None)


# ------------------------------------------------------------------ versions
version = st.fixed_dictionaries({
    "created_at": instants, "expired_at": maybe, "valid_at": maybe, "invalid_at": maybe,
    # graphiti-core's edges: naive times, no fact_id, an expired_at that is not a retraction
    "graphiti": st.booleans(),
})
time_filter = st.builds(
    lambda k, kt, v, vt, any_valid: TimeFilter(valid_at=v, known_at=k, valid_to=vt,
                                               known_to=kt, any_valid=any_valid),
    instants, maybe, instants, maybe, st.booleans())


def _version_rule(r: dict[str, Any], when: TimeFilter) -> bool:
    return timeline.is_visible_under(
        valid_at=r["valid_at"], invalid_at=r["invalid_at"], created_at=r["created_at"],
        expired_at=None if r["graphiti"] else r["expired_at"], known_at=when.known_at,
        known_to=when.known_to, valid_from=None if when.any_valid else when.valid_at,
        valid_to=when.valid_to)


@pytest.mark.parametrize("lang", LANGS)
@given(rows=st.lists(version, min_size=1, max_size=12), when=time_filter)
@SETTINGS
def test_version_visibility_matches_the_timeline_rule(lang: str, rows: list[dict[str, Any]],
                                                      when: TimeFilter) -> None:
    ids = [f"v{i}" for i in range(len(rows))]
    if lang == "sql":  # the embedded store writes no graphiti edges
        rows = [{**r, "graphiti": False} for r in rows]
        table = [{"id": i, **{k: r[k] for k in ("created_at", "expired_at", "valid_at",
                                                  "invalid_at")}} for i, r in zip(ids, rows)]
        cond, params = vis.version_sql(when)
        got = _sql_ids("CREATE TABLE versions(id TEXT, created_at INT, expired_at INT, "
                       "valid_at INT, invalid_at INT)", table, cond, params)
    else:
        maps = [{"id": i, "fact_id": None if r["graphiti"] else i,
                 **{k: _naive(r[k]) if r["graphiti"] else r[k]
                    for k in ("created_at", "expired_at", "valid_at", "invalid_at")}}
                for i, r in zip(ids, rows)]
        cond, params = vis.version_cypher(when)
        got = _cypher_ids("r", maps, cond, **params)
    assert got == {i for i, r in zip(ids, rows) if _version_rule(r, when)}


# ------------------------------------------------------------------ versions changed
@pytest.mark.parametrize("lang", LANGS)
@given(rows=st.lists(version, min_size=1, max_size=12), since=instants)
@SETTINGS
def test_versions_changed_after_match_the_timeline_rule(lang: str, rows: list[dict[str, Any]],
                                                        since: datetime) -> None:
    ids = [f"v{i}" for i in range(len(rows))]
    if lang == "sql":
        rows = [{**r, "graphiti": False} for r in rows]
        table = [{"id": i, "created_at": r["created_at"], "expired_at": r["expired_at"]}
                 for i, r in zip(ids, rows)]
        cond, params = vis.changed_sql(since)
        got = _sql_ids("CREATE TABLE versions(id TEXT, created_at INT, expired_at INT)",
                       table, cond, params)
    else:
        maps = [{"id": i, "fact_id": None if r["graphiti"] else i,
                 "created_at": _naive(r["created_at"]) if r["graphiti"] else r["created_at"],
                 "expired_at": _naive(r["expired_at"]) if r["graphiti"] else r["expired_at"]}
                for i, r in zip(ids, rows)]
        # the store asks the three branches in a UNION (each seeks its own index)
        cond = (f"({vis.created_after_cypher('r')}) OR ({vis.created_after_cypher('r', 't_l')})"
                f" OR ({vis.EXPIRED_AFTER_CYPHER})")
        got = _cypher_ids("r", maps, cond, t=since)
    want = {i for i, r in zip(ids, rows) if timeline.changed_after(
        r["created_at"], None if r["graphiti"] else r["expired_at"], since)}
    assert got == want


# ------------------------------------------------------------------ episodes and records
episode = st.fixed_dictionaries({"created_at": instants, "reference_time": instants,
                                 "graphiti": st.booleans(), "expired_at": maybe})
window = st.one_of(st.none(), st.tuples(instants, instants))


@pytest.mark.parametrize("lang", LANGS)
@given(rows=st.lists(episode, min_size=1, max_size=12), known_at=instants, ref_max=maybe,
       win=window)
@settings(SETTINGS, max_examples=200)  # naive bounds equal to the window's need many draws
def test_episode_visibility_matches_the_timeline_rule(
    lang: str, rows: list[dict[str, Any]], known_at: datetime, ref_max: datetime | None,
    win: tuple[datetime, datetime] | None,
) -> None:
    ids = [f"e{i}" for i in range(len(rows))]
    if lang == "sql":
        table = [{"id": i, "created_at": r["created_at"], "reference_time": r["reference_time"]}
                 for i, r in zip(ids, rows)]
        cond, params = vis.episode_sql("1=1", [], known_at, ref_max, win)
        got = _sql_ids("CREATE TABLE episodes(id TEXT, created_at INT, reference_time INT)",
                       table, cond, params)
    else:  # an Episodic's valid_at is its reference time; graphiti writes it naive
        maps = [{"id": i, "created_at": r["created_at"],
                 "valid_at": _naive(r["reference_time"]) if r["graphiti"]
                 else r["reference_time"]} for i, r in zip(ids, rows)]
        got = _cypher_ids("e", maps, vis.episode_cypher("e"), k=known_at, rmax=ref_max,
                          w0=win[0] if win else None, w1=win[1] if win else None)
    want = {i for i, r in zip(ids, rows) if timeline.episode_visible(
        created_at=r["created_at"], reference_time=r["reference_time"], known_at=known_at,
        ref_max=ref_max, window=win)}
    assert got == want
    if win is None and lang == "sql":  # the Python forms over stamps read as micros
        stamps = [(to_micros(r["created_at"]), to_micros(r["reference_time"])) for r in rows]
        assert {i for i, s in zip(ids, stamps)
                if vis.episode_stamps_visible(s, known_at, ref_max)} == want


@pytest.mark.parametrize("lang", LANGS)
@given(rows=st.lists(episode, min_size=1, max_size=12), at=instants)
@SETTINGS
def test_records_stored_by_and_written_after_match_the_timeline_rule(
    lang: str, rows: list[dict[str, Any]], at: datetime,
) -> None:
    """Entities, episodes and changes: stored by ``at``, and written after it; declarations
    (versioned in transaction time): known at ``at``."""
    ids = [f"x{i}" for i in range(len(rows))]
    by = {i for i, r in zip(ids, rows) if timeline.recorded_by(r["created_at"], at)}
    after = {i for i, r in zip(ids, rows) if at < r["created_at"]}
    known_then = {i for i, r in zip(ids, rows)
                  if timeline.in_interval(at, r["created_at"], r["expired_at"])}
    if lang == "sql":
        table = [{"id": i, "created_at": r["created_at"]} for i, r in zip(ids, rows)]
        create = "CREATE TABLE episodes(id TEXT, created_at INT)"
        cond, params = vis.recorded_sql("e", at)
        assert _sql_ids(create, table, "1=1" + cond, params) == by
        cond, params = vis.created_after_sql(at)
        assert _sql_ids(create, table, cond, params) == after
        known, kparams = vis.known_sql(at)
        assert _sql_ids("CREATE TABLE episodes(id TEXT, created_at INT, expired_at INT)",
                        [{"id": i, "created_at": r["created_at"], "expired_at": r["expired_at"]}
                         for i, r in zip(ids, rows)], known, kparams) == known_then
        mask = vis.recorded_mask(np.array([to_micros(r["created_at"]) for r in rows]), at)
        assert {i for i, m in zip(ids, mask.tolist()) if m} == by
    else:
        maps = [{"id": i, "created_at": r["created_at"]} for i, r in zip(ids, rows)]
        assert _cypher_ids("e", maps, vis.recorded_cypher("e"), k=at) == by
        assert _cypher_ids("c", maps, vis.created_after_cypher("c"), t=at) == after
        maps = [{"id": i, "created_at": r["created_at"], "expired_at": r["expired_at"]}
                for i, r in zip(ids, rows)]
        assert _cypher_ids("d", maps, vis.known_cypher("d"), k=at) == known_then


@pytest.mark.parametrize("lang", LANGS)
@given(stamps=st.lists(maybe, min_size=1, max_size=12), when=st.one_of(st.none(), time_filter))
@SETTINGS
def test_provenance_links_known_match_the_timeline_rule(
    lang: str, stamps: list[datetime | None], when: TimeFilter | None,
) -> None:
    """A provenance link (its ``recorded_at``; None: written before links had times) under a
    read's transaction-time filter (None: every link)."""
    ids = [f"p{i}" for i in range(len(stamps))]
    want = {i for i, t in zip(ids, stamps) if when is None
            or timeline.source_known(t, when.known_at, when.known_to)}
    if lang == "sql":
        cond, params = vis.source_sql("p", when)
        got = _sql_ids("CREATE TABLE provenance(id TEXT, recorded_at INT)",
                       [{"id": i, "recorded_at": t} for i, t in zip(ids, stamps)],
                       "1=1" + cond, params)
    else:
        params = {} if when is None else {"k": when.known_at, "kt": when.known_to}
        got = _cypher_ids("p", [{"id": i, "recorded_at": t} for i, t in zip(ids, stamps)],
                          vis.source_cypher("p", when), **params)
    assert got == want


@given(rows=st.lists(st.tuples(near, st.sampled_from(["g", "h"])), min_size=1, max_size=12),
       pick=st.integers(0, 11))
@SETTINGS
def test_changes_after_a_change_follow_the_feed_order(rows: list[tuple[datetime, str]],
                                                      pick: int) -> None:
    """The change feed's cursor (``after_change_sql``): the changes of the cursor's group after
    it in (transaction time, insertion) order; none of another group, none when it is unknown."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE changes(id TEXT, group_id TEXT, created_at INT)")
    ids = [f"c{i}" for i in range(len(rows))]
    for i, (at, g) in zip(ids, rows):
        con.execute("INSERT INTO changes(id, group_id, created_at) VALUES (?, ?, ?)",
                    (i, g, to_micros(at)))
    cursor = ids[pick % len(ids)]
    at_c, g_c = rows[pick % len(ids)]
    n_c = pick % len(ids)
    want = {i for n, (i, (at, g)) in enumerate(zip(ids, rows))
            if g == g_c and (at > at_c or (at == at_c and n > n_c))}
    cond, params = vis.after_change_sql(cursor)
    got = {i for (i,) in con.execute(
        f"SELECT id FROM changes WHERE group_id = ? AND {cond}", [g_c, *params])}
    assert got == want
    cond, params = vis.after_change_sql("no-such-change")
    assert con.execute(f"SELECT count(*) FROM changes WHERE {cond}", params).fetchone()[0] == 0


# ------------------------------------------------------------------ sittings
stamp = st.tuples(near, near, st.sampled_from(["a", "b", "c"]))


@pytest.mark.parametrize("lang", LANGS)
@given(others=st.lists(stamp, min_size=1, max_size=12), x=stamp,
       gap_us=st.sampled_from([0, 1, 999_999, 1_000_000, 1_000_001, 3_000_000]))
@SETTINGS
def test_sitting_neighbours_match_the_timeline_rule(
    lang: str, others: list[tuple[datetime, datetime, str]], x: tuple[datetime, datetime, str],
    gap_us: int,
) -> None:
    """Which episodes come just before / after ``x`` in its sitting (reference time, then
    created_at, then id order; at most the gap apart). Naive and aware reference times are
    not mixed here: Neo4j does not order them against each other."""
    gap = timedelta(microseconds=gap_us)
    ids = [f"{i:02d}{s[2]}" for i, s in enumerate(others)]
    keys = [(s[0], s[1], i) for i, s in zip(ids, others)]
    xk = (x[0], x[1], "05" + x[2])
    for before in (True, False):
        want = {k[2] for k in keys if (timeline.precedes_in_sitting(k, xk, gap) if before
                                       else timeline.precedes_in_sitting(xk, k, gap))}
        if lang == "sql":
            table = [{"id": k[2], "created_at": k[1], "reference_time": k[0]} for k in keys]
            ref = to_micros(xk[0])
            params = [ref - gap_us if before else ref + gap_us, ref, to_micros(xk[1]), xk[2]]
            got = _sql_ids("CREATE TABLE episodes(id TEXT, created_at INT, reference_time INT)",
                           table, vis.sitting_sql(before), params)
        else:
            maps = [{"uuid": k[2], "id": k[2], "created_at": k[1], "valid_at": k[0]}
                    for k in keys]
            store = neo4j_store_or_skip()
            got = {r[0] for r in store.cypher(
                "UNWIND $rows AS e WITH e, $x AS x WHERE " + vis.sitting_cypher(before)
                + " RETURN e.id", rows=maps, gap=gap,
                x={"uuid": xk[2], "created_at": xk[1], "valid_at": xk[0]})}
        assert got == want, before


@given(others=st.lists(stamp, min_size=1, max_size=12), x=stamp,
       gap_us=st.sampled_from([0, 1, 999_999, 1_000_000, 1_000_001, 3_000_000]))
@SETTINGS
def test_a_sitting_range_holds_every_neighbour_of_its_episode(
    others: list[tuple[datetime, datetime, str]], x: tuple[datetime, datetime, str],
    gap_us: int,
) -> None:
    """``sitting_range_sql`` reads, at once, the turns that may neighbour an episode: from its
    reference time minus the gap to plus the gap, both included. Every episode the timeline
    rule puts just before or after ``x`` in its sitting is in that range, and nothing
    outside the two bounds is."""
    ids = [f"{i:02d}{s[2]}" for i, s in enumerate(others)]
    keys = [(s[0], s[1], i) for i, s in zip(ids, others)]
    xk = (x[0], x[1], "05" + x[2])
    ref = to_micros(xk[0])
    table = [{"id": k[2], "created_at": k[1], "reference_time": k[0]} for k in keys]
    got = _sql_ids("CREATE TABLE episodes(id TEXT, created_at INT, reference_time INT)",
                   table, vis.sitting_range_sql(), [ref - gap_us, ref + gap_us])
    gap = timedelta(microseconds=gap_us)
    neighbours = {k[2] for k in keys if timeline.precedes_in_sitting(k, xk, gap)
                  or timeline.precedes_in_sitting(xk, k, gap)}
    assert neighbours <= got
    assert got == {k[2] for k in keys if ref - gap_us <= to_micros(k[0]) <= ref + gap_us}


# ------------------------------------------------------------------ mentioned periods
@pytest.mark.parametrize("lang", LANGS)
@given(periods=st.lists(st.tuples(instants, instants), min_size=1, max_size=12),
       win=st.tuples(instants, instants), earliest=instants)
@SETTINGS
def test_mentioned_periods_match_the_timeline_rule(
    lang: str, periods: list[tuple[datetime, datetime]], win: tuple[datetime, datetime],
    earliest: datetime,
) -> None:
    ids = [f"t{i}" for i in range(len(periods))]
    want = {i for i, (a, b) in zip(ids, periods)
            if timeline.mentions_window(a, b, win, earliest)}
    if lang == "sql":
        table = [{"id": i, "start": a, '"end"': b} for i, (a, b) in zip(ids, periods)]
        got = _sql_ids('CREATE TABLE mentions(id TEXT, start INT, "end" INT)', table,
                       vis.MENTIONS_WINDOW_SQL, [to_micros(win[1]), to_micros(earliest),
                                                 to_micros(win[0])])
    else:
        maps = [{"id": i, "start": a, "end": b} for i, (a, b) in zip(ids, periods)]
        got = _cypher_ids("t", maps, vis.MENTIONS_WINDOW_CYPHER, w0=win[0], w1=win[1],
                          lo=earliest)
    assert got == want


def test_every_predicate_of_the_seam_is_pinned_here() -> None:
    """A predicate added to the seam gets a test in this file."""
    forms: list[Callable[..., Any] | str] = [
        vis.version_sql, vis.version_cypher, vis.changed_sql, vis.created_after_sql,
        vis.created_after_cypher, vis.known_sql, vis.known_cypher, vis.recorded_sql, vis.recorded_cypher, vis.recorded_mask,
        vis.source_sql, vis.source_cypher,
        vis.episode_sql, vis.episode_cypher, vis.episode_stamps_visible, vis.sitting_sql,
        vis.sitting_cypher, vis.sitting_range_sql, vis.after_change_sql]
    public = {n for n in dir(vis) if not n.startswith("_") and callable(getattr(vis, n))
              and getattr(getattr(vis, n), "__module__", "") == vis.__name__}
    assert public - {f.__name__ for f in forms if callable(f)} == {"with_naive_twins"}
