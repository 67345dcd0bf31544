"""CachedEmbedder (memory LRU and SQLite) and the default-embedder singleton."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import kgmem.embed as embed
from kgmem.embed import CachedEmbedder, Embedder, HashingEmbedder
from kgmem.embed.errors import EmbeddingError


class CountingEmbedder(HashingEmbedder):
    def __init__(self, dim: int = 16, name: str | None = None) -> None:
        super().__init__(dim)
        if name:
            self.name = name
        self.calls: list[list[str]] = []

    def _embed(self, texts):
        self.calls.append(list(texts))
        return super()._embed(texts)


def test_memory_cache_hit():
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner)
    assert isinstance(cache, Embedder) and cache.name == inner.name and cache.dim == 16
    first = cache.embed(["a b", "c d"])
    again = cache.embed(["c d", "a b", "e"])
    assert inner.calls == [["a b", "c d"], ["e"]]  # only the miss is embedded
    np.testing.assert_array_equal(again[0], first[1])
    np.testing.assert_array_equal(again[1], first[0])
    np.testing.assert_array_equal(cache.embed_one("e"), inner.embed_one("e"))
    assert (cache.hits, cache.misses) == (3, 3)


def test_duplicates_in_one_call_are_embedded_once():
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner)
    out = cache.embed(["x", "y", "x", "x"])
    assert inner.calls == [["x", "y"]]
    np.testing.assert_array_equal(out[0], out[2])
    assert cache.embed([]).shape == (0, 16)


def test_returned_arrays_do_not_alias_the_cache():
    cache = CachedEmbedder(CountingEmbedder())
    out = cache.embed(["x"])
    out[:] = 0
    assert np.linalg.norm(cache.embed_one("x")) == pytest.approx(1.0)


def test_lru_eviction():
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, max_entries=2)
    cache.embed(["a"])
    cache.embed(["b"])
    cache.embed(["a"])  # a is now most recent
    cache.embed(["c"])  # evicts b
    assert len(cache) == 2
    cache.embed(["a"])
    cache.embed(["b"])
    assert inner.calls == [["a"], ["b"], ["c"], ["b"]]


def test_sqlite_cache_persists_and_separates_models(tmp_path):
    path = tmp_path / "emb.sqlite3"
    inner = CountingEmbedder()
    c1 = CachedEmbedder(inner, path)
    v = c1.embed(["persist me", "and me"])
    c1.close()

    inner2 = CountingEmbedder()
    c2 = CachedEmbedder(inner2, path)
    np.testing.assert_array_equal(c2.embed(["and me", "persist me"]), v[::-1])
    assert inner2.calls == [] and c2.hits == 2 and len(c2) == 2

    other = CountingEmbedder(name="another-space")
    c3 = CachedEmbedder(other, path)
    c3.embed(["persist me"])
    assert other.calls == [["persist me"]]  # keyed by (embedder name, sha256(text))
    c2.clear()
    assert len(c2) == 0 and len(c3) == 1
    c2.close()
    c3.close()


def test_sqlite_cache_many_keys_and_threads(tmp_path):
    cache = CachedEmbedder(CountingEmbedder(), tmp_path / "c.sqlite3")
    texts = [f"text {i}" for i in range(1200)]  # more than one SQL IN (...) chunk
    ref = cache.embed(texts)
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            np.testing.assert_array_equal(cache.embed(texts[k::4]), ref[k::4])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and cache.hits == 1200


def test_changed_dimension_under_same_name_is_reported(tmp_path):
    path = tmp_path / "c.sqlite3"
    CachedEmbedder(CountingEmbedder(16, name="m"), path).embed(["old"])
    c = CachedEmbedder(CountingEmbedder(32, name="m"), path)
    with pytest.raises(EmbeddingError):
        c.embed(["old", "new"])


def test_cached_minilm_matches_uncached(onnx_minilm):
    cache = CachedEmbedder(onnx_minilm)
    a = cache.embed(["Dana lives in Oslo."])
    b = cache.embed(["Dana lives in Oslo."])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a[0], onnx_minilm.embed_one("Dana lives in Oslo."), atol=1e-6)
    assert cache.hits == 1


def test_default_embedder_singleton(monkeypatch, _isolated_cache_dir):
    monkeypatch.setenv("KGMEM_EMBED_CACHE", "sqlite")
    embed.reset_default_embedder()
    try:
        d = embed.get_default_embedder()
        assert d is embed.get_default_embedder()
        assert d.name == "sentence-transformers/all-MiniLM-L6-v2" and d.dim == 384
        assert d.path == _isolated_cache_dir / "embeddings.sqlite3"
        assert type(d.inner).__name__ == "OnnxMiniLM"
        v = d.embed_one("hello world")
        assert abs(float(v[0]) - -0.034478) < 1e-4
        d.embed_one("hello world")
        assert d.hits == 1
        embed.reset_default_embedder()
        monkeypatch.setenv("KGMEM_EMBED_CACHE", "memory")
        assert embed.get_default_embedder().path is None
    finally:
        embed.reset_default_embedder()


def test_default_embedder_falls_back_to_numpy(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a)
    )
    monkeypatch.setenv("KGMEM_EMBED_CACHE", "memory")
    embed.reset_default_embedder()
    try:
        d = embed.get_default_embedder()
        assert type(d.inner).__name__ == "NumpyMiniLM"
        assert d.name == "sentence-transformers/all-MiniLM-L6-v2"  # same space, shared cache
    finally:
        embed.reset_default_embedder()


def test_a_long_batch_does_not_keep_another_threads_query_waiting(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """issue 32: the cache held its lock while the model embedded, so a search's one query
    waited for the background indexer's whole batch (35-123 s under load)."""
    import threading
    import time

    from kgmem.embed import HashingEmbedder
    from kgmem.embed.cache import CachedEmbedder

    started = threading.Event()
    release = threading.Event()

    class Slow(HashingEmbedder):
        def _embed(self, texts):  # type: ignore[no-untyped-def]
            if len(texts) > 1:  # the long batch
                started.set()
                release.wait(10)
            return super()._embed(texts)

    emb = CachedEmbedder(Slow(16), tmp_path / "cache.sqlite3")
    batch = threading.Thread(target=emb.embed, args=([f"chunk {i}" for i in range(50)],))
    batch.start()
    assert started.wait(5)
    t0 = time.monotonic()
    emb.embed_one("the query")
    took = time.monotonic() - t0
    release.set()
    batch.join(10)
    assert took < 5, f"the query waited {took:.1f} s for the batch"
    assert emb.embed([f"chunk {i}" for i in range(50)]).shape == (50, 16)  # stored
