"""A request never embeds an unbounded backlog (issue 32): a search embeds at most a bounded
part of its own group's backlog, never another group's, answers for the rest from keyword and
time signals and says how much is pending; an erase embeds nothing; the background indexer
(and ``Memory.index``) catch up. Both stores (the ``smem`` fixture)."""

from __future__ import annotations

import uuid

import numpy as np

from kgmem.embed import HashingEmbedder
from kgmem.jobs.index_schedule import BackgroundIndexer
from kgmem.retrieve import search
from kgmem.store.search_reads import REQUEST_INDEX_CHARS


class CountingEmbedder(HashingEmbedder):
    """A hashing embedder that records every text it embeds."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.texts: list[str] = []

    def _embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return super()._embed(texts)

    def chars(self) -> int:
        return sum(len(t) for t in self.texts)


BIG = "the lighthouse keeper logs weather " * 3_000  # ~105,000 characters


def _counting(m) -> CountingEmbedder:  # type: ignore[no-untyped-def]
    emb = CountingEmbedder(384)
    # a name of its own: on the shared Neo4j server, chunks other test sessions make of these
    # episodes with their embedders are not this one's
    emb.name = f"counting-{uuid.uuid4().hex[:8]}"
    m.embedder = emb
    return emb


def test_search_does_not_embed_a_big_backlog(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    emb = _counting(m)
    m.add_episode(BIG, "2024-01-01T00:00:00Z", group=g, extract=False)
    m.add_episode("Mia adopted a greyhound", "2024-01-02T00:00:00Z", group=g, extract=False)
    hits = search(m, "lighthouse keeper", group=g, kinds=("episodes",))
    # the big episode is far over the request's budget: not embedded, found by keyword
    assert emb.chars() <= REQUEST_INDEX_CHARS + 200  # + the query
    assert any("lighthouse" in (h.text or "") for h in hits)
    assert m.pending_index(g) >= 1
    # the small one fitted in the budget
    assert any("greyhound" in t for t in emb.texts)
    m.index(g)
    assert m.pending_index(g) == 0


def test_one_groups_backlog_does_not_touch_anothers_search(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    other = g + "-other"
    emb = _counting(m)
    for i in range(20):
        m.add_episode(f"{BIG} part {i}", f"2024-01-01T00:00:{i:02d}Z", group=other,
                      extract=False)
    m.add_episode("Mia adopted a greyhound", "2024-01-02T00:00:00Z", group=g, extract=False)
    emb.texts.clear()
    hits = search(m, "greyhound", group=g)
    assert not any("lighthouse" in t for t in emb.texts)  # nothing of the other group
    assert any("greyhound" in (h.text or "") for h in hits)
    assert m.pending_index(other) == 20
    assert m.pending_index(g) == 0


def test_erase_embeds_nothing(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    other = g + "-other"
    emb = _counting(m)
    ep = m.add_episode("to be erased", "2024-01-01T00:00:00Z", group=g, extract=False)
    for i in range(5):
        m.add_episode(f"{BIG} part {i}", f"2024-01-01T00:00:{i:02d}Z", group=other,
                      extract=False)
    emb.texts.clear()
    m.erase(episode=ep.id, group=g)
    assert emb.texts == []
    assert m.pending_index(other) == 5


def test_background_indexer_catches_up_group_by_group(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    other = g + "-other"
    _counting(m)
    m.add_episode(BIG, "2024-01-01T00:00:00Z", group=g, extract=False)
    for i in range(3):
        m.add_episode(f"note {i} about kayaks", f"2024-01-01T00:00:{i:02d}Z", group=other,
                      extract=False)
    job = BackgroundIndexer(lambda: m, interval=60, groups=[g, other])
    assert job.run_once() >= 4
    assert m.pending_index(g) == 0 and m.pending_index(other) == 0
    hits = search(m, "lighthouse keeper", group=g, kinds=("episodes",))
    assert hits and hits[0].parts.vector is not None


def test_a_version_1_queue_learns_its_groups(tmp_path):  # type: ignore[no-untyped-def]
    """A store whose search queue predates groups (schema 1) is migrated in place: its queued
    items get their group, and new writes are queued with theirs."""
    from kgmem.memory.facade import Memory
    from kgmem.retrieve.backend import get_backend

    path = tmp_path / "s"
    m = Memory(path, extractor=None)
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    get_backend(m)  # installs the search schema
    conn = m.store._conn
    v1_triggers = {
        "search_tr_episode_ins": "AFTER INSERT ON episodes BEGIN INSERT INTO search_queue(kind, "
        "item) VALUES ('episode', NEW.id); END",
        "search_tr_fact_text_ins": "AFTER INSERT ON search_fact_texts BEGIN INSERT INTO "
        "facts_fts(rowid, text) VALUES (NEW.id, NEW.text); INSERT INTO search_queue(kind, item) "
        "VALUES ('fact', CAST(NEW.id AS TEXT)); END",
        "search_tr_entity_name_ins": "AFTER INSERT ON search_entity_names BEGIN INSERT INTO "
        "entities_fts(rowid, name) VALUES (NEW.id, NEW.name); INSERT INTO search_queue(kind, "
        "item) VALUES ('entity', CAST(NEW.id AS TEXT)); END",
    }
    with conn:
        conn.execute("DROP INDEX search_queue_group")
        for name, body in v1_triggers.items():
            conn.execute(f"DROP TRIGGER {name}")
            conn.execute(f"CREATE TRIGGER {name} {body}")
        conn.execute("ALTER TABLE search_queue DROP COLUMN group_id")
        conn.execute("UPDATE search_meta SET value='1' WHERE key='schema_version'")
    m.add_episode("old kayak trip", "2024-01-01", group="a", extract=False)
    m.assert_fact("Ann", "LIKES", "kayaks", group="b")
    m.close()

    m = Memory(path, extractor=None)
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    assert m.pending_index("a") == 1
    assert m.pending_index("b") >= 3  # the fact text, Ann, kayaks
    m.add_episode("new kayak trip", "2024-01-02", group="a", extract=False)
    assert m.pending_index("a") == 2
    m.index()
    assert m.pending_index("a") == m.pending_index("b") == 0
    m.close()
