"""Archive import into a group that moved on after the export, on both stores: an older
archive must not write back what the target erased or replaced since (it would resurrect
erased content and give a functional fact two current values); an import that writes
nothing new still passes (importing twice is importing once)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from kgmem.errors import ConflictError
from kgmem.memory.facade import Memory

from ..conftest import fresh_group


def _facts(m: Memory, g: str, valid_at: str | None = None) -> list[str]:
    return sorted(v.describe() for v in m.facts("Ann", group=g, valid_at=valid_at))


def test_an_older_archive_does_not_bring_back_what_was_erased_since(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("arch")
    ep = m.add_episode("Ann moved to Quarzwelden", "2022-01-01", group=g, extract=False)
    m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    m.assert_fact("Ann", "LIVES_IN", "Quarzwelden", valid_at="2022", group=g, episode=ep.id)
    old = io.StringIO()
    m.export(old, [g])
    m.import_(io.StringIO(old.getvalue()))  # nothing new: passes, writes nothing
    m.erase(episode=ep.id, group=g)
    after_erase = (_facts(m, g), _facts(m, g, valid_at="2023"), m.store.counts(g))
    with pytest.raises(ConflictError, match="changed in the target"):
        m.import_(io.StringIO(old.getvalue()))
    assert (_facts(m, g), _facts(m, g, valid_at="2023"), m.store.counts(g)) == after_erase
    assert _facts(m, g) == ["Ann LIVES_IN Oslo [2020, now)"]
    assert m.episodes(group=g) == []


def test_an_archive_reimported_after_later_writes_writes_nothing(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("arch")
    m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    old = io.StringIO()
    m.export(old, [g])
    m.assert_fact("Ann", "LIKES", "tea", group=g)
    report = m.import_(io.StringIO(old.getvalue()))
    assert not report.written and report.skipped["lineage"] == 1
