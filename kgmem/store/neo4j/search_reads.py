"""Search backend for the Neo4j store (same candidates and semantics as the embedded one).

Uses the store's indexes (kgmem/store/neo4j_schema.py):

* fulltext ``kgmem_episode_tokens`` (Episodic.kgmem_tokens: the embedded store's FTS5 tokens
  of ``"speaker: content"``, whitespace analyzer), scored as FTS5 scores them (see
  :meth:`Neo4jSearchReads._episode_boosts`; ties: oldest first, as FTS5's insertion order), and
  graphiti's ``edge_name_and_fact`` (RELATES_TO.fact), ``node_name_and_summary``
  (Entity.name) -- Lucene, OR of quoted words;
* vector ``kgmem_entity_name_embedding`` (Entity.name_embedding) and ``kgmem_fact_embedding``
  (RELATES_TO.fact_embedding), 384-dim cosine;

and adds its own (created here, ``IF NOT EXISTS``):

* ``(:Episodic)-[:KGMEM_CHUNK]->(:KgmemChunk {episode_uuid, group_id, chunk, start, end,
  embedding, model})`` with vector index ``kgmem_chunk_embedding``: episodes embedded in
  windows like on the embedded store (never truncated), by the embedder named ``model``;
* ``(:Episodic)-[:KGMEM_TIME]->(:KgmemEpisodeTime {episode_uuid, group_id, start, end})`` with
  range index ``kgmem_episode_time``: periods an episode mentions ("yesterday").

:meth:`Neo4jSearchReads.index_pending` embeds entities without ``name_embedding``, fact versions
without ``fact_embedding`` (a store built with ``Neo4jStore(embedder=...)`` writes those
itself) and episodes without chunks. Erase deletes an episode's ``KGMEM_CHUNK``/``KGMEM_TIME``
nodes in its own transaction (:mod:`kgmem.store.neo4j.erase`); ``index_pending`` still removes
any whose episode was deleted outside kgmem, and search never returns a chunk whose episode is
gone (results are always joined to live episodes).

Neo4j's vector scores are ``(1 + cos) / 2``; they are mapped back to cosine here.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import neo4j
import numpy as np

from ...errors import InvalidInputError, StoreBusyError
from ...model import Entity, Episode, FactVersion
from ...timeutil import from_micros, shift, to_micros
from ..base import TimeFilter, episode_keyword_text
from ..fts_tokens import fts5_tokens, fts5_tokens_many
from ..indexing import TimeMentions, episode_chunks, model_window
from ..search_reads import (
    COMMON_POOL,
    DF_MAX,
    EXACT_WINDOW_MAX,
    REQUEST_INDEX_CHARS,
    REQUEST_INDEX_ITEMS,
)
from ..visibility import (
    MENTIONS_WINDOW_CYPHER,
    episode_cypher,
    recorded_cypher,
    sitting_cypher,
    source_cypher,
    version_cypher,
)
from . import queries as n4
from .readiness import Readiness
from .schema import EMBEDDING_DIM, EPISODE_TOKENS

if TYPE_CHECKING:
    from ...embed.base import Embedder

CHUNK_INDEX = "kgmem_chunk_embedding"
# Neo4j 5.26's vector indexes are shared by every group and cannot filter inside the index: a
# query takes the k nearest items of all groups and keeps this group's. When other groups crowd
# those k and the index holds more, k widens (x8) until the group's answer is full, up to this.
VECTOR_K_MAX = 10_000
# keyword facts: rows read per fact asked for (a fact can have several visible versions)
KEYWORD_ROWS_PER_FACT = 4
# Chunks record the embedder that made them (``model``): processes with different 384-dim
# embedders on one server (a test suite's hashing embedder next to a MiniLM benchmark) each
# embed and query their own chunks of the same episodes, instead of one embedding everyone's
# pending episodes for all. Chunks written before the stamp (no model) count for any embedder.
_MODEL_OK = "(c.model = $model OR c.model IS NULL)"
_MY_CHUNK = f"MATCH (e)-[:KGMEM_CHUNK]->(c:KgmemChunk) WHERE {_MODEL_OK}"
AUTO_INDEX_EVERY_S = 2.0  # search-time catch-up at most this often (it scans for work)
FULL_SCAN_EVERY_S = 300.0  # the background indexer also scans the whole graph this often
AVGDL_SAMPLE = 10_000  # episodes read for a group's average length in keyword scoring


def _lucene(words: list[str], field: str) -> str | None:
    if not words:
        return None
    return f"{field}:(" + " OR ".join(f'"{n4.lucene_escape(w)}"' for w in words) + ")"


def _lucene_phrases(phrases: list[str]) -> str | None:
    """``kgmem_tokens:("p1" OR "p2" ...)`` over already quoted token phrases."""
    return f"{EPISODE_TOKENS}:(" + " OR ".join(phrases) + ")" if phrases else None


def fts5_idf(n_docs: int, df: int) -> float:
    """SQLite FTS5's bm25() idf: ``log((N - n + 0.5) / (n + 0.5))``, 1e-6 when not positive
    (a word in half the rows or more weighs next to nothing)."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5)) if n_docs > 0 else 0.0
    return idf if idf > 0 else 1e-6


