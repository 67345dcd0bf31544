"""Indexing: embed what the store's triggers queued, in batches.

Every insert into the embedded store (episode, fact version with a new text, entity, alias)
is queued by a SQLite trigger in the same transaction, so nothing written can be missed, even
across a crash. :func:`drain_queue` embeds queued items and stores their vectors (and an
episode's resolved time mentions) in one transaction per batch, dequeuing them atomically.

Episodes are embedded as ``"<speaker>: <content>"``; text longer than the model window
(256 tokens for MiniLM, incl. special tokens) is split with :func:`kgmem.embed.chunk_text`
into overlapping windows, each embedded whole (never truncated). An episode's vector score is
its best chunk's.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import numpy as np

from ..timeutil import from_micros, to_micros

log = logging.getLogger(__name__)

MAX_MENTION_DAYS = 400  # time mentions longer than this ("the 1990s") are not indexed


def _model_window(embedder: Any) -> int:
    from ..embed.resources import MAX_SEQ_LENGTH

    return int(getattr(embedder, "max_tokens", None) or MAX_SEQ_LENGTH)


def episode_chunks(
    content: str, speaker: str | None, max_tokens: int
) -> list[tuple[str, int, int]]:
    """``(text_to_embed, start, end)`` windows; start/end are offsets into ``content``."""
    from ..embed.chunking import chunk_text

    prefix = f"{speaker}: " if speaker else ""
    text = prefix + content
    spans = chunk_text(text, max_tokens=max_tokens)
    out = []
    for a, b in spans:
        out.append((text[a:b], max(0, a - len(prefix)), max(0, b - len(prefix))))
    return out


def episode_time_mentions(
    episode_id: str, group: str, content: str, ref_micros: int
) -> list[tuple[str, str, int, int, str]]:
    """Rows for ``search_episode_times``: periods the episode mentions ("yesterday")."""
    from ..ingest.temporal import find_time_expressions

    try:
        found = find_time_expressions(content, from_micros(ref_micros), nlp=False)
    except Exception:  # never let a resolver problem block indexing
        return []
    rows = []
    for _text, _a, _b, r in found:
        if r.relation != "at" or r.end is None:
            continue
        if r.end - r.start > timedelta(days=MAX_MENTION_DAYS):
            continue
        rows.append((episode_id, group, to_micros(r.start), to_micros(r.end), r.precision.value))
    return rows


def drain_queue(view: Any, embedder: Any, batch_size: int = 256, max_items: int | None = None
                ) -> int:
    """Embed and store queued items until the queue is empty (or ``max_items`` done)."""
    done = 0
    window = _model_window(embedder)
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
            times += episode_time_mentions(item, group, content, ref)
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
