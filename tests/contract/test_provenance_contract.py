"""Provenance is as-of, on both stores: a later episode repeating a fact adds a link to the
lineage (no new version) recorded at its own transaction time, so a read at an earlier
``known_at`` lists only the episodes that supported the fact then (DESIGN: what we believed
at T is exactly what was recorded by T). Export and import carry each link's time."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timedelta

from kgmem.memory.facade import Memory

from ..conftest import ManualClock, fresh_group


def _repeated(make_memory: Callable[..., Memory]
              ) -> tuple[Memory, str, str, str, datetime, datetime, ManualClock]:
    """Ann LIKES tea from episode A at t1, the same fact again from episode B at t2."""
    clock = ManualClock()
    m, g = make_memory(clock=clock), fresh_group("prov")
    t1 = clock.advance(hours=1)
    a = m.add_episode("Ann likes tea", "2024-01-01", group=g, extract=False)
    m.assert_fact("Ann", "LIKES", "tea", valid_at="2024", group=g, episode=a.id)
    m.assert_fact("Ann", "KNOWS", "Bob", valid_at="2024", group=g, episode=a.id)
    t2 = clock.advance(hours=1)
    b = m.add_episode("Ann still likes tea", "2024-02-01", group=g, extract=False)
    m.assert_fact("Ann", "LIKES", "tea", valid_at="2024", group=g, episode=b.id)
    clock.advance(hours=1)
    return m, g, a.id, b.id, t1, t2, clock


def _sources(m: Memory, g: str, known_at: datetime) -> dict[str, list[str]]:
    """Sources of Ann's LIKES fact through every read that returns them, at ``known_at``."""
    [listed] = m.facts("Ann", "LIKES", group=g, known_at=known_at)
    one = m.fact(listed.fact_id, known_at=known_at, group=g)
    assert one is not None
    about = [v for v in m.entity("Ann", known_at=known_at, group=g)["facts"]
             if v.predicate == "LIKES"]
    hop = [h.fact for p in m.paths("Ann", "tea", max_hops=1, known_at=known_at, group=g)
           for h in p.hops]
    found = [r for r in m.search("Ann likes tea", known_at=known_at, kinds=["facts"], group=g)
             if r.id == listed.fact_id]
    return {"facts": sorted(listed.episodes), "fact": sorted(one.episodes),
            "entity": sorted(about[0].episodes), "paths": sorted(hop[0].episodes),
            "search": sorted(found[0].episode_ids)}


def test_a_repeated_fact_lists_a_later_episode_only_from_when_it_was_recorded(
        make_memory: Callable[..., Memory]) -> None:
    m, g, a, b, t1, t2, _ = _repeated(make_memory)
    [v] = [x for x in m.history("Ann", group=g) if x.predicate == "LIKES"]  # a repeat: no new

    assert sorted(v.episodes) == sorted([a, b])
    between = t1 + (t2 - t1) / 2
    assert set(map(tuple, _sources(m, g, between).values())) == {(a,)}
    assert set(map(tuple, _sources(m, g, t2).values())) == {tuple(sorted([a, b]))}
    assert set(map(tuple, _sources(m, g, t2 + timedelta(minutes=5)).values())) == {
        tuple(sorted([a, b]))}
    assert m.facts("Ann", "LIKES", group=g, known_at=t1 - timedelta(seconds=1)) == []


def test_a_range_of_known_times_lists_the_links_recorded_before_its_end(
        make_memory: Callable[..., Memory]) -> None:
    m, g, a, b, t1, t2, _ = _repeated(make_memory)
    [early] = m.facts("Ann", "LIKES", group=g, known_at=t1, known_to=t2)
    assert early.episodes == [a]
    [late] = m.facts("Ann", "LIKES", group=g, known_at=t1, known_to=t2 + timedelta(seconds=1))
    assert sorted(late.episodes) == sorted([a, b])


def test_erasing_the_later_episode_removes_its_link_and_keeps_the_earlier(
        make_memory: Callable[..., Memory]) -> None:
    m, g, a, b, t1, t2, _ = _repeated(make_memory)
    m.erase(episode=b, group=g)
    for at in (t1, t2, t2 + timedelta(hours=5)):
        [v] = m.facts("Ann", "LIKES", group=g, known_at=at)
        assert v.episodes == [a]


def test_export_and_import_keep_each_links_time(make_memory: Callable[..., Memory]) -> None:
    m, g, a, b, t1, t2, _ = _repeated(make_memory)
    out = io.StringIO()
    m.export(out, [g])
    target = make_memory()
    target.import_(io.StringIO(out.getvalue()))
    between = t1 + (t2 - t1) / 2
    assert set(map(tuple, _sources(target, g, between).values())) == {(a,)}
    assert set(map(tuple, _sources(target, g, t2).values())) == {tuple(sorted([a, b]))}
    again = io.StringIO()
    target.export(again, [g])
    assert _link_times(again.getvalue()) == _link_times(out.getvalue())
    assert len(_link_times(out.getvalue())) == 3  # LIKES <- a, b; KNOWS <- a


def _link_times(archive: str) -> set[tuple[str, str, str]]:
    """(fact id, episode id, recorded time) of every provenance link the archive carries."""
    lines = [json.loads(x) for x in archive.splitlines()]
    return {(x["state"]["fact_id"], ep, t) for x in lines if x["kind"] == "lineage"
            for ep, t in x["sources"].items()}


def test_an_older_embedded_store_gets_a_lower_bound_for_each_links_time(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A store written before links had times: each link gets the later of its episode's
    recording and its lineage's first version, so B is not listed before it was stored."""
    import sqlite3

    clock = ManualClock()
    path = tmp_path / "old"
    with Memory(path, clock=clock, extractor=None) as m:
        t1 = clock.advance(hours=1)
        a = m.add_episode("Ann likes tea", "2024-01-01", extract=False)
        m.assert_fact("Ann", "LIKES", "tea", valid_at="2024", episode=a.id)
        t2 = clock.advance(hours=1)
        b = m.add_episode("Ann still likes tea", "2024-02-01", extract=False)
        m.assert_fact("Ann", "LIKES", "tea", valid_at="2024", episode=b.id)
    con = sqlite3.connect(path / "kgmem.sqlite3")
    con.execute("ALTER TABLE provenance DROP COLUMN recorded_at")  # as a store written before
    con.commit()
    con.close()
    with Memory(path, clock=clock, extractor=None) as m:
        [early] = m.facts("Ann", "LIKES", known_at=t1 + (t2 - t1) / 2)
        assert early.episodes == [a.id]
        [late] = m.facts("Ann", "LIKES", known_at=t2)
        assert sorted(late.episodes) == sorted([a.id, b.id])
