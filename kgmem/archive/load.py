"""Read a kgmem archive into a store (:mod:`kgmem.archive`), idempotently.

Records are written in batches, each batch one atomic write; a lineage and all its versions
are always in one. Whatever is already in the target (same id) is skipped, so importing twice
is importing once and an interrupted import is finished by running it again. A group the
target already holds with a *different* history (its first change is not the archive's) is
refused: merging two memories' timelines is not an import.

Lineage sequence numbers (the store-wide order in which lineages arrived, which breaks ties
between facts) are given anew by the target, in the archive's order, and the copies of
lineage states inside change effects follow them, so undo restores consistent states.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ..errors import ConflictError
from .records import (
    VERSION,
    AliasLine,
    ArchiveError,
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
    read_line,
)

if TYPE_CHECKING:
    from ..store.base import ChangeEffect, LineageState, Store, WriteTx

BATCH = 500


@dataclasses.dataclass
class ImportReport:
    """Per kind, how many records were written and how many were already there (alias and
    mention rows are written idempotently with their entities and episodes, not counted)."""

    groups: list[str] = dataclasses.field(default_factory=list)
    written: Counter[str] = dataclasses.field(default_factory=Counter)
    skipped: Counter[str] = dataclasses.field(default_factory=Counter)

    def describe(self) -> str:
        written = ", ".join(f"{n:,} {k}" for k, n in sorted(self.written.items()))
        return (f"imported {', '.join(self.groups) or 'nothing'}: written {written or 'nothing'}"
                f"; already there: {sum(self.skipped.values()):,}")

    def summary(self) -> dict[str, object]:
        return {"groups": self.groups, "written": dict(sorted(self.written.items())),
                "skipped": dict(sorted(self.skipped.items()))}


def parse_lines(lines: Iterable[str]) -> Iterator[BaseModel]:
    """The archive's records, checked: a header of a version this kgmem reads first, an
    ``end`` line last (else the file was cut short)."""
    n = 0
    ended = False
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        rec = read_line(text, n)
        if n == 1 and not isinstance(rec, Header):
            raise ArchiveError("not a kgmem archive: the first line is not its header", line=1)
        if isinstance(rec, Header) and rec.version > VERSION:
            raise ArchiveError(f"archive format version {rec.version} is newer than this "
                               f"kgmem reads ({VERSION}): upgrade kgmem", version=rec.version)
        if ended:
            raise ArchiveError(f"archive line {n}: records after the end line", line=n)
        ended = isinstance(rec, EndLine)
        yield rec
    if n == 0:
        raise ArchiveError("empty archive")
    if not ended:
        raise ArchiveError("the archive is cut short (no end line): nothing after the last "
                           "complete batch was imported; run the import again on the whole "
                           "file", line=n)


def groups_of(rec: BaseModel) -> set[str]:
    """The groups a record names itself (every copy of a state or version it carries)."""
    if isinstance(rec, DeclarationLine):
        return {rec.declaration.group}
    if isinstance(rec, EntityLine):
        return {rec.entity.group}
    if isinstance(rec, (AliasLine, SummaryLine)):
        return {rec.group}
    if isinstance(rec, EpisodeLine):
        return {rec.episode.group}
    if isinstance(rec, LineageLine):
        return {rec.state.group, *(v.group for v in rec.versions)}
    if isinstance(rec, ChangeLine):
        return {rec.change.group, *(s.group for e in rec.effects
                                    for s in (e.before, e.after) if s is not None)}
    if isinstance(rec, ErasureLine):
        return {rec.erasure.group}
    return set()


def check_groups(records: Iterable[BaseModel]) -> Iterator[BaseModel]:
    """``records`` as they come, each checked to belong to the group it is filed under, and
    each group to be one the header names: a group line or a record that names another group
    would write where the caller did not say (the REST import checks only the header against
    the request's group), so it is refused with its line."""
    named: set[str] = set()
    group = None
    for n, rec in enumerate(records, 1):
        if isinstance(rec, Header):
            named = set(rec.groups)
        elif isinstance(rec, GroupLine):
            if rec.group not in named:
                raise ArchiveError(f"archive record {n}: group {rec.group!r} is not one the "
                                   f"header names ({sorted(named)})", line=n)
            group = rec.group
        elif not isinstance(rec, EndLine):
            others = groups_of(rec) - {group}
            if group is None or others:
                raise ArchiveError(f"archive record {n}: a {rec.kind} record "  # type: ignore[attr-defined]
                                   f"of group {sorted(others)[0] if others else None!r} "
                                   f"filed under group {group!r}", line=n)
        yield rec


class _Loader:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.report = ImportReport()
        self.group = ""
        self.clock: datetime | None = None
        self.seqs: dict[int, int] = {}  # archive seq -> the target's
        self.declared: set[str] = set()
        self.erased: set[str] = set()
        self.entities: set[str] = set()  # ids known to be the group's (written or found)
        self.episodes: set[str] = set()
        self.moved_on = False
        self.rows: set[tuple[str, ...]] = set()

    def start_group(self, g: GroupLine) -> None:
        self.group, self.clock = g.group, g.last_tx_time
        self.report.groups.append(g.group)
        counts = self.store.counts(g.group)
        if any(counts.values()) and g.first_change is not None:
            with self.store.write() as w:
                known = w.get_change(g.group, g.first_change) is not None
            if not known:
                raise ConflictError(
                    f"group {g.group!r} already holds a different memory in the target; "
                    "import into another store, or erase that group first", group=g.group)
        raw = self.store.archive_reads()
        self.declared = {d.id for d in raw.declaration_versions(g.group)}
        self.erased = {e.id for e in self.store.erasures(g.group)}
        self.seqs = {}
        self.entities, self.episodes = set(), set()
        # the target's memory of the group moved on after the archive was written (a write,
        # an erase, an undo since): what the archive holds and the target does not was
        # erased or replaced since, and writing it back would resurrect erased content and
        # put two timelines in one group; only an import that writes nothing new may pass
        target = self.store.last_tx_time(g.group)
        self.moved_on = (target is not None and any(counts.values())
                         and (g.last_tx_time is None or target > g.last_tx_time))
        self.rows = set()
        if self.moved_on:
            self.rows = {("alias", *r) for r in raw.alias_rows(g.group)} | {
                ("mention", *r) for r in raw.mention_rows(g.group)}

    def _refuse_new(self, what: str) -> None:
        if self.moved_on:
            raise ConflictError(
                f"group {self.group!r} changed in the target after this archive was written "
                f"(the target's clock is past the archive's): {what} is not in the target "
                "(erased, undone or split since?) and is not written back; import into "
                "another store, or erase that group first", group=self.group)

    def _own(self, w: WriteTx, kind: str, ids: Iterable[str]) -> None:
        """Refuse a record that points at an entity or episode its group does not hold (a
        mention, provenance or fact of another group's would join the two groups)."""
        known, get = ((self.entities, w.get_entity) if kind == "entity"
                      else (self.episodes, w.get_episode))
        for i in ids:
            if i in known:
                continue
            if get(self.group, i) is None:  # type: ignore[operator]
                raise ArchiveError(f"archive: {kind} {i!r} is not in group {self.group!r} "
                                   "(not in the archive before its use, nor in the target)")
            known.add(i)

    def end_group(self) -> None:
        if self.clock is None:
            return
        with self.store.write() as w:
            last = w.last_tx_time(self.group)
            if last is None or last < self.clock:
                w.set_last_tx_time(self.group, self.clock)

    def _seq(self, w: WriteTx, old: int) -> int:
        if old not in self.seqs:
            self.seqs[old] = w.next_seq()
        return self.seqs[old]

    def _state(self, w: WriteTx, s: LineageState | None) -> LineageState | None:
        return None if s is None else dataclasses.replace(s, seq=self._seq(w, s.seq))

    def write(self, w: WriteTx, rec: BaseModel) -> bool | None:
        """Write one record inside ``w``; False when it was there already (None: an
        idempotent row write, not counted). Raises (the batch rolls back) when it is new
        to a target that moved on (:meth:`_refuse_new`)."""
        if self.moved_on and isinstance(rec, SummaryLine):
            return False  # derived data: the target's summaries are newer
        if isinstance(rec, AliasLine) and ("alias", rec.entity_id, rec.alias,
                                           rec.norm_alias) not in self.rows:
            self._refuse_new(f"alias {rec.alias!r}")
        if isinstance(rec, MentionLine) and ("mention", rec.episode_id,
                                             rec.entity_id) not in self.rows:
            self._refuse_new(f"a mention by episode {rec.episode_id!r}")
        wrote = self._write(w, rec)
        if wrote:
            self._refuse_new(f"the archive's {rec.kind} record")  # type: ignore[attr-defined]
        return wrote

    def _write(self, w: WriteTx, rec: BaseModel) -> bool | None:
        g = self.group
        if isinstance(rec, DeclarationLine):
            if rec.declaration.id in self.declared:
                return False
            w.insert_declaration(rec.declaration)
            self.declared.add(rec.declaration.id)
        elif isinstance(rec, EntityLine):
            if w.get_entity(g, rec.entity.id) is not None:
                return False
            w.insert_entity(rec.entity, rec.norm_name)
            self.entities.add(rec.entity.id)
        elif isinstance(rec, AliasLine):
            self._own(w, "entity", [rec.entity_id])
            w.add_alias(g, rec.entity_id, rec.alias, rec.norm_alias)  # idempotent
            return None
        elif isinstance(rec, EpisodeLine):
            if w.get_episode(g, rec.episode.id) is not None:
                return False
            same = w.find_episode_by_hash(g, rec.content_hash)
            if same is not None:  # the group holds each text once (idempotent ingest)
                raise ArchiveError(f"archive: episode {rec.episode.id!r} says what episode "
                                   f"{same.id!r} of group {g!r} says (same content hash)")
            w.insert_episode(rec.episode, rec.content_hash)
            self.episodes.add(rec.episode.id)
        elif isinstance(rec, MentionLine):
            self._own(w, "episode", [rec.episode_id])
            self._own(w, "entity", [rec.entity_id])
            w.add_mentions(rec.episode_id, [rec.entity_id])  # idempotent
            return None
        elif isinstance(rec, LineageLine):
            had = w.get_lineage(rec.state.fact_id)
            if had is not None and had.group != g:
                raise ArchiveError(f"archive: fact {rec.state.fact_id!r} is another group's in "
                                   "the target")
            if had is not None:
                self.seqs.setdefault(rec.state.seq, had.seq)
                return False
            if any(v.fact_id != rec.state.fact_id for v in rec.versions):
                raise ArchiveError(f"archive: a version of another fact filed under fact "
                                   f"{rec.state.fact_id!r}")
            self._own(w, "entity", {rec.state.subject_id, rec.state.object_id,
                                    *(x for v in rec.versions for x in (v.subject_id,
                                                                        v.object_id))})
            self._own(w, "episode", {e for v in rec.versions for e in v.episodes})
            state = self._state(w, rec.state)
            assert state is not None
            w.put_lineage(state)
            first = min((v.created_at for v in rec.versions), default=None)
            for ep in sorted({e for v in rec.versions for e in v.episodes}):
                at = rec.sources.get(ep, first)  # an older archive: the first version's time
                if at is None:
                    raise ArchiveError(f"archive: fact {rec.state.fact_id!r} has sources but "
                                       "no version")
                w.add_provenance(state.fact_id, ep, at)
            for v in rec.versions:
                w.insert_version(v)
        elif isinstance(rec, ChangeLine):
            if w.get_change(g, rec.change.id) is not None:
                return False
            effects: list[ChangeEffect] = [
                dataclasses.replace(e, before=self._state(w, e.before),
                                    after=self._state(w, e.after)) for e in rec.effects]
            w.insert_change(rec.change, effects)
        elif isinstance(rec, ErasureLine):
            if rec.erasure.id in self.erased:
                return False
            w.insert_erasure(rec.erasure)
            self.erased.add(rec.erasure.id)
        elif isinstance(rec, SummaryLine):
            self._own(w, "entity", [rec.entity_id])
            w.put_summary_history(g, rec.entity_id, rec.history)  # replaces: idempotent
        return True


def import_archive(store: Store, lines: Iterable[str]) -> ImportReport:
    """Read the archive ``lines`` (a file object works) into ``store``; see the module."""
    loader = _Loader(store)
    batch: list[BaseModel] = []

    def flush() -> None:
        if not batch:
            return
        with store.write() as w:
            done = [(rec.kind, loader.write(w, rec)) for rec in batch]  # type: ignore[attr-defined]
        for kind, wrote in done:
            if wrote is not None:
                (loader.report.written if wrote else loader.report.skipped)[kind] += 1
        batch.clear()

    for rec in check_groups(parse_lines(lines)):
        if isinstance(rec, (GroupLine, EndLine)):
            flush()
            if loader.group:
                loader.end_group()
            if isinstance(rec, GroupLine):
                loader.start_group(rec)
        elif not isinstance(rec, Header):
            batch.append(rec)
            if len(batch) >= BATCH:
                flush()
    return loader.report
