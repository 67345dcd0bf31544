"""The periods an episode mentions, for the stores' search indexes ("yesterday" said on May 8
-> May 7), resolved against the episode's reference time by :mod:`kgmem.ingest.temporal`.
:func:`kgmem.retrieve.backend.get_backend` hands :func:`episode_time_mentions` to the store's
search reads (a :data:`kgmem.store.indexing.TimeMentions`); the rest of what is indexed of an
episode is :mod:`kgmem.store.indexing`.
"""

from __future__ import annotations

from datetime import timedelta

from ..timeutil import from_micros, to_micros

MAX_MENTION_DAYS = 400  # time mentions longer than this ("the 1990s") are not indexed


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
