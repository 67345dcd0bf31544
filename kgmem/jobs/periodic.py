"""A job of the server process run every ``interval`` seconds on its own thread (the first run
when it starts): retention (:mod:`kgmem.jobs.retention_schedule`) and consolidation
(:mod:`kgmem.jobs.consolidate_schedule`) inside ``kgmem serve``.

A run that raises is logged and counted, never fatal: the next run tries again. ``stop`` asks
the thread to stop and waits for the run under way (a job checks :meth:`stopping` between its
steps, each of them one transaction).
"""

from __future__ import annotations

import logging
import threading

from ..names import check_group


def parse_groups(spec: str | None) -> list[str] | None:
    """A ``KGMEM_*_GROUPS`` setting ('a,b') as checked group names; None (unset): every group."""
    if spec is None or not spec.strip():
        return None
    return [check_group(g.strip()) for g in spec.split(",") if g.strip()]


class Periodic:
    name = "periodic"

    def __init__(self, interval: float, log: logging.Logger) -> None:
        self.interval = interval
        self.log = log
        self.runs = 0  # runs finished (failed or not)
        self.failures = 0  # runs (or steps of a run) that raised
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> object:
        raise NotImplementedError

    def describe(self) -> str:
        return f"every {self.interval:g}s"

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name=f"kgmem-{self.name}",
                                        daemon=True)
        self._thread.start()
        self.log.info("%s: %s", self.name, self.describe())

    def stop(self) -> None:
        """Ask the thread to stop and wait for it (at most the step under way)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # never fatal: the next run tries again
                self.failures += 1
                self.log.exception("%s: run failed", self.name)
            self.runs += 1
            self._stop.wait(self.interval)
