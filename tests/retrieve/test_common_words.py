"""A query whose words are all too common to rank (each in more than DF_MAX rows) scores only
the newest COMMON_POOL matches on the embedded store, instead of BM25 over every match (350 ms
for one word over 1M facts; benchmarks/RESULTS.md). Thresholds are lowered here so a few rows
are "too many"; the ranking inside the pool is still BM25."""

from __future__ import annotations

from datetime import timedelta

import pytest

import kgmem.store.sqlite.search_reads as backend_mod
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.retrieve.backend import get_backend

from .conftest import at


@pytest.fixture
def garden(mem: Memory) -> list[str]:
    t0 = at("2023-05-01T09:00:00")
    texts = ["garden garden garden"] + [f"note {i} about the garden" for i in range(10)]
    texts[-2] = "garden garden"
    ids = [mem.add_episode(t, t0 + timedelta(minutes=i)).id for i, t in enumerate(texts)]
    # facts stored oldest first; the oldest says "garden" most
    for who, text in [("Ana", "Ana: garden garden garden"), ("Ben", "Ben likes the garden"),
                      ("Cy", "Cy likes garden work"), ("Di", "Di plans a garden"),
                      ("Ed", "Ed: garden garden"), ("Flo", "Flo weeds the garden")]:
        mem.assert_fact(who, "LIKES", "garden", valid_at="2023-01-01", fact=text)
    index_pending(mem)
    return ids


def test_all_words_common_scores_the_newest_matches_only(mem, garden, monkeypatch):
    be = get_backend(mem)
    # by default every match is ranked: the oldest, wordiest episode wins
    full = be.keyword_episodes("default", ["garden"], 3, mem.now(), None, None)
    assert full[0][0] == garden[0]
    monkeypatch.setattr(backend_mod, "DF_MAX", 5)
    monkeypatch.setattr(backend_mod, "COMMON_POOL", 4)
    be._df.clear()
    got = be.keyword_episodes("default", ["garden"], 3, mem.now(), None, None)
    assert len(got) == 3 and {i for i, _ in got} <= set(garden[-4:])  # the 4 newest only
    assert got[0][0] == garden[-2]  # BM25 inside the pool: "garden garden" first
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    # a rarer word in the query is ranked over all its matches, as before
    rare = be.keyword_episodes("default", ["garden", "3"], 3, mem.now(), None, None)
    assert rare[0][0] == garden[4]  # "note 3 about the garden"


def test_common_words_pool_applies_to_facts_and_entities(mem, garden, monkeypatch):
    be = get_backend(mem)
    monkeypatch.setattr(backend_mod, "DF_MAX", 1)
    monkeypatch.setattr(backend_mod, "COMMON_POOL", 2)
    be._df.clear()
    from kgmem.store.base import TimeFilter

    when = TimeFilter(valid_at=mem.now(), known_at=mem.now())
    # limit 1: the store is asked for 3 rows, so the pool is the 3 newest fact texts
    facts = be.keyword_facts("default", ["garden"], 1, when)
    assert [v.fact for v, _ in facts] == ["Ed: garden garden"]  # not the oldest, Ana's
    ents = be.keyword_entities("default", ["garden"], 5, mem.now())
    assert [be.entities_by_ids("default", [e])[e].name for e, _ in ents] == ["garden"]
    monkeypatch.setattr(backend_mod, "DF_MAX", 5000)
    be._df.clear()
    assert [v.fact for v, _ in be.keyword_facts("default", ["garden"], 1, when)] == [
        "Ana: garden garden garden"]
