"""Both stores find and rank the same episodes for the same keywords (issue #7).

The embedded store ranks with SQLite FTS5 (``porter unicode61``, bm25); the Neo4j store indexes
each episode's FTS5 tokens in Lucene and scores Lucene's matches with FTS5's bm25 over the
group. Same words (stemming, punctuation, the speaker's name), same statistics (a word in half
the episodes weighs ~nothing), same ties (oldest first), so the keyword candidates are equal.
"""

from __future__ import annotations

import math
import sqlite3
import uuid

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.retrieve.backend import get_backend
from kgmem.retrieve.keyword import terms
from kgmem.store.fts_tokens import TOKENIZE, fts5_tokens
from kgmem.store.neo4j.search_reads import fts5_bm25, fts5_idf
from tests.conftest import fresh_group, neo4j_store_or_skip

from .conftest import StepClock

# (speaker, text): a two-person chat; the speakers' names are in about half the turns each
TURNS = [
    ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "Wow, that's cool! What happened at the support group?"),
    ("Caroline", "The transgender stories were so inspiring! I was so happy and thankful."),
    ("Melanie", "I'm running a charity race for mental health next Saturday."),
    ("Caroline", "Running races? Cool. I ran one in 2019: my knees still hurt."),
    ("Melanie", "Painting is my thing: I painted a lake sunrise last year."),
    ("Caroline", "Caroline's paintings? No, I'm researching adoption agencies."),
    ("Melanie", "Adoption is a big step. The agencies' support matters, Caroline."),
    ("Caroline", "Researched it all week; the research is exhausting."),
    ("Melanie", "Café au lait and a run by the lake, that's my weekend."),
]
QUERIES = [
    "When did Caroline go to the LGBTQ support group?",  # a speaker's name, common words
    "Who is running races?",  # stemming: running / ran / races
    "What did Caroline research?",  # research / researched / researching
    "cafe LGBTQ+ (support)!",  # diacritics and punctuation
    "What does Melanie paint?",  # paint / painting / painted
    "adoption agency",  # agencies' -> agenc-
    "2019 knees",
    "zebra",  # no match at all
]


def _fill(m: Memory, group: str) -> dict[str, str]:
    ids = {}
    for i, (speaker, text) in enumerate(TURNS):
        ep = m.add_episode(text, f"2023-05-{8 + i // 4:02d}T10:00:{i:02d}Z", group=group,
                           speaker=speaker)
        ids[ep.id] = text
    index_pending(m)
    return ids


def _ranked(m: Memory, group: str, ids: dict[str, str], query: str) -> list[tuple[str, float]]:
    be = get_backend(m)
    hits = be.keyword_episodes(group, terms(query), 50, m.now(), None, None)
    return [(ids[i], s) for i, s in hits]


def test_fts5_tokens_are_the_embedded_tokenizer() -> None:
    assert TOKENIZE == "porter unicode61"
    assert fts5_tokens("Running, Caroline's café LGBTQ+ foo_bar") == [
        "run", "carolin", "s", "cafe", "lgbtq", "foo", "bar"]
    assert fts5_tokens("... !!") == []


def test_fts5_bm25_is_sqlite_bm25() -> None:
    """kgmem's bm25 over token lists gives SQLite's own numbers (same formula and stats)."""
    docs = [f"{s}: {t}" for s, t in TURNS]
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE f USING fts5(x, tokenize='{TOKENIZE}')")
    con.executemany("INSERT INTO f(x) VALUES (?)", [(d,) for d in docs])
    toks = [fts5_tokens(d) for d in docs]
    avgdl = sum(map(len, toks)) / len(toks)
    for query in QUERIES:
        words = terms(query)
        if not words:
            continue
        match = " OR ".join(f'"{w}"' for w in words)
        want = {r[0] - 1: -r[1] for r in con.execute(
            "SELECT rowid, bm25(f) FROM f WHERE f MATCH ?", (match,))}
        phrases = [(fts5_tokens(w), fts5_idf(len(docs), sum(
            1 for t in toks if _has(t, fts5_tokens(w))))) for w in words if fts5_tokens(w)]
        got = {i: fts5_bm25(t, phrases, avgdl) for i, t in enumerate(toks)
               if any(_has(t, p) for p, _ in phrases)}
        assert set(got) == set(want), query
        for i in want:
            assert math.isclose(got[i], want[i], rel_tol=1e-9, abs_tol=1e-12), (query, i)


