"""Erase and the embedded store's side files: ANN index files rewritten by an erase in a process
that never searched, and a store written before ``secure_delete`` scrubbed by its first erase."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search
from kgmem.store.sqlite import vectors as vector_mod

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _bytes(path) -> bytes:  # type: ignore[no-untyped-def]
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())


def test_an_erase_without_a_loaded_index_rewrites_the_ann_files(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KGMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(vector_mod, "HNSW_MIN", 8)
    m = Memory(tmp_path / "s", extractor=None, embedder=HashingEmbedder(64))
    eps = [m.add_episode(f"walk number {i} by the river{i}", T0 + timedelta(minutes=i))
           for i in range(20)]
    index_pending(m)
    search(m, "river walk", kinds=("episodes",))  # builds and persists the HNSW file
    (blob,) = m.store._conn.execute(  # type: ignore[attr-defined]
        "SELECT vec FROM search_vectors WHERE item=?", (eps[3].id,)).fetchone()
    m.close()
    assert blob in _bytes(tmp_path / "s" / "search")
    m = Memory(tmp_path / "s", extractor=None)  # a CLI run: no search, no embedder loaded
    m.erase(episode=eps[3].id)
    m.close()
    assert blob not in _bytes(tmp_path / "s")


def test_a_store_written_before_secure_delete_is_vacuumed_by_its_first_erase(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KGMEM_CACHE_DIR", str(tmp_path / "cache"))
    m = Memory(tmp_path / "s", extractor=None)
    conn = m.store._conn  # type: ignore[attr-defined]
    conn.execute("DELETE FROM meta WHERE key='secure_delete'")  # as written by 1953ce8...
    conn.execute("PRAGMA secure_delete=OFF")
    old = m.add_episode("Quarzwelder sold the boat", T0)
    m.add_episode("Alice bought a kayak", T0)
    m.assert_fact("Bob", "LIKES", "kayaks")
    with m.store.write() as w:  # ...whose erase left the freed bytes as they were
        w.delete_episode("default", old.id)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"Quarzwelder" in _bytes(tmp_path / "s")
    conn.execute("PRAGMA secure_delete=ON")
    m.erase(entity="Bob")  # the first erase of the new code scrubs the old leftovers too
    assert conn.execute("SELECT value FROM meta WHERE key='secure_delete'").fetchone() == ("1",)
    m.close()
    data = _bytes(tmp_path / "s")
    assert b"Quarzwelder" not in data and b"quarzweld" not in data
    assert b"Alice bought a kayak" in data


def test_a_store_created_now_owes_no_vacuum(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path / "s", extractor=None)
    row = m.store._conn.execute(  # type: ignore[attr-defined]
        "SELECT value FROM meta WHERE key='secure_delete'").fetchone()
    m.close()
    assert row == ("1",)


def test_the_llm_cache_forgets_the_pieces_of_a_long_erased_episode(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kgmem.ingest.pipeline import CHUNK_CHARS, split_text
    from kgmem.llm.cache import ResponseCache

    monkeypatch.setenv("KGMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    m = Memory(tmp_path / "s", extractor=None)
    text = "Quarzwelder sailed on and on. " * 800  # extracted in pieces (ingest.pipeline)
    ep = m.add_episode(text, T0)
    cache = ResponseCache(tmp_path / "xdg" / "kgmem" / "llm")
    pieces = split_text(text, CHUNK_CHARS)
    assert len(pieces) > 1
    for i, piece in enumerate(pieces):
        cache.put(f"piece {i}", {"facts": [{"subject": "Quarzwelder"}]}, text=piece)
    cache.put("other", {"facts": []}, text="Alice bought a kayak")
    cache.close()
    m.erase(episode=ep.id)
    m.close()
    cache = ResponseCache(tmp_path / "xdg" / "kgmem" / "llm")
    assert len(cache) == 1 and cache.get("other") is not None
    cache.close()
    assert b"Quarzwelder" not in _bytes(tmp_path / "xdg")
