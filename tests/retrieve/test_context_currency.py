"""Context that knows time: a snippet whose statement was superseded is labelled (when said,
by which fact, since when) or dropped; current evidence first; the budget holds; both stores."""

from __future__ import annotations

import pytest

from kgmem.embed import count_tokens
from kgmem.errors import InvalidInputError
from kgmem.retrieve import context

from .test_context import _data_lines


def _boston_then_denver(m, g):  # type: ignore[no-untyped-def]
    old = m.add_episode("I live in Boston.", "2019-05-01T10:00:00Z", speaker="Alice", group=g)
    new = m.add_episode("I moved to Denver last month.", "2023-04-10T10:00:00Z",
                        speaker="Alice", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2019-05-01", episode=old.id, group=g)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", episode=new.id, group=g)
    return old, new


def test_superseded_snippet_is_labelled_and_follows_current_evidence(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    old, new = _boston_then_denver(m, g)
    block = context(m, "Where does Alice live? Boston or Denver?", budget_tokens=400, group=g)
    body = _data_lines(block.text)
    assert body[0].startswith("facts valid now") and "as known at" in body[0]
    assert body[1] == '- "Alice lives in Denver" (since 2023-03)'  # the current fact first
    boston = next(ln for ln in body if "I live in Boston." in ln)
    denver = next(ln for ln in body if "I moved to Denver" in ln)
    assert boston.endswith('(said 2019-05-01 10:00; superseded by "Alice lives in Denver" '
                           'since 2023-03)')
    assert "superseded" not in denver
    assert body.index(denver) < body.index(boston)  # current evidence before the old one
    [note] = block.superseded
    assert (note.episode_id, note.fact, note.by_fact) == (
        old.id, "Alice lives in Boston", "Alice lives in Denver")
    assert not note.dropped


def test_superseded_snippet_dropped_on_request(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    old, new = _boston_then_denver(m, g)
    block = context(m, "Where does Alice live? Boston or Denver?", budget_tokens=400, group=g,
                    superseded="drop")
    assert "I live in Boston." not in block.text and "I moved to Denver" in block.text
    assert [e.id for e in block.episodes] == [new.id]
    assert [(n.episode_id, n.dropped) for n in block.superseded] == [(old.id, True)]
    with pytest.raises(InvalidInputError):
        context(m, "Alice", group=g, superseded="hide")  # type: ignore[arg-type]


def test_snippet_current_at_the_asked_valid_time_is_not_labelled(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    _boston_then_denver(m, g)
    block = context(m, "Where does Alice live? Boston?", budget_tokens=400, group=g,
                    valid_at="2020-06-01")
    body = _data_lines(block.text)
    assert body[0] == "facts valid at 2020-06-01, as known at " + body[0].split("known at ")[1]
    assert '- "Alice lives in Boston" (2019-05-01 to 2023-03)' in body
    assert "superseded" not in block.text and block.superseded == []


def test_invalidated_fact_without_successor_says_when_it_ended(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    ep = m.add_episode("I work at Acme.", "2021-02-01T09:00:00Z", speaker="Alice", group=g)
    f = m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2021-02", episode=ep.id, group=g)
    m.invalidate(f.fact_id, "2023-11", group=g)  # the clock reads 2024-01
    block = context(m, "Where does Alice work? Acme?", budget_tokens=300, group=g)
    line = next(ln for ln in _data_lines(block.text) if "I work at Acme." in ln)
    assert line.endswith('(said 2021-02-01 09:00; "Alice works at Acme" ended 2023-11)')


def test_labels_stay_within_the_budget(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    _boston_then_denver(m, g)
    for budget in (60, 80, 100, 130, 400):
        block = context(m, "Where does Alice live? Boston or Denver?", budget_tokens=budget,
                        group=g)
        assert block.tokens == count_tokens(block.text) <= budget
        if "I live in Boston." in block.text:  # never without its label
            assert "superseded by" in block.text


def test_label_names_the_current_value_when_the_closing_fact_was_itself_superseded(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    old, new = _boston_then_denver(m, g)
    mid = m.add_episode("Austin for now.", "2021-01-10T10:00:00Z", speaker="Alice", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Austin", valid_at="2021-01", episode=mid.id, group=g)
    block = context(m, "Where does Alice live? Boston, Austin or Denver?", budget_tokens=400,
                    group=g)
    notes = {n.fact: n.by_fact for n in block.superseded}
    assert notes == {"Alice lives in Boston": "Alice lives in Denver",
                     "Alice lives in Austin": "Alice lives in Denver"}
