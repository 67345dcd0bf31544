"""Consolidation on a schedule inside the server: with KGMEM_CONSOLIDATE_INTERVAL the app
fills every entity's stored summary (the Neo4j Entity node's ``summary``) without a profile
being read, keeps it current after a write, leaves groups it was not given alone, and stops
with the app; on both stores."""

from __future__ import annotations

import time
from collections.abc import Callable

from kgmem.jobs.consolidate_schedule import ConsolidationScheduler
from tests.conftest import ManualClock, fresh_group

from .conftest import client_for


def _wait(cond: Callable[[], bool], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "the scheduled run did not happen in time"
        time.sleep(0.02)


def test_scheduled_consolidation_fills_and_refreshes_stored_summaries(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    m = make_memory(clock=clock)
    g, other = fresh_group("cons"), fresh_group("cons-other")
    alice = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g).subject_id
    theirs = m.assert_fact("Bob", "LIVES_IN", "Rome", valid_at="2020", group=other).subject_id
    clock.advance(seconds=1)

    def stored(group: str, eid: str) -> str:
        e = m.store.get_entity(group, eid)
        return "" if e is None else e.summary

    with client_for(m, consolidate_interval=0.05, consolidate_groups=g) as c:
        job: ConsolidationScheduler = c.app.state.consolidation  # type: ignore[attr-defined]
        _wait(lambda: stored(g, alice) != "")
        assert stored(g, alice) == "Now: Alice lives in Boston (since 2021)."
        m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
        clock.advance(seconds=1)
        _wait(lambda: "Denver" in stored(g, alice))
        assert stored(g, alice).startswith("Now: Alice lives in Denver (since 2023-03). "
                                           "Before: Alice lives in Boston (2021 to 2023-03).")
        _wait(lambda: job.changed >= 4)  # Alice twice, Boston twice (Alice left), Denver
        assert job.failures == 0
    assert not job.running
    assert stored(other, theirs) == ""  # not a group it was given
