"""Is the Neo4j database ready for writes, honestly (``GET /ready``)?

Two things make "the server answers" differ from "a write succeeds quickly":

* after a restart the database may answer reads before it takes writes, so the probe is a
  write: a transaction that creates a node and is rolled back (nothing is ever committed);
* after a restart the server's JVM and query caches are cold. Measured on 2 cores
  (benchmarks/RESULTS.md, "Neo4j outage"): the first kgmem write took 8-26 s, each of its
  ~13 statements paying 0.3-9 s of planning; the second 0.2-0.5 s. The driver's pool is not
  the cause: it finds its dead connections at once and opens new ones in milliseconds.

So after this process lost the database (any driver error that means "unavailable"),
readiness is not declared until a warm-up ran: every statement this process has run so far
(the first sighting of each text, with its parameters; at most :data:`MAX_STATEMENTS`, small
parameters only) is run once more in its own transaction, which is always rolled back.
The server then holds their plans, and the writes that follow take their usual time.
The warm-up runs in a background thread; meanwhile readiness says 503 ("warming up").
Statements are the store's own constant Cypher with their recorded parameters: nothing from a
request is ever spliced into a query.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import neo4j
from neo4j.exceptions import Neo4jError

from ...errors import StoreBusyError, StoreUnavailableError
from .queries import store_error

log = logging.getLogger("kgmem.neo4j")

MAX_STATEMENTS = 256  # distinct statement texts kept for the warm-up
MAX_PARAM_SIZE = 2_000  # summed length of a statement's parameters (strings, lists) to keep it
WARM_TX_TIMEOUT = 30.0  # seconds per replayed statement

PROBE = "CREATE (:KgmemReadyProbe)"  # always rolled back


def _size(params: Mapping[str, object]) -> int:
    return sum(len(v) if isinstance(v, (str, list, dict, tuple)) else 1 for v in params.values())


class Readiness:
    """Records statements, notices outages, warms the server up after one (thread-safe)."""

    def __init__(self, driver: Callable[[], neo4j.Driver], database: str) -> None:
        self.driver = driver  # the store's current driver
        self.database = database
        self.statements: dict[str, dict[str, Any]] = {}
        self.lost = False  # the database was unreachable since the last warm-up
        self.last_warm_up: dict[str, float] = {}  # statements replayed, seconds
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None

    def record(self, query: str, params: Mapping[str, object]) -> None:
        if (query not in self.statements and len(self.statements) < MAX_STATEMENTS
                and _size(params) <= MAX_PARAM_SIZE):
            self.statements[query] = dict(params)

    def lost_connection(self) -> None:
        self.lost = True

    def check(self) -> None:
        """Return when a write would succeed now; else raise :class:`StoreUnavailableError`."""
        with self._lock:
            if self._warming is not None and self._warming.is_alive():
                raise StoreUnavailableError("Neo4j is back; warming up after the outage")
            if self.lost:
                self._probe()  # still down: 503 now, no warm-up started
                self._warming = threading.Thread(target=self._warm_up, daemon=True,
                                                 name="kgmem-neo4j-warm-up")
                self._warming.start()
                raise StoreUnavailableError("Neo4j is back; warming up after the outage")
        self._probe()

    def _probe(self) -> None:
        try:
            s = self.driver().session(database=self.database)
            try:
                tx = s.begin_transaction(timeout=10.0)
                try:
                    tx.run(PROBE).consume()
                finally:
                    tx.rollback()
            finally:
                s.close()
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
            mapped = store_error(exc, "readiness")
            if isinstance(mapped, StoreBusyError):  # a lock conflict: up, but busy
                raise mapped from None
            self.lost_connection()
            raise StoreUnavailableError(
                f"Neo4j does not take writes ({type(exc).__name__})") from None

    def _warm_up(self) -> None:
        done: dict[str, float] = {}
        try:
            with self.driver().session(database=self.database) as s:
                for query, params in list(self.statements.items()):
                    t0 = time.monotonic()
                    tx = s.begin_transaction(timeout=WARM_TX_TIMEOUT)
                    try:
                        tx.run(query, params).consume()
                    except Neo4jError as exc:
                        if store_error(exc, "warm-up") is not None:
                            raise
                        # e.g. a recorded id that is gone: its plan was still made
                    finally:
                        if not tx.closed():
                            tx.rollback()
                    done[query[:80]] = round(time.monotonic() - t0, 3)
        except Exception as exc:  # noqa: BLE001 - lost again: the next check retries
            log.warning("Neo4j warm-up stopped: %s", type(exc).__name__)
            return
        self.last_warm_up = done
        self.lost = False
        log.info("Neo4j warm-up after an outage: %d statements in %.1f s", len(done),
                 sum(done.values()))
