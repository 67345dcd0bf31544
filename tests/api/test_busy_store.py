"""A busy store (issue 13, point 6): another process holding the SQLite write lock made POST
answer 500 after 30 s while every other request of the server waited behind the one
connection. Now a write waits at most ``busy_timeout`` and answers 503 ``store_busy`` with
``Retry-After`` (nothing written); reads and ``/ready`` run on their own connections and
never wait for a writer. The Neo4j store maps transient errors and a lost server to 503 too.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kgmem.errors import StoreBusyError
from kgmem.memory.facade import Memory
from kgmem.store.sqlite import EmbeddedStore
from tests.conftest import fresh_group, neo4j_settings, neo4j_store_or_skip

from .conftest import assert_error, client_for

# Holds the database's write lock until its stdin closes.
_HOLDER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
c.execute("ROLLBACK")
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Any]:
    """Start (on demand) another process that holds the store's write lock."""
    procs: list[subprocess.Popen[str]] = []

    def start(db: Path) -> subprocess.Popen[str]:
        p = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None and p.stdout.readline().strip() == "locked"
        procs.append(p)
        return p

    yield start
    for p in procs:
        if p.poll() is None:
            p.communicate("", timeout=30)


def _seeded(path: Path, busy_timeout: float) -> tuple[Memory, TestClient]:
    m = Memory(store=EmbeddedStore(path, busy_timeout=busy_timeout))
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021")
    return m, client_for(m)


def _writer_waits(store: EmbeddedStore) -> bool:
    """Another thread of this process holds the write connection (waiting in SQLite)."""
    if store._db.lock.acquire(blocking=False):
        store._db.lock.release()
        return False
    return True


def test_reads_and_ready_answer_while_a_write_waits_for_another_process(
        tmp_path: Path, holder: Any) -> None:
    m, c = _seeded(tmp_path / "s", busy_timeout=60)
    c.get("/v1/search", params={"q": "Alice"})  # the first search installs its tables
    m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022")  # queued for indexing
    lock = holder(m.store.db_path)  # type: ignore[attr-defined]
    result: dict[str, Any] = {}

    def write() -> None:
        result["resp"] = c.post("/v1/facts", json={"subject": "Alice", "predicate": "LIVES_IN",
                                                   "object": "Denver", "valid_at": "2023"})

    t = threading.Thread(target=write)
    t.start()
    while not _writer_waits(m.store) and t.is_alive():  # type: ignore[arg-type]
        time.sleep(0.01)
    reads = [c.get("/ready"), c.get("/v1/facts", params={"subject": "Alice"}),
             c.get("/v1/entities/Alice"), c.get("/v1/search", params={"q": "Alice"})]
    assert t.is_alive(), "the write should still be waiting for the other process"
    assert [r.status_code for r in reads] == [200] * 4, [r.text for r in reads]
    assert sorted(f["object"] for f in reads[1].json()["items"]) == ["Acme", "Boston"]
    lock.communicate("", timeout=30)  # the other process lets go: the write goes through
    t.join(60)
    assert result["resp"].status_code == 201, result["resp"].text
    m.close()


def test_a_write_on_a_locked_store_answers_503_store_busy_with_retry_after(
        tmp_path: Path, holder: Any) -> None:
    m, c = _seeded(tmp_path / "s", busy_timeout=0.3)
    before = m.stats()
    holder(m.store.db_path)  # type: ignore[attr-defined]
    for resp in (c.post("/v1/facts", json={"subject": "Alice", "predicate": "LIVES_IN",
                                           "object": "Denver"}),
                 c.post("/v1/episodes", json={"content": "hi", "reference_time": "2024"})):
        err = assert_error(resp, 503, "store_busy")
        assert resp.headers["Retry-After"] == "1"
        assert "busy" in err["message"] and err["details"]["retry_after_s"] == 1
        assert str(tmp_path) not in resp.text  # issue 32: no absolute store path
    assert c.get("/ready").status_code == 200
    assert m.stats() == before  # nothing half-written
    m.close()


def test_a_second_writer_in_the_same_process_waits_at_most_busy_timeout(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path / "s", busy_timeout=0.2)
    m = Memory(store=store)
    inside, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with store.write():
            inside.set()
            release.wait(30)

    t = threading.Thread(target=long_write)
    t.start()
    inside.wait(30)
    with pytest.raises(StoreBusyError):
        m.assert_fact("Alice", "LIVES_IN", "Boston")
    assert m.facts() == []  # a read while the other write is open
    release.set()
    t.join(30)
    assert [f.object for f in m.facts()] == []
    m.assert_fact("Alice", "LIVES_IN", "Boston")
    assert [f.object for f in m.facts()] == ["Boston"]
    m.close()


