"""Memory.groups on both stores: the groups holding data (what MCP's list_groups shows)."""

from __future__ import annotations

from collections.abc import Callable

from kgmem.memory.facade import Memory

from ..conftest import fresh_group


def test_groups_lists_every_group_with_data_and_forgets_an_erased_one(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    a, b, c = fresh_group("ga"), fresh_group("gb"), fresh_group("gc")
    m.assert_fact("Alice", "LIVES_IN", "Boston", group=a)
    m.add_episode("Bob likes tea.", "2024-01-02", speaker="Bob", group=b)
    m.assert_fact("Zed", "LIVES_IN", "Oslo", group=c)
    m.erase(group=c, whole_group=True)
    groups = m.groups()
    assert {a, b} <= set(groups) and c not in groups
    assert groups == sorted(groups)
