"""Looking episodes up by id on the embedded store seeks each id, however long the id list:
with many ids SQLite (no ANALYZE statistics) preferred scanning the whole group through the
(group_id, reference_time) index, ~30x slower on a 100k-episode group (search 207 -> 69 ms p50
once fixed; benchmarks/RESULTS.md). Checked on the query plans of the statements actually run."""

from __future__ import annotations

from datetime import timedelta

from kgmem.memory.facade import Memory

from .conftest import at


def _plans(m: Memory, call) -> list[str]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    with m.store._db.read() as conn:  # reads nested in it run on this same connection
        conn.set_trace_callback(seen.append)
        try:
            call()
        finally:
            conn.set_trace_callback(None)
        selects = [s for s in seen if s.lstrip().upper().startswith("SELECT") and " IN (" in s]
        assert selects, "no id lookup was run"
        return [" / ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + s))
                for s in selects]


def test_episode_lookups_by_id_seek_the_ids(mem: Memory) -> None:
    t0 = at("2023-05-01T09:00:00")
    eps = mem.add_episodes([
        {"content": f"turn {i} about the garden", "reference_time": t0 + timedelta(minutes=i)}
        for i in range(600)
    ])
    ids = [e.id for e in eps][::2]  # 300 ids: a long IN list
    view = mem.store.search_tables()
    for call in (lambda: view.episode_stamps("default", ids),
                 lambda: view.episodes_by_ids("default", ids)):
        for plan in _plans(mem, call):
            assert "episodes_time" not in plan, plan
            assert "sqlite_autoindex_episodes_1 (id=?)" in plan, plan
    stamps = view.episode_stamps("default", ids)
    assert set(stamps) == set(ids)
    assert view.episodes_by_ids("other-group", ids) == {}  # the group still filters
