"""Merges are reversible: ``split_alias`` on every store."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.errors import InvalidInputError, NotFoundError
from tests.conftest import fresh_group
from tests.resolve.helpers import said


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def believed(m, g, **kw):  # type: ignore[no-untyped-def]
    """Versions with the entity in the asked role (symmetric reads also answer the other side)."""
    found = m.facts(group=g, valid_at="1900-01-01", valid_to="2999-01-01", **kw)
    return [f for f in found
            if all(key in (getattr(f, f"{role}_id"), getattr(f, role)) for role, key in kw.items())]


def test_split_alias_moves_facts_asserted_through_it(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    chen = said(m, "Alice Chen", "WORKS_AT", "Acme", valid_at="2020-01-01",
                         group=g).subject_id
    ep = m.add_episode("Alice moved to Boston", reference_time="2021-03-01", group=g,
                       extract=False)
    lives = said(m, "Alice", "LIVES_IN", "Boston", valid_at="2021-03", invalid_at="2023",
                          episode=ep.id, group=g)
    married = said(m, "Bob", "MARRIED_TO", "alice", valid_at="2019-06-01", group=g)
    own = said(m, "Alice Chen", "HAS_ROLE", "engineer", group=g)
    assert lives.subject_id == married.object_id == chen
    [merge] = m.resolutions(group=g)
    assert merge.method == "person_short" and len(merge.facts) == 2
    before_split = clock.advance(days=1)
    clock.advance(days=1)

    res = m.split_alias("Alice Chen", "Alice", group=g)

    new = res.new_entity
    assert new.name == "Alice" and new.id != chen and not res.resumed
    assert res.entity.id == chen and "Alice" not in res.entity.aliases
    assert m.entity("Alice Chen", group=g)["entity"].aliases == []
    # the facts moved: the object by correct(), the subject by retract + re-assert
    [moved_lives] = believed(m, g, subject=new.id)
    assert (moved_lives.predicate, moved_lives.object) == ("LIVES_IN", "Boston")
    assert (moved_lives.valid_at, moved_lives.invalid_at) == (utc(2021, 3, 1), utc(2023, 1, 1))
    assert moved_lives.valid_precision == lives.valid_precision
    assert moved_lives.episodes == [ep.id]
    assert "split off" in moved_lives.reason
    [moved_married] = believed(m, g, object=new.id)
    assert moved_married.fact_id == married.fact_id  # same lineage, corrected
    assert moved_married.valid_at == utc(2019, 6, 1) and moved_married.subject == "Bob"
    # Alice Chen keeps her own facts only
    assert {(f.predicate, f.object) for f in believed(m, g, subject=chen)} == {
        ("WORKS_AT", "Acme"), ("HAS_ROLE", "engineer")}
    assert own.fact_id in {f.fact_id for f in believed(m, g, subject=chen)}
    # the past is kept: as known before the split, Alice Chen lived in Boston
    old = m.facts("Alice Chen", predicate="LIVES_IN", valid_at="2022-01-01",
                  known_at=before_split, group=g)
    assert [f.fact_id for f in old] == [lives.fact_id]
    assert m.fact(lives.fact_id, valid_at="2022-01-01", group=g) is None  # retracted now
    # future mentions resolve to the new entity, not back to Alice Chen
    assert said(m, "Alice", "HAS_HOBBY", "chess", group=g).subject_id == new.id
    assert m.entity("Alice", group=g)["entity"].id == new.id
    # the records: the merge is marked split, the split lists what moved
    recs = m.resolutions(group=g)
    assert [r.method for r in recs] == ["person_short", "split"]
    assert recs[0].split is True
    assert recs[1].new_entity_id == new.id
    assert {(f["fact_id"], f["action"]) for f in recs[1].facts} == {
        (lives.fact_id, "reasserted"), (married.fact_id, "corrected")}
    assert [r.id for r in m.resolutions("Alice Chen", group=g)] == [r.id for r in recs]


def test_split_full_name_alias_off_a_short_name(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    alice = said(m, "Alice", "LIVES_IN", "Boston", group=g).subject_id
    wrong = said(m, "Alice Chen", "WORKS_AT", "Initech", group=g)
    assert wrong.subject_id == alice
    res = m.split_alias(alice, "Alice Chen", group=g)
    chen = res.new_entity.id
    assert [f.object for f in believed(m, g, subject=chen)] == ["Initech"]
    assert [f.object for f in believed(m, g, subject=alice)] == ["Boston"]
    assert said(m, "Alice Chen", "LIVES_IN", "Denver", group=g).subject_id == chen
    # the new entity inherited the person evidence: the short name is now ambiguous
    # between "Alice" and a full-name person, so "Alice Wong" attaches to neither
    wong = said(m, "Alice Wong", "LIVES_IN", "Paris", group=g).subject_id
    assert wong not in (alice, chen)


def test_split_is_idempotent_and_resumable(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    said(m, "Jonathan Smith", "WORKS_AT", "Acme", group=g)
    v = said(m, "Jonathan Smtih", "LIVES_IN", "Boston", group=g)
    first = m.split_alias("Jonathan Smith", "Jonathan Smtih", group=g)
    again = m.split_alias("Jonathan Smith", "jonathan smtih", group=g)
    assert again.resumed and again.facts == [] and again.new_entity.id == first.new_entity.id
    assert [f["fact_id"] for f in first.facts] == [v.fact_id]
    assert len(believed(m, g, subject=first.new_entity.id)) == 1


def test_split_errors(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    said(m, "Alice Chen", "WORKS_AT", "Acme", group=g)
    said(m, "Alice", "LIVES_IN", "Boston", group=g)
    with pytest.raises(InvalidInputError):
        m.split_alias("Alice Chen", "alice chen", group=g)  # its own name
    with pytest.raises(NotFoundError):
        m.split_alias("Alice Chen", "Bob", group=g)
    with pytest.raises(NotFoundError):
        m.split_alias("Nobody", "Alice", group=g)


def test_split_works_for_user_aliases_too(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    said(m, "Robert", "WORKS_AT", "Acme", group=g)
    m.add_alias("Robert", "Bobby", group=g)
    v = said(m, "Bobby", "LIVES_IN", "Boston", group=g)
    res = m.split_alias("Robert", "Bobby", group=g)
    assert [f["fact_id"] for f in res.facts] == [v.fact_id]
    assert m.entity("Robert", group=g)["entity"].aliases == []
    assert [f.object for f in believed(m, g, subject="Bobby")] == ["Boston"]
