"""Which retrieved episodes say something that is no longer current at (valid_at, known_at).

An episode snippet is *superseded* when a fact extracted from it (believed at ``known_at``)
no longer holds at ``valid_at``: its valid interval ended at or before ``valid_at``, most
often because a later fact on the same one-at-a-time predicate closed it ("I live in
Boston", 2019, after "moved to Denver", 2023). :func:`kgmem.retrieve.context` labels such a
snippet with when it was said, the fact it stated, when that ended and the current fact that
replaced it (or leaves it out, ``superseded="drop"``), and puts current evidence first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .. import timeline
from ..model import FactVersion
from ..store.base import TimeFilter
from ..store.search_reads import SearchReads
from .models import SupersededSnippet

PER_EPISODE = 8  # facts read per episode (an extracted turn states a few)


def superseded_snippets(
    memory: Any, backend: SearchReads, group: str, episode_ids: Sequence[str], valid_at: datetime,
    known_at: datetime, said_at: Mapping[str, datetime] | None = None,
) -> dict[str, list[SupersededSnippet]]:
    """Episode id -> the statements of that episode no longer current at (V, K).

    ``said_at`` (episode id -> when it was said): a statement that had already ended when
    it was said reports a past event ("I went to a support group yesterday"); it is still
    true, so it is not superseded."""
    ids = list(dict.fromkeys(episode_ids))
    if not ids:
        return {}
    believed = TimeFilter(valid_at=valid_at, known_at=known_at, any_valid=True)
    said: list[FactVersion] = backend.facts_from_episodes(group, ids, believed,
                                                          PER_EPISODE * len(ids))
    wanted = set(ids)
    out: dict[str, list[SupersededSnippet]] = {}
    current: dict[tuple[str, str], list[FactVersion]] = {}
    for v in said:
        if not timeline.ended_by(valid_at, v.invalid_at):
            continue
        key = (v.subject_id, v.predicate)
        if key not in current:
            current[key] = memory.facts(v.subject_id, v.predicate, valid_at=valid_at,
                                        known_at=known_at, group=group)
        by = _successor(v, current[key], memory.predicate(v.predicate, group=group).functional)
        note = SupersededSnippet(
            episode_id="", fact_id=v.fact_id, fact=v.fact, ended_at=v.invalid_at,
            ended_precision=v.invalid_precision,
            by_fact_id=None if by is None else by.fact_id,
            by_fact=None if by is None else by.fact,
            by_since=None if by is None else by.valid_at,
            by_precision=None if by is None else by.valid_precision,
        )
        for ep in v.episodes:
            told = None if said_at is None else said_at.get(ep)
            if told is not None and timeline.ended_by(told, v.invalid_at):
                continue  # a past event told after it ended: still true
            if ep in wanted:
                out.setdefault(ep, []).append(note.model_copy(update={"episode_id": ep}))
    return out


def _successor(old: FactVersion, now: list[FactVersion], functional: bool
               ) -> FactVersion | None:
    """The current fact that replaced ``old``: the one that closed it, else (one object at
    a time) the current value of the same subject and predicate."""
    others = [v for v in now if v.fact_id != old.fact_id]
    for v in others:
        if v.fact_id == old.caused_by:
            return v
    return others[0] if others and functional else None
