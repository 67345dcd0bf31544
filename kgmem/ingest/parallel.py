"""Extraction runs in worker processes (opt-in: ``ExtractionPipeline(extractor, workers=2)``).

The offline extractor is pure Python over a spaCy parse and holds the GIL for most of its
~15 CPU-ms per turn, so threads cannot spread it over cores; processes can. Each worker
gets a pickled copy of the extractor (the offline one loads its spaCy pipeline lazily, once
per worker) and runs ``extract_many`` on whole runs, exactly the runs the pipeline would
hand the extractor in-process: a run is independent of the others (an ``extract_many`` call
starts its own conversation sittings), so the facts are the same as in-process, in the same
order. Workers are started with ``spawn`` (never ``fork``: the caller may have ONNX Runtime
or index threads running) on first use and kept for the life of the pool; they exit as soon
as the process that started them is gone, however it ended (:mod:`kgmem.lifeline`).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ..lifeline import lifeline, watch_parent
from .extractor import Item

_WORKER: Any = None


def _init(extractor: Any, parent: Any = None) -> None:
    global _WORKER
    watch_parent(parent)
    _WORKER = extractor


def _extract(run: Sequence[Item]) -> tuple[int, list[list[Any]]]:
    """The run's facts, with the id of the worker process that extracted them."""
    return os.getpid(), [list(r) for r in _WORKER.extract_many(list(run))]


class ExtractorPool:
    """``workers`` processes, each holding a copy of ``extractor``."""

    def __init__(self, extractor: Any, workers: int) -> None:
        self.extractor = extractor
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        # the workers that have extracted a run; a lock of its own, as the executor's thread
        # adds to it while close() may hold _lock waiting for that thread
        self._pids: set[int] = set()
        self._pids_lock = threading.Lock()
        self._lifeline: Any = None  # the pipe's write end the workers watch

    def submit(self, run: Sequence[Item]) -> Future[list[list[Any]]]:
        """The run's facts, one list per item, extracted in a worker process."""
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("spawn")
                reader, self._lifeline = lifeline(ctx)
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=ctx, initializer=_init,
                    initargs=(self.extractor, reader))
            done = self._pool.submit(_extract, list(run))
        facts: Future[list[list[Any]]] = Future()

        def settle(f: Future[tuple[int, list[list[Any]]]]) -> None:
            try:
                pid, results = f.result()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's future
                facts.set_exception(exc)
                return
            with self._pids_lock:
                self._pids.add(pid)
            facts.set_result(results)

        done.add_done_callback(settle)
        return facts

    def worker_pids(self) -> list[int]:
        """The ids of the worker processes that have extracted a run (for CPU accounting;
        empty once the pool is closed)."""
        with self._pids_lock:
            return sorted(self._pids)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
            if self._lifeline is not None:
                self._lifeline.close()
                self._lifeline = None
        with self._pids_lock:
            self._pids.clear()
