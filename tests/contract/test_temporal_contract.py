"""The store contract: the same temporal behaviour on every store (embedded and Neo4j)."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import pytest

from kgmem.errors import (
    ClockError,
    ConflictError,
    InvalidInputError,
    InvalidIntervalError,
    InvalidTimeError,
    NotFoundError,
)
from tests.conftest import ManualClock, fresh_group


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def timeline(m, subject, predicate, group):  # type: ignore[no-untyped-def]
    """The currently believed intervals of a (subject, predicate), sorted."""
    out = []
    for v in m.history(subject, group=group):
        if v.expired_at is None and v.predicate == predicate and v.subject == subject:
            out.append((v.object, v.valid_at, v.invalid_at))
    return sorted(out, key=lambda x: (x[1] is not None, x[1] or utc(1, 1, 1)))


def test_supersession_closes_previous_value_at_new_start(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g)
    clock.advance(days=1)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
    assert timeline(m, "Alice", "LIVES_IN", g) == [
        ("Boston", utc(2021, 1, 1), utc(2023, 3, 1)),
        ("Denver", utc(2023, 3, 1), None),
    ]
    assert [f.object for f in m.facts("Alice", valid_at="2022-06-01", group=g)] == ["Boston"]
    assert [f.object for f in m.facts("Alice", group=g)] == ["Denver"]


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_supersession_is_order_independent(make_memory, order) -> None:  # type: ignore[no-untyped-def]
    """Every arrival order of the same dated assertions gives the same believed intervals."""
    facts = [("Boston", "2019-05"), ("Austin", "2021"), ("Denver", "2023-03-01"),
             ("Paris", "2020-02-29")]
    clock = ManualClock()
    m, g = make_memory(clock=clock), fresh_group()
    for i in order:
        obj, start = facts[i]
        m.assert_fact("Alice", "LIVES_IN", obj, valid_at=start, group=g)
        clock.advance(hours=1)
    assert timeline(m, "Alice", "LIVES_IN", g) == [
        ("Boston", utc(2019, 5, 1), utc(2020, 2, 29)),
        ("Paris", utc(2020, 2, 29), utc(2021, 1, 1)),
        ("Austin", utc(2021, 1, 1), utc(2023, 3, 1)),
        ("Denver", utc(2023, 3, 1), None),
    ]


def test_retracting_a_middle_value_rejoins_neighbours(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g)
    austin = m.assert_fact("Alice", "LIVES_IN", "Austin", valid_at="2021", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023", group=g)
    clock.advance(days=1)
    before = clock()
    clock.advance(days=1)
    m.retract(austin.fact_id, group=g)
    assert timeline(m, "Alice", "LIVES_IN", g) == [
        ("Boston", utc(2020, 1, 1), utc(2023, 1, 1)),
        ("Denver", utc(2023, 1, 1), None),
    ]
    # the retracted belief is still visible as known before the retraction
    old = m.facts("Alice", valid_at="2022-01-01", known_at=before, group=g)
    assert [f.object for f in old] == ["Austin"]


def test_invalidate_leaves_a_gap_until_the_next_value(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    b = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023", group=g)
    clock.advance(days=1)
    m.invalidate(b.fact_id, "2021-06-01", reason="moved out", group=g)
    assert m.facts("Alice", valid_at="2022-01-01", group=g) == []
    assert [f.object for f in m.facts("Alice", valid_at="2021-01-01", group=g)] == ["Boston"]


def test_correct_changes_object_in_same_lineage_and_keeps_old_belief(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    f = m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2020", group=g)
    t0 = clock()
    clock.advance(days=1)
    m.correct(f.fact_id, object="Globex", group=g)
    now = m.facts("Bob", "WORKS_AT", group=g)
    assert [(x.fact_id, x.object) for x in now] == [(f.fact_id, "Globex")]
    assert [x.object for x in m.facts("Bob", known_at=t0, group=g)] == ["Acme"]
    assert len(m.history(f.fact_id, group=g)) == 2


def test_undo_restores_a_wrong_automatic_invalidation(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "LEADS", "ML team", valid_at="2022", group=g)
    clock.advance(days=1)
    wrong = m.assert_fact("Alice", "LEADS", "Infra team", valid_at="2024", group=g)
    closed = [v for v in m.history("Alice", group=g) if v.caused_by == wrong.fact_id]
    assert closed and "superseded" in closed[0].reason  # explainable
    clock.advance(days=1)
    undo = m.undo(wrong.change_id, group=g)
    assert undo.undoes == wrong.change_id
    assert timeline(m, "Alice", "LEADS", g) == [("ML team", utc(2022, 1, 1), None)]
    with pytest.raises(ConflictError):
        m.undo(wrong.change_id, group=g)
    clock.advance(days=1)
    m.undo(undo.id, group=g)  # redo
    assert [f.object for f in m.facts("Alice", "LEADS", group=g)] == ["Infra team"]


def test_multi_valued_predicates_do_not_supersede(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "LIKES", "hiking", valid_at="2020", group=g)
    m.assert_fact("Alice", "LIKES", "jazz", valid_at="2021", group=g)
    assert sorted(f.object for f in m.facts("Alice", "LIKES", group=g)) == ["hiking", "jazz"]


def test_declared_predicate_becomes_functional(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.declare_predicate("DRIVES", functional=True, group=g)  # declarations are per group
    m.assert_fact("Alice", "DRIVES", "Civic", valid_at="2019", group=g)
    m.assert_fact("Alice", "DRIVES", "Tesla", valid_at="2022", group=g)
    assert [f.object for f in m.facts("Alice", "DRIVES", group=g)] == ["Tesla"]


def test_unknown_start_is_valid_at_any_earlier_time(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    f = m.assert_fact("Carol", "SPEAKS", "Welsh", group=g)
    assert f.valid_at is None and not f.start_known
    assert m.facts("Carol", valid_at="1900-01-01", group=g)


def test_valid_time_defaults_to_episode_reference_time_not_now(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    ep = m.add_episode("I live in Lisbon", "2022-04-05T10:00:00Z", speaker="Dana", group=g)
    f = m.assert_fact("Dana", "LIVES_IN", "Lisbon", episode=ep.id, group=g)
    assert f.valid_at == utc(2022, 4, 5, 10)
    assert f.episodes == [ep.id]


def test_known_at_views_differ_from_valid_at_views(make_memory, clock) -> None:
    """'now', 'as of X' and 'as known at T' give three different answers."""
    m, g = make_memory(clock=clock), fresh_group()
    clock.set(utc(2023, 1, 10))
    m.assert_fact("Alice", "HAS_ROLE", "engineer", valid_at="2020", group=g)
    clock.set(utc(2024, 6, 1))
    m.assert_fact("Alice", "HAS_ROLE", "manager", valid_at="2022-07", group=g)  # learnt late
    now = [f.object for f in m.facts("Alice", group=g)]
    as_of = [f.object for f in m.facts("Alice", valid_at="2021-01-01", group=g)]
    as_known = [f.object for f in m.facts("Alice", valid_at="2023-06-01", known_at="2024-01-01",
                                          group=g)]
    assert (now, as_of, as_known) == (["manager"], ["engineer"], ["engineer"])


def test_groups_never_leak(make_memory, clock) -> None:
    m = make_memory(clock=clock)
    g1, g2 = fresh_group(), fresh_group()
    f = m.assert_fact("Alice", "LIVES_IN", "Boston", group=g1)
    m.assert_fact("Alice", "LIVES_IN", "Paris", group=g2)
    assert [x.object for x in m.facts("Alice", group=g2)] == ["Paris"]
    with pytest.raises(NotFoundError):
        m.retract(f.fact_id, group=g2)
    with pytest.raises(NotFoundError):
        m.history(f.fact_id, group=g2 + "x")
    assert m.paths("Alice", "Paris", group=g2) and not m.facts(object="Boston", group=g2)


def test_changes_since(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g)
    t = clock()
    clock.advance(days=1)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023", group=g)
    changes = m.changes(t, group=g)
    assert [c.kind for c in changes] == ["assert"]
    versions = m.changed_versions(t, group=g)
    assert {(v.object, v.expired_at is None) for v in versions} == {
        ("Boston", False), ("Boston", True), ("Denver", True)}


def test_paths_slice_and_sequenced(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2018", invalid_at="2020", group=g)
    m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2019", group=g)
    m.assert_fact("Bob", "FRIEND_OF", "Carol", valid_at="2015", group=g)
    # now: Alice no longer at Acme -> no path in the current slice
    assert m.paths("Alice", "Carol", max_hops=3, group=g) == []
    past = m.paths("Alice", "Carol", max_hops=3, valid_at="2019-06-01", group=g)
    assert [[h.fact.predicate for h in p.hops] for p in past] == [
        ["WORKS_AT", "WORKS_AT", "FRIEND_OF"]]
    seq = m.paths("Alice", "Carol", max_hops=3, mode="sequenced", group=g)
    assert [(p.valid_from, p.valid_to) for p in seq] == [(utc(2019, 1, 1), utc(2020, 1, 1))]


def test_erase_episode_removes_derived_facts_at_every_known_at(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    ep = m.add_episode("Eve lives in Oslo", "2021-01-01", group=g)
    t0 = clock()
    clock.advance(days=1)
    m.assert_fact("Eve", "LIVES_IN", "Oslo", episode=ep.id, group=g)
    kept = m.assert_fact("Eve", "LIKES", "skiing", group=g)
    clock.advance(days=1)
    er = m.erase(episode=ep.id, group=g)
    assert er.kind == "episode" and er.counts["facts"] == 1
    assert [f.object for f in m.facts("Eve", group=g)] == ["skiing"]
    for k in (t0, clock()):
        assert all(f.object != "Oslo" for f in m.facts("Eve", known_at=k, group=g))
    assert m.facts("Eve", group=g)[0].fact_id == kept.fact_id
    with pytest.raises(NotFoundError):
        m.episode(ep.id, group=g)
    assert [e.kind for e in m.erasures(group=g)] == ["episode"]


def test_erase_group(make_memory, clock) -> None:
    m = make_memory(clock=clock)
    g, other = fresh_group(), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", group=g)
    m.assert_fact("Alice", "LIVES_IN", "Boston", group=other)
    m.erase(whole_group=True, group=g)
    assert m.facts(group=g) == [] and m.entities(group=g) == []
    assert len(m.facts(group=other)) == 1


def test_idempotent_episode_and_duplicate_assertion(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    a = m.add_episode("hello", "2024-01-01", speaker="Ann", group=g)
    b = m.add_episode("hello", "2024-01-01", speaker="Ann", group=g)
    assert a.id == b.id and len(m.episodes(group=g)) == 1
    f1 = m.assert_fact("Ann", "LIKES", "tea", valid_at="2024", group=g)
    f2 = m.assert_fact("ann", "likes", "Tea", valid_at="2024", group=g)
    assert f1.fact_id == f2.fact_id and len(m.facts(group=g)) == 1


# ---------------------------------------------------------------- bad input changes nothing
BAD_CALLS = [
    (lambda m, g: m.assert_fact("", "LIVES_IN", "Boston", group=g), InvalidInputError),
    (lambda m, g: m.assert_fact("A", "  ", "Boston", group=g), InvalidInputError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "   ", group=g), InvalidInputError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", valid_at="not a date", group=g),
     InvalidTimeError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", valid_at="2024-13-01", group=g),
     InvalidTimeError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", valid_at="2024", invalid_at="2023",
                                group=g), InvalidIntervalError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", valid_at="2024", invalid_at="2024",
                                group=g), InvalidIntervalError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", group="bad group!"), InvalidInputError),
    (lambda m, g: m.assert_fact("A", "LIVES_IN", "B", episode="nope", group=g), NotFoundError),
    (lambda m, g: m.retract("no-such-fact", group=g), NotFoundError),
    (lambda m, g: m.invalidate("no-such-fact", "2024", group=g), NotFoundError),
    (lambda m, g: m.undo("no-such-change", group=g), NotFoundError),
    (lambda m, g: m.add_episode("", "2024-01-01", group=g), InvalidInputError),
    (lambda m, g: m.add_episode("x", "yesterday-ish", group=g), InvalidTimeError),
    (lambda m, g: m.facts(valid_at="garbage", group=g), InvalidTimeError),
    (lambda m, g: m.paths("A", "B", max_hops=0, group=g), InvalidInputError),
]


@pytest.mark.parametrize("call,error", BAD_CALLS)
def test_bad_input_raises_specific_error_and_changes_nothing(make_memory, clock, call, error
                                                              ) -> None:  # type: ignore[no-untyped-def]
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("A", "LIVES_IN", "Boston", valid_at="2020", group=g)
    before = (m.history("A", group=g), m.entities(group=g), m.episodes(group=g))
    with pytest.raises(error) as info:
        call(m, g)
    assert str(info.value)  # a message a person can read
    assert (m.history("A", group=g), m.entities(group=g), m.episodes(group=g)) == before


def test_invalid_interval_on_invalidate_changes_nothing(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    f = m.assert_fact("A", "LIVES_IN", "Boston", valid_at="2020", group=g)
    before = m.history(f.fact_id, group=g)
    with pytest.raises(InvalidIntervalError, match="must be after"):
        m.invalidate(f.fact_id, "2019-01-01", group=g)
    assert m.history(f.fact_id, group=g) == before


def test_clock_going_backwards_is_rejected_and_changes_nothing(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("A", "LIVES_IN", "Boston", group=g)
    clock.advance(days=-1)
    with pytest.raises(ClockError, match="backwards"):
        m.assert_fact("A", "LIVES_IN", "Denver", group=g)
    assert [f.object for f in m.facts("A", group=g, known_at=clock().replace(year=2100))] == [
        "Boston"]


def test_retracting_twice_is_a_conflict(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    f = m.assert_fact("A", "LIVES_IN", "Boston", group=g)
    m.retract(f.fact_id, group=g)
    with pytest.raises(ConflictError):
        m.retract(f.fact_id, group=g)


def test_symmetric_predicates_answer_from_either_side(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Bob", "MARRIED_TO", "Alice", valid_at="2019-06-01", group=g)
    m.assert_fact("Carol", "FRIEND_OF", "Alice", group=g)
    m.assert_fact("Dan", "WORKS_AT", "Alice", group=g)  # not symmetric: stays one-sided
    clock.advance(days=1)
    about_alice = {(f.subject, f.predicate, f.object) for f in m.facts("Alice", group=g)}
    assert about_alice == {("Bob", "MARRIED_TO", "Alice"), ("Carol", "FRIEND_OF", "Alice")}
    spouse = m.facts("Alice", "MARRIED_TO", group=g)
    assert [(f.subject, f.object, f.valid_at) for f in spouse] == [
        ("Bob", "Alice", utc(2019, 6, 1))]
    # time filters apply to the mirrored side too
    assert m.facts("Alice", "MARRIED_TO", valid_at="2018-01-01", group=g) == []
    assert [f.subject for f in m.facts("Alice", "MARRIED_TO", "Bob", group=g)] == ["Bob"]
    assert m.facts("Alice", "WORKS_AT", group=g) == []
    assert m.facts("Alice", "MARRIED_TO", limit=0, group=g) == []


def test_a_symmetric_relation_told_from_both_sides_is_one_fact(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    a = m.assert_fact("Alice", "MARRIED_TO", "Bob", valid_at="2019", group=g)
    clock.advance(days=1)
    b = m.assert_fact("Bob", "MARRIED_TO", "Alice", valid_at="2019", group=g)
    assert b.fact_id == a.fact_id
    for who in ("Alice", "Bob"):
        assert [(f.subject, f.object) for f in m.facts(who, "MARRIED_TO", group=g)] == [
            ("Alice", "Bob")]
    # a different interval is a different statement (a separate lineage), as for any predicate
    c = m.assert_fact("Bob", "FRIEND_OF", "Alice", valid_at="2010", group=g)
    d = m.assert_fact("Alice", "FRIEND_OF", "Bob", valid_at="2010", group=g)
    e = m.assert_fact("Alice", "FRIEND_OF", "Bob", valid_at="2012", group=g)
    assert c.fact_id == d.fact_id != e.fact_id


def test_a_new_spouse_ends_the_old_marriage_on_both_sides(make_memory, clock) -> None:
    """Symmetric functional predicates: a party has one value at a time whichever side told
    the relation, so Bob marrying Carol ends Alice's marriage to Bob, said from Alice's side."""
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "MARRIED_TO", "Bob", valid_at="2019-06-01", group=g)
    clock.advance(days=1)
    before_carol = clock.t
    clock.advance(days=1)
    carol = m.assert_fact("Carol", "MARRIED_TO", "Bob", valid_at="2022-03-01", group=g)
    clock.advance(days=1)

    def spouses(who: str, **at: object) -> list[tuple[str, str, datetime, datetime | None]]:
        return sorted((f.subject, f.object, f.valid_at, f.invalid_at)
                      for f in m.facts(who, "MARRIED_TO", group=g, **at))  # type: ignore[arg-type]

    alice_bob = ("Alice", "Bob", utc(2019, 6, 1), utc(2022, 3, 1))
    assert spouses("Alice") == []  # now: Bob is married to Carol
    assert spouses("Alice", valid_at="2020-01-01") == [alice_bob]
    assert spouses("Bob") == [("Carol", "Bob", utc(2022, 3, 1), None)]
    assert spouses("Bob", valid_at="2020-01-01") == [alice_bob]
    # what we believed before Carol was told: still open-ended
    assert spouses("Alice", known_at=before_carol) == [
        ("Alice", "Bob", utc(2019, 6, 1), None)]
    # the closed version says why
    closed = [v for v in m.history("Alice", group=g) if v.invalid_at is not None]
    assert closed and closed[-1].caused_by == carol.fact_id
    # retracting the new marriage re-opens the old one; undoing the retraction closes it again
    r = m.retract(carol.fact_id, group=g)
    assert spouses("Alice") == [("Alice", "Bob", utc(2019, 6, 1), None)]
    m.undo(r.id, group=g)
    assert spouses("Alice") == []
    # a correction that moves the new marriage to someone else frees Bob again
    m.correct(carol.fact_id, object="Dan", group=g)
    assert spouses("Alice") == [("Alice", "Bob", utc(2019, 6, 1), None)]
    assert spouses("Dan") == [("Carol", "Dan", utc(2022, 3, 1), None)]


def test_erasing_a_spouse_reopens_the_other_side(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Alice", "MARRIED_TO", "Bob", valid_at="2019", group=g)
    clock.advance(days=1)
    m.assert_fact("Carol", "MARRIED_TO", "Alice", valid_at="2021", group=g)
    clock.advance(days=1)
    assert [f.object for f in m.facts("Bob", "MARRIED_TO", group=g)] == []
    m.erase(entity="Carol", group=g)
    clock.advance(days=1)
    assert [(f.subject, f.object, f.invalid_at) for f in m.facts("Bob", "MARRIED_TO", group=g)
            ] == [("Alice", "Bob", None)]
