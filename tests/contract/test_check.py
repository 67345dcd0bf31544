"""`kgmem check` on both stores: a store written through kgmem passes every check, and each
kind of damage (done behind kgmem's back, as another program or a bug could) fails exactly
the checks it breaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kgmem import timeline
from kgmem.cli.main import app
from kgmem.embed.hashing import HashingEmbedder
from kgmem.jobs.check import check_store
from kgmem.memory.facade import Memory
from tests.conftest import fresh_group


@dataclass
class Built:
    m: Memory
    group: str
    kind: str
    episode: str  # cited by the Boston fact
    boston: str
    tea: str

    def sql(self, query: str, *params: Any) -> None:
        with self.m.store._db.write() as c:  # type: ignore[attr-defined]
            c.execute(query, params)

    def cypher(self, query: str, **params: Any) -> None:
        with self.m.store.driver.session(database=self.m.store.database) as s:  # type: ignore[attr-defined]
            s.run(query, params, g=self.group).consume()

    def failing(self) -> set[str]:
        return {f.name for f in check_store(self.m.store, self.group, self.m.vocabulary).findings
                if not f.ok}


def build(m: Memory, kind: str, clock: Any) -> Built:
    g = fresh_group("chk")
    ep = m.add_episode("Alice moved to Boston", "2020-01-01", speaker="Alice", group=g,
                       extract=False)
    ep2 = m.add_episode("Bob likes tea", "2021-01-01", speaker="Bob", group=g, extract=False)
    boston = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g,
                           episode=ep.id)
    clock.advance(hours=1)
    m.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2022", group=g)  # closes Boston
    tea = m.assert_fact("Bob", "LIKES", "tea", group=g, episode=ep2.id)
    m.search("Boston", group=g)  # builds the search indexes (keyword and vector rows)
    return Built(m, g, kind, ep.id, boston.fact_id, tea.fact_id)


@pytest.fixture
def built(make_memory, store_kind, clock) -> Built:  # type: ignore[no-untyped-def]
    return build(make_memory(clock=clock, embedder=HashingEmbedder(384)), store_kind, clock)


def test_a_store_written_through_kgmem_passes_every_check(built: Built) -> None:
    report = check_store(built.m.store, built.group, built.m.vocabulary)
    assert report.ok, report.to_dict()
    assert len(report.findings) == 11
    assert report.notes["extraction"] == {"skipped": 2}
    built.m.erase(episode=built.episode, group=built.group)
    assert built.failing() == set()


def _current_again(b: Built) -> None:  # the superseded Boston version made current again
    if b.kind == "embedded":
        b.sql("UPDATE versions SET expired_at = NULL WHERE fact_id = ?", b.boston)
    else:
        b.cypher("MATCH ()-[r:RELATES_TO {fact_id: $f}]->() SET r.expired_at = null", f=b.boston)


def _lineage_gone(b: Built) -> None:
    if b.kind == "embedded":
        b.sql("DELETE FROM lineages WHERE fact_id = ?", b.tea)
    else:
        b.cypher("MATCH (l:KgmemLineage {fact_id: $f}) DETACH DELETE l", f=b.tea)


def _versions_gone(b: Built) -> None:  # what graphiti's remove_episode does to kgmem facts
    if b.kind == "embedded":
        b.sql("DELETE FROM versions WHERE fact_id = ?", b.tea)
    else:
        b.cypher("MATCH ()-[r:RELATES_TO {fact_id: $f}]->() DELETE r", f=b.tea)


def _episode_gone(b: Built) -> None:
    if b.kind == "embedded":
        b.sql("DELETE FROM episodes WHERE id = ?", b.episode)
    else:
        b.cypher("MATCH (e:Episodic {uuid: $e}) DETACH DELETE e", e=b.episode)


def _keyword_row_gone(b: Built) -> None:
    if b.kind == "embedded":
        b.sql("DELETE FROM episodes_fts WHERE episode_id = ?", b.episode)
    else:
        b.cypher("MATCH (e:Episodic {uuid: $e}) REMOVE e.kgmem_tokens", e=b.episode)


def _stray_vector(b: Built) -> None:
    if b.kind == "embedded":
        b.sql("INSERT INTO search_vectors(kind, item, chunk, start, \"end\", group_id, vec) "
              "VALUES('episode', 'no-such-episode', 0, 0, 1, ?, zeroblob(1536))", b.group)
    else:  # (a chunk without its episode would be swept by any index pass on the server)
        b.cypher("MATCH (e:Episodic {uuid: $e})-[:KGMEM_CHUNK]->(c:KgmemChunk) "
                 "SET c.embedding = [0.0, 1.0, 0.0]", e=b.episode)


def _state_mismatch(b: Built) -> None:
    if b.kind == "embedded":
        b.sql("UPDATE episodes SET extraction_status = 'done' WHERE id = ?", b.episode)
    else:
        b.cypher("MATCH (e:Episodic {uuid: $e}) SET e.kgmem_extraction_status = 'done'",
                 e=b.episode)


DAMAGE: dict[str, tuple[Callable[[Built], None], dict[str, set[str]]]] = {
    "current_again": (_current_again, {
        "*": {"one_current_version", "functional_intervals_disjoint"}}),
    "lineage_gone": (_lineage_gone, {"*": {"versions_have_lineages"}}),
    "versions_gone": (_versions_gone, {
        # the embedded FTS of fact texts follows the versions by trigger
        "*": {"lineages_have_versions"}}),
    "episode_gone": (_episode_gone, {
        "embedded": {"provenance_episodes_exist", "mentions_exist", "keyword_index_consistent"},
        # its chunk nodes stay behind (kgmem's erase removes them with the episode)
        "neo4j": {"provenance_episodes_exist", "vector_index_consistent"}}),
    "keyword_row_gone": (_keyword_row_gone, {"*": {"keyword_index_consistent"}}),
    "stray_vector": (_stray_vector, {"*": {"vector_index_consistent"}}),
    "state_mismatch": (_state_mismatch, {"*": {"extraction_states_consistent"}}),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_check_names_exactly_what_each_damage_broke(built: Built, damage: str) -> None:
    do, expected = DAMAGE[damage]
    do(built)
    assert built.failing() == expected.get(built.kind, expected.get("*"))


def test_a_stored_summary_that_is_not_its_facts_is_found(built: Built) -> None:
    """Summaries are derived data: the check rebuilds them from the facts."""
    assert built.m.consolidate(group=built.group) > 0
    assert built.failing() == set()
    if built.kind == "embedded":
        built.sql("UPDATE entity_summaries SET text = 'Alice lives on the Moon.' "
                  "WHERE group_id = ? AND seq = 0", built.group)
    else:
        built.cypher("MATCH (s:KgmemSummary {seq: 0}) WHERE s.group_id = $g "
                     "SET s.text = 'Alice lives on the Moon.'")
    assert built.failing() == {"summaries_rebuildable"}


def test_a_missing_entity_is_found(built: Built) -> None:
    if built.kind == "embedded":
        built.sql("DELETE FROM entities WHERE name = 'tea' AND group_id = ?", built.group)
        assert built.failing() == {"entity_refs_exist", "mentions_exist"}  # Bob's episode
    else:  # a node delete takes its relationships (the versions) along
        built.cypher("MATCH (e:Entity {name: 'tea'}) WHERE e.group_id = $g DETACH DELETE e")
        assert built.failing() == {"entity_refs_exist", "lineages_have_versions"}


def test_check_cli_exits_1_and_lists_the_problem(tmp_path, clock) -> None:  # type: ignore[no-untyped-def]
    with Memory(tmp_path / "s", clock=clock, embedder=HashingEmbedder(384), extractor=None) as m:
        b = build(m, "embedded", clock)
        _current_again(b)
    r = CliRunner().invoke(app, ["--home", str(tmp_path / "s"), "-g", b.group, "--json",
                                 "check"])
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    bad = [c for c in out["checks"] if not c["ok"]]
    assert [c["name"] for c in bad] == ["one_current_version", "functional_intervals_disjoint"]
    assert b.boston in bad[0]["samples"][0]
    r = CliRunner().invoke(app, ["--home", str(tmp_path / "s"), "-g", "other", "check"])
    assert r.exit_code == 0 and "FAIL" not in r.stdout  # another group is clean


_instant = st.one_of(st.none(), st.integers(0, 40))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_instant, _instant), max_size=8))
def test_overlapping_pairs_is_empty_exactly_when_no_two_intervals_overlap(raw) -> None:  # type: ignore[no-untyped-def]
    from datetime import datetime, timedelta, timezone

    t0 = datetime(2020, 1, 1, tzinfo=timezone.utc)
    ivs = []
    for a, b in raw:
        start = None if a is None else t0 + timedelta(days=a)
        end = None if b is None else t0 + timedelta(days=b)
        if start is not None and end is not None and not start < end:
            continue
        ivs.append((start, end))
    naive = any(timeline.intervals_overlap(*ivs[i], *ivs[j])
                for i in range(len(ivs)) for j in range(i + 1, len(ivs)))
    pairs = timeline.overlapping_pairs(ivs)
    assert bool(pairs) == naive
    assert all(timeline.intervals_overlap(*ivs[i], *ivs[j]) for i, j in pairs)
