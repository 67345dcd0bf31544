"""Indexing on the embedded store: embed what its triggers queued, in batches.

Every insert into the embedded store (episode, fact version with a new text, entity, alias)
is queued by a SQLite trigger in the same transaction, so nothing written can be missed, even
across a crash. :func:`drain_queue` embeds queued items and stores their vectors (and an
episode's resolved time mentions) in one transaction per batch, dequeuing them atomically.
What of an episode is embedded: :mod:`kgmem.store.indexing`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

from ..indexing import TimeMentions, episode_chunks, model_window
from .search import SearchTables

if TYPE_CHECKING:
    from ...embed.base import Embedder

log = logging.getLogger(__name__)


def drain_queue(view: SearchTables, embedder: Embedder, mentions: TimeMentions,
                batch_size: int = 256, max_items: int | None = None) -> int:
    """Embed and store queued items until the queue is empty (or ``max_items`` done)."""
    done = 0
    window = model_window(embedder)
    while max_items is None or done < max_items:
        n = batch_size if max_items is None else min(batch_size, max_items - done)
        batch = view.search_queue_batch(n)
        if not batch:
            break
        by_kind: dict[str, list[str]] = {"episode": [], "fact": [], "entity": []}
        for _seq, kind, item in batch:
            by_kind.setdefault(kind, []).append(item)
        texts: list[str] = []
        meta: list[tuple[str, str, int, int, int, str]] = []  # kind, item, chunk, start, end, group
        times: list[tuple[str, str, int, int, str]] = []
        eps = view.search_episode_rows(by_kind["episode"])
        for item, (group, content, speaker, ref) in eps.items():
            for i, (t, a, b) in enumerate(episode_chunks(content, speaker, window)):
                texts.append(t)
                meta.append(("episode", item, i, a, b, group))
            times += mentions(item, group, content, ref)
        for item, (group, _fid, text) in view.search_fact_text_rows(by_kind["fact"]).items():
            texts.append(text)
            meta.append(("fact", item, 0, 0, len(text), group))
        for item, (group, _eid, name) in view.search_entity_name_rows(by_kind["entity"]).items():
            texts.append(name)
            meta.append(("entity", item, 0, 0, len(name), group))
        vecs = embedder.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        rows = [
            (k, it, c, a, b, g, np.ascontiguousarray(vecs[i], dtype=np.float32).tobytes())
            for i, (k, it, c, a, b, g) in enumerate(meta)
        ]
        view.search_commit(rows, [seq for seq, _, _ in batch], times)
        done += len(batch)
    if done:
        log.debug("indexed %d queued items", done)
    return done
