"""Memory's hot reads on Neo4j make one round trip each (names resolved inside the query) and
answer exactly what the step-by-step reads answer.

Round trips are counted at the driver: every flush of the Bolt outbox to the socket (a request
the client then waits on), on a real server. The step-by-step answers come from a Memory over
the same store without its named reads (:class:`kgmem.store.named_reads.StepByStep`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone

import pytest
from neo4j._sync.io._bolt._common import Outbox

from kgmem.errors import NotFoundError
from kgmem.memory.facade import Memory
from kgmem.store.named_reads import StepByStep
from tests.conftest import ManualClock, fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


class RoundTrips:
    n = 0


@contextmanager
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[RoundTrips]:
    """Counts the requests sent to the server (Bolt outbox flushes with data)."""
    box = RoundTrips()
    real = Outbox.flush

    def flush(self: Outbox) -> bool:
        if self._chunked_data:
            box.n += 1
        return real(self)

    monkeypatch.setattr(Outbox, "flush", flush)
    try:
        yield box
    finally:
        monkeypatch.setattr(Outbox, "flush", real)


def _ids(vs: list) -> list[tuple[str, list[str]]]:  # type: ignore[type-arg]
    return [(v.id, v.episodes) for v in vs]


@pytest.fixture
def world() -> tuple[Memory, Memory, str, ManualClock]:
    store = neo4j_store_or_skip()
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=timezone.utc))
    g = fresh_group("trip")
    m = Memory(store=store, clock=clock, extractor=None)
    m.add_episode("Alice moved to Oslo; she knows Bob.", group=g, reference_time="2020-01-05")
    m.assert_fact("Alice", "LIVES_IN", "Paris", valid_at="2015", group=g)
    clock.advance(days=1)
    m.assert_fact("Alice", "LIVES_IN", "Oslo", valid_at="2020-01", group=g)
    m.assert_fact("Alice", "KNOWS", "Bob", valid_at="2019", group=g)
    m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2018", group=g)
    m.assert_fact("Carol", "WORKS_AT", "Acme", valid_at="2017", group=g)
    m.assert_fact("Carol", "MARRIED_TO", "Dan", valid_at="2016", group=g)
    m.add_alias("Alice", "Ally", group=g)
    clock.advance(days=1)
    return m, Memory(store=StepByStep(store), clock=clock, extractor=None), g, clock


def test_facts_entity_history_one_round_trip_each(world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    m, step, g, _ = world
    alice = m.entity("Alice", group=g)["entity"]
    m.facts("Alice", group=g)  # the group's declarations are read once per process
    reads = {
        "facts by name": lambda mm: _ids(mm.facts("Alice", group=g)),
        "facts as of 2016": lambda mm: _ids(mm.facts("alice", valid_at="2016-06", group=g)),
        "facts by alias": lambda mm: _ids(mm.facts("Ally", predicate="LIVES_IN", group=g)),
        "facts by id": lambda mm: _ids(mm.facts(alice.id, group=g)),
        "facts by object": lambda mm: _ids(mm.facts(object="Acme", group=g)),
        "facts subject+object": lambda mm: _ids(mm.facts("Bob", object="Alice", group=g)),
        "facts with limit": lambda mm: _ids(mm.facts("Alice", group=g, limit=1)),
        "facts of nobody": lambda mm: mm.facts("Zed", group=g),
        "entity profile": lambda mm: (lambda d: (d["entity"].id, _ids(d["facts"]),
                                                 _ids(d["incoming"])))(
            mm.entity("Bob", valid_at="2019-06", group=g)),
        "history of an entity": lambda mm: _ids(mm.history("Alice", group=g)),
        "history of a fact": lambda mm: _ids(mm.history(
            mm.facts("Alice", predicate="LIVES_IN", group=g)[0].fact_id, group=g)),
    }
    for name, read in reads.items():
        read(step)  # anything a read builds once (an entity's summary history) is built
        with counted(monkeypatch) as before:
            expected = read(step)
        with counted(monkeypatch) as trips:
            got = read(m)
        assert got == expected, name
        if name == "entity profile":
            # the entity and both sides' facts in one request, where step by step makes three
            # (lookup, outgoing, incoming); its summary (kgmem.memory.summaries) reads on
            # its own
            assert trips.n == before.n - 2, (name, trips.n, before.n)
        else:  # "history of a fact" also asks facts() for the id first: 2 reads
            assert trips.n == (2 if name == "history of a fact" else 1), (name, trips.n)
            assert before.n > trips.n, (name, before.n)
    assert reads["facts by name"](m)  # the reads found something
    assert reads["facts as of 2016"](m) != reads["facts by name"](m)


def test_paths_one_round_trip_plus_sources(world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    m, step, g, _ = world
    for a, b, hops in (("Alice", "Dan", 4), ("Alice", "Carol", 3), ("Ally", "Acme", 2),
                       ("Alice", "Dan", 2)):
        expected = step.paths(a, b, max_hops=hops, group=g)
        with counted(monkeypatch) as trips:
            got = m.paths(a, b, max_hops=hops, group=g)
        assert [p.model_dump() for p in got] == [p.model_dump() for p in expected]
        # the graph in one query, the sources of the hops kept in a second (none: no path)
        assert trips.n == (2 if got else 1), (a, b, hops, trips.n)
    assert m.paths("Alice", "Carol", max_hops=3, group=g)[0].hops[0].fact.episodes == []
    with pytest.raises(NotFoundError):
        m.paths("Alice", "Nobody", group=g)


def test_missing_names_raise_as_before(world) -> None:  # type: ignore[no-untyped-def]
    m, step, g, _ = world
    for mm in (m, step):
        with pytest.raises(NotFoundError):
            mm.entity("Nobody", group=g)
        with pytest.raises(NotFoundError):
            mm.history("Nobody", group=g)
        assert mm.facts("Alice", object="Nobody", group=g) == []


def test_a_merged_entity_reads_its_target_step_by_step(world) -> None:  # type: ignore[no-untyped-def]
    m, step, g, clock = world
    m.assert_fact("Al", "WORKS_AT", "Acme", valid_at="2021", group=g)
    clock.advance(hours=1)
    m.merge_entities("Alice", "Al", group=g)
    clock.advance(hours=1)
    got = m.facts("Al", group=g)
    assert _ids(got) == _ids(step.facts("Al", group=g))
    assert {v.subject for v in got} == {"Alice"}
    assert m.entity("Al", group=g)["entity"].name == "Alice"
    assert _ids(m.history("Al", group=g)) == _ids(step.history("Al", group=g))


def test_a_declaration_by_another_process_is_seen_by_the_next_read(world) -> None:  # type: ignore[no-untyped-def]
    m, _, g, clock = world
    m.assert_fact("Erin", "ADMIRES", "Frank", valid_at="2020", group=g)
    assert [v.subject for v in m.facts("Frank", predicate="ADMIRES", group=g)] == []
    other = Memory(store=m.store, clock=clock, extractor=None)  # another writer
    clock.advance(hours=1)
    other.declare_predicate("ADMIRES", False, symmetric=True, group=g)
    clock.advance(hours=1)
    # the cached declarations are stale: the stamp read with the facts says so
    assert [v.subject for v in m.facts("Frank", predicate="ADMIRES", group=g)] == ["Erin"]
