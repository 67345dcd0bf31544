""""What I remember about you" as a page a person edits (:meth:`Memory.profile`,
:meth:`Memory.apply_profile`; ``kgmem profile``; docs/concepts.md#profile-pages).

``profile(entity)`` writes the page (:mod:`kgmem.memory.profile_page`): the entity's facts
valid and known at the instant it is written, in three sections (facts, preferences,
decisions), each line with its dates and an id. ``apply_profile(page)`` reads an edited page
back: a line whose object or dates changed is a correction, a line removed a retraction ("it
was never true"), a line without an id an assertion. Everything is one change (kind
``correct``), so ``undo`` reverts the whole page; ``dry_run`` says what would be done and
writes nothing. The page is compared with what the memory held when it was written: if the
memory moved on since (a fact of the entity changed), the page is stale and refused.

Like undo, this takes the facade through a protocol of what it needs (its store, clock,
entity lookup and resolution, predicate rules and timeline recomputation).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal, Protocol

from .. import timeline
from ..core.supersede import listing
from ..errors import ConflictError, InvalidInputError
from ..model import Change, FactVersion
from ..names import check_group, clean_name
from ..store.base import ChangeEffect, LineageState, Store, WriteTx, refuse_orphans
from ..timeutil import Precision, parse_instant_with_precision
from .profile_page import ID_CHARS, PageLine, line_of, parse, render

if TYPE_CHECKING:
    from ..core.writes import Writes


class ProfileFacade(Protocol):
    """What profile pages use of :class:`kgmem.memory.facade.Memory`: its write steps and
    clock (:class:`kgmem.core.writes.Writes`), its store and its fact read."""

    store: Store
    writes: Writes

    def now(self) -> datetime: ...
    def facts(self, subject: str | None = None, predicate: str | None = None,
              object: str | None = None, valid_at: datetime | str | None = None,
              known_at: datetime | str | None = None, group: str = "default",
              valid_to: datetime | str | None = None, known_to: datetime | str | None = None,
              limit: int | None = None) -> list[FactVersion]: ...


@dataclass(frozen=True)
class PageEdit:
    """One edit an applied page makes: ``correct`` (object or dates), ``retract`` (a line
    removed) or ``add`` (a line without id)."""

    kind: Literal["correct", "retract", "add"]
    fact_id: str | None
    before: PageLine | None
    after: PageLine | None

    def describe(self) -> str:
        def show(x: PageLine) -> str:
            return f"{x.subject} {x.predicate} {x.object} [from {x.start}, until {x.end}]"

        if self.kind == "add" and self.after is not None:
            return f"add {show(self.after)}"
        if self.kind == "retract" and self.before is not None:
            return f"retract {show(self.before)} (fact {str(self.fact_id)[:ID_CHARS]})"
        assert self.before is not None and self.after is not None
        return (f"correct fact {str(self.fact_id)[:ID_CHARS]}: {show(self.before)} -> "
                f"{show(self.after)}")


@dataclass(frozen=True)
class ProfileResult:
    """What applying a page did (or, with ``dry_run``, would do); ``change``: the one change
    that did it (None for a dry run or a page without edits)."""

    entity: str
    group: str
    edits: list[PageEdit] = field(default_factory=list)
    change: Change | None = None
    dry_run: bool = False

    def report(self) -> list[str]:
        """What was done (or would be), one line per edit, for people."""
        out = [("would " if self.dry_run else "") + e.describe() for e in self.edits]
        if self.change is not None:
            out.append(f"change {self.change.id} (kgmem undo reverts the whole page)")
        return out or ["no edits on the page"]


def _lines(m: ProfileFacade, group: str, entity_id: str, valid: datetime, known: datetime
           ) -> list[FactVersion]:
    seen: dict[str, FactVersion] = {}
    for v in [*m.facts(entity_id, valid_at=valid, known_at=known, group=group),
              *m.facts(object=entity_id, valid_at=valid, known_at=known, group=group)]:
        seen.setdefault(v.id, v)
    return sorted(seen.values(), key=lambda v: (v.predicate, v.subject, v.object, v.fact_id))


def write_page(m: ProfileFacade, entity: str, group: str) -> str:
    group = check_group(group)
    ent = m.writes.lookup_entity(group, entity)
    at = m.now()
    return render(ent.name, group, ent.id, at, _lines(m, group, ent.id, at, at))


def plan(m: ProfileFacade, text: str) -> tuple[str, str, list[PageEdit]]:
    """(group, entity id, the edits) of an edited page; refuses a stale or malformed one."""
    page = parse(text)
    group = check_group(page.group)
    ent = m.writes.lookup_entity(group, page.entity_id)
    then = _lines(m, group, ent.id, page.at, page.at)
    now = _lines(m, group, ent.id, page.at, m.now())
    if [line_of(v) for v in then] != [line_of(v) for v in now]:
        raise ConflictError(
            f"the page about {ent.name} is stale: the memory changed since it was written "
            f"({page.at.isoformat()}); write a new page (kgmem profile {ent.name!r}) and edit "
            "that", entity=ent.id, written_at=page.at.isoformat())
    original = {v.fact_id: line_of(v) for v in then}
    edits: list[PageEdit] = []
    kept: set[str] = set()
    unchanged: set[str] = set()
    for line in page.lines:
        if line.fact_id is None:
            continue  # added lines: below, once the page's own facts are known
        found = [fid for fid in original if fid.startswith(line.fact_id.lower())]
        if len(found) != 1:
            raise InvalidInputError(f"page line {line.number}: id {line.fact_id!r} is not "
                                    "one of the page's facts", line=line.number)
        fid = found[0]
        if fid in kept:
            raise InvalidInputError(f"page line {line.number}: fact {line.fact_id} appears "
                                    "twice", line=line.number)
        kept.add(fid)
        before = original[fid]
        if (line.subject, line.predicate) != (before.subject, before.predicate):
            raise InvalidInputError(
                f"page line {line.number}: the subject and predicate of a fact cannot change; "
                "delete its line and add a new one without id", line=line.number)
        if not before.same_fact_as(line):
            edits.append(PageEdit("correct", fid, before, line))
        else:
            unchanged.add(fid)
    # a line without id that says what a page fact says is that fact, not a second one (as
    # an assertion said again is one fact): kept as it is when its own line went (its id
    # dropped), nothing to do when its line is still there unchanged
    said = {_said(before): fid for fid, before in original.items()}
    added: set[tuple[str, ...]] = set()
    for line in page.lines:
        if line.fact_id is not None:
            continue
        same = said.get(_said(line))
        if same is not None and (same in unchanged or same not in kept):
            kept.add(same)
            unchanged.add(same)
            continue
        if _said(line) not in added:
            added.add(_said(line))
            edits.append(PageEdit("add", None, None, line))
    edits += [PageEdit("retract", fid, before, None) for fid, before in original.items()
              if fid not in kept]
    for e in edits:
        if e.after is not None:
            _bounds(e.after)  # every date parses, before anything is written
            clean_name(e.after.object, "object")
    return group, ent.id, edits


def _said(line: PageLine) -> tuple[str, ...]:
    return (line.subject, line.predicate, line.object, line.start, line.end)


def _bounds(line: PageLine) -> tuple[tuple[datetime | None, Precision],
                                     tuple[datetime | None, Precision]]:
    start: tuple[datetime | None, Precision] = (None, Precision.INSTANT)
    end: tuple[datetime | None, Precision] = (None, Precision.INSTANT)
    if line.start != "?":
        start = parse_instant_with_precision(line.start, "from")
    if line.end != "now":
        end = parse_instant_with_precision(line.end, "until")
    timeline.check_interval(start[0], end[0])
    return start, end


def apply_page(m: ProfileFacade, text: str, dry_run: bool = False) -> ProfileResult:
    group, entity_id, edits = plan(m, text)
    if dry_run or not edits:
        return ProfileResult(entity_id, group, edits, None, dry_run)
    with m.store.write() as w:
        # planned again under the write lock: no write of this store comes between the
        # page's staleness check and its edits (a correction made meanwhile is not lost)
        group, entity_id, edits = plan(m, text)
        now = m.writes.tick(w, group)
        change = Change(id=str(uuid.uuid4()), group=group, kind="correct", created_at=now,
                        reason=f"profile page: {len(edits)} edit(s)")
        effects: list[ChangeEffect] = []
        timelines: dict[tuple[str, str], set[str]] = {}
        for e in edits:
            before, after = _edit(m, w, group, e, now)
            effects.append(ChangeEffect(after.fact_id, before, after))
            for lin in (before, after):
                if lin is not None:
                    timelines.setdefault((lin.subject_id, lin.predicate), set()).add(
                        lin.object_id)
        change = change.model_copy(update={"fact_ids": [x.fact_id for x in effects]})
        touched: list[str] = []
        for (subject_id, pred), parties in sorted(timelines.items()):
            touched += m.writes.recompute(w, group, subject_id, pred, change, change.reason,
                                    parties=parties)
        change = listing(change, touched)
        w.insert_change(change, effects)
    return ProfileResult(entity_id, group, edits, change, False)


def _edit(m: ProfileFacade, w: WriteTx, group: str, e: PageEdit, now: datetime
          ) -> tuple[LineageState | None, LineageState]:
    if e.kind == "add":
        assert e.after is not None
        (start, sprec), (end, eprec) = _bounds(e.after)
        spec = m.writes.predicates.use(w, group, e.after.predicate, False, now)
        s = m.writes.resolve_entity(w, group, e.after.subject, now, "subject", spec.name)
        o = m.writes.resolve_entity(w, group, e.after.object, now, "object", spec.name)
        lin = LineageState(
            fact_id=str(uuid.uuid4()), group=group, subject_id=s.id, predicate=spec.name,
            object_id=o.id, valid_at=start, valid_precision=sprec, stated_invalid_at=end,
            invalid_precision=eprec, believed=True, seq=w.next_seq(),
            fact_text=f"{s.name} {spec.name.lower().replace('_', ' ')} {o.name}")
        w.put_lineage(lin)
        return None, lin
    assert e.fact_id is not None and e.before is not None
    old = w.get_lineage(e.fact_id)
    if old is None or old.group != group or not old.believed:
        raise ConflictError(f"fact {e.fact_id} changed while the page was applied",
                            fact_id=e.fact_id)
    refuse_orphans(w, [e.fact_id])
    if e.kind == "retract":
        new = replace(old, believed=False)
    else:
        assert e.after is not None
        new = old
        if e.after.object != e.before.object:
            o = m.writes.resolve_entity(w, group, e.after.object, now, "object", old.predicate)
            subj = w.get_entity(group, old.subject_id)
            new = replace(new, object_id=o.id, fact_text=f"{subj.name if subj else '?'} "
                          f"{old.predicate.lower().replace('_', ' ')} {o.name}")
        (start, sprec), (end, eprec) = _bounds(e.after)
        if e.after.start != e.before.start:
            new = replace(new, valid_at=start, valid_precision=sprec)
        if e.after.end != e.before.end:
            new = replace(new, stated_invalid_at=end, invalid_precision=eprec)
        timeline.check_interval(new.valid_at, new.stated_invalid_at)
    w.put_lineage(new)
    return old, new


class ProfileVerbs:
    """:class:`Memory`'s profile-page verbs (the facade passes itself to the functions
    above)."""

    def profile(self: ProfileFacade, entity: str, group: str = "default") -> str:
        """The entity's profile page (Markdown): facts, preferences and decisions, each
        with its dates and id, as valid and known now (:mod:`kgmem.memory.profile`)."""
        return write_page(self, entity, group)

    def apply_profile(self: ProfileFacade, page: str, dry_run: bool = False
                      ) -> ProfileResult:
        """Read an edited profile page back as one undoable change (corrections,
        retractions of removed lines, assertions of new ones); a stale page is refused."""
        return apply_page(self, page, dry_run)
