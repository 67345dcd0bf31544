"""benchmarks/kgmem_api.py is the harness's only reach past kgmem's public API: each helper
must give what the public API gives (a failure here means kgmem's internals moved)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from benchmarks.kgmem_api import last_transaction_time, open_replay_memory, search_with_sessions

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
TURNS = [
    "I just adopted a rescue greyhound called Pepper.",
    "I started pottery classes at the community studio on Tuesdays.",
    "I moved to Lisbon last week for a new job at a bakery.",
    "The bakery promoted me to head baker this morning!",
    "I sold three vases at the summer craft fair.",
]


def replay(tmp_path, extract):
    clock = [T0]
    m = open_replay_memory(tmp_path / ("x" if extract else "e"), extract=extract,
                           clock=lambda: clock[0])
    for i, text in enumerate(TURNS):
        when = T0 + timedelta(days=10 * i)
        clock[0] = when
        m.add_episodes([{"content": text, "reference_time": when, "speaker": "Maya"}])
    m.index()
    return m, T0 + timedelta(days=60)


def test_one_search_gives_the_public_search_and_session_rankings(tmp_path):
    m, asked = replay(tmp_path, extract=True)
    for query in ("What is the name of Maya's greyhound?", "Where does Maya work?",
                  "What did Maya sell at the fair?"):
        got = search_with_sessions(m, query, known_at=asked, reference_time=asked,
                                   group="default", limit=100, kinds=("episodes", "facts"),
                                   session_limit=50)
        public = m.search(query, known_at=asked, reference_time=asked, limit=100,
                          kinds=("episodes", "facts"))
        sessions = m.search_sessions(query, known_at=asked, reference_time=asked, limit=50)
        assert [(r.kind, r.id) for r in got.results] == [(r.kind, r.id) for r in public]
        assert [s.id for s in got.sessions] == [s.id for s in sessions]
    m.close()


def test_replay_memory_extracts_only_when_asked(tmp_path):
    with_x, _ = replay(tmp_path, extract=True)
    without, _ = replay(tmp_path, extract=False)
    assert with_x.stats()["lineages"] > 0  # the product default extracts facts
    assert without.stats()["lineages"] == 0
    assert last_transaction_time(without, "default") == T0 + timedelta(days=40)
    with_x.close()
    without.close()


def test_replay_memory_on_a_shared_store_keeps_that_store(tmp_path):
    from kgmem.store.sqlite import EmbeddedStore

    store = EmbeddedStore(tmp_path / "shared")
    for extract in (True, False):
        m = open_replay_memory(None, extract=extract, clock=lambda: T0, store=store)
        assert m.store is store and (m.extractor is not None) is extract
    store.close()
