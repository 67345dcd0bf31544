"""The 8-character fact ids the tables print are accepted by every verb that takes a fact id,
on every store; a prefix several facts share is refused with a clear error."""

from __future__ import annotations

import itertools

import pytest

import kgmem.core.writes as writes_module
from kgmem.errors import InvalidInputError, NotFoundError
from tests.conftest import fresh_group


def test_prefixes_resolve_and_ambiguity_is_refused(
        make_memory, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    g = fresh_group()
    tag = g[-8:]  # ids unique to this test run, two of them sharing 12 characters
    ids = iter([f"{tag}-aaaa-4aaa-8aaa-100000000000", f"{tag}-aaaa-4aaa-8aaa-200000000000",
                f"{tag}-bbbb-4bbb-8bbb-000000000003"])
    real = writes_module.new_id
    counter = itertools.count()
    monkeypatch.setattr(writes_module, "new_id", lambda: next(ids) if next(counter) % 2 == 0
                        else real())  # fact ids from the list, change ids fresh
    m = make_memory()
    a = m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    b = m.assert_fact("Ben", "LIVES_IN", "Rome", valid_at="2020", group=g)
    c = m.assert_fact("Cai", "LIVES_IN", "Lima", valid_at="2020", group=g)
    monkeypatch.setattr(writes_module, "new_id", real)
    assert (a.fact_id[:8], b.fact_id[:8]) == (tag, tag)
    short_c = c.fact_id[:13]  # unique: the table's 8 characters are shared here by design
    m.correct(short_c, object="Cusco", group=g)
    assert m.fact(short_c, group=g).object == "Cusco"  # type: ignore[union-attr]
    assert [v.object for v in m.history(short_c, group=g)] == ["Lima", "Cusco"]
    m.invalidate(b.fact_id[:-1], "2022", group=g)  # all but the last character
    assert m.facts("Ben", group=g, valid_at="2023") == []
    m.retract(a.fact_id[:-2], group=g)
    assert m.facts("Ann", group=g) == []
    with pytest.raises(InvalidInputError, match="ambiguous.*give more characters"):
        m.correct(tag, object="Paris", group=g)
    with pytest.raises(NotFoundError):  # a prefix nothing has: not found, as a full id is
        m.correct("ffffff99", object="Paris", group=g)
    with pytest.raises(NotFoundError):  # another group's facts are not reachable by prefix
        m.correct(short_c, object="Paris", group=fresh_group())
