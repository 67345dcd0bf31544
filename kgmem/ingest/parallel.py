"""Extraction runs in worker processes (opt-in: ``ExtractionPipeline(extractor, workers=2)``).

The offline extractor is pure Python over a spaCy parse and holds the GIL for most of its
~15 CPU-ms per turn, so threads cannot spread it over cores; processes can. Each worker
gets a pickled copy of the extractor (the offline one loads its spaCy pipeline lazily, once
per worker) and runs ``extract_many`` on whole runs, exactly the runs the pipeline would
hand the extractor in-process: a run is independent of the others (an ``extract_many`` call
starts its own conversation sittings), so the facts are the same as in-process, in the same
order. Workers are started with ``spawn`` (never ``fork``: the caller may have ONNX Runtime
or index threads running) on first use and kept for the life of the pool.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from .extractor import Item

_WORKER: Any = None


def _init(extractor: Any) -> None:
    global _WORKER
    _WORKER = extractor


def _extract(run: Sequence[Item]) -> list[list[Any]]:
    return [list(r) for r in _WORKER.extract_many(list(run))]


class ExtractorPool:
    """``workers`` processes, each holding a copy of ``extractor``."""

    def __init__(self, extractor: Any, workers: int) -> None:
        self.extractor = extractor
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, run: Sequence[Item]) -> Future[list[list[Any]]]:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init, initargs=(self.extractor,))
            return self._pool.submit(_extract, list(run))

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (for CPU accounting)."""
        pool = self._pool
        procs = getattr(pool, "_processes", None) or {}
        return sorted(procs)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
