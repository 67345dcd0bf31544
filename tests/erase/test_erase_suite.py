"""The erase suite (issue 13): after erasing an episode, an entity and a whole group, the
erased strings are in no file of the store or of the caches (raw bytes, WAL and ANN files
included, while open and after close) and in no Neo4j property or index lookup; what was not
erased still works, in the same group and in another group holding the same text.

Every needle is first shown to be found before the erase, so that an absence afterwards means
something. Both stores: on Neo4j the graph is checked through properties and index lookups
(the server's own files are out of reach), the local caches through their bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgmem.embed import CachedEmbedder
from kgmem.embed.base import EmbedderBase, l2_normalize
from kgmem.embed.cache import text_key
from kgmem.llm.cache import ResponseCache, cache_key
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search
from kgmem.store.fts_tokens import fts5_tokens
from kgmem.store.sqlite import vectors as vector_mod
from tests.conftest import fresh_group, neo4j_store_or_skip

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)

# words that appear only in what is erased (no two share a prefix: FTS5 stores a term after
# the one before it as a suffix, so a shared prefix would hide it from a byte scan)
EPISODE_WORDS = ["Zyxwvutsson", "Frobnitzville", "Qwertyplumb", "Vexilloqua"]
ENTITY_WORDS = ["Mordecaiqz", "Kwijiboqq", "Quuxcorpzz"]
GROUP_WORDS = ["Brontosaurqx", "Plinkertonvv", "Yodelwhisk"]
SECRET_EPISODE = "Qwertyplumb says Zyxwvutsson moved to Frobnitzville"
SECRET_GROUP_EPISODE = "Brontosaurqx ate the Plinkertonvv"
SHARED = "the lighthouse keeper sings at dawn"  # erased in one group, kept in another


class DenseEmbedder(EmbedderBase):
    """Dense pseudo-random unit vectors seeded by the text: every 64-byte window of a vector is
    unique, so a byte scan finds it even split over SQLite overflow pages."""

    name = "dense-test-384"
    dim = 384

    def _embed(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(int(text_key(t)[:16], 16)).standard_normal(384)
                for t in texts]
        return l2_normalize(np.asarray(rows, dtype=np.float32))


WINDOW = 64  # bytes of a vector looked for at once


class StepClock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> datetime:
        self.t += timedelta(milliseconds=1)
        return self.t


@dataclass
class World:
    m: Memory
    kind: str
    a: str  # partly erased
    b: str  # erased whole
    c: str  # holds the same text as an erased episode of a
    cache: CachedEmbedder  # the Memory's own cache file
    cache_dirs: list[Path]  # every cache directory to scan (embeddings and LLM)
    ids: dict[str, str] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)  # erased texts that were embedded


def _words() -> list[str]:
    return EPISODE_WORDS + ENTITY_WORDS + GROUP_WORDS


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def world(request, tmp_path, monkeypatch) -> Iterator[World]:  # type: ignore[no-untyped-def]
    # the default (shared) caches of this "machine" live under tmp_path
    monkeypatch.setenv("KGMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(vector_mod, "HNSW_MIN", 4)  # persisted ANN files at test size
    cache = CachedEmbedder(DenseEmbedder(), tmp_path / "own-cache" / "embeddings.sqlite3")
    if request.param == "embedded":
        m = Memory(tmp_path / "store", clock=StepClock(), extractor=None, embedder=cache)
        a, b, c = "a", "b", "c"
    else:
        m = Memory(store=neo4j_store_or_skip(), clock=StepClock(), extractor=None,
                   embedder=cache)
        a, b, c = fresh_group("era"), fresh_group("erb"), fresh_group("erc")
    w = World(m, request.param, a, b, c, cache,
              [tmp_path / "cache", tmp_path / "xdg", tmp_path / "own-cache"])
    _populate(w)
    yield w
    if request.param == "neo4j":
        for g in (a, b, c):
            m.erase(whole_group=True, group=g)
        m.store.search_backends().clear()
    else:
        m.close()
    cache.close()


def _populate(w: World) -> None:
    m, a = w.m, w.a
    keep = m.add_episode("Alice met Bob at the harbour", T0, speaker="Alice", group=a)
    secret = m.add_episode(SECRET_EPISODE, T0 + timedelta(days=1), speaker="Vexilloqua",
                           group=a)
    shared = m.add_episode(SHARED, T0 + timedelta(days=2), speaker="Alice", group=a)
    m.assert_fact("Alice", "KNOWS", "Bob", valid_at=T0, episode=keep.id, group=a)
    m.assert_fact("Alice", "KNOWS", "Bob", valid_at=T0, episode=secret.id, group=a)  # 2 sources
    gone = m.assert_fact("Zyxwvutsson", "LIVES_IN", "Frobnitzville", episode=secret.id, group=a)
    m.assert_fact("Mordecaiqz", "WORKS_AT", "Quuxcorpzz", group=a)
    m.assert_fact("Alice", "KNOWS", "Mordecaiqz", group=a)
    m.add_alias("Mordecaiqz", "Kwijiboqq", group=a)
    m.add_episode(SECRET_GROUP_EPISODE, T0, speaker="Yodelwhisk", group=w.b)
    m.assert_fact("Brontosaurqx", "LIKES", "Plinkertonvv", group=w.b)
    other = m.add_episode(SHARED, T0, speaker="Alice", group=w.c)
    m.assert_fact("Alice", "KNOWS", "Bob", episode=other.id, group=w.c)
    for i in range(6):  # enough vectors for persisted HNSW files in every group
        for g in (a, w.b, w.c):
            m.add_episode(f"filler note {i} about the weather", T0 + timedelta(hours=i), group=g)
    index_pending(m)
    for g in (a, w.b, w.c):
        search(m, "harbour weather", group=g)  # builds (and on the embedded store persists) ANN
    w.ids.update(keep=keep.id, secret=secret.id, shared=shared.id, fact=gone.fact_id,
                 version=gone.id, other=other.id)
    w.texts = [f"Vexilloqua: {SECRET_EPISODE}", gone.fact, "Mordecaiqz works at Quuxcorpzz",
               "Alice knows Mordecaiqz", f"Yodelwhisk: {SECRET_GROUP_EPISODE}",
               "Brontosaurqx likes Plinkertonvv", *[x for x in _words() if x != "Qwertyplumb"]]
    # an LLM extraction of the secret episode, cached by "another process"
    llm = ResponseCache(w.cache_dirs[1] / "kgmem" / "llm")
    msgs = [{"role": "user", "content": SECRET_EPISODE}]
    llm.put(cache_key("m", "v1", msgs), {"facts": [{"subject": "Zyxwvutsson"}]}, "m", "v1",
            text=SECRET_EPISODE)
    llm.put(cache_key("m", "v1", [{"role": "user", "content": "keep"}]),
            {"facts": [{"subject": "Alice"}]}, "m", "v1", text="Alice met Bob at the harbour")
    llm.close()
    # "another process" embedded the secret texts into the default cache file as well
    other_proc = CachedEmbedder(DenseEmbedder(), w.cache_dirs[0] /
                                "embeddings.sqlite3")
    other_proc.embed(w.texts)
    other_proc.close()


def _erase_all(w: World) -> None:
    m = w.m
    m.erase(episode=w.ids["secret"], group=w.a)
    m.erase(episode=w.ids["shared"], group=w.a)
    m.erase(entity="Mordecaiqz", group=w.a)
    m.erase(whole_group=True, group=w.b)


# ---------------------------------------------------------------------------- needles
def _needles(w: World) -> dict[str, list[bytes]]:
    """Byte strings that must vanish (a needle is found if any of its strings is): each word
    (as given and as its FTS5 token), the cache key of every erased text, and the vector of
    every erased text (its 64-byte windows: a stored vector may straddle two pages)."""
    out: dict[str, list[bytes]] = {}
    for word in _words():
        out[word] = [word.encode()]
        for tok in fts5_tokens(word):
            out[f"token {tok}"] = [tok.encode()]
    for text in w.texts:
        out[f"key of {text!r}"] = [text_key(text).encode()]
        vec = DenseEmbedder().embed_one(text).astype(np.float32).tobytes()
        out[f"vector of {text!r}"] = [vec[i:i + WINDOW] for i in range(0, len(vec), WINDOW)]
    return out


def _files(roots: list[Path]) -> list[Path]:
    return [p for r in roots if r.exists() for p in sorted(r.rglob("*")) if p.is_file()]


def _file_hits(roots: list[Path], needles: dict[str, list[bytes]]) -> dict[str, list[str]]:
    blobs = {str(p): p.read_bytes() for p in _files(roots)}
    return {name: hits for name, parts in needles.items()
            if (hits := [p for p, data in blobs.items() if any(x in data for x in parts)])}


def _roots(w: World) -> list[Path]:
    store_dir = [w.m.store.path] if w.kind == "embedded" else []  # type: ignore[attr-defined]
    return store_dir + w.cache_dirs


# ---------------------------------------------------------------------------- Neo4j lookups
def _neo4j_hits(w: World, needles: list[str]) -> list[Any]:
    """Properties (of the test's groups, and of nodes of no group) containing a needle, and
    fulltext matches of every kgmem/graphiti fulltext index."""
    q = w.m.store.cypher  # type: ignore[attr-defined]
    groups = [w.a, w.b, w.c]
    prop_scan = (
        "WITH [k IN keys(x) WHERE NOT k ENDS WITH 'embedding' | x[k]] AS vals, x "
        "UNWIND vals AS v WITH x, CASE WHEN valueType(v) STARTS WITH 'LIST' "
        "THEN reduce(s = '', y IN v | s + ' ' + toString(y)) ELSE toString(v) END AS text "
        "UNWIND $needles AS n WITH x, text, n WHERE toLower(text) CONTAINS toLower(n) "
        "RETURN n, text LIMIT 20"
    )
    # the index lookups see every group of the shared server: other runs of this test (another
    # worktree, a killed run) hold the same words in their own groups, which erase never touches
    def mine(var: str) -> str:
        return f"WITH {var} WHERE {var}.group_id IN $gs OR {var}.group_id IS NULL"

    hits = q("MATCH (x) WHERE x.group_id IN $gs OR x.group_id IS NULL " + prop_scan,
             gs=groups, needles=needles)
    hits += q("MATCH ()-[x]->() WHERE x.group_id IN $gs OR x.group_id IS NULL " + prop_scan,
              gs=groups, needles=needles)
    for index, field_ in (("episode_content", "content"), ("node_name_and_summary", "name"),
                          ("kgmem_episode_tokens", "kgmem_tokens")):
        for n in needles:
            for tok in fts5_tokens(n) if index == "kgmem_episode_tokens" else [n]:
                hits += q(f"CALL db.index.fulltext.queryNodes('{index}', $t) YIELD node "
                          f"{mine('node')} RETURN $n, node.uuid", t=f'{field_}:"{tok}"', n=n,
                          gs=groups)
    for n in needles:
        hits += q("CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $t) "
                  f"YIELD relationship {mine('relationship')} RETURN $n, relationship.uuid",
                  t=f'fact:"{n}"', n=n, gs=groups)
    return hits


def _neo4j_vector_hits(w: World, needles: list[str]) -> list[Any]:
    """Vector lookups with the erased texts' vectors: nothing returned may carry a needle, and
    no vector identical to an erased text's may be left in the erased groups."""
    q = w.m.store.cypher  # type: ignore[attr-defined]
    emb = DenseEmbedder()
    mine = (w.a, w.b, w.c, None)  # other groups of the shared server are not this test's
    hits: list[Any] = []
    for text in w.texts:
        vec = [float(x) for x in emb.embed_one(text)]
        for index, prop in (("kgmem_chunk_embedding", "episode_uuid"),
                            ("kgmem_entity_name_embedding", "name")):
            rows = q(f"CALL db.index.vector.queryNodes('{index}', 10, $v) YIELD node, score "
                     f"RETURN node.{prop}, score, node.group_id", v=vec)
            hits += [(text, r) for r in rows if r[2] in mine and (
                any(n.lower() in str(r[0]).lower() for n in needles)
                or (r[1] > 0.99995 and r[2] in (w.a, w.b)))]
        rows = q("CALL db.index.vector.queryRelationships('kgmem_fact_embedding', 10, $v) "
                 "YIELD relationship, score RETURN relationship.fact, score, "
                 "relationship.group_id", v=vec)
        hits += [(text, r) for r in rows if r[2] in mine and any(n.lower() in str(r[0]).lower()
                                                                 for n in needles)
                 or (r[1] > 0.99995 and r[2] in (w.a, w.b))]
    return hits


# ---------------------------------------------------------------------------- the suite
def test_erased_strings_are_in_no_file_property_or_index(world: World) -> None:
    w = world
    needles = _needles(w)
    before = _file_hits(_roots(w), needles)
    # the scan sees everything on the embedded store; on Neo4j the caches hold keys and vectors
    expected = needles if w.kind == "embedded" else {
        k: v for k, v in needles.items() if k.startswith(("key of", "vector of"))}
    assert set(expected) <= set(before), sorted(set(expected) - set(before))
    ids = [w.ids[k] for k in ("secret", "shared", "fact", "version")]
    if w.kind == "neo4j":
        assert _neo4j_hits(w, _words()), "the property scan must see the data before the erase"
    _erase_all(w)
    assert _file_hits(_roots(w), needles) == {}  # open: the WAL is truncated already
    if w.kind == "neo4j":
        assert _neo4j_hits(w, _words() + ids) == []
        assert _neo4j_vector_hits(w, _words()) == []
    else:
        w.m.close()
        w.cache.close()
        assert _file_hits(_roots(w), needles) == {}
        left = {p.name for p in _files([w.m.store.path])}  # type: ignore[attr-defined]
        assert "kgmem.sqlite3" in left and not any(n.endswith(".tmp") for n in left)
        assert {p.suffix for p in _files([w.m.store.path / "search"])} <= {".hnsw"}  # type: ignore[attr-defined]


def test_what_was_not_erased_still_works(world: World) -> None:
    w = world
    m, a = w.m, w.a
    history_before = [(v.fact, v.created_at) for v in m.history("Alice", group=a)
                      if v.object == "Bob"]
    _erase_all(w)
    # the group's other facts, entities, history and search
    assert {e.name for e in m.entities(a)} == {"Alice", "Bob"}
    facts = m.facts(group=a)
    assert [(f.subject, f.predicate, f.object) for f in facts] == [("Alice", "KNOWS", "Bob")]
    assert facts[0].episodes == [w.ids["keep"]]  # the other source of the fact stays
    assert [(v.fact, v.created_at) for v in m.history("Alice", group=a)
            if v.object == "Bob"] == history_before
    hits = search(m, "Alice Bob harbour", group=a)
    assert w.ids["keep"] in {r.id for r in hits}
    assert any(r.kind == "fact" and r.text == "Alice knows Bob" for r in hits)
    assert all(r.id != w.ids["secret"] for r in search(m, "moved to", group=a))
    # the other group that holds the same text as an erased episode keeps it, searchable
    other = search(m, SHARED, group=w.c, kinds=("episodes",))
    assert other and other[0].id == w.ids["other"] and other[0].parts.vector is not None
    assert [f.object for f in m.facts(group=w.c)] == ["Bob"]
    assert m.entities(w.b) == [] and m.episodes(w.b) == []
    # the audit records say what and how much, nothing of the content
    records = m.erasures(a) + m.erasures(w.b)
    assert [e.kind for e in records] == ["episode", "episode", "entity", "group"]
    dump = json.dumps([e.model_dump(mode="json") for e in records])
    assert not [s for s in _words() + list(w.ids.values()) if s in dump]
    # the caches forgot only what was erased
    llm = ResponseCache(w.cache_dirs[1] / "kgmem" / "llm")
    assert len(llm) == 1
    llm.close()
    assert len(w.cache) > 0


def test_erasing_an_episode_keeps_entities_others_still_refer_to(world: World) -> None:
    w = world
    m, a = w.m, w.a
    m.erase(episode=w.ids["secret"], group=w.a)
    # gone: the entities only the erased episode referred to (its speaker, its fact's parties)
    names = {e.name for e in m.entities(a)}
    assert names == {"Alice", "Bob", "Mordecaiqz", "Quuxcorpzz"}
    found = {r.text for r in search(m, "Zyxwvutsson Vexilloqua Frobnitzville", group=a,
                                    kinds=("entities",))}
    assert found <= names
    assert m.erasures(a)[0].counts == {"facts": 1, "versions": 1, "episodes": 1, "entities": 3}
