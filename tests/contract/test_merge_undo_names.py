"""Undoing a merge gives back what was said through the merged entity's names while it was
merged (issue 32): those facts went to the survivor; after the undo they are the merged
entity's again, as a split moves the facts asserted through an alias. Both stores."""

from __future__ import annotations

from collections.abc import Callable

from kgmem.memory.facade import Memory

from ..conftest import fresh_group


def test_undo_of_a_merge_returns_facts_said_through_the_merged_name(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("unmerge")
    m.assert_fact("Bob", "LIVES_IN", "Oslo", group=g)
    m.assert_fact("Robert", "WORKS_AT", "Acme", group=g)
    merge = m.merge_entities("Robert", "Bob", group=g)
    said = m.assert_fact("Bob", "LIKES", "tea", group=g)  # Bob means Robert now
    m.assert_fact("Ann", "KNOWS", "Bob", group=g)
    assert said.subject == "Robert"
    m.undo(merge.id, group=g)
    now = sorted(f.describe() for f in m.facts(group=g))
    assert now == ["Ann KNOWS Bob [?, now)", "Bob LIKES tea [?, now)",
                   "Bob LIVES_IN Oslo [?, now)", "Robert WORKS_AT Acme [?, now)"]


def test_undoing_the_undo_merges_the_facts_given_back_too(
        make_memory: Callable[..., Memory]) -> None:
    """Undo of the undo merges again: the facts the undo gave back to the merged entity go
    to the survivor with the rest (they stayed naming the merged entity, which every lookup
    now passes by, so no read by name found them); undoing that un-merges them again."""
    m = make_memory()
    g = fresh_group("unmerge")
    m.assert_fact("Bob", "LIVES_IN", "Oslo", group=g)
    m.assert_fact("Robert", "WORKS_AT", "Acme", group=g)
    merge = m.merge_entities("Robert", "Bob", group=g)
    m.assert_fact("Bob", "LIKES", "tea", group=g)
    m.assert_fact("Ann", "KNOWS", "Bob", group=g)

    def facts_of(name: str) -> list[str]:
        return sorted(f.describe() for f in m.facts(name, group=g))

    merged = facts_of("Robert")
    undo = m.undo(merge.id, group=g)
    again = m.undo(undo.id, group=g)
    assert facts_of("Robert") == facts_of("Bob") == merged
    assert sorted(f.describe() for f in m.facts(object="Robert", group=g)) == [
        "Ann KNOWS Robert [?, now)"]
    m.undo(again.id, group=g)
    assert facts_of("Bob") == ["Ann KNOWS Bob [?, now)", "Bob LIKES tea [?, now)",
                               "Bob LIVES_IN Oslo [?, now)"]  # KNOWS is symmetric
    assert facts_of("Robert") == ["Robert WORKS_AT Acme [?, now)"]
