"""Indexing: triggers + queue, chunking of long episodes, erase, ANN persistence/rebuild."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from kgmem.embed import HashingEmbedder, count_tokens
from kgmem.memory.facade import Memory
from kgmem.retrieve import flush, index_pending, search
from kgmem.store.sqlite import vectors as vector_mod

from .conftest import StepClock


def _rows(mem, sql, params=()):
    return mem.store._conn.execute(sql, params).fetchall()


def test_existing_store_is_backfilled_on_first_index(tmp_path):
    path = tmp_path / "s"
    m = Memory(path, clock=StepClock(), extractor=None)  # no search tables yet
    ep = m.add_episode("bonsai pruning tips", "2023-01-01T00:00:00Z", speaker="Kim")
    m.assert_fact("Kim", "LIKES", "bonsai")
    m.embedder = HashingEmbedder(64)
    n = index_pending(m)
    assert n >= 4  # the episode, the fact text, entities Kim and bonsai
    assert index_pending(m) == 0
    assert [r.id for r in search(m, "bonsai", kinds=("episodes",))] == [ep.id]
    assert [r.text for r in search(m, "bonsai", kinds=("facts",))] == ["Kim likes bonsai"]
    m.close()


def test_writes_are_queued_in_their_own_transaction(mem):
    index_pending(mem)
    mem.add_episode("origami cranes", "2023-01-01T00:00:00Z")
    mem.assert_fact("Ada", "LIKES", "origami")
    queued = _rows(mem, "SELECT kind, count(*) FROM search_queue GROUP BY kind")
    assert dict(queued)["episode"] == 1 and dict(queued)["fact"] == 1
    assert dict(queued)["entity"] >= 2  # Ada, origami (+ any alias the resolver adds)
    index_pending(mem)
    assert _rows(mem, "SELECT count(*) FROM search_queue") == [(0,)]
    # a superseding write re-versions the old fact with the same text: nothing new to embed
    mem.assert_fact("Ada", "LIVES_IN", "Oslo", valid_at="2020-01-01")
    index_pending(mem)
    n_vec = _rows(mem, "SELECT count(*) FROM search_vectors WHERE kind='fact'")[0][0]
    mem.assert_fact("Ada", "LIVES_IN", "Rome", valid_at="2022-01-01")  # closes Oslo
    assert _rows(mem, "SELECT count(*) FROM versions WHERE fact_text='Ada lives in Oslo'") == [
        (2,)
    ]
    index_pending(mem)
    # only the new text got a vector, not the re-versioned Oslo fact
    assert _rows(mem, "SELECT count(*) FROM search_vectors WHERE kind='fact'")[0][0] == n_vec + 1


def test_long_episode_is_chunked_not_truncated(mem):
    filler = " ".join(f"word{i}" for i in range(400))
    content = "Intro about gardening. " + filler + " The secret ingredient is saffron."
    assert count_tokens(content) > 256
    ep = mem.add_episode(content, "2023-01-01T00:00:00Z", speaker="Lu")
    mem.add_episode("saffron is expensive", "2023-01-02T00:00:00Z")
    index_pending(mem)
    chunks = _rows(
        mem,
        'SELECT chunk, start, "end" FROM search_vectors WHERE kind=\'episode\' AND item=? '
        "ORDER BY chunk",
        (ep.id,),
    )
    assert len(chunks) >= 3
    assert chunks[0][1] == 0 and chunks[-1][2] == len(content)  # whole text covered
    for (_, _, e1), (_, s2, _) in zip(chunks, chunks[1:]):
        assert s2 < e1  # overlapping windows, no gap
    res = search(mem, "secret ingredient saffron", kinds=("episodes",))
    hit = next(r for r in res if r.id == ep.id)
    assert hit.chunk is not None and hit.chunk[1] == len(content)  # the best chunk: the end
    assert "saffron" in content[hit.chunk[0] : hit.chunk[1]]


def test_erase_episode_removes_vectors_fts_and_results(mem):
    keep = mem.add_episode("yoga at the park", "2023-01-01T00:00:00Z")
    gone = mem.add_episode("yoga retreat in Bali", "2023-01-02T00:00:00Z")
    index_pending(mem)
    assert {r.id for r in search(mem, "yoga", kinds=("episodes",))} == {keep.id, gone.id}
    mem.erase(episode=gone.id)
    # gone from SQLite in the erase transaction itself (before any re-index)
    assert _rows(mem, "SELECT count(*) FROM search_vectors WHERE item=?", (gone.id,)) == [(0,)]
    assert _rows(mem, "SELECT count(*) FROM search_episode_times WHERE episode_id=?",
                 (gone.id,)) == [(0,)]
    assert [r.id for r in search(mem, "yoga Bali retreat", kinds=("episodes",))] == [keep.id]


def test_erase_entity_removes_its_facts_names_and_vectors(mem):
    mem.assert_fact("Zed", "LIKES", "jazz")
    mem.assert_fact("Amy", "LIKES", "jazz")
    index_pending(mem)
    mem.erase(entity="Zed")
    assert _rows(mem, "SELECT count(*) FROM search_entity_names WHERE name='Zed'") == [(0,)]
    assert _rows(mem, "SELECT count(*) FROM search_fact_texts WHERE text LIKE 'Zed%'") == [(0,)]
    res = search(mem, "who likes jazz, Zed?")
    assert all("Zed" not in r.text for r in res)
    assert any(r.text == "Amy likes jazz" for r in res)
    # the FTS indexes no longer match the erased name
    assert _rows(mem, "SELECT count(*) FROM entities_fts WHERE entities_fts MATCH 'zed'") == [(0,)]
    assert _rows(mem, "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'zed'") == [(0,)]


@pytest.fixture
def small_hnsw(monkeypatch):
    monkeypatch.setattr(vector_mod, "HNSW_MIN", 20)


def _make_many(mem, n, word="topic"):
    return [mem.add_episode(f"{word} number {i} alpha{i}", f"2023-01-01T00:{i // 60:02d}:"
                            f"{i % 60:02d}Z") for i in range(n)]


def test_hnsw_file_is_scrubbed_after_erase(mem, small_hnsw):
    eps = _make_many(mem, 40)
    index_pending(mem)
    search(mem, "topic alpha3", kinds=("episodes",))  # builds + persists the HNSW index
    files = list((mem.store.path / "search").glob("episode-*.hnsw"))
    assert len(files) == 1
    victim = eps[3]
    (blob,) = _rows(mem, "SELECT vec FROM search_vectors WHERE item=?", (victim.id,))[0]
    assert blob in files[0].read_bytes()
    mem.erase(episode=victim.id)
    index_pending(mem)  # the hook after erase: scrubs persisted indexes
    files = list((mem.store.path / "search").glob("episode-*.hnsw"))
    assert len(files) == 1
    assert blob not in files[0].read_bytes()
    assert victim.id not in [r.id for r in search(mem, "topic alpha3", kinds=("episodes",))]


def test_hnsw_index_survives_loss_and_catches_up_with_sqlite(tmp_path, small_hnsw):
    path = tmp_path / "s"
    emb = HashingEmbedder(64)
    m = Memory(path, clock=StepClock(), extractor=None)
    m.embedder = emb
    _make_many(m, 30)
    search(m, "topic")
    flush(m)
    last = m.store.last_tx_time("default")
    m.close()
    # reopen: the file is older than the data added now (as after a crash)
    m = Memory(path, clock=StepClock(last), extractor=None)
    m.embedder = emb
    late = m.add_episode("a brand new zebra topic", "2023-02-01T00:00:00Z")
    assert search(m, "zebra", kinds=("episodes",))[0].id == late.id
    m.close()
    # the index files vanish entirely: rebuilt from the vectors in SQLite
    for p in (path / "search").glob("*"):
        p.unlink()
    m = Memory(path, clock=StepClock(last + timedelta(days=1)), extractor=None)
    m.embedder = emb
    assert search(m, "zebra", kinds=("episodes",))[0].id == late.id
    m.close()


def test_hnsw_and_exact_agree_on_a_clear_winner(mem, small_hnsw):
    _make_many(mem, 60)
    target = mem.add_episode("quantum chromodynamics lecture notes", "2023-03-01T00:00:00Z")
    be = __import__("kgmem.retrieve.backend", fromlist=["get_backend"]).get_backend(mem)
    index_pending(mem)
    q = mem.embedder.embed_one("quantum chromodynamics")
    hits = be.vectors.search("episode", "default", q, 5)
    assert isinstance(be.vectors._entries[("episode", "default")].index, vector_mod.HnswIndex)
    rows = mem.store.search_tables().search_label_rows([hits[0][0]])
    assert rows[hits[0][0]][1] == target.id
    assert hits[0][1] == pytest.approx(float(np.dot(q, q)), abs=1e-3) or hits[0][1] > 0.5


def test_erasing_a_whole_group_leaves_no_index_file(mem, small_hnsw):
    _make_many(mem, 30)
    mem.add_episode("other group", "2023-01-01T00:00:00Z", group="keep")
    search(mem, "topic")
    assert list((mem.store.path / "search").glob("episode-*.hnsw"))
    mem.erase(whole_group=True)
    index_pending(mem)
    assert search(mem, "topic") == []
    assert not list((mem.store.path / "search").glob("episode-*.hnsw"))
    assert _rows(mem, "SELECT count(*) FROM search_vectors WHERE group_id='default'") == [(0,)]
    assert [r.text for r in search(mem, "other group", group="keep")] == ["other group"]


def test_warm_builds_and_persists_the_index_before_any_search(mem, small_hnsw):
    from kgmem.retrieve import warm

    _make_many(mem, 30)
    warm(mem)
    assert list((mem.store.path / "search").glob("episode-*.hnsw"))
