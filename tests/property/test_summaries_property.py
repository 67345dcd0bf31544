"""Entity summaries against a reference: random episodes, assertions (functional, multi and
symmetric predicates, with or without an episode), invalidations, retractions, corrections,
undos, episode erasures and summary reads (which store the history built so far), some of them
sharing one transaction instant. Then, for every entity and every instant K the run went
through (and just before each): the stored summary as known at K equals the one built from
scratch from the facts the store reads as known at K. And the history built late equals the
summaries taken eagerly while the run went on (snapshots after the last erase: an erase
rewrites the past it removes). Both stores.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgmem.errors import KgmemError
from kgmem.jobs.check import check_summaries_rebuildable
from kgmem.memory.facade import Memory
from tests.conftest import fresh_group

from ..contract.test_summaries_contract import expected_at

NAMES = ["n1", "n2", "n3", "n4"]  # digits: never merged by the fuzzy resolver
PREDICATES = ["LIVES_IN", "LIKES", "MARRIED_TO"]  # functional, multi, symmetric
BASE = datetime(2024, 1, 1, tzinfo=timezone.utc)

ops_strategy = st.lists(
    st.tuples(
        st.booleans(),  # the clock moves before this step (False: the same instant as before)
        st.one_of(
            st.tuples(st.just("say"), st.sampled_from(NAMES), st.sampled_from(PREDICATES),
                      st.sampled_from(NAMES), st.integers(2000, 2030)),
            st.tuples(st.just("assert"), st.sampled_from(NAMES), st.sampled_from(PREDICATES),
                      st.sampled_from(NAMES), st.none() | st.integers(2000, 2030)),
            st.tuples(st.just("invalidate"), st.integers(0, 9), st.integers(2000, 2035)),
            st.tuples(st.just("retract"), st.integers(0, 9)),
            st.tuples(st.just("correct"), st.integers(0, 9), st.sampled_from(NAMES)),
            st.tuples(st.just("undo"), st.integers(0, 9)),
            st.tuples(st.just("erase"), st.integers(0, 9)),
            st.tuples(st.just("read"), st.sampled_from(NAMES)),
        ),
    ),
    min_size=1,
    max_size=14,
)


class Clock:
    def __init__(self) -> None:
        self.t = BASE

    def __call__(self) -> datetime:
        return self.t


def _step(m: Memory, g: str, step: int, op: tuple, facts: list[str], changes: list[str],  # type: ignore[type-arg]
          episodes: list[str]) -> None:
    kind = op[0]
    if kind == "say":
        _, s, p, o, year = op
        ep = m.add_episode(f"{s} said {p} {o} in {year} step{step}", f"{year}-06-01",
                           speaker=s, group=g)
        episodes.append(ep.id)
        if s != o:
            v = m.assert_fact(s, p, o, valid_at=str(year), episode=ep.id, group=g)
            facts.append(v.fact_id)
            changes.append(v.change_id)
    elif kind == "assert":
        _, s, p, o, year = op
        if s != o:
            v = m.assert_fact(s, p, o, valid_at=None if year is None else str(year), group=g)
            facts.append(v.fact_id)
            changes.append(v.change_id)
    elif kind in ("invalidate", "retract", "correct") and facts:
        f = facts[op[1] % len(facts)]
        if kind == "invalidate":
            ch = m.invalidate(f, f"{op[2]}-01-01", group=g)
        elif kind == "retract":
            ch = m.retract(f, group=g)
        else:
            ch = m.correct(f, op[2], group=g)
        changes.append(ch.id)
    elif kind == "undo" and changes:
        changes.append(m.undo(changes[op[1] % len(changes)], group=g).id)
    elif kind == "erase" and episodes:
        m.erase(episode=episodes.pop(op[1] % len(episodes)), group=g)
    elif kind == "read":
        m.summary(op[1], group=g)


def replay(m: Memory, clock: Clock, ops: list) -> None:  # type: ignore[type-arg]
    g = fresh_group("sumprop")
    facts: list[str] = []
    changes: list[str] = []
    episodes: list[str] = []
    instants: list[datetime] = []
    snapshots: dict[tuple[str, datetime], str] = {}
    for step, (moves, op) in enumerate(ops):
        if moves or not instants:
            clock.t += timedelta(hours=1)
        try:
            _step(m, g, step, op, facts, changes, episodes)
        except KgmemError:
            pass  # refused (nothing written): undo of an undone change, a name unknown...
        if op[0] == "erase":
            snapshots.clear()
        instants.append(clock.t)
        for e in m.entities(g, limit=100):
            snapshots[(e.id, clock.t)] = expected_at(m, g, e.id, clock.t)
    probes = sorted({BASE, *instants, *(t - timedelta(microseconds=1) for t in instants)})
    for e in m.entities(g, limit=100):
        for k in probes:
            got = m.summary(e.id, known_at=k, group=g)
            assert got == expected_at(m, g, e.id, k), (e.name, k, ops)
    for (eid, k), text in snapshots.items():
        if m.store.get_entity(g, eid) is not None:
            assert m.summary(eid, known_at=k, group=g) == text, (eid, k, ops)
    assert check_summaries_rebuildable(m.store, g).ok  # what kgmem check rebuilds agrees
    m.erase(whole_group=True, group=g)  # leaves nothing on a shared server


EXAMPLES = {"embedded": int(os.environ.get("KGMEM_SUMMARY_EXAMPLES", "60")),
            "neo4j": int(os.environ.get("KGMEM_SUMMARY_EXAMPLES_NEO4J", "8"))}


def test_summary_as_known_at_k_is_built_from_the_facts_as_known_at_k(
        make_memory, store_kind) -> None:  # type: ignore[no-untyped-def]
    clock = Clock()
    m = make_memory(clock=clock)

    @settings(max_examples=EXAMPLES[store_kind], deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(ops=ops_strategy)
    def inner(ops) -> None:  # type: ignore[no-untyped-def]
        clock.t += timedelta(days=1)
        replay(m, clock, ops)

    inner()
