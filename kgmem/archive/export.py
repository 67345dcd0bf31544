"""Write a kgmem archive of a store's groups (:mod:`kgmem.archive`)."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from pydantic import BaseModel

from ..errors import InvalidInputError
from ..model import FactVersion
from ..names import check_group
from ..timeutil import MIN_INSTANT, utcnow
from ..version import __version__
from .records import (
    AliasLine,
    ChangeLine,
    DeclarationLine,
    EndLine,
    EntityLine,
    EpisodeLine,
    ErasureLine,
    GroupLine,
    Header,
    LineageLine,
    MentionLine,
    SummaryLine,
    dump_line,
)

if TYPE_CHECKING:
    from ..store.base import ArchiveReads
    from ..store.base import Store

PAGE = 1000
T = TypeVar("T")


def records(store: Store, groups: Sequence[str] | None = None) -> Iterator[BaseModel]:
    """The archive's records, header first and ``end`` last (``groups``: default every
    group of the store)."""
    chosen = [check_group(g) for g in groups] if groups is not None else store.groups()
    raw = store.archive_reads()
    yield Header(kgmem=__version__, exported_at=utcnow(), groups=chosen)
    counts: Counter[str] = Counter()
    for g in chosen:
        for rec in _group(store, raw, g):
            counts[rec.kind] += 1  # type: ignore[attr-defined]
            yield rec
    yield EndLine(counts=dict(sorted(counts.items())))


def _group(store: Store, raw: ArchiveReads, g: str) -> Iterator[BaseModel]:
    changes = store.changes_since(g, MIN_INSTANT)
    yield GroupLine(group=g, last_tx_time=store.last_tx_time(g),
                    first_change=changes[0].id if changes else None)
    for d in raw.declaration_versions(g):
        yield DeclarationLine(declaration=d)
    keys = raw.entity_keys(g)
    for page in _pages(lambda off: store.list_entities(g, PAGE, off)):
        for e in page:
            yield EntityLine(entity=e.model_copy(update={"aliases": [], "merged_into": None}),
                             norm_name=keys[e.id])
    for eid, alias, norm in raw.alias_rows(g):
        yield AliasLine(group=g, entity_id=eid, alias=alias, norm_alias=norm)
    hashes = raw.episode_hashes(g)
    for episodes in _pages(lambda off: store.list_episodes(g, PAGE, off)):
        for ep in episodes:
            yield EpisodeLine(episode=ep, content_hash=hashes[ep.id])
    for ep_id, ent_id in raw.mention_rows(g):
        yield MentionLine(episode_id=ep_id, entity_id=ent_id)
    versions: dict[str, list[FactVersion]] = defaultdict(list)
    for v in store.versions_changed_since(g, MIN_INSTANT):
        versions[v.fact_id].append(v)
    sources: dict[str, dict[str, datetime]] = defaultdict(dict)
    for fid, ep_id, t in raw.provenance_rows(g):
        sources[fid][ep_id] = t
    for lin in raw.lineages(g):
        yield LineageLine(state=lin, versions=versions.get(lin.fact_id, []),
                          sources=sources.get(lin.fact_id, {}))
    effects = raw.effects(g)
    for c in changes:
        yield ChangeLine(change=c, effects=effects.get(c.id, []))
    for er in store.erasures(g):
        yield ErasureLine(erasure=er)
    for eid in store.summarized_entities(g):
        yield SummaryLine(group=g, entity_id=eid, history=store.summary_history(g, eid))


def _pages(read: Callable[[int], Sequence[T]]) -> Iterator[Sequence[T]]:
    off = 0
    while True:
        page = read(off)
        if not page:
            return
        yield page
        off += len(page)


def export_file(store: Store, path: Path, groups: Sequence[str] | None = None
                ) -> dict[str, int]:
    """:func:`export_archive` into the file ``path``, whole or not at all: written to a file
    beside it and renamed over it once complete and synced, so an export that fails (the
    store gone, the disk full) never leaves a cut archive where an earlier one was."""
    tmp = path.with_name(path.name + ".partial")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            counts = export_archive(store, f, groups)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InvalidInputError(f"cannot write the archive {path}: {exc.strerror or exc}",
                                field="out") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return counts


def export_archive(store: Store, out: TextIO, groups: Sequence[str] | None = None
                   ) -> dict[str, int]:
    """Write the archive of ``groups`` (default: every group) to ``out``; returns how many
    records of each kind were written."""
    counts: dict[str, int] = {}
    for rec in records(store, groups):
        out.write(dump_line(rec))
        if isinstance(rec, EndLine):
            counts = rec.counts
    return counts
