"""Ranking with time and weight on every store: search with a recency half-life orders two
same-topic episodes by when they were said (newest first, ages from the asking time), the
Generative-Agents mode reads what was extracted from each episode, and a question naming a
time keeps its own order. The same tests run on the embedded store and on Neo4j."""

from __future__ import annotations

from collections.abc import Callable

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import importance, index_pending
from tests.conftest import fresh_group

ASKED = "2024-07-01T00:00:00+00:00"
Q = "hiking trip with my sister"


def _memory(make_memory: Callable[..., Memory], **kw: object) -> tuple[Memory, str, str, str]:
    m = make_memory(**kw)
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]  # 384: Neo4j's indexes
    g = fresh_group()
    old = m.add_episode("A hiking trip with my sister in the Alps.",
                        reference_time="2019-06-01T10:00:00+00:00", speaker="Ana", group=g)
    # a day before the question: the prior (at most 1 / (1 - RECENCY_WEIGHT) = 1.25x)
    # outweighs the stores' arbitrary order of the two equal matches (1st and 2nd place)
    new = m.add_episode("A hiking trip with my sister in the Rockies.",
                        reference_time="2024-06-30T10:00:00+00:00", speaker="Ana", group=g)
    index_pending(m)
    return m, g, old.id, new.id


def test_recency_orders_same_topic_episodes_by_time(make_memory: Callable[..., Memory]) -> None:
    m, g, old, new = _memory(make_memory)
    for h in (30, 365):
        got = m.search(Q, kinds=["episodes"], group=g, reference_time=ASKED, half_life_days=h)
        assert [r.id for r in got] == [new, old]
        rec = {r.id: r.parts.recency for r in got}
        assert rec[new] is not None and rec[old] is not None and rec[new] > rec[old]
    # asked in 2019: the Alps turn is the recent one, the Rockies lie in the future (1.0)
    early = m.search(Q, kinds=["episodes"], group=g, reference_time="2019-06-02T10:00:00+00:00",
                     half_life_days=1)
    rec_early = {r.id: r.parts.recency for r in early}
    assert rec_early[new] == 1.0
    assert rec_early[old] is not None and abs(rec_early[old] - 0.5) < 1e-9


def test_a_question_naming_a_time_keeps_its_order(make_memory: Callable[..., Memory]) -> None:
    m, g, old, new = _memory(make_memory)
    q = "hiking trip with my sister in 2019"
    off = m.search(q, kinds=["episodes"], group=g, reference_time=ASKED, half_life_days=0)
    on = m.search(q, kinds=["episodes"], group=g, reference_time=ASKED, half_life_days=30)
    assert on[0].id == old
    assert [(r.id, r.score) for r in on] == [(r.id, r.score) for r in off]


def test_generative_agents_reads_importance_from_extraction(
        make_memory: Callable[..., Memory]) -> None:
    from kgmem.ingest.pipeline import make_extractor
    from kgmem.settings import Settings

    m = make_memory(extractor=make_extractor(Settings(extractor="offline")))
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    g = fresh_group()
    chat = m.add_episode("Denver was sunny and nice today.",
                         reference_time="2024-06-01T10:00:00+00:00", speaker="Ana", group=g)
    life = m.add_episode("I moved to Denver last week.",
                         reference_time="2024-05-01T10:00:00+00:00", speaker="Ana", group=g)
    index_pending(m)
    fused = m.search("Denver", kinds=["episodes"], group=g, reference_time=ASKED,
                     half_life_days=0)
    got = m.search("Denver", kinds=["episodes"], group=g, reference_time=ASKED,
                   ranking="generative_agents", half_life_days=90)
    imp = {r.id: r.parts.importance for r in got}
    assert imp == {life.id: importance.LIFE, chat.id: importance.CHITCHAT}
    # the score by hand: (relevance + importance + recency) / 3, each min-max normalised
    # over the two (relevance: the fused score; the chit-chat is the newer one)
    rel = {r.id: r.score for r in fused}
    lo, hi = min(rel.values()), max(rel.values())
    norm = {e: (v - lo) / (hi - lo) if hi > lo else 0.0 for e, v in rel.items()}
    want = {life.id: (norm[life.id] + 1.0 + 0.0) / 3, chat.id: (norm[chat.id] + 0.0 + 1.0) / 3}
    assert {r.id: round(r.score, 9) for r in got} == {e: round(v, 9) for e, v in want.items()}
