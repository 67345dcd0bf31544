"""SQLite connections of the embedded store: one writer, a reader per thread.

SQLite in WAL mode lets readers run while a writer holds the database's write lock, but only
on their own connections: a single shared connection makes every read wait behind a write
(or behind another process's lock). So:

* **writes** go through one connection, serialised by a lock; taking it (the thread lock, then
  SQLite's ``BEGIN IMMEDIATE``) waits at most ``busy_timeout`` seconds in all, after which the
  write fails with :class:`~kgmem.errors.StoreBusyError` (HTTP 503 with ``Retry-After``)
  instead of hanging or failing with a bare ``sqlite3.OperationalError``;
* **reads** run on connections of their own (``query_only``), a small pool shared by the
  threads (each thread keeps the one it took until its outermost read ends), so they never
  wait for a writer; inside the thread's own open write they use the write connection, and so
  see what that write has done so far. The pool bounds the page caches (64 MB each at most)
  and file handles however many threads a server runs.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...errors import StoreBusyError, StoreUnavailableError

DEFAULT_BUSY_TIMEOUT = 5.0  # seconds; KGMEM_BUSY_TIMEOUT
READ_CONNECTIONS = 4
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_PRAGMAS = ("PRAGMA synchronous=FULL", "PRAGMA foreign_keys=OFF", "PRAGMA cache_size=-65536",
            "PRAGMA temp_store=MEMORY")


def is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SqliteConnections:
    """The connections of one database file (thread-safe; see the module docstring)."""

    def __init__(self, db_path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
                 read_connections: int = READ_CONNECTIONS) -> None:
        if not busy_timeout > 0:
            raise ValueError("busy_timeout must be a positive number of seconds")
        self.db_path = db_path
        self.busy_timeout = float(busy_timeout)
        self.writer = self._open()
        self.writer.execute("PRAGMA journal_mode=WAL")
        self.lock = threading.RLock()  # serialises the writer (and every use of it)
        self._local = threading.local()
        # idle readers, newest last: deque.append / pop are atomic, so taking and giving back a
        # reader costs no lock (a queue.Queue's two Condition round trips per read were a
        # fifth of an embedded as-of read); a thread that finds none idle and the pool full
        # waits on _returned, which give-backs notify only while someone waits
        self._idle: deque[sqlite3.Connection] = deque()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._returned = threading.Condition(self._readers_lock)
        self._waiting = 0
        self.max_readers = read_connections
        self._stamp = self._open()  # never writes: its data_version moves on every commit
        self._stamp_lock = threading.Lock()
        self._closed = False

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db_path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout)
        for pragma in _PRAGMAS:
            conn.execute(pragma)
        return conn

    def busy_error(self, what: str) -> StoreBusyError:
        return StoreBusyError(
            f"the store at {self.db_path.parent} is busy: {what} (waited "
            f"{self.busy_timeout:g} s; KGMEM_BUSY_TIMEOUT); retry later",
            waited_s=self.busy_timeout,
        )

    # ------------------------------------------------------------------ writes
    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the write connection, committed on success
        and rolled back on any error; waits at most ``busy_timeout`` for the lock."""
        patience = getattr(self._local, "patience", None)
        wait = self.busy_timeout if patience is None else patience
        deadline = time.monotonic() + wait
        if not self.lock.acquire(timeout=wait):
            raise self.busy_error("another write of this process holds it")
        try:
            if self._closed:
                raise StoreUnavailableError("the embedded store is closed")
            left_ms = max(1, int((deadline - time.monotonic()) * 1000))
            try:
                self.writer.execute(f"PRAGMA busy_timeout = {left_ms}")
                self.writer.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if is_busy(exc):
                    raise self.busy_error("another process holds the write lock") from None
                raise
            self._local.writing = True
            try:
                yield self.writer
            except BaseException:
                self.writer.execute("ROLLBACK")
                raise
            else:
                self.writer.execute("COMMIT")
            finally:
                self._local.writing = False
        finally:
            self.lock.release()

    @contextmanager
    def without_waiting(self) -> Iterator[None]:
        """Writes of this thread inside the block fail at once with StoreBusyError when the
        lock is taken, instead of waiting (optional work, such as search-time indexing)."""
        previous = getattr(self._local, "patience", None)
        self._local.patience = 0.0
        try:
            yield
        finally:
            self._local.patience = previous

    # ------------------------------------------------------------------ reads
    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection to read on (see the module docstring)."""
        if getattr(self._local, "writing", False):
            yield self.writer  # this thread holds the lock: its own uncommitted rows
            return
        conn: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if conn is not None:  # a nested read: the same connection
            yield conn
            return
        conn = self._checkout()
        self._local.reader = conn
        try:
            yield conn
        except sqlite3.OperationalError as exc:
            if is_busy(exc):  # WAL recovery after a crash, a truncating checkpoint
                raise self.busy_error("the database is being recovered") from None
            raise
        finally:
            self._local.reader = None
            self._give_back(conn)

    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self.read() as conn:
            return conn.execute(sql, params).fetchall()

    def _checkout(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreUnavailableError("the embedded store is closed")
        try:
            return self._idle.pop()
        except IndexError:
            pass
        deadline = time.monotonic() + self.busy_timeout
        with self._returned:
            while True:
                if self._idle:
                    return self._idle.pop()
                if len(self._readers) < self.max_readers:
                    conn = self._open()
                    conn.execute("PRAGMA query_only=1")
                    self._readers.append(conn)
                    return conn
                left = deadline - time.monotonic()  # every reader busy: reads are short
                if left <= 0 or self._closed:
                    raise self.busy_error(f"all {self.max_readers} read connections in use")
                self._waiting += 1
                try:
                    self._returned.wait(min(left, 0.05))
                finally:
                    self._waiting -= 1

    def _give_back(self, conn: sqlite3.Connection) -> None:
        self._idle.append(conn)
        if self._waiting:  # read after the append: a waiter counted before it is woken
            with self._returned:
                self._returned.notify()

    def change_stamp(self) -> int:
        """A number that changes whenever anything commits to the database (any connection
        of this or another process)."""
        with self._stamp_lock:
            return int(self._stamp.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        self._closed = True
        with self.lock:
            self.writer.close()
        with self._readers_lock:
            readers, self._readers = self._readers, []
        with self._stamp_lock:
            self._stamp.close()
        for conn in readers:
            conn.close()
