"""Fusion of ranked lists: reciprocal rank fusion and optional MMR diversity."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)
RRF_K = 60


def rrf(
    lists: Mapping[str, Sequence[K]],
    weights: Mapping[str, float] | None = None,
    k: int = RRF_K,
) -> dict[K, float]:
    """Reciprocal rank fusion: ``score(x) = sum_l w_l / (k + rank_l(x))`` (ranks from 1).

    Rank-based, so BM25 scores, cosines and graph signals need no common scale.
    """
    out: dict[K, float] = {}
    for name, items in lists.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        if w == 0:
            continue
        seen: set[K] = set()
        for rank, key in enumerate(items, start=1):
            if key in seen:
                continue
            seen.add(key)
            out[key] = out.get(key, 0.0) + w / (k + rank)
    return out


def mmr(
    ranked: Sequence[K],
    relevance: Mapping[K, float],
    vectors: Mapping[K, np.ndarray],
    limit: int,
    lam: float = 0.7,
) -> list[K]:
    """Maximal marginal relevance: greedily pick ``argmax lam*rel - (1-lam)*max_sim``.

    ``relevance`` is normalised to [0, 1] first; items without a vector never count as
    similar to anything (they keep their relevance order).
    """
    if not ranked:
        return []
    top = max(relevance.get(x, 0.0) for x in ranked) or 1.0
    rel = {x: relevance.get(x, 0.0) / top for x in ranked}
    chosen: list[K] = []
    chosen_vecs: list[np.ndarray] = []
    pool = list(ranked)
    while pool and len(chosen) < limit:
        best, best_val = None, -np.inf
        for x in pool:
            v = vectors.get(x)
            sim = 0.0
            if v is not None and chosen_vecs:
                sim = float(max(np.dot(c, v) for c in chosen_vecs))
            val = lam * rel[x] - (1 - lam) * sim
            if val > best_val:
                best, best_val = x, val
        assert best is not None
        chosen.append(best)
        pool.remove(best)
        v = vectors.get(best)
        if v is not None:
            chosen_vecs.append(v)
    return chosen
