"""The framework-free memory tools every adapter gives a model (kgmem.integrations.tools),
on both stores."""

from __future__ import annotations

from kgmem.integrations.tools import MemoryTools
from tests.conftest import ManualClock, fresh_group


def test_remember_says_what_it_learnt_when_the_clock_did_not_move(make_memory) -> None:  # type: ignore[no-untyped-def]
    """Two messages recorded at one instant (an injected clock that did not move): each
    reply names the fact learnt from it (the second used to name none: its change was
    recorded at the instant it read changes after)."""
    tools = MemoryTools(make_memory(extractor="offline", clock=ManualClock()),
                        fresh_group("tools"), speaker="Maya")
    first = tools.remember("I moved to Denver last March.", "2023-05-08T10:00:00Z")
    second = tools.remember("I work at Medtronic.", "2023-05-08T10:01:00Z")
    assert "learnt: Maya LIVES_IN Denver [2023-03, now)" in first
    assert "learnt: Maya WORKS_AT Medtronic" in second and "Denver" not in second
