"""Transaction clocks are per group, on every store (kgmem.store.base): the same tests run on
the embedded store and on Neo4j."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

import kgmem.core.writes
from kgmem.errors import ClockError
from kgmem.memory.facade import Memory
from kgmem.timeutil import to_micros
from tests.conftest import ManualClock, fresh_group


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def test_last_tx_time_is_kept_per_group(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(utc(2025, 6, 1))
    m, a, b = make_memory(clock=clock), fresh_group(), fresh_group()
    assert m.store.last_tx_time(a) is None
    m.assert_fact("A", "LIVES_IN", "X", group=a)
    assert m.store.last_tx_time(a) == utc(2025, 6, 1)
    assert m.store.last_tx_time(b) is None
    clock.set(utc(2025, 7, 1))
    m.assert_fact("B", "LIVES_IN", "Y", group=b)
    assert m.store.last_tx_time(b) == utc(2025, 7, 1)
    assert m.store.last_tx_time(a) == utc(2025, 6, 1)  # untouched by b's write
    with m.store.write() as w:  # the write-side view agrees
        assert (w.last_tx_time(a), w.last_tx_time(b)) == (utc(2025, 6, 1), utc(2025, 7, 1))


def test_each_group_has_its_own_monotonic_clock(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(utc(2025, 6, 1))
    m, a, b = make_memory(clock=clock), fresh_group(), fresh_group()
    m.assert_fact("A", "LIVES_IN", "X", group=a)
    clock.set(utc(2020, 1, 1))  # another tenant replays older history with its own clock: fine
    m.assert_fact("B", "LIVES_IN", "Y", group=b)
    assert [f.created_at for f in m.facts("B", group=b)] == [utc(2020, 1, 1)]
    with pytest.raises(ClockError, match="backwards") as info:
        m.assert_fact("A", "LIVES_IN", "Z", group=a)
    assert info.value.details["group"] == a
    assert [f.object for f in m.facts("A", group=a, known_at=utc(2100, 1, 1))] == ["X"]
    assert sorted(x.name for x in m.entities(group=a)) == ["A", "X"]  # nothing half-written
    assert m.store.last_tx_time(a) == utc(2025, 6, 1)
    assert m.store.last_tx_time(b) == utc(2020, 1, 1)


def test_a_write_to_several_groups_advances_and_checks_all_of_them(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(utc(2025, 1, 1))
    m, a, b = make_memory(clock=clock), fresh_group(), fresh_group()
    clock.set(utc(2025, 3, 1))
    m.assert_fact("A", "LIVES_IN", "X", group=a)
    clock.set(utc(2025, 2, 1))  # before a's clock: a batch touching a must fail as a whole
    rows = [{"subject": "B", "predicate": "LIVES_IN", "object": "Y", "group": b},
            {"subject": "A", "predicate": "WORKS_AT", "object": "Z", "group": a}]
    with pytest.raises(ClockError):
        m.assert_facts(rows)
    assert m.facts("B", group=b, known_at=utc(2100, 1, 1)) == []
    assert m.store.last_tx_time(b) is None
    clock.set(utc(2025, 4, 1))
    m.assert_facts(rows)
    assert m.store.last_tx_time(a) == m.store.last_tx_time(b) == utc(2025, 4, 1)


def test_episodes_of_several_groups_in_one_batch(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(utc(2025, 5, 1))
    m, a, b = make_memory(clock=clock, extractor=None), fresh_group(), fresh_group()
    eps = m.add_episodes([
        {"content": "hello from a", "reference_time": "2025-04-01", "group": a},
        {"content": "hello from b", "reference_time": "2025-04-01", "group": b},
    ])
    assert [e.group for e in eps] == [a, b]
    assert m.store.last_tx_time(a) == m.store.last_tx_time(b) == utc(2025, 5, 1)


def test_a_wall_clock_stepping_back_is_clamped_per_group(make_memory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    m, a, b = make_memory(), fresh_group(), fresh_group()  # no injected clock: wall clock
    late, early = utc(2031, 1, 1), utc(2030, 1, 1)
    monkeypatch.setattr(kgmem.core.writes, "utcnow", lambda: late)
    m.assert_fact("A", "LIVES_IN", "X", group=a)
    monkeypatch.setattr(kgmem.core.writes, "utcnow", lambda: early)  # NTP stepped the clock back
    v = m.assert_fact("A", "LIVES_IN", "Y", group=a)
    assert v.created_at == late  # never back-dated within a
    w = m.assert_fact("B", "LIVES_IN", "Y", group=b)
    assert w.created_at == early  # b has its own clock


def test_embedded_store_written_before_per_group_clocks_keeps_its_clock(tmp_path) -> None:
    """A directory from before per-group clocks has one clock in meta('last_tx_time'): it is
    the floor of every group until the group has a clock of its own."""
    path, g = tmp_path / "old", "default"
    Memory(path, clock=ManualClock(utc(2020, 1, 1)), extractor=None).close()
    with sqlite3.connect(path / "kgmem.sqlite3") as c:  # what the old store kept
        c.execute("INSERT INTO meta(key, value) VALUES('last_tx_time', ?)",
                  (str(to_micros(utc(2025, 6, 1))),))
    clock = ManualClock(utc(2025, 1, 1))
    m = Memory(path, clock=clock, extractor=None)
    assert m.store.last_tx_time(g) == utc(2025, 6, 1)
    with pytest.raises(ClockError):
        m.assert_fact("A", "LIVES_IN", "X", group=g)
    clock.set(utc(2025, 6, 1) + timedelta(seconds=1))
    m.assert_fact("A", "LIVES_IN", "X", group=g)
    assert m.store.last_tx_time(g) == clock()
    m.close()
