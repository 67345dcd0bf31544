"""Consolidation: keep each entity's stored summary history (:mod:`kgmem.memory.summaries`) up to date
with its facts, on both stores.

A summary is derived data, so it is brought up to date when asked for (the entity profile,
``Memory.consolidate``, ``kgmem consolidate``) rather than inside every write: the versions it
adds are stamped with the instants at which the facts changed, not with the time of the
catch-up, so the stored history is the same whenever it is built. The catch-up is written only
if nothing was written to the group meanwhile (the group's last transaction time unchanged
inside the write), so an erase that commits between the reads and the write can never have
its text written back; the next call builds again. An erase drops the histories that may
quote what it erased (kgmem/memory/erase.py), and they are rebuilt from what is left.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from ..errors import StoreBusyError
from ..model import Episode, FactVersion
from ..store.base import Store, SummaryHistory
from . import summaries

log = logging.getLogger(__name__)
ATTEMPTS = 3
PAGE = 500


def _episodes(store: Store, group: str, versions: Sequence[FactVersion]) -> dict[str, Episode]:
    out: dict[str, Episode] = {}
    for eid in sorted({e for v in versions for e in v.episodes}):
        ep = store.get_episode(group, eid)
        if ep is not None:
            out[eid] = ep
    return out


def _common(old: SummaryHistory, new: SummaryHistory) -> int:
    """How many leading versions the two histories share (stored already)."""
    n = 0
    for a, b in zip(old.versions, new.versions):
        if a != b:
            break
        n += 1
    return n


def refresh(store: Store, group: str, entity_id: str, now: datetime) -> SummaryHistory:
    """The entity's summary history up to ``now``, stored when it changed."""
    new = SummaryHistory()
    for _ in range(ATTEMPTS):
        stamp = store.last_tx_time(group)
        old = store.summary_history(group, entity_id)
        versions = store.versions_of_entity(group, entity_id)
        new = summaries.advance(old, versions, _episodes(store, group, versions), now)
        if new == old:
            return new
        try:
            with store.write() as w:
                if w.last_tx_time(group) == stamp:  # nothing written meanwhile
                    w.put_summary_history(group, entity_id, new, _common(old, new))
                    return new
        except StoreBusyError:  # a read must not fail for it: stored by a later call
            log.info("summary of %s in %s not stored: the store is busy", entity_id, group)
            return new
    log.info("summary of %s in %s not stored: the group kept changing", entity_id, group)
    return new


def consolidate(store: Store, group: str, now: datetime,
                should_stop: Callable[[], bool] | None = None) -> int:
    """Bring every entity of ``group`` up to date; returns how many histories changed.
    ``should_stop`` is asked before each entity (each one its own transaction)."""
    changed, offset = 0, 0
    while True:
        page = store.list_entities(group, limit=PAGE, offset=offset)
        for ent in page:
            if should_stop is not None and should_stop():
                return changed
            before = store.summary_history(group, ent.id)
            if refresh(store, group, ent.id, now) != before:
                changed += 1
        if len(page) < PAGE:
            return changed
        offset += PAGE


def rebuild_problem(store: Store, group: str, entity_id: str) -> str | None:
    """Whether the stored history of the entity differs from the one rebuilt from scratch
    from its facts up to the same instant (None: it agrees, or there is none, or it is only
    behind: provenance changed since, and the next read rebuilds it)."""
    h = store.summary_history(group, entity_id)
    if h.through is None:
        return None
    versions = store.versions_of_entity(group, entity_id)
    if summaries.links(versions) != h.links:
        return None
    fresh = summaries.advance(SummaryHistory(), versions, _episodes(store, group, versions),
                              h.through)
    if fresh.versions == h.versions:
        return None
    at = next((i for i, (a, b) in enumerate(zip(h.versions, fresh.versions)) if a != b),
              min(len(h.versions), len(fresh.versions)))
    return (f"group {group} entity {entity_id}: {len(h.versions)} stored summary versions, "
            f"{len(fresh.versions)} rebuilt from its facts; first difference at version {at}")
