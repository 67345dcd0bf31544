"""Neo4j fact candidates read only what can be returned: keyword facts the head of the
fulltext stream (``LIMIT $n``, widening x8), vector facts the full rows of the hits ``_best``
keeps. The answers must be exactly those of the former queries (every match / every hit as a
full row), including which version of a fact is kept and the order of tied scores."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import kgmem.store.neo4j.search_reads as nb
from benchmarks.scale import generate
from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.retrieve.backend import get_backend
from kgmem.store.base import TimeFilter
from kgmem.store.neo4j import queries as n4
from kgmem.store.visibility import version_cypher
from tests.conftest import fresh_group, neo4j_store_or_skip

from .conftest import StepClock

pytestmark = pytest.mark.neo4j


def every_match(be: nb.Neo4jSearchReads, group: str, words: list[str], limit: int,
                when: TimeFilter) -> list[tuple[str, str, float]]:
    """The former keyword_facts: every visible match as a row, best version per fact."""
    cond, vparams = version_cypher(when)
    rows = be._q(
        "CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $q) "
        f"YIELD relationship AS r, score WHERE r.fact IS NOT NULL AND r.group_id = $g AND {cond} "
        f"WITH r, score MATCH (s:Entity)-[r]->(o:Entity) {n4.V_RETURN}{n4.V_PROV}, score",
        q=nb._lucene(words, "fact"), g=group, **vparams)
    return [(v.id, v.fact_id, s) for v, s in be._best(rows, limit, cosine=False)]


def every_hit(be: nb.Neo4jSearchReads, group: str, q: list[float], limit: int,
              when: TimeFilter) -> list[tuple[str, str, float]]:
    """The former vector_facts: every hit of the group read as a full row, then _best."""
    cond, vparams = version_cypher(when)
    hits = be._widening(
        "CALL db.index.vector.queryRelationships('kgmem_fact_embedding', $kk, $q) "
        "YIELD relationship AS r, score WITH count(*) AS raw, collect(CASE WHEN "
        f"r.group_id = $g AND {cond} THEN [elementId(r), r.fact_id, score] END) AS kept "
        "RETURN raw, kept",
        limit * 4, lambda kept: len({h[1] for h in kept}) >= limit, q=q, g=group, **vparams)
    if not hits:
        return []
    rows = be._q(
        "UNWIND $hits AS h MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
        f"WHERE elementId(r) = h[0] WITH s, r, o, h[2] AS score {n4.V_RETURN}{n4.V_PROV}, "
        "score", hits=hits)
    return [(v.id, v.fact_id, s) for v, s in be._best(rows, limit, cosine=True)]


def test_keyword_facts_head_equals_reading_every_match(monkeypatch: pytest.MonkeyPatch) -> None:
    m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    group = fresh_group("kwhead")
    try:
        rows, _ = generate(400)  # 40 people moving homes and jobs: superseded versions
        m.assert_facts(rows, group=group, batch_size=200)
        be = get_backend(m)
        now = m.now()
        current = TimeFilter(valid_at=now, known_at=now, any_valid=True)
        # every version ever known: superseded versions repeat their fact's id in the stream
        ever = TimeFilter(valid_at=now, known_at=datetime(2000, 1, 1, tzinfo=UTC),
                          known_to=datetime(2100, 1, 1, tzinfo=UTC), any_valid=True)
        at_2010 = TimeFilter(valid_at=datetime(2010, 6, 1, tzinfo=UTC), known_at=now)
        trips: list[int] = []
        q0 = be._q

        def counting_q(query: str, **params: object) -> list[list[object]]:
            trips.append(1)
            return q0(query, **params)

        monkeypatch.setattr(be, "_q", counting_q)
        widened = False
        for per_fact in (nb.KEYWORD_ROWS_PER_FACT, 1):
            monkeypatch.setattr(nb, "KEYWORD_ROWS_PER_FACT", per_fact)
            for when in (current, ever, at_2010):
                for words in (["works"], ["works", "person3"], ["person7"], ["nothing"]):
                    for limit in (1, 3, 10, 40, 500):
                        expect = every_match(be, group, words, limit, when)
                        trips.clear()
                        got = be.keyword_facts(group, words, limit, when)
                        # same versions in the same order; scores equal up to the drift of
                        # Lucene's BM25 statistics while other tests write to the server
                        assert [(v.id, v.fact_id) for v, _ in got] == [e[:2] for e in expect], (
                            per_fact, when, words, limit)
                        assert [s for _, s in got] == pytest.approx([e[2] for e in expect],
                                                                    rel=1e-3)
                        widened = widened or len(trips) > 1
                        if words == ["works"] and limit <= 10:
                            assert len(expect) == limit  # enough matches: the head was cut
        assert widened  # some answers needed a second, wider read
    finally:
        m.erase(whole_group=True, group=group)


def test_vector_facts_read_only_kept_hits_same_answer() -> None:
    m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    group = fresh_group("vhead")
    try:
        rows, _ = generate(300)
        m.assert_facts(rows, group=group, batch_size=150)
        index_pending(m)
        be = get_backend(m)
        now = m.now()
        whens = (TimeFilter(valid_at=now, known_at=now, any_valid=True),
                 TimeFilter(valid_at=now, known_at=datetime(2000, 1, 1, tzinfo=UTC),
                            known_to=datetime(2100, 1, 1, tzinfo=UTC), any_valid=True),
                 TimeFilter(valid_at=datetime(2010, 6, 1, tzinfo=UTC), known_at=now))
        checked = 0
        for text in ("person3 works at org2", "who does person7 know", "lives in place1"):
            q = [float(x) for x in m.embedder.embed([text])[0]]  # type: ignore[attr-defined]
            for when in whens:
                for limit in (1, 3, 10, 40):
                    expect = every_hit(be, group, q, limit, when)
                    got = [(v.id, v.fact_id, s) for v, s in be.vector_facts(group, q, limit,
                                                                             when)]
                    if got != expect:  # other tests write to the shared index meanwhile
                        expect = every_hit(be, group, q, limit, when)
                    assert got == expect, (text, when, limit)
                    checked += len(got)
        assert checked > 100
    finally:
        m.erase(whole_group=True, group=group)