def fts5_bm25(tokens: list[str], phrases: Sequence[tuple[list[str], float]],
              avgdl: float) -> float:
    """SQLite FTS5's bm25() (k1 = 1.2, b = 0.75, sign flipped: higher is better) of a row of
    ``tokens`` for phrases ``(phrase tokens, idf)``; FTS5's own arithmetic, term by term."""
    k1, b = 1.2, 0.75
    norm = k1 * (1.0 - b + b * len(tokens) / avgdl) if avgdl > 0 else k1
    score = 0.0
    for ph, idf in phrases:
        n = len(ph)
        tf = tokens.count(ph[0]) if n == 1 else sum(
            1 for i in range(len(tokens) - n + 1) if tokens[i:i + n] == ph)
        score += idf * (tf * (k1 + 1.0)) / (tf + norm)
    return score


def _cos(neo_score: float) -> float:
    return 2.0 * float(neo_score) - 1.0


def _us(x: Any) -> int:
    return to_micros(n4.to_instant(x))


class Neo4jGraph(n4.CypherReads, Protocol):
    """What the search half reads of :class:`kgmem.store.neo4j.Neo4jStore` (which imports
    this module: a protocol, not the class)."""

    driver: neo4j.Driver
    database: str
    readiness: Readiness  # told when a search write finds the server gone

    def adjacent(self, group: str, entity_ids: Sequence[str], when: TimeFilter
                 ) -> list[FactVersion]: ...


