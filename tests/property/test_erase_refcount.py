"""Erase reference-counts entities: random episodes (with speakers), facts (asserted directly
or from episodes, duplicates adding provenance), aliases and erasures of episodes, entities and
whole groups, replayed on a store and on a plain reference model. After every step the names
``entities()`` lists must be exactly the model's: those some remaining fact or episode refers
to. Both stores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgmem.errors import NotFoundError
from tests.conftest import ManualClock, fresh_group

NAMES = ["n1", "n2", "n3", "n4", "n5"]  # digits: never merged by the fuzzy resolver
PREDICATES = ["KNOWS", "LIKES"]  # multi-valued: every assertion stays a fact
BASE = datetime(2023, 1, 1, tzinfo=timezone.utc)


@dataclass
class Model:
    """Entities exist while a fact or an episode mention refers to them; nothing else counts."""

    facts: dict[tuple[str, str, str], set[int]] = field(default_factory=dict)  # -> provenance
    mentions: dict[int, set[str]] = field(default_factory=dict)  # episode -> names

    def alive(self) -> set[str]:
        names = {n for s, _p, o in self.facts for n in (s, o)}
        return names.union(*self.mentions.values())

    def assert_fact(self, s: str, p: str, o: str, ep: int | None) -> None:
        prov = self.facts.setdefault((s, p, o), set())
        if ep is not None:
            prov.add(ep)
            self.mentions[ep].update((s, o))

    def erase_episode(self, ep: int) -> None:
        for key, prov in list(self.facts.items()):
            if prov == {ep}:
                del self.facts[key]
            prov.discard(ep)
        del self.mentions[ep]

    def erase_entity(self, name: str) -> None:
        self.facts = {k: v for k, v in self.facts.items() if name not in (k[0], k[2])}
        for names in self.mentions.values():
            names.discard(name)


ops_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("episode"), st.none() | st.sampled_from(NAMES)),
        st.tuples(st.just("assert"), st.sampled_from(NAMES), st.sampled_from(PREDICATES),
                  st.sampled_from(NAMES), st.none() | st.integers(0, 9)),
        st.tuples(st.just("alias"), st.sampled_from(NAMES), st.integers(0, 9)),
        st.tuples(st.just("erase_episode"), st.integers(0, 9)),
        st.tuples(st.just("erase_entity"), st.sampled_from(NAMES)),
        st.tuples(st.just("erase_group"),),
    ),
    min_size=1,
    max_size=20,
)


def replay(m, ops) -> None:  # type: ignore[no-untyped-def]
    group = fresh_group("rc")
    model = Model()
    episodes: list[tuple[int, str]] = []  # (model id, store id) of live episodes
    for step, op in enumerate(ops):
        kind = op[0]
        if kind == "episode":
            ep = m.add_episode(f"turn {step}", BASE + timedelta(hours=step), speaker=op[1],
                               group=group)
            episodes.append((step, ep.id))
            model.mentions[step] = {op[1]} if op[1] else set()
        elif kind == "assert":
            _, s, p, o, epi = op
            if s == o:
                continue
            ep_ = episodes[epi % len(episodes)] if epi is not None and episodes else None
            m.assert_fact(s, p, o, group=group, episode=ep_[1] if ep_ else None)
            model.assert_fact(s, p, o, ep_[0] if ep_ else None)
        elif kind == "alias":  # an alias names its entity; it does not keep it alive
            if op[1] in model.alive():
                m.add_alias(op[1], f"aka{op[2]}{op[1]}", group=group)
        elif kind == "erase_episode":
            if not episodes:
                continue
            mid, eid = episodes.pop(op[1] % len(episodes))
            m.erase(episode=eid, group=group)
            model.erase_episode(mid)
        elif kind == "erase_entity":
            try:
                m.erase(entity=op[1], group=group)
            except NotFoundError:
                assert op[1] not in model.alive()
                continue
            model.erase_entity(op[1])
        else:
            m.erase(whole_group=True, group=group)
            model, episodes = Model(), []
        got = {e.name for e in m.entities(group, limit=1000)}
        assert got == model.alive(), f"after step {step} {op}: store {got}, model {model.alive()}"
    m.erase(whole_group=True, group=group)  # leaves nothing on a shared server


EXAMPLES = {"embedded": int(os.environ.get("KGMEM_REFCOUNT_EXAMPLES", "200")),
            "neo4j": int(os.environ.get("KGMEM_REFCOUNT_EXAMPLES_NEO4J", "25"))}


def test_erase_deletes_exactly_the_entities_nothing_refers_to(make_memory, store_kind) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(clock=ManualClock(BASE))

    @settings(max_examples=EXAMPLES[store_kind], deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(ops=ops_strategy)
    def inner(ops) -> None:  # type: ignore[no-untyped-def]
        m.writes.clock.advance(days=1)
        replay(m, ops)

    inner()