def test_reads_inside_a_write_see_that_write(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path / "s")
    m = Memory(store=store)
    with store.write() as w:
        m.writes.tick(w, "default")
        ent = m.writes.resolve_entity(w, "default", "Alice", m.now())
        assert store.get_entity("default", ent.id) is not None  # the write's own row
    m.close()


# ------------------------------------------------------------------ Neo4j
@pytest.fixture
def neo4j_store() -> Iterator[Any]:
    """A Neo4jStore of this test's own (its driver is swapped for a failing one)."""
    from kgmem.store.neo4j import Neo4jStore

    neo4j_store_or_skip()  # skips (or fails under CI) without a server
    store = Neo4jStore(**neo4j_settings(), ensure_indexes=False)  # type: ignore[arg-type]
    yield store
    store.close()


class _Failing:
    """A driver whose sessions raise ``exc`` on every query (the rest is the real driver)."""

    def __init__(self, real: Any, exc: BaseException) -> None:
        self.real, self.exc = real, exc

    def session(self, **kw: Any) -> Any:
        exc = self.exc

        class Tx:
            def run(self, *a: Any, **k: Any) -> Any:
                raise exc

            def closed(self) -> bool:
                return False

            def rollback(self) -> None:
                return None

        class Session:
            def run(self, *a: Any, **k: Any) -> Any:
                raise exc

            def begin_transaction(self, *a: Any, **k: Any) -> Tx:
                return Tx()

            def close(self) -> None:
                return None

        return Session()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.mark.neo4j
@pytest.mark.parametrize("code,status_type", [
    ("Neo.TransientError.Transaction.DeadlockDetected", "store_busy"),
    ("Neo.TransientError.Transaction.LockAcquisitionTimeout", "store_busy"),
    ("Neo.TransientError.General.DatabaseUnavailable", "store_unavailable"),
])
def test_neo4j_transient_errors_answer_503_with_retry_after(code: str, status_type: str,
                                                           neo4j_store: Any) -> None:
    from neo4j.exceptions import Neo4jError

    store = neo4j_store
    m = Memory(store=store)
    c = client_for(m)
    c.headers["X-Group"] = fresh_group("busy")
    real = store.driver
    store.driver = _Failing(real, Neo4jError._hydrate_neo4j(code=code, message="injected"))
    store._local = threading.local()  # no cached sessions: every query meets the failure
    try:
        for resp in (c.post("/v1/facts", json={"subject": "A", "predicate": "LIVES_IN",
                                               "object": "B"}),
                     c.get("/v1/facts"), c.get("/ready")):
            assert_error(resp, 503, status_type)
            assert int(resp.headers["Retry-After"]) >= 1
    finally:
        store.driver = real


@pytest.mark.neo4j
def test_neo4j_lost_server_answers_503_store_unavailable(neo4j_store: Any) -> None:
    from neo4j.exceptions import ServiceUnavailable

    store = neo4j_store
    c = client_for(Memory(store=store))
    real = store.driver
    store.driver = _Failing(real, ServiceUnavailable("injected: connection refused"))
    store._local = threading.local()
    try:
        for resp in (c.post("/v1/facts", json={"subject": "A", "predicate": "LIVES_IN",
                                               "object": "B"}),
                     c.get("/v1/facts"), c.get("/ready")):
            assert_error(resp, 503, "store_unavailable")
            assert resp.headers["Retry-After"] == "5"
            # issue 32: neither the Bolt URI nor the driver's text
            assert "bolt://" not in resp.text and "injected" not in resp.text
    finally:
        store.driver = real


@pytest.mark.neo4j
def test_neo4j_second_writer_in_the_same_process_waits_at_most_busy_timeout(
        neo4j_store: Any) -> None:
    store = neo4j_store
    store.busy_timeout = 0.2
    m = Memory(store=store)
    g = fresh_group("busy")
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:  # this process's write lock only: the server's lock stays free
        with store._write_lock:
            taken.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    taken.wait(30)
    try:
        with pytest.raises(StoreBusyError):
            m.assert_fact("Alice", "LIVES_IN", "Boston", group=g)
        assert m.facts(group=g) == []
    finally:
        release.set()
        t.join(30)


def test_the_server_runs_a_background_indexer(tmp_path: Path) -> None:
    """issue 32: kgmem serve embeds what writes queued outside the requests."""
    import time

    from kgmem.embed import HashingEmbedder

    m = Memory(tmp_path / "s", extractor=None)
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    with client_for(m, index_interval=0.1) as c:
        big = "the lighthouse keeper logs the weather " * 500  # past a search's budget
        c.post("/v1/episodes", json={"content": big, "reference_time": "2024",
                                     "extract": False}).raise_for_status()
        deadline = time.monotonic() + 30
        while m.pending_index() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert m.pending_index() == 0
        assert c.get("/v1/search", params={"q": "lighthouse"}).json()["index_pending"] == 0
    m.close()
