"""Indexing on the embedded store: embed what its triggers queued, in batches.

Every insert into the embedded store (episode, fact version with a new text, entity, alias)
is queued by a SQLite trigger in the same transaction, so nothing written can be missed, even
across a crash. :func:`drain_queue` embeds queued items and stores their vectors (and an
episode's resolved time mentions) in one transaction per batch, dequeuing them atomically.
What of an episode is embedded: :mod:`kgmem.store.indexing`.

A drain may be bounded: by items (``max_items``), by group (``group``: another group's
backlog is not touched) and by characters embedded (``max_chars``: an item bigger than what
is left of the budget stays queued for an unbounded drain, such as the server's background
indexer). A search drains only a bounded part, so the work one request does is bounded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..indexing import TimeMentions, episode_chunks, model_window
from .search import SearchTables

if TYPE_CHECKING:
    from ...embed.base import Embedder

log = logging.getLogger(__name__)


def drain_queue(view: SearchTables, embedder: Embedder, mentions: TimeMentions,
                batch_size: int = 256, max_items: int | None = None,
                group: str | None = None, max_chars: int | None = None,
                should_stop: Callable[[], bool] | None = None) -> int:
    """Embed and store queued items (of ``group``; None: every group) until the queue is
    empty, ``max_items`` are done or ``max_chars`` characters embedded; returns the items
    done."""
    done = 0
    after = 0
    budget = max_chars
    window = model_window(embedder)
    scanned = 0
    while max_items is None or done < max_items:
        if should_stop is not None and should_stop():
            break
        n = batch_size if max_items is None else min(batch_size, max_items - done)
        batch = view.search_queue_batch(n, group, after)
        if not batch:
            break
        after = batch[-1][0]
        scanned += len(batch)
        if budget is not None:
            if scanned > 4 * batch_size:  # a bounded drain looks this far for items that fit
                break
            batch, budget = _within(view, batch, budget)
            if not batch:
                if budget <= 0:
                    break
                continue
        by_kind: dict[str, list[str]] = {"episode": [], "fact": [], "entity": []}
        for _seq, kind, item in batch:
            by_kind.setdefault(kind, []).append(item)
        texts: list[str] = []
        meta: list[tuple[str, str, int, int, int, str]] = []  # kind, item, chunk, start, end, group
        times: list[tuple[str, str, int, int, str]] = []
        eps = view.search_episode_rows(by_kind["episode"])
        for item, (grp, content, speaker, ref) in eps.items():
            for i, (t, a, b) in enumerate(episode_chunks(content, speaker, window)):
                texts.append(t)
                meta.append(("episode", item, i, a, b, grp))
            times += mentions(item, grp, content, ref)
        for item, (grp, _fid, text) in view.search_fact_text_rows(by_kind["fact"]).items():
            texts.append(text)
            meta.append(("fact", item, 0, 0, len(text), grp))
        for item, (grp, _eid, name) in view.search_entity_name_rows(by_kind["entity"]).items():
            texts.append(name)
            meta.append(("entity", item, 0, 0, len(name), grp))
        vecs = embedder.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        rows = [
            (k, it, c, a, b, g, np.ascontiguousarray(vecs[i], dtype=np.float32).tobytes())
            for i, (k, it, c, a, b, g) in enumerate(meta)
        ]
        view.search_commit(rows, [seq for seq, _, _ in batch], times)
        done += len(batch)
        if budget is not None and budget <= 0:
            break
    if done:
        log.debug("indexed %d queued items", done)
    return done


# a fact text or an entity name costs about this much to embed, in characters of budget
_SMALL_ITEM_CHARS = 64


def _within(view: SearchTables, batch: list[tuple[int, str, str]], budget: int
            ) -> tuple[list[tuple[int, str, str]], int]:
    """The items of ``batch`` that fit in ``budget`` characters (an episode too big for what
    is left is skipped, not started), and the budget left."""
    sizes = view.search_episode_sizes([item for _, kind, item in batch if kind == "episode"])
    keep = []
    for seq, kind, item in batch:
        cost = sizes.get(item, 0) if kind == "episode" else _SMALL_ITEM_CHARS
        if cost <= budget:
            keep.append((seq, kind, item))
            budget -= cost
        if budget <= 0:
            break
    return keep, budget
