"""Random operation histories replayed on a store and on the naive oracle (tests/oracle.py).

Every history mixes functional and multi-valued predicates, out-of-order valid times,
episodes, invalidate, retract, correct, undo and erase over two groups with the same entity
names; after replaying, ``facts()`` is compared with the oracle at every (valid_at, known_at)
probe of a grid that covers every bound and transaction time used. Errors must agree too.
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgmem.errors import (ConflictError, InvalidIntervalError, KgmemError, NotFoundError,
                          UnchangedError)
from tests.conftest import ManualClock, fresh_group
from tests.oracle import Oracle, OracleError

BASE = datetime(2020, 1, 1, tzinfo=timezone.utc)
SUBJECTS = ["Alice", "Bob", "Carol"]
OBJECTS = ["Boston", "Denver", "Austin", "Acme", "Globex"]
PREDICATES = ["LIVES_IN", "WORKS_AT", "LIKES", "KNOWS"]  # 2 functional, 2 multi
DT = [timedelta(0), timedelta(hours=1), timedelta(days=1)]


def day(n: int) -> datetime:
    return BASE + timedelta(days=30 * n)


ops_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("episode"), st.integers(0, 1), st.integers(0, 20)),
        st.tuples(st.just("assert"), st.integers(0, 1), st.integers(0, 2), st.integers(0, 3),
                  st.integers(0, 4), st.none() | st.integers(0, 20),
                  st.none() | st.integers(1, 10), st.none() | st.integers(0, 50)),
        st.tuples(st.just("assert"), st.integers(0, 1), st.integers(0, 2), st.integers(0, 3),
                  st.integers(0, 4), st.none() | st.integers(0, 20),
                  st.none() | st.integers(1, 10), st.none() | st.integers(0, 50)),
        st.tuples(st.just("invalidate"), st.integers(0, 50), st.integers(0, 24)),
        st.tuples(st.just("retract"), st.integers(0, 50)),
        st.tuples(st.just("correct"), st.integers(0, 50), st.none() | st.integers(0, 4),
                  st.none() | st.integers(0, 20), st.none() | st.integers(1, 24)),
        st.tuples(st.just("undo"), st.integers(0, 50)),
        st.tuples(st.just("erase_episode"), st.integers(0, 50)),
        st.tuples(st.just("erase_entity"), st.integers(0, 1), st.integers(0, 4)),
    ).map(lambda op: (op, 0)) | st.tuples(st.just(("tick",)), st.integers(0, 2)),
    min_size=1,
    max_size=25,
)

ERRORS = {"not_found": NotFoundError, "conflict": ConflictError,
          "invalid_interval": InvalidIntervalError, "unchanged": UnchangedError}


def run(m, op, oracle: Oracle, clock: ManualClock, groups, state) -> None:  # type: ignore[no-untyped-def]
    kind = op[0]
    facts, changes, episodes = state["facts"], state["changes"], state["episodes"]
    t = clock()
    store_exc: KgmemError | None = None
    oracle_exc: OracleError | None = None
    result = None

    def both(store_call, oracle_call):  # type: ignore[no-untyped-def]
        nonlocal store_exc, oracle_exc, result
        try:
            result = store_call()
        except KgmemError as exc:
            store_exc = exc
        try:
            if store_exc is None:
                oracle_call(result)
            else:
                oracle_call(None)
        except OracleError as exc:
            oracle_exc = exc

    if kind == "episode":
        g = groups[op[1]]
        ep = m.add_episode(f"note {len(episodes)}", day(op[2]), group=g)
        oracle.add_episode(ep.id, g, day(op[2]))
        episodes.append((g, ep.id))
        return
    if kind == "assert":
        _, gi, si, pi, oi, start, length, epi = op
        g = groups[gi]
        ep = None
        cands = [e for gg, e in episodes if gg == g]
        if epi is not None and cands:
            ep = cands[epi % len(cands)]
        s_, e_ = (day(start) if start is not None else None), None
        if length is not None:
            e_ = (s_ or day(0)) + timedelta(days=30 * length)
        both(
            lambda: m.assert_fact(SUBJECTS[si], PREDICATES[pi], OBJECTS[oi], valid_at=s_,
                                  invalid_at=e_, group=g, episode=ep),
            lambda r: oracle.assert_fact(
                t, r.fact_id if r else "?", g, SUBJECTS[si], PREDICATES[pi], OBJECTS[oi], s_, e_,
                ep, r.change_id if r else "?"),
        )
        if result is not None:
            facts.append((g, result.fact_id))
            changes.append((g, result.change_id))
    elif kind in ("invalidate", "retract", "correct"):
        if not facts:
            return
        g, fid = facts[op[1] % len(facts)]
        if kind == "invalidate":
            both(lambda: m.invalidate(fid, day(op[2]), group=g),
                 lambda r: oracle.invalidate(t, g, fid, day(op[2]), r.id if r else "?"))
        elif kind == "retract":
            both(lambda: m.retract(fid, group=g),
                 lambda r: oracle.retract(t, g, fid, r.id if r else "?"))
        else:
            obj = OBJECTS[op[2]] if op[2] is not None else None
            st_ = day(op[3]) if op[3] is not None else None
            en_ = day(op[4]) if op[4] is not None else None
            if obj is None and st_ is None and en_ is None:
                obj = OBJECTS[0]
            both(lambda: m.correct(fid, object=obj, valid_at=st_, invalid_at=en_, group=g),
                 lambda r: oracle.correct(t, g, fid, r.id if r else "?", obj, st_, en_))
        if result is not None:
            changes.append((g, result.id))
    elif kind == "undo":
        if not changes:
            return
        g, cid = changes[op[1] % len(changes)]
        both(lambda: m.undo(cid, group=g),
             lambda r: oracle.undo(t, g, cid, r.id if r else "?"))
        if result is not None:
            changes.append((g, result.id))
    elif kind == "erase_episode":
        if not episodes:
            return
        g, eid = episodes.pop(op[1] % len(episodes))
        m.erase(episode=eid, group=g)
        oracle.erase_episode(t, g, eid)
    elif kind == "erase_entity":
        g = groups[op[1]]
        name = (SUBJECTS + OBJECTS)[op[2] % 5]
        try:
            m.erase(entity=name, group=g)
        except NotFoundError:
            return
        oracle.erase_entity(t, g, name)
    if oracle_exc is not None or store_exc is not None:
        assert oracle_exc is not None, f"store raised {store_exc!r}, oracle did not for {op}"
        assert store_exc is not None, f"oracle raised {oracle_exc.kind}, store did not for {op}"
        assert isinstance(store_exc, ERRORS[oracle_exc.kind]), (store_exc, oracle_exc.kind, op)


def check_history(m, ops, max_probes: int | None = None) -> int:  # type: ignore[no-untyped-def]
    clock: ManualClock = m.writes.clock  # the test owns it
    groups = [fresh_group("a"), fresh_group("b")]
    oracle = Oracle()
    state = {"facts": [], "changes": [], "episodes": []}
    tx_times = [clock()]
    for op, ticks in ops:
        if op[0] == "tick":
            clock.advance(seconds=DT[ticks].total_seconds())
            continue
        run(m, op, oracle, clock, groups, state)
        clock.advance(seconds=1)
        tx_times.append(clock())
    ks = sorted({k + d for k in tx_times for d in (timedelta(0), timedelta(microseconds=-1))})
    vs = [day(n) + d for n in range(-1, 46) for d in (timedelta(0), timedelta(days=-1))]
    grid = [(k, v) for k in ks for v in vs]
    if max_probes is not None and len(grid) > max_probes:
        # a server round trip per probe: keep every transaction time, sample valid times
        rng = random.Random(len(grid))
        grid = sorted(set(rng.sample(grid, max_probes)) | {(k, vs[len(vs) // 2]) for k in ks})
    probes = 0
    for g in groups:
        for k, v in grid:
            got = {(f.fact_id, f.subject, f.predicate, f.object)
                   for f in m.facts(valid_at=v, known_at=k, group=g)}
            want = oracle.facts(g, v, k)
            assert got == want, f"group={g} V={v} K={k}\nstore ={sorted(got)}\noracle={sorted(want)}"
            probes += 1
    return probes


EXAMPLES = {"embedded": int(os.environ.get("KGMEM_ORACLE_EXAMPLES", "1000")),
            "neo4j": int(os.environ.get("KGMEM_ORACLE_EXAMPLES_NEO4J", "100"))}
# Every (valid_at, known_at) pair of the grid on the embedded store; a sample on Neo4j.
PROBES = {"embedded": None, "neo4j": int(os.environ.get("KGMEM_ORACLE_PROBES_NEO4J", "80"))}


def test_random_histories_match_oracle(make_memory, store_kind) -> None:  # type: ignore[no-untyped-def]
    """>= 1,000 random histories on the embedded store (100 on Neo4j, sampled probes): zero mismatches."""
    clock = ManualClock(datetime(2025, 1, 1, tzinfo=timezone.utc))
    m = make_memory(clock=clock)
    stats = {"histories": 0}

    @settings(max_examples=EXAMPLES[store_kind], deadline=None,
              derandomize=not os.environ.get("KGMEM_ORACLE_RANDOM"),
              suppress_health_check=list(HealthCheck))
    @given(ops=ops_strategy)
    def inner(ops) -> None:  # type: ignore[no-untyped-def]
        clock.advance(days=1)
        try:
            check_history(m, ops, PROBES[store_kind])
        except AssertionError:
            with open("/tmp/failing_ops.txt", "a") as fh:
                fh.write(repr(ops) + "\n")
            raise
        stats["histories"] += 1

    inner()
    assert stats["histories"] >= min(EXAMPLES[store_kind], 100)
