"""The Browser's ready views (docs/neo4j-browser.md) draw exactly what is visible.

Neo4j Browser draws the nodes and relationships a query returns and then, with its default
"connect result nodes" setting, every stored relationship between the drawn nodes (its own
query, :data:`BROWSER_CONNECT`). These tests emulate that on the real server, so they check
the picture a person sees, not only the rows.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j.graph import Node, Relationship

from kgmem.errors import KgmemError
from kgmem.memory.facade import Memory
from tests.conftest import ManualClock, fresh_group, neo4j_apoc_store_or_skip
from tests.neo4j_store.test_browser_doc import doc_queries

pytestmark = pytest.mark.neo4j

# Neo4j Browser 5's VisualizationView.getInternalRelationships, with elementId for id()
BROWSER_CONNECT = ("MATCH (a)-[r]->(b) WHERE elementId(a) IN $ids AND elementId(b) IN $ids "
                   "RETURN r")
GRAPH_VIEWS = ("current view", "as of date", "as known on date",
               "history of an entity as a graph")


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def _walk(value: Any, nodes: dict[str, Node], rels: dict[str, Relationship]) -> None:
    if isinstance(value, Node):
        nodes[value.element_id] = value
    elif isinstance(value, Relationship):
        rels[value.element_id] = value
    elif isinstance(value, list):
        for v in value:
            _walk(v, nodes, rels)


def drawn(store: Any, query: str, params: dict[str, Any]) -> tuple[list[Node], list[Any]]:
    """What the Browser draws for ``query``: its nodes, the returned relationships between
    them, and every stored relationship that "connect result nodes" adds."""
    nodes: dict[str, Node] = {}
    rels: dict[str, Relationship] = {}
    with store.driver.session(database=store.database) as s:
        for record in s.run(query, params):
            for value in record.values():
                _walk(value, nodes, rels)
        shown = [r for r in rels.values()
                 if r.start_node is not None and r.end_node is not None
                 and r.start_node.element_id in nodes and r.end_node.element_id in nodes]
        extra = [row["r"] for row in s.run(BROWSER_CONNECT, ids=list(nodes))
                 if row["r"].element_id not in rels]
    return list(nodes.values()), shown + extra


def seed_issue_graph(m: Memory, clock: ManualClock, g: str) -> None:
    """The graph of issue 18: moves and corrections that leave superseded versions between the
    same two entities (Sam -> Seattle, Maya -> Moderna, Maya -> Boston)."""
    clock.set(utc(2023, 1, 1))
    sam = m.assert_fact("Sam", "LIVES_IN", "Seattle", valid_at="2018", group=g)
    m.assert_fact("Maya", "WORKS_AT", "Moderna", valid_at="2019", group=g)
    m.assert_fact("Maya", "LIVES_IN", "Boston", valid_at="2017", group=g)
    clock.set(utc(2023, 6, 1))
    m.invalidate(sam.fact_id, "2021-05", group=g)
    m.assert_fact("Sam", "LIVES_IN", "Portland", valid_at="2021-05", group=g)
    m.assert_fact("Maya", "WORKS_AT", "Pfizer", valid_at="2022-03", group=g)
    m.assert_fact("Maya", "LIVES_IN", "Denver", valid_at="2022-09", group=g)
    clock.set(utc(2024, 2, 1))
    maya_moderna = m.facts("Maya", "WORKS_AT", "Moderna", valid_at="2020", group=g)[0]
    m.correct(maya_moderna.fact_id, valid_at="2019-06", group=g)


def test_views_draw_only_the_versions_they_return() -> None:
    store = neo4j_apoc_store_or_skip()
    clock = ManualClock()
    m, g = Memory(store=store, clock=clock), fresh_group("views")
    seed_issue_graph(m, clock, g)
    params = {"group": g, "date": utc(2020, 6, 1), "known": utc(2023, 3, 1), "entity": "Maya"}
    q = doc_queries()
    for name in GRAPH_VIEWS:
        nodes, rels = drawn(store, q[name], params)
        assert nodes and all(int(n.element_id) < 0 for n in nodes), name  # virtual
        with store.driver.session(database=store.database) as s:
            answer = [r for r in s.run(q[name], params)]
        assert len(rels) == sum(1 + len(r.get("told") or []) for r in answer), name
    as_of = {f.id for f in m.facts(valid_at=params["date"], group=g)}
    _, rels = drawn(store, q["as of date"], params)
    assert {r["uuid"] for r in rels} == as_of and len(as_of) == 3


def test_the_stored_graph_overdraws_which_is_why_views_are_virtual() -> None:
    """The same as-of match returning the stored entities draws the superseded versions too
    (the bug of issue 18: 8 arrows for a 4-fact answer)."""
    store = neo4j_apoc_store_or_skip()
    clock = ManualClock()
    m, g = Memory(store=store, clock=clock), fresh_group("overdraw")
    seed_issue_graph(m, clock, g)
    as_of = doc_queries()["as of date"]
    stored = as_of[: as_of.index("WITH collect(")] + "RETURN s, r, o"
    params = {"group": g, "date": utc(2020, 6, 1)}
    _, rels = drawn(store, stored, params)
    assert len(rels) > len(m.facts(valid_at=params["date"], group=g)) == 3


SUBJECTS = ["Sam", "Maya"]
OBJECTS = ["Seattle", "Boston", "Moderna", "Pfizer"]
PREDICATES = ["LIVES_IN", "WORKS_AT", "LIKES"]
BASE = utc(2015, 1, 1)

ops = st.lists(st.one_of(
    st.tuples(st.just("assert"), st.integers(0, 1), st.integers(0, 2), st.integers(0, 3),
              st.none() | st.integers(0, 40), st.none() | st.integers(1, 20)),
    st.tuples(st.just("bulk"), st.integers(0, 1), st.integers(0, 2), st.integers(0, 3),
              st.integers(0, 40)),
    st.tuples(st.just("invalidate"), st.integers(0, 30), st.integers(0, 60)),
    st.tuples(st.just("retract"), st.integers(0, 30)),
    st.tuples(st.just("correct"), st.integers(0, 30), st.none() | st.integers(0, 3),
              st.none() | st.integers(0, 40)),
    st.tuples(st.just("undo"), st.integers(0, 30)),
    st.tuples(st.just("episode"), st.integers(0, 1), st.integers(0, 3)),
    st.tuples(st.just("erase_episode"), st.integers(0, 30)),
    st.tuples(st.just("merge"), st.integers(0, 3)),
), min_size=1, max_size=12)


def month(n: int) -> datetime:
    return BASE + timedelta(days=61 * n)


def apply(m: Memory, g: str, op: tuple[Any, ...], st_: dict[str, list[str]]) -> None:
    kind, facts, changes, episodes = op[0], st_["facts"], st_["changes"], st_["episodes"]
    pick = (lambda xs, i: xs[i % len(xs)] if xs else None)
    if kind == "assert":
        end = None if op[4] is None or op[5] is None else month(op[4] + op[5])
        v = m.assert_fact(SUBJECTS[op[1]], PREDICATES[op[2]], OBJECTS[op[3]], group=g,
                          valid_at=None if op[4] is None else month(op[4]), invalid_at=end,
                          episode=pick(episodes, op[3]))
        facts.append(v.fact_id)
        changes.append(v.change_id)
    elif kind == "bulk":
        facts.extend(m.assert_facts([{"subject": SUBJECTS[op[1]], "predicate": PREDICATES[op[2]],
                                      "object": OBJECTS[op[3]], "valid_at": month(op[4])}],
                                    group=g))
    elif kind == "invalidate" and facts:
        changes.append(m.invalidate(pick(facts, op[1]), month(op[2]), group=g).id)
    elif kind == "retract" and facts:
        changes.append(m.retract(pick(facts, op[1]), group=g).id)
    elif kind == "correct" and facts:
        changes.append(m.correct(pick(facts, op[1]), group=g,
                                 object=None if op[2] is None else OBJECTS[op[2]],
                                 valid_at=None if op[3] is None else month(op[3])).id)
    elif kind == "undo" and changes:
        changes.append(m.undo(pick(changes, op[1]), group=g).id)
    elif kind == "episode":
        ep = m.add_episode(f"{SUBJECTS[op[1]]} said {len(episodes)}", month(op[2] * 10),
                           group=g, speaker=SUBJECTS[op[1]])
        episodes.append(ep.id)
    elif kind == "erase_episode" and episodes:
        m.erase(episode=episodes.pop(op[1] % len(episodes)), group=g)
    elif kind == "merge":
        m.add_alias(OBJECTS[op[1]], OBJECTS[op[1]] + " City", group=g)


def test_views_equal_the_visible_set_after_random_changes() -> None:
    """After random histories of every kind of change, each view at random (valid_at,
    known_at) draws exactly ``Memory.facts`` there (and the current view what is true now)."""
    store = neo4j_apoc_store_or_skip()
    q = doc_queries()

    @settings(max_examples=8, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(history=ops, seed=st.integers(0, 2**16))
    def inner(history: list[tuple[Any, ...]], seed: int) -> None:
        clock = ManualClock(utc(2021, 1, 1))
        m, g = Memory(store=store, clock=clock), fresh_group("viewprop")
        state: dict[str, list[str]] = {"facts": [], "changes": [], "episodes": []}
        for op in history:
            clock.advance(days=3)
            try:
                apply(m, g, op, state)
            except KgmemError:
                pass  # refused changes (conflicts, bad intervals) write nothing
        rnd = random.Random(seed)
        probes = [(month(rnd.randint(-2, 45)),
                   utc(2021, 1, 1) + timedelta(days=rnd.randint(0, 3 * len(history) + 3)))
                  for _ in range(4)]
        for v, k in probes:
            _, rels = drawn(store, q["as known on date"], {"group": g, "date": v, "known": k})
            want = {f.id for f in m.facts(valid_at=v, known_at=k, group=g)}
            assert sorted(r["uuid"] for r in rels) == sorted(want), (v, k)
        _, rels = drawn(store, q["current view"], {"group": g})
        now = datetime.now(timezone.utc)  # the view's datetime(), not the injected clock
        assert sorted(r["uuid"] for r in rels) == sorted(
            f.id for f in m.facts(valid_at=now, known_at=now, group=g))

    inner()
