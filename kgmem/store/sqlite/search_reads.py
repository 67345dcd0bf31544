"""The embedded store's search reads: keyword (FTS5), vector (the ANN indexes of
:mod:`kgmem.store.sqlite.vectors`), window and graph candidates for :mod:`kgmem.retrieve`,
visibility-filtered by :mod:`kgmem.store.visibility`, and the catch-up indexing of what the
store's triggers queued (:func:`kgmem.store.sqlite.indexing.drain_queue`).
``EmbeddedStore.search_reads(embedder, mentions)`` opens one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from ...errors import InvalidInputError, StoreBusyError
from ...model import Entity, Episode, FactVersion
from ...timeline import recorded_by
from ..base import TimeFilter, iter_chunks
from ..indexing import TimeMentions
from ..search_reads import (
    COMMON_POOL,
    DF_MAX,
    EXACT_WINDOW_MAX,
    REQUEST_INDEX_CHARS,
    REQUEST_INDEX_ITEMS,
    version_rank_key,
)
from ..visibility import episode_stamps_visible, recorded_mask, source_sql
from .indexing import drain_queue
from .search import SearchTables, fts_match
from .vectors import VectorIndexes, blob_to_vec

if TYPE_CHECKING:
    from ...embed.base import Embedder

TIMES_CACHED_GROUPS = 64  # groups whose episode times the search reads keep in memory
_DF_TTL_S = 300.0


class EmbeddedSearchReads:
    """The embedded store's search reads (:class:`kgmem.store.search_reads.SearchReads`) for
    one embedder: FTS5 and vector candidates over the store's :class:`SearchTables`."""

    def __init__(self, tables: SearchTables, embedder: Embedder | None,
                 mentions: TimeMentions) -> None:
        self.view = tables
        self.mentions = mentions
        self.view.search_ensure_schema()
        self.embedder = embedder
        self.vectors: VectorIndexes | None = None
        self._df: dict[tuple[str, str], tuple[float, int]] = {}
        self._scrubbed_seq = -1
        self._index_lock = threading.Lock()
        # group -> (database change stamp, reference times, created_at), both by reference time
        self._times: OrderedDict[str, tuple[int, np.ndarray, np.ndarray]] = (
            OrderedDict()
        )
        self._times_lock = threading.Lock()
        if embedder is None:  # keyword-only: the store's vectors (if any) stay as they are
            return
        self.dim = int(embedder.dim)
        model = self.view.search_meta_get("model")
        if model is None:
            self.view.search_meta_set("model", embedder.name)
            self.view.search_meta_set("dim", str(self.dim))
        elif model != embedder.name:
            raise InvalidInputError(
                f"this store's vectors were made with embedder {model!r}, not "
                f"{embedder.name!r}: pass that embedder, or call "
                "kgmem.retrieve.reindex(memory, embedder) to re-embed everything",
                stored=model,
                given=embedder.name,
            )
        self.vectors = VectorIndexes(self.view, embedder.name, self.dim)

    def _vectors(self) -> VectorIndexes:
        if self.vectors is None:  # search asks for vectors only when it has a query vector
            raise RuntimeError("keyword-only search backend has no vector indexes")
        return self.vectors

    # ------------------------------------------------------------------ indexing
    def flush(self) -> None:
        if self.vectors is not None:
            self.vectors.flush()

    def warm(self, group: str) -> None:
        self.index_pending(groups=[group])
        if self.vectors is not None:
            for kind in ("fact", "entity", "episode"):
                self.vectors.sync(kind, group)

    def auto_index(self, group: str | None = None) -> int:
        """Search-time catch-up of ``group``, bounded (:data:`REQUEST_INDEX_CHARS`,
        :data:`REQUEST_INDEX_ITEMS`; another group's backlog is never touched). Best effort:
        while another indexer or writer holds the store, search goes on with what is already
        indexed instead of waiting (a read never waits for a writer)."""
        if self.vectors is None or self.embedder is None:
            return 0
        if not self._index_lock.acquire(blocking=False):  # the background indexer is at work
            return 0
        db = self.view._db
        try:
            with db.without_waiting():
                if not self.view.search_queue_size(group):
                    return 0
                with db.write():  # free now? (else do not embed what cannot be stored)
                    pass
                return drain_queue(self.view, self.embedder, self.mentions,
                                   REQUEST_INDEX_ITEMS, REQUEST_INDEX_ITEMS, group=group,
                                   max_chars=REQUEST_INDEX_CHARS)
        except StoreBusyError:
            return 0
        finally:
            self._index_lock.release()

    def pending(self, group: str) -> int:
        return self.view.search_queue_size(group)

    def queued(self) -> int:
        """The items the store's triggers queued and nobody embedded yet."""
        return self.view.search_queue_size()

    def index_pending(self, batch_size: int = 256, max_items: int | None = None,
                      force: bool = True, groups: Collection[str] | None = None) -> int:
        """Drain the queue of ``groups`` (None: every group), unbounded: for ``kgmem index``,
        the end of an ingest and the background indexer, never for a request (``force`` is
        for a server store's catch-up)."""
        if self.vectors is None or self.embedder is None:  # keyword-only: the queue waits
            return 0
        with self._index_lock:
            if groups is None:
                n = drain_queue(self.view, self.embedder, self.mentions, batch_size, max_items)
            else:
                n = 0
                for g in sorted(groups):
                    left = None if max_items is None else max_items - n
                    n += drain_queue(self.view, self.embedder, self.mentions, batch_size, left,
                                     group=g)
            self._scrub()
        return n

    def index_round(self, per_group: int = 64, groups: Collection[str] | None = None,
                    should_stop: Callable[[], bool] | None = None) -> int:
        if self.vectors is None or self.embedder is None:
            return 0
        n = 0
        for g in self.view.search_queue_groups():
            if should_stop is not None and should_stop():
                break
            if groups is not None and g not in groups:
                continue
            with self._index_lock:  # one batch at a time: a request's catch-up gets its turn
                n += drain_queue(self.view, self.embedder, self.mentions, per_group, per_group,
                                 group=g, should_stop=should_stop)
        if n:
            with self._index_lock:
                self._scrub()
        return n

    def forget_erased(self, group: str) -> None:
        if self.vectors is None:
            return
        with self._index_lock:
            self._scrub()

    def _scrub(self) -> None:
        """Apply deletions to the persisted ANN files (privacy after an erase)."""
        assert self.vectors is not None
        top = self.view.search_max_deleted_seq()
        if top != self._scrubbed_seq:
            self.vectors.scrub_persisted()
            self._scrubbed_seq = top

    def _prune(self, table: str, words: list[str]) -> tuple[str, int | None]:
        """FTS match for ``words`` without the ones too common to be worth scoring, and the
        pool of newest matches to score instead of all of them (``None``: score all) when
        even the words kept are that common."""
        import time as _time

        if not words:
            return "", None
        now = _time.monotonic()
        dfs: list[tuple[int, str]] = []
        for w in dict.fromkeys(words):
            hit = self._df.get((table, w))
            if hit is None or now - hit[0] > _DF_TTL_S:
                hit = (now, self.view.keyword_doc_freq(table, w))
                if len(self._df) > 50_000:
                    self._df.clear()
                self._df[(table, w)] = hit
            dfs.append((hit[1], w))
        keep = [w for df, w in dfs if df <= DF_MAX]
        if not keep:
            return fts_match([min(dfs)[1]]), COMMON_POOL
        return fts_match(keep), None

    # ------------------------------------------------------------------ episodes
    def episode_times(self, group: str, known_at: datetime) -> list[int]:
        """Reference times of the episodes stored by ``known_at``, ascending. The group's
        times are read once and kept until the database changes (any write, by this process
        or another), so session boundaries cost no full scan per query."""
        stamp = self.view.change_stamp()
        with self._times_lock:
            hit = self._times.get(group)
            if hit is not None and hit[0] == stamp:
                self._times.move_to_end(group)
        if hit is None or hit[0] != stamp:
            rows = np.asarray(self.view.episode_time_rows(group), dtype=np.int64).reshape(-1, 2)
            hit = (stamp, rows[:, 0].copy(), rows[:, 1].copy())
            with self._times_lock:
                self._times[group] = hit
                while len(self._times) > TIMES_CACHED_GROUPS:
                    self._times.popitem(last=False)
        ref, created = hit[1], hit[2]
        return ref[recorded_mask(created, known_at)].tolist()  # type: ignore[no-any-return]

    def episodes_in_window(self, group, window, limit, known_at, ref_max):  # type: ignore[no-untyped-def]
        return self.view.episodes_in_window(group, window, limit, known_at, ref_max)

    def episodes_mentioning_window(self, group, window, limit, known_at, ref_max):  # type: ignore[no-untyped-def]
        return self.view.episodes_mentioning_window(group, window, limit, known_at, ref_max)

    def keyword_episodes(self, group, words, limit, known_at, ref_max, window):  # type: ignore[no-untyped-def]
        match, newest = self._prune("episodes_fts", words)
        return self.view.keyword_episodes_filtered(
            group, match, limit, known_at, ref_max, window, newest=newest
        )

    def vector_episodes(
        self,
        group: str,
        q: np.ndarray,
        limit: int,
        known_at: datetime,
        ref_max: datetime | None,
        allowed: set[str] | None,
    ) -> list[tuple[str, float, tuple[int, int]]]:
        """Episodes by their best chunk's cosine, visible at ``known_at``."""
        best: dict[str, tuple[float, tuple[int, int]]] = {}
        if allowed is not None and len(allowed) <= EXACT_WINDOW_MAX:
            rows = self.view.search_item_vectors("episode", sorted(allowed))
            if rows:
                mat = np.stack([blob_to_vec(r[5]) for r in rows])
                sims = mat @ q.astype(np.float32)
                for r, s in zip(rows, sims.tolist()):
                    cur = best.get(r[1])
                    if cur is None or s > cur[0]:
                        best[r[1]] = (s, (int(r[3]), int(r[4])))
        else:
            k = limit * 4 if allowed is None else limit * 40
            hits = self._vectors().search("episode", group, q, k)
            info = self.view.search_label_rows([lab for lab, _ in hits])
            for lab, s in hits:
                row = info.get(lab)
                if row is None:  # erased meanwhile
                    continue
                item = row[1]
                if allowed is not None and item not in allowed:
                    continue
                cur = best.get(item)
                if cur is None or s > cur[0]:
                    best[item] = (s, (row[3], row[4]))
        ids = list(best)
        if ids and allowed is None:  # visibility (allowed sets are visible already)
            ids = sorted(ids, key=lambda i: -best[i][0])[: limit * 2]
            stamps = self.view.episode_stamps(group, ids)
            ids = [i for i in ids
                   if i in stamps and episode_stamps_visible(stamps[i], known_at, ref_max)]
        ranked = sorted(ids, key=lambda i: -best[i][0])[:limit]
        return [(i, best[i][0], best[i][1]) for i in ranked]

    def episodes_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Episode]:
        return self.view.episodes_by_ids(group, ids)

    def episode_stamps(self, group: str, ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        return self.view.episode_stamps(group, ids)

    def episodes_saying(
        self, group: str, words: Sequence[str], limit: int, known_at: datetime,
        ref_max: datetime | None, window: tuple[datetime, datetime] | None,
    ) -> dict[str, list[tuple[str, int]]]:
        """For each word, (id, reference time in micros) of up to ``limit`` visible episodes
        saying it, unranked (membership only)."""
        return {
            w: self.view.episodes_saying(group, fts_match([w]), limit, known_at, ref_max, window)
            for w in dict.fromkeys(words)
        }

    def episode_neighbours(
        self, group: str, ids: Sequence[str], gap: timedelta, known_at: datetime,
        ref_max: datetime | None,
    ) -> dict[str, tuple[str | None, str | None]]:
        return self.view.episode_neighbours(
            group, ids, int(gap.total_seconds() * 1_000_000), known_at, ref_max
        )

    # ------------------------------------------------------------------ facts
    def keyword_facts(
        self, group: str, words: list[str], limit: int, when: TimeFilter
    ) -> list[tuple[FactVersion, float]]:
        match, newest = self._prune("facts_fts", words)
        hits = self.view.keyword_facts(group, match, limit * 3, newest=newest)
        return self._visible_fact_hits(group, [(t, f, s) for t, f, s in hits], when, limit)

    def vector_facts(
        self, group: str, q: np.ndarray, limit: int, when: TimeFilter
    ) -> list[tuple[FactVersion, float]]:
        hits = self._vectors().search("fact", group, q, limit * 3)
        info = self.view.search_label_rows([lab for lab, _ in hits])
        text_ids = [info[lab][1] for lab, _ in hits if lab in info]
        rows = self.view.search_fact_text_rows(text_ids)
        triples = [
            (info[lab][1], rows[info[lab][1]][1], s)
            for lab, s in hits
            if lab in info and info[lab][1] in rows
        ]
        return self._visible_fact_hits(group, triples, when, limit)

    def _visible_fact_hits(
        self, group: str, hits: list[tuple[str, str, float]], when: TimeFilter, limit: int
    ) -> list[tuple[FactVersion, float]]:
        """Keep hits (text row, fact id, score) whose fact has a visible version with that
        text; best score per lineage."""
        if not hits:
            return []
        texts = self.view.search_fact_text_rows([t for t, _, _ in hits])
        versions = self.view.visible_versions(group, [f for _, f, _ in hits], when)
        by_fact: dict[str, list[FactVersion]] = {}
        for v in versions:
            by_fact.setdefault(v.fact_id, []).append(v)
        out: dict[str, tuple[FactVersion, float]] = {}
        for tid, fid, score in hits:
            row = texts.get(tid)
            if row is None:
                continue
            for v in by_fact.get(fid, []):
                if v.fact != row[2]:
                    continue
                cur = out.get(fid)
                if cur is None or (score, version_rank_key(v)) > (cur[1], version_rank_key(cur[0])):
                    out[fid] = (v, score)
        return sorted(out.values(), key=lambda x: -x[1])[:limit]

    def graph_facts(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]:
        return self.view.graph_facts(group, entity_ids, when, limit)

    def facts_from_episodes(
        self, group: str, episode_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]:
        return self.view.facts_from_episodes(group, episode_ids, when, limit)

    def fact_sources(self, group: str, fact_ids: Sequence[str],
                     when: TimeFilter | None = None) -> dict[str, list[str]]:
        """fact id -> the episodes that support it under ``when`` (None: every link; kgmem.trust
        marks facts by them)."""
        out: dict[str, list[str]] = {}
        known, kparams = source_sql("p", when)
        for chunk in iter_chunks(list(dict.fromkeys(fact_ids)), 400):
            marks = ",".join("?" * len(chunk))
            for fid, ep in self.view._sq(
                    f"SELECT p.fact_id, p.episode_id FROM provenance p JOIN episodes e "
                    f"ON e.id = p.episode_id WHERE e.group_id=? AND p.fact_id IN ({marks})"
                    f"{known}", [group, *chunk, *kparams]):
                out.setdefault(fid, []).append(ep)
        return out

    # ------------------------------------------------------------------ entities
    def match_entities(
        self, group: str, norms: Sequence[str], known_at: datetime
    ) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        pairs = self.view.entities_by_norm_names(group, norms)
        if not pairs:
            return out
        ents = self.view.entities_by_ids(group, [e for _, e in pairs])
        for norm, eid in pairs:
            e = ents.get(eid)
            if e is not None and recorded_by(e.created_at, known_at):
                out.setdefault(norm, []).append(eid)
        return out

    def keyword_entities(
        self, group: str, words: list[str], limit: int, known_at: datetime
    ) -> list[tuple[str, float]]:
        match, newest = self._prune("entities_fts", words)
        hits = self.view.keyword_entities(group, match, limit * 2, known_at, newest=newest)
        best: dict[str, float] = {}
        for _, eid, s in hits:
            best[eid] = max(best.get(eid, -1e9), s)
        return sorted(best.items(), key=lambda x: -x[1])[:limit]

    def vector_entities(
        self, group: str, q: np.ndarray, limit: int, known_at: datetime
    ) -> list[tuple[str, float]]:
        hits = self._vectors().search("entity", group, q, limit * 2)
        info = self.view.search_label_rows([lab for lab, _ in hits])
        rows = self.view.search_entity_name_rows([info[lab][1] for lab, _ in hits if lab in info])
        best: dict[str, float] = {}
        for lab, s in hits:
            if lab not in info or info[lab][1] not in rows:
                continue
            eid = rows[info[lab][1]][1]
            best[eid] = max(best.get(eid, -1e9), s)
        ents = self.view.entities_by_ids(group, list(best))
        ok = [(e, s) for e, s in best.items()
              if e in ents and recorded_by(ents[e].created_at, known_at)]
        return sorted(ok, key=lambda x: -x[1])[:limit]

    def entities_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Entity]:
        return self.view.entities_by_ids(group, ids)
