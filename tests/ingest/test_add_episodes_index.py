"""``add_episodes(index=True)``: extraction and embedding overlap, and nothing is left unindexed."""

from __future__ import annotations

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.ingest.pipeline import make_extractor
from kgmem.memory.facade import Memory
from kgmem.retrieve.backend import get_backend

TURNS = [
    "I adopted a cat named Miso last spring.",
    "My sister Dana lives in Lisbon.",
    "I work at Initech as a designer.",
    "We watched a movie about sharks yesterday.",
    "I started learning the cello in 2021.",
]


def _queued(m: Memory) -> int:
    return get_backend(m).view.search_queue_size()


def _items(n: int) -> list[dict]:
    return [{"content": f"{TURNS[i % len(TURNS)]} (note {i})",
             "reference_time": f"2023-05-{1 + i % 28:02d}T10:00:00Z", "speaker": "Sam"}
            for i in range(n)]


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return make_extractor()


def test_everything_is_indexed_when_the_call_returns(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path, extractor=extractor, embedder=HashingEmbedder(64))
    eps = m.add_episodes(_items(23), batch_size=4, index=True)
    assert len(eps) == 23
    assert _queued(m) == 0  # episodes, facts and entities all embedded
    assert m.index() == 0
    hits = m.search("cello", kinds=("episodes",), limit=3)
    assert hits and "cello" in hits[0].text
    assert m.facts(subject="Sam", predicate="WORKS_AT")[0].object == "Initech"


def test_overlapped_ingestion_equals_sequential(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    a = Memory(tmp_path / "a", extractor=extractor, embedder=HashingEmbedder(64))
    b = Memory(tmp_path / "b", extractor=extractor, embedder=HashingEmbedder(64))
    a.add_episodes(_items(12), batch_size=5, index=True)
    b.add_episodes(_items(12), batch_size=5)
    b.index()
    assert sorted(f.describe() for f in a.facts()) == sorted(f.describe() for f in b.facts())
    assert a.stats() == b.stats()
    # idempotent: the same items again add nothing and leave nothing to index
    a.add_episodes(_items(12), batch_size=5, index=True)
    assert a.stats() == b.stats() and _queued(a) == 0


def test_background_index_failure_surfaces(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    class Broken(HashingEmbedder):
        def _embed(self, texts):  # type: ignore[no-untyped-def]
            raise RuntimeError("embedder down")

    m = Memory(tmp_path, extractor=extractor, embedder=Broken(64))
    with pytest.raises(RuntimeError, match="embedder down"):
        m.add_episodes(_items(6), batch_size=2, index=True)
    assert len(m.episodes()) >= 2  # what was written stays written (and queued for indexing)
    assert _queued(m) > 0


def test_indexing_an_ingest_leaves_other_groups_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Only the ingested groups are indexed: on a shared Neo4j server an unscoped pass embedded
    every tenant's backlog (and deadlocked with their writes)."""
    m = Memory(tmp_path, extractor=None, embedder=HashingEmbedder(64))
    m.add_episode("Someone else's note.", "2023-05-01", group="other", extract=False)
    waiting = m.pending_index("other")
    assert waiting > 0
    m.add_episodes(_items(6), group="mine", batch_size=2, extract=False, index=True)
    assert m.pending_index("mine") == 0
    assert m.pending_index("other") == waiting  # left to the background indexer
