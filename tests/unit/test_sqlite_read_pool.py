"""The embedded store's pool of read connections (kgmem/store/sqlite/conns.py): bounded, shared
by threads, a thread waits for a reader when all are taken and fails with StoreBusyError when
none comes back in time."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kgmem.errors import StoreBusyError
from kgmem.store.sqlite.conns import SqliteConnections


@pytest.fixture
def pool(tmp_path: Path):  # type: ignore[no-untyped-def]
    p = SqliteConnections(tmp_path / "db.sqlite", busy_timeout=2.0, read_connections=2)
    with p.write() as w:
        w.execute("CREATE TABLE IF NOT EXISTS t(x INTEGER)")
        w.execute("INSERT INTO t VALUES (1), (2), (3)")
    yield p
    p.close()


def test_many_threads_share_a_bounded_pool(pool: SqliteConnections) -> None:
    seen: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(200):
                seen.append(pool.query("SELECT count(*) FROM t")[0][0])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert seen == [3] * 1600
    assert len(pool._readers) <= 2


def test_nested_reads_use_one_connection(pool: SqliteConnections) -> None:
    with pool.read() as outer, pool.read() as inner:
        assert outer is inner
    with pool.read() as again:
        assert again is outer  # given back, and taken again (newest idle first)


def test_a_waiter_gets_the_reader_given_back(pool: SqliteConnections) -> None:
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with pool.read():
            held.set()
            release.wait(5)

    holders = [threading.Thread(target=hold) for _ in range(2)]
    for t in holders:
        t.start()
    held.wait(5)
    while len(pool._readers) < 2 or pool._idle:
        time.sleep(0.01)
    got: list[float] = []

    def read_when_free() -> None:
        t0 = time.monotonic()
        pool.query("SELECT 1")
        got.append(time.monotonic() - t0)

    waiter = threading.Thread(target=read_when_free)
    waiter.start()
    time.sleep(0.2)
    assert got == []  # both readers taken: it waits
    release.set()
    waiter.join(5)
    for t in holders:
        t.join()
    assert len(got) == 1 and 0.2 <= got[0] < 1.5
    assert len(pool._readers) == 2


def test_busy_error_when_no_reader_comes_back(tmp_path: Path) -> None:
    pool = SqliteConnections(tmp_path / "db.sqlite", busy_timeout=0.3, read_connections=1)
    try:
        with pool.read():
            out: list[BaseException] = []

            def other() -> None:
                try:
                    pool.query("SELECT 1")
                except BaseException as exc:  # noqa: BLE001 - checked below
                    out.append(exc)

            t = threading.Thread(target=other)
            t0 = time.monotonic()
            t.start()
            t.join(5)
            waited = time.monotonic() - t0
        assert len(out) == 1 and isinstance(out[0], StoreBusyError)
        assert "read connections in use" in str(out[0])
        assert 0.25 <= waited < 2
    finally:
        pool.close()
