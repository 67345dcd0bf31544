"""The traces issue 13 (point 4) found after ``erase(episode=...)`` on 1953ce8, one test each:
the entity only that episode's fact created stayed (in ``entities()`` and in search), the
shared embedding cache kept the erased text's hash and vector, FTS5 segments kept its stemmed
tokens, and the raw bytes of an erased name stayed in the store's file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from kgmem.embed import CachedEmbedder, HashingEmbedder
from kgmem.embed.cache import text_key
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search
from tests.conftest import fresh_group, neo4j_store_or_skip

T0 = datetime(2024, 2, 1, tzinfo=timezone.utc)
NAME = "Zyxwvutsson"  # appears only in the erased episode and its fact
TEXT = f"Qwertyplumb told me that {NAME} moved to Frobnitzville"


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def setup(request, tmp_path, monkeypatch) -> Iterator[tuple[Memory, str, CachedEmbedder, str]]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KGMEM_CACHE_DIR", str(tmp_path / "cache"))
    cache = CachedEmbedder(HashingEmbedder(384), tmp_path / "cache" / "embeddings.sqlite3")
    if request.param == "embedded":
        m, group = Memory(tmp_path / "store", extractor=None, embedder=cache), "default"
    else:
        m = Memory(store=neo4j_store_or_skip(), extractor=None, embedder=cache)
        group = fresh_group("trace")
    keep = m.add_episode("Alice met Bob at the cafe", T0, group=group)
    ep = m.add_episode(TEXT, T0, group=group)
    m.assert_fact("Alice", "KNOWS", "Bob", episode=keep.id, group=group)
    m.assert_fact(NAME, "LIVES_IN", "Frobnitzville", episode=ep.id, group=group)
    index_pending(m)
    yield m, group, cache, ep.id
    if request.param == "neo4j":
        m.erase(whole_group=True, group=group)
        m.store.search_backends().clear()
    else:
        m.close()
    cache.close()


def test_an_entity_only_the_erased_episode_created_is_gone(setup) -> None:  # type: ignore[no-untyped-def]
    m, group, _cache, ep = setup
    m.erase(episode=ep, group=group)
    assert {e.name for e in m.entities(group)} == {"Alice", "Bob"}
    assert all(NAME not in r.text for r in search(m, NAME, group=group))


def test_the_shared_embedding_cache_forgets_the_erased_texts(setup) -> None:  # type: ignore[no-untyped-def]
    m, group, cache, ep = setup
    erased = [TEXT, NAME, "Frobnitzville", f"{NAME} lives in Frobnitzville"]
    kept = "Alice met Bob at the cafe"
    cache.embed([*erased, kept])  # cached whatever the indexer got to (a shared Neo4j server)
    vec = np.asarray(HashingEmbedder(384).embed_one(TEXT), np.float32).tobytes()
    m.erase(episode=ep, group=group)
    db = sqlite3.connect(cache.path)  # type: ignore[arg-type]
    keys = {k for (k,) in db.execute("SELECT key FROM embeddings")}
    vecs = {v for (v,) in db.execute("SELECT vec FROM embeddings")}
    db.close()
    assert not keys & {text_key(t) for t in erased}
    assert vec not in vecs
    assert text_key(kept) in keys  # what was not erased stays cached


def _store_bytes(m: Memory) -> bytes:
    path: Path = m.store.path  # type: ignore[attr-defined]
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())


def test_no_fts5_segment_keeps_the_erased_tokens(setup) -> None:  # type: ignore[no-untyped-def]
    m, group, _cache, ep = setup
    if m.store.__class__.__name__ != "EmbeddedStore":
        pytest.skip("FTS5 segments are the embedded store's")
    data = b"".join(r[0] for r in m.store._conn.execute(  # type: ignore[attr-defined]
        "SELECT block FROM episodes_fts_data"))
    assert b"qwertyplumb" in data  # the token is in a segment before the erase
    m.erase(episode=ep, group=group)
    data = b"".join(r[0] for r in m.store._conn.execute(  # type: ignore[attr-defined]
        "SELECT block FROM episodes_fts_data UNION ALL SELECT block FROM facts_fts_data "
        "UNION ALL SELECT block FROM entities_fts_data"))
    assert b"qwertyplumb" not in data and b"zyxwvutsson" not in data


def test_no_byte_of_an_erased_name_stays_in_the_store_files(setup) -> None:  # type: ignore[no-untyped-def]
    m, group, _cache, ep = setup
    if m.store.__class__.__name__ != "EmbeddedStore":
        pytest.skip("the embedded store's files (Neo4j: tests/erase/test_erase_suite.py)")
    m.erase(episode=ep, group=group)
    m.close()
    data = _store_bytes(m)
    assert [w for w in (NAME, "Frobnitzville", "Qwertyplumb") if w.encode() in data
            or w.lower().encode()[:8] in data] == []


def test_erasing_a_fact_drops_the_resolvers_note_of_the_alias_it_used(setup) -> None:  # type: ignore[no-untyped-def]
    from kgmem.core.resolve import raw_aliases
    from kgmem.model import INTERNAL_ALIAS

    m, group, _cache, _ep = setup
    m.add_alias("Bob", "Bobby Tables", group=group)
    ep = m.add_episode("Bobby Tables likes jazz", T0, group=group)
    fact = m.assert_fact("Bobby Tables", "LIKES", "jazz", episode=ep.id, group=group)
    bob = next(e for e in m.entities(group) if e.name == "Bob")
    with raw_aliases():
        notes = [a for a in m.store.get_entity(group, bob.id).aliases  # type: ignore[union-attr]
                 if a.startswith(INTERNAL_ALIAS + "t:")]
    assert notes and all(fact.fact_id in a for a in notes)  # the note exists before the erase
    m.erase(episode=ep.id, group=group)
    with raw_aliases():
        left = m.store.get_entity(group, bob.id).aliases  # type: ignore[union-attr]
    assert not [a for a in left if fact.fact_id in a] and "Bobby Tables" in left
