"""Idempotent writes on both stores (issue 32): the same assertion sent twice is one version
and one change; an edit that changes nothing says so (UnchangedError, 409 ``unchanged``)
instead of returning a change; an edit of a fact a later one with the same start replaced
whole writes nothing and names that fact, unless it gives the fact a version again."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kgmem.errors import UnchangedError
from kgmem.memory.facade import Memory

from ..conftest import fresh_group


def _counts(m: Memory, g: str, fact_id: str) -> tuple[int, int]:
    return len(m.changes("2000", group=g)), len(m.history(fact_id, group=g))


def test_the_same_assertion_twice_is_one_version_and_one_change(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("idem")
    for args in (("Ann", "LIVES_IN", "Rome", "2020"), ("Ann", "LIKES", "tea", None),
                 ("Ann", "MARRIED_TO", "Bo", "2019-05-01T10:00:00.123456+02:00")):
        first = m.assert_fact(*args[:3], valid_at=args[3], group=g)
        before = _counts(m, g, first.fact_id)
        again = m.assert_fact(*args[:3], valid_at=args[3], group=g)
        assert again.fact_id == first.fact_id and again.id == first.id
        assert _counts(m, g, first.fact_id) == before


def test_an_edit_that_changes_nothing_says_so(make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("idem")
    f = m.assert_fact("Ann", "LIVES_IN", "Rome", valid_at="2020", group=g)
    m.invalidate(f.fact_id, "2024-06-01", group=g)
    before = _counts(m, g, f.fact_id)
    for edit in (lambda: m.invalidate(f.fact_id, "2024-06-01", group=g),
                 lambda: m.correct(f.fact_id, object="Rome", group=g),
                 lambda: m.correct(f.fact_id, valid_at="2020", invalid_at="2024-06-01",
                                   group=g)):
        with pytest.raises(UnchangedError, match="already says that"):
            edit()
    assert _counts(m, g, f.fact_id) == before


def test_an_edit_of_a_fact_replaced_whole_writes_nothing_and_names_the_replacement(
        make_memory: Callable[..., Memory]) -> None:
    m = make_memory()
    g = fresh_group("idem")
    oslo = m.assert_fact("Bo", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    bergen = m.assert_fact("Bo", "LIVES_IN", "Bergen", valid_at="2020", group=g)
    before = _counts(m, g, oslo.fact_id)
    for edit in (lambda: m.invalidate(oslo.fact_id, "2021", group=g),
                 lambda: m.correct(oslo.fact_id, object="Tromso", group=g)):
        with pytest.raises(UnchangedError) as exc:
            edit()
        assert exc.value.details["replaced_by"] == bergen.fact_id
    assert _counts(m, g, oslo.fact_id) == before
    # an edit that gives it a version again is a real change
    m.correct(oslo.fact_id, valid_at="2019", group=g)
    assert [f.object for f in m.facts("Bo", valid_at="2019-06-01", group=g)] == ["Oslo"]
    assert [f.object for f in m.facts("Bo", group=g)] == ["Bergen"]
