"""Consolidation on a schedule: with ``KGMEM_CONSOLIDATE_INTERVAL`` set, ``kgmem serve`` brings
the entity summaries of ``KGMEM_CONSOLIDATE_GROUPS`` (unset: every group of the store) up to
date every so many seconds (:func:`kgmem.memory.consolidate.consolidate`), so the Neo4j Entity nodes'
``summary`` is current without anyone reading a profile. A failing group is logged and
retried at the next run; stop waits at most for the entity under way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..memory.consolidate import consolidate
from ..memory.facade import Memory
from .periodic import Periodic

log = logging.getLogger("kgmem.consolidate")


class ConsolidationScheduler(Periodic):
    name = "consolidation"

    def __init__(self, memory: Callable[[], Memory], interval: float,
                 groups: list[str] | None = None) -> None:
        super().__init__(interval, log)
        self._memory = memory
        self.groups = groups
        self.changed = 0  # summary histories changed by the runs so far

    def describe(self) -> str:
        return (f"entity summaries every {self.interval:g}s in "
                + ("every group" if self.groups is None else ", ".join(self.groups)))

    def run_once(self) -> int:
        m = self._memory()
        total = 0
        for group in self.groups if self.groups is not None else m.groups():
            if self.stopping():
                break
            try:
                n = consolidate(m.store, group, m.now(), should_stop=self.stopping)
            except Exception:
                self.failures += 1
                log.exception("consolidation: group %s failed", group)
                continue
            if n:
                log.info("consolidation: group %s: %d summar%s changed", group, n,
                         "y" if n == 1 else "ies")
            total += n
        self.changed += total
        return total
