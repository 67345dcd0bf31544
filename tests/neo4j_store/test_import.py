"""import_embedded copies a group so that every read on Neo4j equals the embedded store's."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kgmem.memory.facade import Memory
from kgmem.store.neo4j.importer import import_embedded
from tests.conftest import ManualClock, fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def test_imported_group_reads_the_same_at_every_time(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = neo4j_store_or_skip()
    clock = ManualClock(utc(2024, 1, 1))
    src, g = Memory(tmp_path / "emb", clock=clock, extractor=None), fresh_group("imp")
    times = [clock()]

    def tick() -> None:
        clock.advance(hours=1)
        times.append(clock())

    e1 = src.add_episode("Alice moved to Boston", "2019-05-01", speaker="Alice", group=g)
    e2 = src.add_episode("Alice moved again", "2021-02-01", group=g)
    b = src.assert_fact("Alice", "LIVES_IN", "Boston", episode=e1.id, group=g)
    tick()
    a = src.assert_fact("Alice", "LIVES_IN", "Austin", valid_at="2021", episode=e2.id, group=g)
    src.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
    src.assert_fact("Alice", "LIKES", "jazz", group=g)
    src.add_alias("Alice", "Ally", group=g)
    tick()
    src.retract(a.fact_id, group=g)
    tick()
    wrong = src.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2020", invalid_at="2022", group=g)
    src.invalidate(b.fact_id, "2020-06-01", group=g)
    tick()
    src.correct(wrong.fact_id, object="Globex", group=g)
    tick()
    src.undo(src.changes(times[0] - timedelta(days=1), group=g)[-1].id, group=g)
    tick()
    src.erase(episode=e2.id, group=g)
    tick()

    counts = import_embedded(src.store, store, groups=[g])  # type: ignore[arg-type]
    assert counts["versions"] == src.stats(g)["versions"]
    dst = Memory(store=store, clock=clock, extractor=None)
    ks = sorted({t + d for t in times for d in (timedelta(0), timedelta(microseconds=-1))})
    vs = [utc(y, m, 1) for y in range(2018, 2026) for m in (1, 6)]
    for k in ks:
        for v in vs:
            assert dst.facts(valid_at=v, known_at=k, group=g) == src.facts(
                valid_at=v, known_at=k, group=g
            ), (v, k)
    for name in ("Alice", "Bob", "Ally"):
        assert dst.history(name, group=g) == src.history(name, group=g)
    assert dst.changes(times[0] - timedelta(days=1), group=g) == src.changes(
        times[0] - timedelta(days=1), group=g
    )
    assert dst.erasures(group=g) == src.erasures(group=g)
    assert dst.entities(group=g) == src.entities(group=g)  # with their types
    with store.driver.session(database=store.database) as s:
        labels = {r["n"]: sorted(r["l"]) for r in s.run(
            "MATCH (e:Entity {group_id: $g}) RETURN e.name AS n, labels(e) AS l", g=g)}
    assert labels["Alice"] == ["Entity", "Person"] and labels["Acme"] == ["Entity", "Organisation"]
    assert dst.episodes(group=g) == src.episodes(group=g)
    assert dst.stats(g) == src.stats(g)
    # life goes on on Neo4j: the clock and the timeline rules continue
    clock.advance(hours=1)
    dst.assert_fact("Ally", "LIVES_IN", "Paris", valid_at="2024-06", group=g)
    assert [f.object for f in dst.facts("Alice", "LIVES_IN", valid_at="2024-07-01", group=g)] == [
        "Paris"
    ]
    with pytest.raises(ValueError, match="already exist"):
        import_embedded(src.store, store, groups=[g])  # type: ignore[arg-type]
    src.close()
