"""Predicates are data in the store, versioned in transaction time (issue 13, point 2), on
both stores: declarations survive a reopen, a change of cardinality or symmetry is an
explicit, undoable change that recomputes every timeline of the predicate, and a near-miss
predicate is refused with a suggestion."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from kgmem.errors import ConflictError, UnknownPredicateError
from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.memory.facade import Memory
from tests.conftest import ManualClock, fresh_group, neo4j_settings


def spans(m: Memory, subject: str, predicate: str, g: str, **at: Any) -> list[tuple[str, str]]:
    """(object, "[start, end)") of the subject's facts of one predicate, over all valid time."""
    found = m.facts(subject, predicate, group=g, valid_at="1900", valid_to="2999", **at)
    return sorted((f.object, f"[{f.valid_at:%Y}, {f.invalid_at:%Y})" if f.invalid_at
                   else f"[{f.valid_at:%Y}, now)") for f in found)


@pytest.fixture
def reopen(store_kind: str) -> Iterator[Callable[[Memory, ManualClock], Memory]]:
    """A new Memory on the same data: the embedded directory closed and opened again, or a new
    Neo4jStore (its own driver and caches) on the same server."""
    opened: list[Memory] = []

    def again(m: Memory, clock: ManualClock) -> Memory:
        if store_kind == "embedded":
            path = Path(m.store.path)  # type: ignore[attr-defined]
            m.close()
            fresh = Memory(path, clock=clock)
        else:
            from kgmem.store.neo4j import Neo4jStore

            fresh = Memory(store=Neo4jStore(**neo4j_settings()), clock=clock)
        opened.append(fresh)
        return fresh

    yield again
    for m in opened:
        m.close()


def test_issue_example_a_declaration_survives_reopening_the_store(make_memory, clock, reopen
                                                                  ) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.declare_predicate("DRIVES", functional=True, group=g)
    m.assert_fact("Dan", "DRIVES", "Volvo", valid_at="2020", group=g)
    m.assert_fact("Dan", "DRIVES", "Tesla", valid_at="2023", group=g)
    clock.advance(days=1)
    m2 = reopen(m, clock)
    assert m2.predicate("DRIVES", group=g).functional
    m2.assert_fact("Dan", "DRIVES", "Bike", valid_at="2024-01", invalid_at="2024-02", group=g)
    assert spans(m2, "Dan", "DRIVES", g) == [
        ("Bike", "[2024, 2024)"), ("Tesla", "[2023, 2024)"), ("Volvo", "[2020, 2023)")]


