"""Undoing a merge gives back what was said through the merged entity's names while it was
merged (issue 32): those facts went to the survivor; after the undo they are the merged
entity's again, as a split moves the facts asserted through an alias. Both stores."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kgmem.errors import ConflictError
from kgmem.jobs.check import check_store
from kgmem.memory import merges
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


class _Crash(RuntimeError):
    """The process dying between the steps of an undo."""


def _merged_and_told(m: Memory, g: str) -> str:
    """A merge, then facts told through the merged name (one as subject, one as object)."""
    m.assert_fact("Bob", "LIVES_IN", "Oslo", group=g)
    m.assert_fact("Robert", "WORKS_AT", "Acme", group=g)
    merge = m.merge_entities("Robert", "Bob", group=g)
    m.assert_fact("Bob", "LIKES", "tea", group=g)
    m.assert_fact("Ann", "KNOWS", "Bob", group=g)
    return merge.id


def _state(m: Memory, g: str) -> tuple[list[str], list[str], list[str]]:
    """Facts, entity names, and the change feed (kinds: fact ids differ between memories)."""
    return (sorted(f.describe() for f in m.facts(group=g)),
            sorted(e.name for e in m.entities(group=g) if e.merged_into is None),
            sorted(c.kind for c in m.changes("1970-01-01T00:00:00Z", group=g)))


@pytest.mark.parametrize("moved_before_crash", [0, 1])
def test_an_undo_of_a_merge_cut_short_by_a_crash_is_finished_by_undoing_again(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch,
        moved_before_crash: int) -> None:
    """Undoing a merge is the undo change, then one write per fact told through the merged
    name moved back. A crash in between (before any move, or after one) leaves the merge
    undone and facts on the survivor; undoing again finishes the move instead of refusing
    as "already undone", and the memory ends as an uninterrupted undo leaves it."""
    m = make_memory()
    whole, cut = fresh_group("undo-whole"), fresh_group("undo-cut")
    m.undo(_merged_and_told(m, whole), group=whole)
    merge = _merged_and_told(m, cut)

    real = merges._move_fact
    calls: list[str] = []

    def crashing(*args: object, **kw: object) -> dict[str, str] | None:
        if len(calls) == moved_before_crash:
            raise _Crash
        calls.append("moved")
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(merges, "_move_fact", crashing)
    with pytest.raises(_Crash):
        m.undo(merge, group=cut)
    monkeypatch.setattr(merges, "_move_fact", real)
    assert _state(m, cut) != _state(m, whole)  # half-done: facts left on the survivor

    resumed = m.undo(merge, group=cut)
    assert resumed.kind == "undo" and resumed.undoes == merge
    assert _state(m, cut) == _state(m, whole)
    assert _state(m, whole)[0] == ["Ann KNOWS Bob [?, now)", "Bob LIKES tea [?, now)",
                                   "Bob LIVES_IN Oslo [?, now)", "Robert WORKS_AT Acme [?, now)"]
    for g in (whole, cut):
        report = check_store(m.store, g, m.vocabulary)
        assert report.ok, report.to_dict()
    with pytest.raises(ConflictError, match="already undone"):  # finished: refused as before
        m.undo(merge, group=cut)
