"""The background indexer of the server process (``kgmem serve``): embeds what writes queued,
so that no request does it. A search embeds at most a small bounded part of its own group's
backlog (:data:`kgmem.store.search_reads.REQUEST_INDEX_CHARS`) and answers for the rest from
keyword and time signals, saying how much is pending; this thread catches up with the rest,
group by group (one group's backlog does not keep another's waiting), a small batch at a
time, every ``interval`` seconds while there is nothing to do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..memory.facade import Memory
from .periodic import Periodic

log = logging.getLogger("kgmem.index")

PER_GROUP = 32  # items per group per round: short rounds, so a stop waits little


class BackgroundIndexer(Periodic):
    name = "indexer"

    def __init__(self, memory: Callable[[], Memory], interval: float,
                 groups: list[str] | None = None) -> None:
        super().__init__(interval, log)
        self._memory = memory
        self.groups = groups  # None: every group of the store
        self.indexed = 0  # items embedded by the runs so far

    def describe(self) -> str:
        return f"embedding what writes queued, checked every {self.interval:g}s"

    def run_once(self) -> int:
        """Rounds until the backlog is empty (or a stop is asked); returns the items done."""
        from ..retrieve import index_round

        m = self._memory()
        total = 0
        while not self.stopping():
            n = index_round(m, PER_GROUP, groups=self.groups, should_stop=self.stopping)
            if not n:
                break
            total += n
        if total:
            log.debug("indexer: %d items embedded", total)
        self.indexed += total
        return total