def test_cardinality_change_recomputes_every_timeline_and_undo_restores_them(
        make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    for who, first, second in (("Alice", "Volvo", "Tesla"), ("Bob", "Fiat", "Saab")):
        m.assert_fact(who, "DRIVES", first, valid_at="2020", group=g)
        m.assert_fact(who, "DRIVES", second, valid_at="2023", group=g)
    assert m.predicate("DRIVES", group=g).source == "first use"
    assert spans(m, "Alice", "DRIVES", g) == [("Tesla", "[2023, now)"), ("Volvo", "[2020, now)")]
    before = clock.advance(days=1)
    clock.advance(days=1)

    spec = m.declare_predicate("drives", functional=True, group=g)

    assert (spec.name, spec.source, spec.functional) == ("DRIVES", "declared", True)
    assert spans(m, "Alice", "DRIVES", g) == [("Tesla", "[2023, now)"), ("Volvo", "[2020, 2023)")]
    assert spans(m, "Bob", "DRIVES", g) == [("Fiat", "[2020, 2023)"), ("Saab", "[2023, now)")]
    [change] = [c for c in m.changes(before, group=g)]
    assert change.kind == "declare" and change.id == spec.change_id
    volvo = m.facts("Alice", "DRIVES", "Volvo", group=g, valid_at="2021")[0]
    fiat = m.facts("Bob", "DRIVES", "Fiat", group=g, valid_at="2021")[0]
    assert set(change.fact_ids) == {volvo.fact_id, fiat.fact_id}  # one write for both
    assert volvo.change_id == fiat.change_id == change.id and "superseded" in volvo.reason
    # the past is kept: as known before the declaration, both ran open
    assert spans(m, "Alice", "DRIVES", g, known_at=before) == [
        ("Tesla", "[2023, now)"), ("Volvo", "[2020, now)")]
    assert m.predicate("DRIVES", group=g).functional
    assert not {p.name: p for p in m.predicates(g, known_at=before)}["DRIVES"].functional

    clock.advance(days=1)
    undo = m.undo(change.id, group=g)

    assert spans(m, "Alice", "DRIVES", g) == [("Tesla", "[2023, now)"), ("Volvo", "[2020, now)")]
    assert spans(m, "Bob", "DRIVES", g) == [("Fiat", "[2020, now)"), ("Saab", "[2023, now)")]
    assert m.predicate("DRIVES", group=g).source == "first use"
    assert set(undo.fact_ids) == {volvo.fact_id, fiat.fact_id}
    clock.advance(days=1)
    m.undo(undo.id, group=g)  # and the undo itself can be undone
    assert m.predicate("DRIVES", group=g).functional
    assert spans(m, "Bob", "DRIVES", g) == [("Fiat", "[2020, 2023)"), ("Saab", "[2023, now)")]


def test_undo_of_a_declaration_replaced_since_is_refused(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    first = m.declare_predicate("DRIVES", functional=True, group=g)
    m.declare_predicate("DRIVES", functional=False, description="any car", group=g)
    with pytest.raises(ConflictError, match="declared again"):
        m.undo(first.change_id or "", group=g)


def test_redeclaring_the_same_rules_changes_nothing(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    a = m.declare_predicate("DRIVES", functional=True, group=g)
    clock.advance(days=1)
    b = m.declare_predicate("DRIVES", functional=True, group=g)
    assert a == b and len(m.changes("2000", group=g)) == 1


def test_symmetry_is_declared_data_too(make_memory, clock) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    m.assert_fact("Ann", "ROOMMATE_OF", "Ben", valid_at="2020", group=g)
    assert m.facts("Ben", "ROOMMATE_OF", group=g) == []  # not symmetric: Ben is the object
    spec = m.declare_predicate("ROOMMATE_OF", functional=True, symmetric=True, group=g)
    assert [f.subject for f in m.facts("Ben", "ROOMMATE_OF", group=g)] == ["Ann"]
    m.assert_fact("Ben", "ROOMMATE_OF", "Cat", valid_at="2022", group=g)  # ends Ann's too
    assert spans(m, "Ann", "ROOMMATE_OF", g) == [("Ben", "[2020, 2022)")]
    m.undo(spec.change_id or "", group=g)  # later facts do not pin a declaration
    assert not m.predicate("ROOMMATE_OF", group=g).symmetric
    assert spans(m, "Ann", "ROOMMATE_OF", g) == [("Ben", "[2020, now)")]
    assert [f.object for f in m.facts("Ben", "ROOMMATE_OF", group=g)] == ["Cat"]


def test_a_near_miss_predicate_is_refused_with_a_suggestion(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    with pytest.raises(UnknownPredicateError) as err:
        m.assert_fact("Eve", "LIVE_IN", "Paris", group=g)
    assert err.value.details["suggestion"] == "LIVES_IN" and "did you mean" in err.value.message
    assert m.entities(group=g) == []  # nothing written
    m.assert_fact("Eve", "DRIVES", "Fiat", group=g)  # first use of a new predicate
    with pytest.raises(UnknownPredicateError, match="'DRIVES'"):
        m.assert_fact("Eve", "DRIVE", "Fiat", group=g)
    with pytest.raises(UnknownPredicateError, match="row 1: .*LIVES_IN"):
        m.assert_facts([{"subject": "Zoe", "predicate": "KNOWS", "object": "Eve"},
                        {"subject": "Zoe", "predicate": "LIVESIN", "object": "Oslo"}], group=g)
    assert m.facts("Zoe", group=g) == []
    m.declare_predicate("LIVE_IN", functional=False, group=g)  # declared: now it is a word
    assert m.assert_fact("Eve", "LIVE_IN", "Paris", group=g).predicate == "LIVE_IN"


def test_extracted_predicates_map_inflections_and_drop_other_near_misses(make_memory) -> None:
    facts = [ExtractedFact("Eve", "LIVE_IN", "Paris", rule="t"),
             ExtractedFact("Eve", "LIVES_ON", "a boat", rule="t"),
             ExtractedFact("Eve", "COLLECTS", "stamps", rule="t")]

    class Fixed:
        def extract_many(self, items: Any) -> list[list[ExtractedFact]]:
            return [facts for _ in items]

    m, g = make_memory(extractor=ExtractionPipeline(Fixed())), fresh_group()
    m.add_episode("Eve lives in Paris, on a boat, and collects stamps.", "2024-05-01", group=g)
    assert sorted((f.predicate, f.object) for f in m.facts("Eve", group=g)) == [
        ("COLLECTS", "stamps"), ("LIVES_IN", "Paris")]
    assert m.predicate("COLLECTS", group=g).source == "first use"


def test_another_memory_sees_a_declaration_at_its_next_write(make_memory, store_kind,
                                                             tmp_path) -> None:
    a, g = make_memory(), fresh_group()
    if store_kind == "embedded":
        b = Memory(Path(a.store.path))  # type: ignore[attr-defined]
    else:
        b = Memory(store=a.store)  # its own caches
    try:
        a.assert_fact("Dan", "DRIVES", "Volvo", valid_at="2020", group=g)  # a caches DRIVES
        b.declare_predicate("DRIVES", functional=True, group=g)
        a.assert_fact("Dan", "DRIVES", "Tesla", valid_at="2023", group=g)
        assert spans(a, "Dan", "DRIVES", g) == [("Tesla", "[2023, now)"),
                                               ("Volvo", "[2020, 2023)")]
    finally:
        if store_kind == "embedded":
            b.close()


def test_another_memory_sees_a_declaration_at_its_next_read(make_memory, store_kind) -> None:
    """A's reads answer with the declarations A cached while the store's stamp holds (the
    embedded store checks it inside the facts statement): each read after B's declaration
    answers by the new rules, whether the old ones gave rows or none."""
    a, g = make_memory(), fresh_group()
    b = (Memory(Path(a.store.path)) if store_kind == "embedded"  # type: ignore[attr-defined]
         else Memory(store=a.store))
    try:
        a.assert_fact("Ann", "ROOMMATE_OF", "Ben", valid_at="2020", group=g)
        for _ in range(2):  # the second read answers from A's cache
            assert a.facts("Ben", "ROOMMATE_OF", group=g) == []
            assert [f.object for f in a.facts("Ben", group=g)] == []
        b.declare_predicate("ROOMMATE_OF", functional=False, symmetric=True, group=g)
        assert [f.subject for f in a.facts("Ben", "ROOMMATE_OF", group=g)] == ["Ann"]
        assert [f.subject for f in a.facts("Ben", group=g)] == ["Ann"]
        b.declare_predicate("ROOMMATE_OF", functional=False, symmetric=False, group=g)
        assert a.facts("Ben", group=g) == []  # rows under the old rules, none under the new
        assert [f.object for f in a.facts("Ann", group=g)] == ["Ben"]
    finally:
        if store_kind == "embedded":
            b.close()


def test_erasing_a_group_erases_its_declarations(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.declare_predicate("DRIVES", functional=True, group=g)
    m.erase(group=g, whole_group=True)
    assert m.predicate("DRIVES", group=g).source == "undeclared"
    assert m.store.declarations(g) == []


def test_issue_example_as_reported_default_group_embedded(tmp_path: Path) -> None:
    """The report, word for word: declare, write, reopen, write again."""
    with Memory(tmp_path) as m:
        m.declare_predicate("DRIVES", functional=True)
        m.assert_fact("Dan", "DRIVES", "Volvo", valid_at="2020-01-01")
        m.assert_fact("Dan", "DRIVES", "Tesla", valid_at="2023-01-01")
    with Memory(tmp_path) as m:
        m.assert_fact("Dan", "DRIVES", "Bike", valid_at="2024-01-01", invalid_at="2024-02-01")
        [volvo] = m.facts("Dan", "DRIVES", "Volvo", valid_at="2021-01-01")
        assert volvo.invalid_at == datetime(2023, 1, 1, tzinfo=timezone.utc)  # was None: now
        with pytest.raises(UnknownPredicateError):
            m.assert_fact("Dan", "LIVE_IN", "Oslo")  # was a new predicate LIVE_IN