class Neo4jSearchReads:
    """Candidate generation over a :class:`kgmem.store.neo4j.Neo4jStore`."""

    def __init__(self, store: Neo4jGraph, embedder: Embedder | None,
                 mentions: TimeMentions) -> None:
        if embedder is not None and int(embedder.dim) != EMBEDDING_DIM:
            raise InvalidInputError(
                f"the Neo4j vector indexes hold {EMBEDDING_DIM}-dim vectors; embedder "
                f"{embedder.name!r} has {embedder.dim}"
            )
        self.store = store
        self.embedder = embedder
        self.mentions = mentions
        self._lock = threading.Lock()
        self._last_auto: dict[str, float] = {}  # groups (as _key) -> last catch-up
        self._skip: set[str] = set()  # items whose embedding could not be written
        self._last_full_scan = float("-inf")  # index_round's whole-graph scan
        self._schema()

    def _q(self, query: str, **params: Any) -> list[list[Any]]:
        return self.store.cypher(query, **params)

    def _w(self, query: str, **params: Any) -> list[list[Any]]:
        """One write transaction. A transient conflict (another writer's lock) is retried
        twice; a lost server is retried once (a pooled connection may be stale), then 503 at
        once: the driver's managed retries waited 5 s more, a search 6-8 s for its 503."""
        from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

        for attempt in range(3):
            try:
                with self.store.driver.session(database=self.store.database) as s:
                    tx = s.begin_transaction()
                    try:
                        values = tx.run(query, params).values()
                        tx.commit()
                        return values
                    finally:
                        if not tx.closed():
                            tx.rollback()
            except Exception as exc:
                again = (isinstance(exc, TransientError) and attempt < 2) or (
                    isinstance(exc, (ServiceUnavailable, SessionExpired)) and attempt == 0)
                if again:
                    time.sleep(0.05 * (attempt + 1))
                    continue
                mapped = n4.store_error(exc, "search index write")
                if mapped is None:
                    raise
                if not isinstance(mapped, StoreBusyError):
                    self.store.readiness.lost_connection()
                raise mapped from exc
        raise AssertionError("unreachable")

    def _write_batch(self, query: str, rows: list[dict[str, Any]]) -> None:
        """Write a batch; if it fails (e.g. an item was erased concurrently), write the items
        one by one and remember the ones that still fail so they are not picked up again."""
        from neo4j.exceptions import ClientError

        try:
            self._w(query, rows=rows)
            return
        except ClientError:
            pass
        for row in rows:
            try:
                self._w(query, rows=[row])
            except ClientError:
                self._skip.add(row["id"])

    def _write_each(self, query: str, param: str, items: list[Any]) -> None:
        """Write ``items`` in one statement; if that fails (an episode erased meanwhile:
        Neo.ClientError.Statement.EntityNotFound between MATCH and CREATE), write them one by
        one and drop the ones whose node is gone (nothing of an erased episode is written)."""
        from neo4j.exceptions import ClientError

        try:
            self._w(query, **{param: items})
            return
        except ClientError:
            pass
        for item in items:
            try:
                self._w(query, **{param: [item]})
            except ClientError:
                continue

    def _schema(self) -> None:
        dim = EMBEDDING_DIM
        for stmt in (
            f"CREATE VECTOR INDEX {CHUNK_INDEX} IF NOT EXISTS FOR (c:KgmemChunk) ON (c.embedding) "
            f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dim}, "
            "`vector.similarity_function`: 'cosine'}}",
            "CREATE INDEX kgmem_chunk_episode IF NOT EXISTS FOR (c:KgmemChunk) ON (c.episode_uuid)",
            "CREATE INDEX kgmem_chunk_group IF NOT EXISTS FOR (c:KgmemChunk) ON (c.group_id)",
            "CREATE INDEX kgmem_episode_time IF NOT EXISTS "
            "FOR (t:KgmemEpisodeTime) ON (t.group_id, t.start)",
            "CREATE INDEX kgmem_episodic_valid_at IF NOT EXISTS FOR (e:Episodic) ON (e.valid_at)",
        ):
            self._w(stmt)
        self._q("CALL db.awaitIndexes(300)")

    # ------------------------------------------------------------------ indexing
    def flush(self) -> None:
        """Nothing: the server persists its indexes."""

    def warm(self, group: str) -> None:
        """The server's vector indexes are loaded already: catch up (that group) only."""
        self.index_pending(groups=[group])

    def auto_index(self, group: str | None = None) -> int:
        """Search-time catch-up of the searched group: bounded (:data:`REQUEST_INDEX_CHARS`,
        :data:`REQUEST_INDEX_ITEMS`), throttled (finding work scans the group), and skipped
        while another catch-up runs (a request never waits for an indexer)."""
        if self.embedder is None or not self._lock.acquire(blocking=False):
            return 0
        try:
            return self._index(REQUEST_INDEX_ITEMS, REQUEST_INDEX_ITEMS, False,
                               None if group is None else [group], REQUEST_INDEX_CHARS)
        finally:
            self._lock.release()

    def queued(self) -> None:
        """None: no queue; :meth:`index_pending` finds what has no vector yet."""
        return None

    def index_pending(self, batch_size: int = 256, max_items: int | None = None,
                      force: bool = True, groups: Collection[str] | None = None) -> int:
        """Embed what ``groups`` (None: every group of the server) hold without vectors, and
        delete their chunks and time mentions whose episode is gone. Scoped to groups, runs
        on one server (other tenants, other test sessions, other embedders) never embed or
        delete each other's items. Unbounded: for ``kgmem index`` and the background indexer,
        never for a request."""
        if self.embedder is None:  # keyword-only: what is not embedded waits for the model
            return 0
        with self._lock:
            return self._index(batch_size, max_items, force, groups, None)

    def pending(self, group: str) -> int:
        """Items of ``group`` without vectors (counted up to 100,000 of each kind)."""
        if self.embedder is None:
            return 0
        # one statement, not three (every REST search answers with this count)
        return int(self._q(
            "CALL () { MATCH (e:Entity) WHERE e.group_id = $g AND e.name_embedding IS NULL "
            "AND e.name IS NOT NULL AND NOT e.uuid IN $skip WITH e LIMIT 100000 "
            "RETURN count(e) AS a } "
            "CALL () { MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g AND r.fact_embedding "
            "IS NULL AND r.fact IS NOT NULL AND NOT r.uuid IN $skip WITH r LIMIT 100000 "
            "RETURN count(r) AS b } "
            f"CALL () {{ MATCH (e:Episodic) WHERE e.group_id = $g AND NOT EXISTS {{ {_MY_CHUNK} }} "
            "WITH e LIMIT 100000 RETURN count(e) AS c } RETURN a + b + c",
            g=group, skip=list(self._skip), model=self.embedder.name)[0][0])

    def index_round(self, per_group: int = 64, groups: Collection[str] | None = None,
                    should_stop: Callable[[], bool] | None = None) -> int:
        """Up to ``per_group`` items of each group with a backlog. With ``groups`` None the
        groups come from the clocks' ``backlog`` tokens (an index seek: every kgmem write
        sets its groups' token) and a group whose backlog ran dry has its token cleared;
        the first round and one every :data:`FULL_SCAN_EVERY_S` scan the whole graph as
        well, for items written without kgmem (graphiti, other tools)."""
        if self.embedder is None:
            return 0
        rows: list[tuple[str, str | None]]
        if groups is not None:
            rows = [(g, None) for g in sorted(groups)]
        else:
            rows = self.backlog_groups()
            if time.monotonic() - self._last_full_scan >= FULL_SCAN_EVERY_S:
                self._last_full_scan = time.monotonic()
                marked = {g for g, _ in rows}
                rows += [(g, None) for g in self.scan_backlog_groups() if g not in marked]
        n = 0
        for g, token in rows:
            if g is None or (should_stop is not None and should_stop()):
                continue
            with self._lock:
                k = self._index(per_group, per_group, True, [g], None)
            n += k
            if token is not None and k < per_group:  # nothing left when it was read
                self.clear_backlog(g, token)
        return n

    def backlog_groups(self) -> list[tuple[str, str | None]]:
        """Groups whose clock carries a backlog token, with the token."""
        return [(r[0], r[1]) for r in self._q(
            "MATCH (k:KgmemClock) WHERE k.backlog IS NOT NULL "
            "RETURN k.group_id, k.backlog ORDER BY k.group_id")]

    def clear_backlog(self, group: str, token: str) -> None:
        """Clear the group's token unless a write set a new one since it was read: the lock
        is taken first (the SET), so the comparison sees any write committed meanwhile."""
        self._w("MATCH (k:KgmemClock {group_id: $g}) SET k.backlog_check = $t "
                "REMOVE k.backlog_check WITH k WHERE k.backlog = $t SET k.backlog = null",
                g=group, t=token)

    def scan_backlog_groups(self) -> list[str]:
        """Every group holding an item without a vector, by scanning the whole graph."""
        assert self.embedder is not None
        return [r[0] for r in self._q(
            "CALL { MATCH (e:Entity) WHERE e.name_embedding IS NULL AND e.name IS NOT NULL "
            "RETURN DISTINCT e.group_id AS g UNION "
            "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_embedding IS NULL AND r.fact IS NOT NULL "
            "RETURN DISTINCT r.group_id AS g UNION "
            f"MATCH (e:Episodic) WHERE NOT EXISTS {{ {_MY_CHUNK} }} RETURN DISTINCT e.group_id AS g }} "
            "RETURN g", model=self.embedder.name) if r[0] is not None]

    def forget_erased(self, group: str) -> None:
        """Chunks and time mentions of ``group`` whose episode is gone (erase deletes them in
        its own transaction; this catches any deleted outside kgmem), embedding nothing."""
        with self._lock:
            self._drop_orphans([group])

    def _drop_orphans(self, gs: list[str] | None) -> None:
        scope = "" if gs is None else " AND {v}.group_id IN $gs"
        self._w("MATCH (c:KgmemChunk) WHERE NOT ()-[:KGMEM_CHUNK]->(c)"
                f"{scope.format(v='c')} DETACH DELETE c", gs=gs)
        self._w("MATCH (t:KgmemEpisodeTime) WHERE NOT ()-[:KGMEM_TIME]->(t)"
                f"{scope.format(v='t')} DETACH DELETE t", gs=gs)

    def _index(self, batch_size: int, max_items: int | None, force: bool,
               groups: Collection[str] | None, max_chars: int | None) -> int:
        """:meth:`index_pending` under the lock; ``max_chars``: embed at most this many
        characters of episodes (an episode longer than what is left waits for an unbounded
        catch-up)."""
        assert self.embedder is not None
        scope = {"e": "", "r": "", "c": "", "t": ""} if groups is None else {
            v: f" AND {v}.group_id IN $gs" for v in ("e", "r", "c", "t")}
        gs = None if groups is None else sorted(groups)
        if not force and (time.monotonic() - self._last_auto.get(_key(gs), 0.0)
                          < AUTO_INDEX_EVERY_S):
            return 0
        budget = max_chars
        done = 0
        seen_eps: set[str] = set()
        window = model_window(self.embedder)
        while max_items is None or done < max_items:
            rows = self._q(
                "MATCH (e:Entity) WHERE e.name_embedding IS NULL AND e.name IS NOT NULL "
                f"AND NOT e.uuid IN $skip{scope['e']} RETURN e.uuid, e.name LIMIT $n",
                n=batch_size, skip=list(self._skip), gs=gs)
            if not rows:
                break
            vecs = self.embedder.embed([r[1] for r in rows])
            self._write_batch(
                "UNWIND $rows AS x MATCH (e:Entity {uuid: x.id}) "
                "CALL db.create.setNodeVectorProperty(e, 'name_embedding', x.v)",
                [{"id": r[0], "v": v.tolist()} for r, v in zip(rows, vecs)])
            done += len(rows)
        while max_items is None or done < max_items:
            rows = self._q(
                "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_embedding IS NULL AND r.fact IS NOT "
                f"NULL AND NOT r.uuid IN $skip{scope['r']} RETURN r.uuid, r.fact LIMIT $n",
                n=batch_size, skip=list(self._skip), gs=gs)
            if not rows:
                break
            vecs = self.embedder.embed([r[1] for r in rows])
            self._write_batch(
                "UNWIND $rows AS x MATCH ()-[r:RELATES_TO {uuid: x.id}]->() "
                "CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', x.v)",
                [{"id": r[0], "v": v.tolist()} for r, v in zip(rows, vecs)])
            done += len(rows)
        while (max_items is None or done < max_items) and (budget is None or budget > 0):
            fits = "" if budget is None else " AND size(coalesce(e.content, '')) <= $maxc"
            rows = self._q(
                f"MATCH (e:Episodic) WHERE NOT EXISTS {{ {_MY_CHUNK} }}{scope['e']}{fits} "
                "RETURN e.uuid, e.group_id, e.content, e.speaker, e.valid_at LIMIT $n",
                n=batch_size, model=self.embedder.name, gs=gs, maxc=budget)
            rows = [r for r in rows if r[0] not in seen_eps]
            if budget is not None:
                kept = []
                for r in rows:
                    if len(r[2] or "") <= budget:
                        kept.append(r)
                        budget -= len(r[2] or "")
                rows = kept
            if not rows:  # nothing new (or only episodes whose chunks failed to write)
                break
            seen_eps.update(r[0] for r in rows)
            # episodes written by graphiti (or bulk tools) have no keyword tokens yet
            toks = fts5_tokens_many([episode_keyword_text(r[2] or "", r[3]) for r in rows])
            self._write_each(
                "UNWIND $rows AS x MATCH (e:Episodic {uuid: x[0]}) "
                f"WHERE e.{EPISODE_TOKENS} IS NULL SET e.{EPISODE_TOKENS} = x[1]",
                "rows", [[r[0], " ".join(t)] for r, t in zip(rows, toks)])
            texts, meta, times = [], [], []
            for uid, group, content, speaker, ref in rows:
                for i, (t, a, b) in enumerate(episode_chunks(content or "", speaker, window)):
                    texts.append(t)
                    meta.append((uid, group, i, a, b))
                for _e, _g, s0, s1, _p in self.mentions(uid, group, content or "", _us(ref)):
                    times.append({"ep": uid, "g": group, "s": from_micros(s0),
                                  "e": from_micros(s1)})
            vecs = self.embedder.embed(texts)
            chunks = [
                {"ep": m[0], "g": m[1], "i": m[2], "a": m[3], "b": m[4],
                 "id": str(uuid.uuid4()), "v": v.tolist(), "m": self.embedder.name}
                for m, v in zip(meta, vecs)
            ]
            # MATCH the episode in the same statement: an episode erased meanwhile gets no
            # chunks (nothing of it is resurrected)
            self._write_each(
                "UNWIND $eps AS ep UNWIND ep AS x MATCH (e:Episodic {uuid: x.ep}) "
                "WHERE NOT EXISTS { MATCH (e)-[:KGMEM_CHUNK]->(c:KgmemChunk {chunk: x.i}) "
                "WHERE c.model = x.m OR c.model IS NULL } "
                "CREATE (e)-[:KGMEM_CHUNK]->(c:KgmemChunk {uuid: x.id, episode_uuid: x.ep, "
                "group_id: x.g, chunk: x.i, start: x.a, end: x.b, model: x.m}) "
                "WITH c, x CALL db.create.setNodeVectorProperty(c, 'embedding', x.v)",
                "eps", _by_episode(chunks))
            if times:
                by_ep: dict[str, list[dict[str, Any]]] = {}
                for stamp in times:
                    by_ep.setdefault(stamp["ep"], []).append(stamp)
                # once per episode, not again for each embedder's chunks
                self._write_each(
                    "UNWIND $eps AS ts MATCH (e:Episodic {uuid: ts[0].ep}) "
                    "WHERE NOT (e)-[:KGMEM_TIME]->() UNWIND ts AS x "
                    "CREATE (e)-[:KGMEM_TIME]->(:KgmemEpisodeTime {episode_uuid: x.ep, "
                    "group_id: x.g, start: x.s, end: x.e})",
                    "eps", list(by_ep.values()))
            done += len(rows)
        # chunks / time mentions of erased episodes
        self._drop_orphans(gs)
        self._last_auto[_key(gs)] = time.monotonic()
        return done

    # ------------------------------------------------------------------ episodes
    @staticmethod
    def _ep_filter(alias: str = "e") -> str:
        return f"{alias}.group_id = $g AND {episode_cypher(alias)}"

    def episode_times(self, group: str, known_at: datetime) -> list[int]:
        rows = self._q(
            f"MATCH (e:Episodic) WHERE e.group_id = $g AND {recorded_cypher('e')} "
            f"RETURN {n4.micros_of('e.valid_at')} AS t ORDER BY t", g=group, k=known_at)
        return [int(r[0]) for r in rows]

    def episodes_in_window(self, group, window, limit, known_at, ref_max):  # type: ignore[no-untyped-def]
        rows = self._q(
            f"MATCH (e:Episodic) WHERE {self._ep_filter()} RETURN e.uuid, e.valid_at "
            "ORDER BY e.valid_at, e.created_at, e.uuid LIMIT $n",
            g=group, k=known_at, rmax=ref_max, w0=window[0], w1=window[1], n=limit)
        return [(r[0], _us(r[1])) for r in rows]

    def episodes_mentioning_window(self, group, window, limit, known_at, ref_max):  # type: ignore[no-untyped-def]
        rows = self._q(
            f"MATCH (t:KgmemEpisodeTime) WHERE t.group_id = $g AND {MENTIONS_WINDOW_CYPHER} "
            f"MATCH (e:Episodic {{uuid: t.episode_uuid}}) WHERE {episode_cypher('e', window=False)} "
            "RETURN DISTINCT e.uuid, e.valid_at ORDER BY e.valid_at LIMIT $n",
            g=group, w0=window[0], w1=window[1], lo=shift(window[0], -timedelta(days=400)),
            k=known_at, rmax=ref_max, n=limit)
        return [(r[0], _us(r[1])) for r in rows]

    def _episode_phrases(self, group: str, phrases: dict[str, str]
                         ) -> tuple[dict[str, tuple[list[str], float]], float, bool]:
        """The words worth matching with their FTS5 idf over the group, the group's average
        episode length in tokens (FTS5's statistics with the group as the store), and whether
        even the words kept are too common to rank every match.

        Like on the embedded store (search_reads.DF_MAX), words in too many episodes are left out
        (the rarest word always kept; if it is that common too, only the newest
        ``COMMON_POOL`` matches are scored); words no episode of the group has too. The
        average length is exact up to ``AVGDL_SAMPLE`` episodes, over that many beyond."""
        rows = self._q(
            "CALL () { MATCH (e:Episodic) WHERE e.group_id = $g RETURN count(e) AS n } "
            "CALL () { MATCH (e:Episodic) WHERE e.group_id = $g "
            f"AND e.{EPISODE_TOKENS} IS NOT NULL WITH e LIMIT $sample RETURN count(e) AS m, "
            f"sum(CASE e.{EPISODE_TOKENS} WHEN '' THEN 0 "
            f"ELSE size(split(e.{EPISODE_TOKENS}, ' ')) END) AS total }} "
            "UNWIND $qs AS q CALL (q) { "
            "CALL db.index.fulltext.queryNodes('kgmem_episode_tokens', q[1]) YIELD node "
            "WHERE node.group_id = $g RETURN count(node) AS df } "
            "RETURN q[0], n, m, total, df",
            g=group, sample=AVGDL_SAMPLE,
            qs=[[w, f"{EPISODE_TOKENS}:{p}"] for w, p in phrases.items()])
        if not rows:
            return {}, 0.0, False
        n, m, total = int(rows[0][1]), int(rows[0][2]), int(rows[0][3] or 0)
        dfs = {w: int(df) for w, _, _, _, df in rows if df > 0}
        keep = [w for w in dfs if dfs[w] <= DF_MAX]
        common = bool(dfs) and not keep
        if common:
            keep = [min(dfs, key=lambda x: dfs[x])]
        out = {w: (fts5_tokens(w), fts5_idf(n, dfs[w])) for w in phrases if w in keep}
        return out, (total / m if m else 0.0), common

    def keyword_episodes(self, group, words, limit, known_at, ref_max, window):  # type: ignore[no-untyped-def]
        """BM25 as the embedded store's FTS5 computes it (same tokens, idf and lengths over
        the group): Lucene finds the episodes that have a word, kgmem scores them."""
        phrases = {w: p for w in words if (p := n4.token_phrase(w)) is not None}
        if not phrases:
            return []
        scored, avgdl, common = self._episode_phrases(group, phrases)
        q = _lucene_phrases([phrases[w] for w in scored])
        if q is None:
            return []
        # all words too common: the newest matches only (as the embedded store does), else
        # every match, oldest first as FTS5 returns them
        order = ("ORDER BY e.created_at DESC, e.valid_at DESC, e.uuid DESC LIMIT $pool"
                 if common else "ORDER BY e.created_at, e.valid_at, e.uuid")
        rows = self._q(
            "CALL db.index.fulltext.queryNodes('kgmem_episode_tokens', $q) YIELD node AS e "
            f"WHERE {self._ep_filter()} RETURN e.uuid, e.{EPISODE_TOKENS} " + order,
            q=q, g=group, k=known_at, rmax=ref_max, w0=window[0] if window else None,
            w1=window[1] if window else None, pool=max(COMMON_POOL, limit))
        ph = [scored[w] for w in words if w in scored]
        if common:
            rows = rows[::-1]
        # stable sort: ties stay oldest first, as FTS5 returns them (insertion order)
        hits = sorted(((r[0], fts5_bm25((r[1] or "").split(), ph, avgdl)) for r in rows),
                      key=lambda x: -x[1])
        return hits[:limit]

    def _widening(self, query: str, k0: int, full: Callable[[list[Any]], bool],
                  **params: Any) -> list[Any]:
        """Run a vector ``query`` (returning ``raw`` index hits and the ``kept`` rows of this
        group) with ``$kk`` = k0, widening k x8 while the group's answer is not ``full``, the
        index returned all k asked for (it holds more) and k < ``VECTOR_K_MAX``."""
        k = max(1, min(k0, VECTOR_K_MAX))
        while True:
            raw, kept = self._q(query, kk=k, **params)[0]
            if full(kept) or raw < k or k >= VECTOR_K_MAX:
                return list(kept)
            k = min(k * 8, VECTOR_K_MAX)

    def vector_episodes(
        self, group: str, q: np.ndarray, limit: int, known_at: datetime,
        ref_max: datetime | None, allowed: set[str] | None,
    ) -> list[tuple[str, float, tuple[int, int]]]:
        assert self.embedder is not None  # vectors are searched only with an embedder
        qv = [float(x) for x in q]
        if allowed is not None and len(allowed) <= EXACT_WINDOW_MAX:
            rows = self._q(
                "UNWIND $ids AS id MATCH (c:KgmemChunk {episode_uuid: id}) "
                f"WHERE {_MODEL_OK} "
                "RETURN c.episode_uuid, vector.similarity.cosine(c.embedding, $q), c.start, c.end",
                ids=sorted(allowed), q=qv, model=self.embedder.name)
        else:
            rows = self._widening(
                f"CALL db.index.vector.queryNodes('{CHUNK_INDEX}', $kk, $q) YIELD node AS c, score "
                "OPTIONAL MATCH (e:Episodic {uuid: c.episode_uuid}) WHERE c.group_id = $g "
                f"AND {_MODEL_OK} AND {episode_cypher('e', window=False)} "
                "WITH count(*) AS raw, collect(CASE WHEN e IS NOT NULL "
                "THEN [c.episode_uuid, score, c.start, c.end] END) AS kept RETURN raw, kept",
                limit * 4 if allowed is None else limit * 40,
                lambda kept: len({r[0] for r in kept if allowed is None or r[0] in allowed})
                >= limit,
                q=qv, g=group, k=known_at, rmax=ref_max, model=self.embedder.name)
        best: dict[str, tuple[float, tuple[int, int]]] = {}
        for eid, score, a, b in rows:
            if allowed is not None and eid not in allowed:
                continue
            s = _cos(score)
            if eid not in best or s > best[eid][0]:
                best[eid] = (s, (int(a), int(b)))
        ranked = sorted(best, key=lambda i: -best[i][0])[:limit]
        return [(i, best[i][0], best[i][1]) for i in ranked]

    def episodes_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Episode]:
        rows = self._q("UNWIND $ids AS id MATCH (e:Episodic {uuid: id}) WHERE e.group_id = $g "
                       + n4.EPISODE_RETURN, ids=list(dict.fromkeys(ids)), g=group)
        return {r[0]: n4.row_episode(r) for r in rows}

    def episodes_saying(
        self, group: str, words: Sequence[str], limit: int, known_at: datetime,
        ref_max: datetime | None, window: tuple[datetime, datetime] | None,
    ) -> dict[str, list[tuple[str, int]]]:
        """For each word, (id, reference time in micros) of up to ``limit`` visible episodes
        saying it (the keyword side's token index), unranked: membership only, no BM25 to
        compute. All words in one round trip."""
        items = []
        out: dict[str, list[tuple[str, int]]] = {}
        for w in dict.fromkeys(words):
            out[w] = []
            phrase = n4.token_phrase(w)
            if phrase is not None:
                items.append({"w": w, "q": _lucene_phrases([phrase])})
        if not items:
            return out
        rows = self._q(
            "UNWIND $items AS item CALL (item) { "
            "CALL db.index.fulltext.queryNodes('kgmem_episode_tokens', item.q) YIELD node AS e "
            f"WHERE {self._ep_filter()} RETURN e.uuid AS id, {n4.micros_of('e.valid_at')} AS t "
            "LIMIT $n } RETURN item.w, collect([id, t])",
            items=items, g=group, k=known_at, rmax=ref_max,
            w0=window[0] if window else None, w1=window[1] if window else None, n=limit)
        for w, found in rows:
            out[w] = [(i, int(t)) for i, t in found]
        return out

    def episode_stamps(self, group: str, ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        rows = self._q("UNWIND $ids AS id MATCH (e:Episodic {uuid: id}) WHERE e.group_id = $g "
                       f"RETURN e.uuid, {n4.micros_of('e.created_at')}, {n4.micros_of('e.valid_at')}",
                       ids=list(dict.fromkeys(ids)), g=group)
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def episode_neighbours(
        self, group: str, ids: Sequence[str], gap: timedelta, known_at: datetime,
        ref_max: datetime | None,
    ) -> dict[str, tuple[str | None, str | None]]:
        """Same as the embedded store: previous / next visible episode in the order
        ``(valid_at, created_at, uuid)``, each within ``gap``."""
        vis = f"e.group_id = $g AND {episode_cypher('e', window=False)}"
        rows = self._q(
            "UNWIND $ids AS id MATCH (x:Episodic {uuid: id}) WHERE x.group_id = $g "
            "RETURN x.uuid, "
            "COLLECT { MATCH (e:Episodic) WHERE " + vis + " AND " + sitting_cypher(before=True)
            + " RETURN e.uuid ORDER BY e.valid_at DESC, e.created_at DESC, e.uuid DESC LIMIT 1 }, "
            "COLLECT { MATCH (e:Episodic) WHERE " + vis + " AND " + sitting_cypher(before=False)
            + " RETURN e.uuid ORDER BY e.valid_at, e.created_at, e.uuid LIMIT 1 }",
            ids=list(dict.fromkeys(ids)), g=group, k=known_at, rmax=ref_max, gap=gap)
        return {r[0]: (r[1][0] if r[1] else None, r[2][0] if r[2] else None) for r in rows}

    # ------------------------------------------------------------------ facts
    def keyword_facts(self, group, words, limit, when):  # type: ignore[no-untyped-def]
        """The ``limit`` best facts (one version each) of a fulltext query, in score order.

        The index yields versions by descending score, so the answer is the first ``limit``
        distinct facts of that stream (each with its first, best-scored, version; ties keep
        the stream's order). Only the head of the stream is read: ``$n`` rows, x8 while they
        hold fewer than ``limit`` facts and the stream is longer. A word most facts contain
        ("works") used to turn every match into a row (version, endpoints, provenance)."""
        q = _lucene(words, "fact")
        if q is None:
            return []
        cond, vparams = version_cypher(when)
        query = (
            "CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $q) "
            "YIELD relationship AS r, score WHERE r.fact IS NOT NULL AND r.group_id = $g "
            f"AND {cond} WITH r, score "
            f"MATCH (s:Entity)-[r]->(o:Entity) {n4.V_RETURN}{n4.v_prov(when)}, score LIMIT $n")
        n = max(1, limit) * KEYWORD_ROWS_PER_FACT
        while True:
            rows = self._q(query, q=q, g=group, n=n, **vparams)
            best = self._best(rows, limit, cosine=False)
            if len(best) >= limit or len(rows) < n:
                return best
            n *= 8

    def vector_facts(self, group, q, limit, when):  # type: ignore[no-untyped-def]
        cond, vparams = version_cypher(when)
        hits = self._widening(
            "CALL db.index.vector.queryRelationships('kgmem_fact_embedding', $kk, $q) "
            "YIELD relationship AS r, score WITH count(*) AS raw, collect(CASE WHEN "
            f"r.group_id = $g AND {cond} THEN [elementId(r), r.fact_id, score, "
            "coalesce(r.fact_id, r.uuid)] END) AS kept RETURN raw, kept",
            limit * 4, lambda kept: len({h[1] for h in kept}) >= limit,
            q=[float(x) for x in q], g=group, **vparams)
        if not hits:
            return []
        # Read (version, endpoints, provenance) only for the hits _best can return: per fact
        # (h[3], the FactVersion.fact_id) its first best-scored hit, then the `limit` best facts
        # -- _best's own choice, made on the hits instead of on every hit's full row.
        top: dict[str, list[Any]] = {}
        for h in hits:
            if h[3] not in top or _cos(h[2]) > _cos(top[h[3]][2]):
                top[h[3]] = h
        keep = sorted(top.values(), key=lambda h: -_cos(h[2]))[:limit]
        rows = self._q(
            "UNWIND $hits AS h MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
            f"WHERE elementId(r) = h[0] WITH s, r, o, h[2] AS score {n4.V_RETURN}"
            f"{n4.v_prov(when)}, score", hits=keep, **vparams)
        return self._best(rows, limit, cosine=True)

    @staticmethod
    def _best(rows: list[list[Any]], limit: int, cosine: bool) -> list[tuple[FactVersion, float]]:
        best: dict[str, tuple[FactVersion, float]] = {}
        for r in rows:
            v = n4.row_version(r[:19], r[19])
            s = _cos(r[20]) if cosine else float(r[20])
            if v.fact_id not in best or s > best[v.fact_id][1]:
                best[v.fact_id] = (v, s)
        return sorted(best.values(), key=lambda x: -x[1])[:limit]

    def graph_facts(self, group, entity_ids, when, limit):  # type: ignore[no-untyped-def]
        out = self.store.adjacent(group, list(entity_ids), when)
        out.sort(key=lambda v: v.created_at, reverse=True)
        return out[: limit * max(1, len(entity_ids))]

    def facts_from_episodes(self, group, episode_ids, when, limit):  # type: ignore[no-untyped-def]
        cond, vparams = version_cypher(when)
        rows = self._q(
            "UNWIND $ids AS id MATCH (:Episodic {uuid: id})-[sp:KGMEM_SUPPORTS]->(l:KgmemLineage) "
            f"WHERE {source_cypher('sp', when)} "  # a link recorded later was not known then
            "WITH DISTINCT l.fact_id AS f MATCH (s:Entity)-[r:RELATES_TO {fact_id: f}]->(o:Entity) "
            f"WHERE r.group_id = $g AND {cond} {n4.V_RETURN}{n4.v_prov(when)} LIMIT $n",
            ids=list(episode_ids), g=group, n=limit, **vparams)
        return n4.row_versions(rows)

    def fact_sources(self, group: str, fact_ids: Sequence[str],
                     when: TimeFilter | None = None) -> dict[str, list[str]]:
        """fact id -> the episodes that support it under ``when`` (None: every link; kgmem's
        lineages; graphiti's edges, whose lists carry no times, whole)."""
        vparams = {} if when is None else version_cypher(when)[1]
        rows = self._q(
            "UNWIND $ids AS f CALL (f) { "
            "MATCH (:KgmemLineage {fact_id: f})<-[sp:KGMEM_SUPPORTS]-(ep:Episodic) "
            f"WHERE ep.group_id = $g AND {source_cypher('sp', when)} RETURN ep.uuid AS ep "
            "UNION MATCH ()-[r:RELATES_TO {uuid: f}]->() WHERE r.group_id = $g "
            "AND r.fact_id IS NULL UNWIND coalesce(r.episodes, []) AS ep RETURN ep } "
            "RETURN f, collect(DISTINCT ep)", ids=list(dict.fromkeys(fact_ids)), g=group,
            **vparams)
        return {r[0]: list(r[1]) for r in rows if r[1]}

    # ------------------------------------------------------------------ entities
    def match_entities(self, group, norms, known_at):  # type: ignore[no-untyped-def]
        rows = self._q(
            "CALL () { MATCH (e:Entity) WHERE e.group_id = $g AND e.norm_name IN $n "
            "RETURN e.norm_name AS k, e "
            "UNION MATCH (a:KgmemAlias) WHERE a.group_id = $g AND a.norm_alias IN $n "
            "MATCH (e:Entity {uuid: a.entity_id}) RETURN a.norm_alias AS k, e } "
            f"WITH k, e WHERE {recorded_cypher('e', 'k0')} RETURN k, e.uuid",
            g=group, n=list(norms), k0=known_at)
        out: dict[str, list[str]] = {}
        for k, eid in rows:
            out.setdefault(k, []).append(eid)
        return out

    def keyword_entities(self, group, words, limit, known_at):  # type: ignore[no-untyped-def]
        q = _lucene(words, "name")
        if q is None:
            return []
        rows = self._q(
            "CALL db.index.fulltext.queryNodes('node_name_and_summary', $q) YIELD node AS e, score "
            f"WHERE e.group_id = $g AND {recorded_cypher('e')} RETURN e.uuid, score "
            "ORDER BY score DESC LIMIT $n", q=q, g=group, k=known_at, n=limit)
        return [(r[0], float(r[1])) for r in rows]

    def vector_entities(self, group, q, limit, known_at):  # type: ignore[no-untyped-def]
        rows = self._widening(
            "CALL db.index.vector.queryNodes('kgmem_entity_name_embedding', $kk, $q) "
            "YIELD node AS e, score WITH count(*) AS raw, collect(CASE WHEN e.group_id = $g "
            f"AND {recorded_cypher('e')} THEN [e.uuid, score] END) AS kept RETURN raw, kept",
            limit * 4, lambda kept: len(kept) >= limit,
            q=[float(x) for x in q], g=group, k=known_at)
        return [(r[0], _cos(r[1])) for r in rows][:limit]

    def entities_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Entity]:
        rows = self._q("UNWIND $ids AS id MATCH (e:Entity {uuid: id}) WHERE e.group_id = $g "
                       + n4.ENTITY_RETURN, ids=list(dict.fromkeys(ids)), g=group)
        return {r[0]: n4.row_entity(r) for r in rows}


def _key(groups: list[str] | None) -> str:
    return "\x1f".join(groups) if groups is not None else "\x1e"


def _by_episode(chunks: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Chunks grouped by their episode (one failing episode does not drop the others')."""
    out: dict[str, list[dict[str, Any]]] = {}
    for c in chunks:
        out.setdefault(c["ep"], []).append(c)
    return list(out.values())