def _has(tokens: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(tokens[i:i + n] == phrase for i in range(len(tokens) - n + 1))


@pytest.mark.neo4j
def test_keyword_candidates_equal_on_both_stores(tmp_path) -> None:  # type: ignore[no-untyped-def]
    emb = Memory(tmp_path / "e", clock=StepClock(), extractor=None)
    emb.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    neo = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    neo.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    g = fresh_group("kwpar")
    try:
        e_ids, n_ids = _fill(emb, "default"), _fill(neo, g)
        for query in QUERIES:
            a, b = _ranked(emb, "default", e_ids, query), _ranked(neo, g, n_ids, query)
            assert [t for t, _ in a] == [t for t, _ in b], query
            for (_, sa), (_, sb) in zip(a, b):
                assert math.isclose(sa, sb, rel_tol=1e-9, abs_tol=1e-9), query
        # what the parity is about, pinned on the Neo4j side
        top = _ranked(neo, g, n_ids, QUERIES[0])
        assert top[0][0] == TURNS[0][1]  # the turn with lgbtq + support + group
        runs = {t for t, _ in _ranked(neo, g, n_ids, "Who is running races?")}
        assert runs == {TURNS[3][1], TURNS[4][1], TURNS[9][1]}  # running / Running / run
        assert _ranked(neo, g, n_ids, "zebra") == []
        # the speaker's name matches (it is in the indexed text), but weighs next to nothing:
        # "Caroline" is in 6 of the 10 turns (5 as the speaker)
        said = _ranked(neo, g, n_ids, "Caroline")
        assert len(said) == 6 and all(s < 1e-3 for _, s in said)
    finally:
        emb.close()
        neo.erase(whole_group=True, group=g)


@pytest.mark.neo4j
def test_episodes_written_without_tokens_are_found_after_indexing() -> None:
    """Episodes written by graphiti (or a bulk tool) have no kgmem_tokens: index_pending gives
    them theirs, and keyword search then finds them."""
    m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    m.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    g = fresh_group("kwgraphiti")
    try:
        m.add_episode("kgmem wrote this about pottery", "2023-05-08T10:00:00Z", group=g)
        uid = str(uuid.uuid4())
        m.store.cypher(
            "CREATE (:Episodic {uuid: $u, group_id: $g, name: 'x', content: $c, "
            "source: 'message', source_description: 'graphiti', valid_at: datetime($t), "
            "created_at: datetime($t), entity_edges: []})",
            u=uid, g=g, c="Graphiti wrote about potteries", t="2023-05-08T11:00:00Z")
        index_pending(m)
        hits = get_backend(m).keyword_episodes(g, ["pottery"], 10, m.now(), None, None)
        assert uid in {i for i, _ in hits} and len(hits) == 2
    finally:
        m.erase(whole_group=True, group=g)


@pytest.mark.neo4j
def test_database_wide_backfill_gives_every_episode_its_tokens() -> None:
    """The once-per-database backfill (ensure_schema) walks all episodes without tokens in
    uuid order and gives each the FTS5 tokens of its "speaker: content"."""
    from kgmem.store.neo4j.schema import backfill_episode_tokens

    store = neo4j_store_or_skip()
    g = fresh_group("kwbackfill")
    ids = [str(uuid.uuid4()) for _ in range(5)]
    try:
        for i, uid in enumerate(ids):
            store.cypher(
                "CREATE (:Episodic {uuid: $u, group_id: $g, content: $c, speaker: $s, "
                "valid_at: datetime(), created_at: datetime()})",
                u=uid, g=g, c=f"Running races number {i}", s="Maya" if i % 2 else None)
        with store.driver.session(database=store.database) as s:
            assert backfill_episode_tokens(s, batch=2) >= 5
        got = dict(store.cypher("MATCH (e:Episodic) WHERE e.group_id = $g "
                            "RETURN e.uuid, e.kgmem_tokens", g=g))
        assert got == {uid: ("maya " if i % 2 else "") + f"run race number {i}"
                       for i, uid in enumerate(ids)}
    finally:
        store.cypher("MATCH (e:Episodic) WHERE e.group_id = $g DETACH DELETE e", g=g)


def test_common_words_score_the_same_newest_matches_on_both_stores(  # type: ignore[no-untyped-def]
    tmp_path, monkeypatch,
) -> None:
    """When every query word is in more than DF_MAX episodes, both stores score only the
    newest COMMON_POOL matches (at least ``limit``). Thresholds lowered: "support" is in 3
    turns; the newest (Melanie's "The agencies' support matters") is not its best match."""
    import kgmem.store.neo4j.search_reads as neo4j_mod
    import kgmem.store.sqlite.search_reads as backend_mod

    emb = Memory(tmp_path / "e", clock=StepClock(), extractor=None)
    emb.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    neo = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None)
    neo.embedder = HashingEmbedder(384)  # type: ignore[attr-defined]
    g = fresh_group("kwpool")

    def both(limit: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        get_backend(emb)._df.clear()
        a = get_backend(emb).keyword_episodes("default", ["support"], limit, emb.now(), None,
                                              None)
        b = get_backend(neo).keyword_episodes(g, ["support"], limit, neo.now(), None, None)
        return [(e_ids[i], s) for i, s in a], [(n_ids[i], s) for i, s in b]

    try:
        e_ids, n_ids = _fill(emb, "default"), _fill(neo, g)
        full_a, full_b = both(1)
        assert [t for t, _ in full_a] == [t for t, _ in full_b] != [TURNS[7][1]]
        full3, _ = both(3)
        for mod in (backend_mod, neo4j_mod):
            monkeypatch.setattr(mod, "DF_MAX", 2)
            monkeypatch.setattr(mod, "COMMON_POOL", 1)
        a, b = both(1)
        assert [t for t, _ in a] == [t for t, _ in b] == [TURNS[7][1]]  # the newest only
        assert math.isclose(a[0][1], b[0][1], rel_tol=1e-9, abs_tol=1e-9)
        a, b = both(3)  # the pool is never smaller than the limit: all three, ranked
        assert [t for t, _ in a] == [t for t, _ in b] == [t for t, _ in full3]
    finally:
        emb.close()
        neo.erase(whole_group=True, group=g)
