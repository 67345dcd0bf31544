"""``Memory.changed_versions(since)`` on Neo4j seeks the group's versions created or expired
after ``since`` (composite indexes on ``RELATES_TO(group_id, created_at / expired_at)``)
instead of filtering every version of the group."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from kgmem.memory.facade import Memory
from tests.conftest import ManualClock, fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


def _db_hits(plan: Any) -> int:
    return int(plan.get("dbHits", 0)) + sum(_db_hits(c) for c in plan.get("children", []))


def test_changed_versions_reads_only_the_recent_versions() -> None:
    store = neo4j_store_or_skip()
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=timezone.utc))
    m, g = Memory(store=store, clock=clock), fresh_group("since")
    m.assert_facts([{"subject": f"p{i}", "predicate": "LIVES_IN", "object": f"c{i % 7}"}
                    for i in range(150)], group=g)
    clock.advance(days=1)
    recent = m.assert_fact("p1", "LIVES_IN", "Oslo", valid_at="2023-06", group=g)
    since = clock() - (clock() - datetime(2024, 1, 1, tzinfo=timezone.utc)) / 2
    sent: list[tuple[str, dict[str, Any]]] = []
    real_q = store.cypher

    def spy(query: str, **params: Any) -> list[list[Any]]:
        sent.append((query, params))
        return real_q(query, **params)

    store.cypher = spy
    try:
        changed = m.changed_versions(since, group=g)
    finally:
        del store.cypher
    # p1's new value, and its old one closed by it (a new version, the old one expired)
    assert recent.id in {v.id for v in changed}
    assert {v.subject for v in changed} == {"p1"} and len(changed) == 3
    assert all(v.created_at > since or (v.expired_at or since) > since for v in changed)
    query, params = sent[-1]
    with store.driver.session(database=store.database) as s:
        # the store sends each time with its naive twin (``$t_l``: graphiti's LocalDateTime)
        naive = {f"{k}_l": v.astimezone(timezone.utc).replace(tzinfo=None)
                 for k, v in params.items() if isinstance(v, datetime)}
        res = s.run("PROFILE " + query, {**params, **naive})
        res.consume()
        plan = res.consume().profile
    # filtering the group's 151 versions costs more than 3 hits each; the seeks read only
    # the two changed versions (and their provenance)
    assert _db_hits(plan) < 150, plan
