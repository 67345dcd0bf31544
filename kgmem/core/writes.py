"""The write steps every write path shares: :class:`Writes`.

The facade (:class:`kgmem.memory.facade.Memory`), its satellites (merges, erase, undo, named
reads) and ingestion (:mod:`kgmem.ingest.episodes`, :mod:`kgmem.ingest.pipeline`) write
through one :class:`Writes`, so an episode, its facts and their timelines are one
transaction and every write takes its time from the same clock:

* :meth:`Writes.tick`: the transaction time of a write (monotonic per group);
* :meth:`Writes.lookup_entity` / :meth:`Writes.resolve_entity`: which entity a name is;
* :meth:`Writes.parse_assertion`: one assertion validated completely into an
  :class:`Assertion` before anything is written, then :meth:`Writes.assert_in_tx`;
* :meth:`Writes.change_lineage`: one invalidate, retract or correct (kgmem.core.lineage_edits);
* :meth:`Writes.recompute`: a (subject, predicate)'s current versions by its predicate's rules.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from .. import timeline
from ..entity_types import check_entity_type, signature_types
from ..errors import ClockError, ConflictError, NotFoundError
from ..model import Change, Entity, Episode, FactVersion
from ..names import UUID_SHAPE, check_group, clean_name, normalize_name
from ..store.base import ChangeEffect, LineageState, Store, WriteTx, refuse_orphans
from ..timeutil import Precision, parse_instant_with_precision, parse_precision, to_utc, utcnow
from ..vocabulary import normalize_predicate
from . import lineage_edits
from .fact_ids import resolve_fact_id
from .predicates import Predicates
from .resolve import Resolver, first_visible, follow_merges
from .supersede import listing, recompute

Clock = Callable[[], datetime]
TimeLike = datetime | str
LineageEdit = Literal["invalidate", "retract", "correct"]


def new_id() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Assertion:
    """One assertion, validated and normalised, not yet written (:meth:`Writes.parse_assertion`)."""

    group: str
    predicate: str  # normalised; the group's spec decides its canonical name when written
    subject: str  # the names as stored (clean_name)
    object: str
    valid_at: datetime | None
    valid_precision: Precision
    invalid_at: datetime | None
    invalid_precision: Precision
    episode: Episode | None
    fact: str | None  # the fact's text, else built from the names
    reason: str
    mention: bool  # names found in text: the resolver may match them by its fuzzy rules
    subject_type: str | None
    object_type: str | None


class Writes:
    """The write engine of one memory: its store, clock, predicates and entity resolver."""

    def __init__(self, store: Store, resolver: Resolver, clock: Clock | None = None) -> None:
        self.store = store
        self.resolver = resolver
        self.clock = clock  # None: the wall clock
        self.predicates = Predicates()  # each group's declarations, read from the store

    # ------------------------------------------------------------------ clock
    def now(self) -> datetime:
        """The store's "now": the injected clock's time, else the wall clock."""
        if self.clock is not None:
            return to_utc(self.clock())
        return utcnow()

    def tick(self, w: WriteTx, *groups: str, replaying: datetime | None = None) -> datetime:
        """Transaction time for a write to ``groups``: monotonic per group, never back-dated.
        ``replaying``: the reference time of an episode recorded as learnt when it was said
        (:func:`kgmem.timeline.replay_record_time`)."""
        gs = sorted(set(groups))
        if not gs:
            raise ValueError("a write must name the groups it writes")
        lasts = {g: t for g in gs if (t := w.last_tx_time(g)) is not None}
        last_group = max(lasts, key=lambda g: lasts[g], default=None)
        last = lasts[last_group] if last_group is not None else None
        if replaying is not None:
            t = timeline.replay_record_time(replaying, last, self.now())
        elif self.clock is not None:
            t = to_utc(self.clock())
            if last is not None and t < last:
                raise ClockError(
                    f"clock went backwards: {t.isoformat()} is before the last transaction "
                    f"time {last.isoformat()} of group {last_group!r}",
                    now=t.isoformat(),
                    last=last.isoformat(),
                    group=last_group,
                )
        else:
            t = utcnow()
            if last is not None and t < last:  # wall clock stepped back: never back-date
                t = last
        for g in gs:
            w.set_last_tx_time(g, t)
        return t

    # ------------------------------------------------------------------ entities and episodes
    def resolve_entity(self, w: WriteTx, group: str, name_or_id: str, now: datetime,
                       role: str = "other", predicate: str | None = None,
                       mention: bool = False) -> Entity:
        """The entity ``name_or_id`` names, created if the resolver finds none."""
        return self.resolver.resolve(w, group, name_or_id, now, role, predicate,  # type: ignore[arg-type]
                                     mention=mention)

    def lookup_entity(self, group: str, name_or_id: str) -> Entity:
        """The stored entity ``name_or_id`` names (merges followed), else NotFoundError."""
        name = clean_name(name_or_id, "entity")
        norm = normalize_name(name)
        # One round trip in the common case: ids (uuid-shaped) are tried as ids first, anything
        # else as a name first (an id that is not uuid-shaped, e.g. from an imported graph,
        # still resolves through the fallback).
        if UUID_SHAPE.match(name):
            ent = self.store.get_entity(group, name) or first_visible(
                self.store.find_entities(group, norm), norm)
        else:
            ent = first_visible(self.store.find_entities(group, norm), norm
                                ) or self.store.get_entity(group, name)
        if ent is None:
            raise NotFoundError(
                f"no entity {name_or_id!r} in group {group!r}", entity=name_or_id, group=group
            )
        return follow_merges(self.store.get_entity, group, ent)

    def episode(self, episode_id: str, group: str) -> Episode:
        ep = self.store.get_episode(check_group(group), episode_id)
        if ep is None:
            raise NotFoundError(f"no episode {episode_id!r} in group {group!r}", episode=episode_id)
        return ep

    # ------------------------------------------------------------------ assertions
    def parse_assertion(
        self, subject: str, predicate: str, object: str, valid_at: TimeLike | None,
        invalid_at: TimeLike | None, group: str, episode: str | Episode | None,
        fact: str | None, reason: str, valid_precision: Precision | str | None = None,
        invalid_precision: Precision | str | None = None, from_text: bool = False,
        subject_type: str | None = None, object_type: str | None = None,
    ) -> Assertion:
        """Validate one assertion completely before anything is written (``episode``: an id,
        or the Episode itself when it is being written in the same transaction)."""
        group = check_group(group)
        pred = normalize_predicate(predicate)
        s_name = clean_name(subject, "subject")
        o_name = clean_name(object, "object")
        start, sprec = (None, Precision.INSTANT)
        if valid_at is not None:
            start, sprec = parse_instant_with_precision(valid_at, "valid_at")
        end, eprec = (None, Precision.INSTANT)
        if invalid_at is not None:
            end, eprec = parse_instant_with_precision(invalid_at, "invalid_at")
        if valid_precision is not None:
            sprec = parse_precision(valid_precision, "valid_precision")
        if invalid_precision is not None:
            eprec = parse_precision(invalid_precision, "invalid_precision")
        ep = None
        if episode is not None:
            ep = episode if isinstance(episode, Episode) else self.episode(episode, group)
            if start is None:
                start = ep.reference_time
        timeline.check_interval(start, end)
        return Assertion(group=group, predicate=pred, subject=s_name, object=o_name,
                         valid_at=start, valid_precision=sprec, invalid_at=end,
                         invalid_precision=eprec, episode=ep, fact=fact, reason=reason,
                         mention=bool(from_text),
                         subject_type=check_entity_type(subject_type, "subject_type"),
                         object_type=check_entity_type(object_type, "object_type"))

    def check_predicates(self, reader: Store | WriteTx, parsed: Sequence[Assertion]
                         ) -> list[Assertion]:
        """Before anything is written: each assertion's predicate checked against its group's
        specs (a near-miss of a declared name refused, or mapped for text)."""
        names = self.predicates.check_all(
            reader, [(a.group, a.predicate, a.mention) for a in parsed])
        return [a if a.predicate == name else replace(a, predicate=name)
                for a, name in zip(parsed, names)]

    def assert_one(self, a: Assertion) -> FactVersion:
        """Write one assertion in its own transaction; returns its current version."""
        with self.store.write() as w:  # the predicate is checked inside (nothing half-written)
            now = self.tick(w, a.group)
            fid = self.assert_in_tx(w, now, a)
            cur = w.current_versions([fid]).get(fid)
        if cur is None:  # cannot happen: the newest arrival wins ties, so it is never shadowed
            raise AssertionError("new lineage has no current version")
        for x in self.store.versions_of_fact(a.group, cur.fact_id):
            if x.id == cur.id:
                return x
        return cur

    def assert_in_tx(self, w: WriteTx, now: datetime, a: Assertion) -> str:
        """Write one validated assertion inside an open transaction; returns its fact id."""
        group, start, end, ep = a.group, a.valid_at, a.invalid_at, a.episode
        spec = self.predicates.use(w, group, a.predicate, a.mention, now)
        pred = spec.name
        s = self.resolve_entity(w, group, a.subject, now, "subject", pred, a.mention)
        o = self.resolve_entity(w, group, a.object, now, "object", pred, a.mention)
        s_sig, o_sig = signature_types(pred)  # what the predicate says, unless the caller told
        for ent, etype in ((s, a.subject_type or s_sig), (o, a.object_type or o_sig)):
            if etype is not None and ent.type is None:  # the first type an entity gets stays
                w.set_entity_type(group, ent.id, etype)
        lins = w.lineages_for(group, s.id, pred)  # read once: duplicate check and recompute
        pair = list(lins)
        if spec.symmetric:  # "Bob married Alice" = "Alice married Bob"
            pair += [lin for lin in w.lineages_for(group, o.id, pred) if lin.object_id == s.id]
        same = [lin.fact_id for lin in pair
                if lin.believed and {lin.subject_id, lin.object_id} == {s.id, o.id}
                and lin.valid_at == start and lin.stated_invalid_at == end]
        if same:
            if ep is not None:
                for fid in same:
                    w.add_provenance(fid, ep.id, now)
                w.add_mentions(ep.id, [s.id, o.id])  # as for a new fact from the episode
            current = w.current_versions(same)  # one read for all duplicates
            for fid in same:
                if current.get(fid) is not None:
                    return fid
        text = a.fact or f"{s.name} {pred.lower().replace('_', ' ')} {o.name}"
        lin = LineageState(
            fact_id=new_id(), group=group, subject_id=s.id, predicate=pred, object_id=o.id,
            valid_at=start, valid_precision=a.valid_precision, stated_invalid_at=end,
            invalid_precision=a.invalid_precision, believed=True, seq=w.next_seq(),
            fact_text=text,
        )
        change = Change(id=new_id(), group=group, kind="assert", created_at=now,
                        fact_ids=[lin.fact_id], reason=a.reason)
        w.put_lineage(lin)
        note = getattr(self.resolver, "note_fact", None)
        if note is not None:  # facts asserted through an alias (so that a merge can be split)
            note(w, group, lin.fact_id, (s, a.subject), (o, a.object))
        if ep is not None:
            w.add_provenance(lin.fact_id, ep.id, now)
            w.add_mentions(ep.id, [s.id, o.id])
        touched = recompute(w, group, s.id, spec, change, a.reason or "asserted",
                            [*lins, lin], parties=(o.id,))
        w.insert_change(listing(change, touched), [ChangeEffect(lin.fact_id, None, lin)])
        return lin.fact_id

    # ------------------------------------------------------------------ lineages
    def change_lineage(
        self,
        group: str,
        fact_id: str,
        kind: LineageEdit,
        edit: Callable[..., LineageState],
        reason: str,
        needs_tx: bool = False,
        tx: tuple[WriteTx, datetime | None] | None = None,
        refuse_noop: bool = False,
    ) -> Change:
        """One change of one lineage, in its own write or inside ``tx`` (an open write and
        its transaction time). ``edit`` validates before anything is written; with
        ``refuse_noop`` (a caller's own edit) one that changes nothing raises
        :class:`UnchangedError` instead, as does one leaving the fact without any version
        (:func:`kgmem.core.lineage_edits.refuse_noop`, ``refuse_invisible``)."""
        if tx is None:
            fact_id = resolve_fact_id(self.store, group, fact_id)
            with self.store.write() as w:
                return self.change_lineage(group, fact_id, kind, edit, reason, needs_tx,
                                           (w, None), refuse_noop=True)
        w, now = tx
        lin = w.get_lineage(fact_id)
        if lin is None or lin.group != group:
            raise NotFoundError(f"no fact {fact_id!r} in group {group!r}", fact_id=fact_id)
        if not lin.believed:
            raise ConflictError(
                f"fact {fact_id} is retracted; undo the retraction first", fact_id=fact_id
            )
        refuse_orphans(w, [fact_id])
        if now is None:
            now = self.tick(w, group)
        new = edit(lin, w, now) if needs_tx else edit(lin)
        if refuse_noop:
            lineage_edits.refuse_noop(lin, new)
        change = Change(
            id=new_id(),
            group=group,
            kind=kind,
            created_at=now,
            fact_ids=[fact_id],
            reason=reason,
        )
        w.put_lineage(new)
        touched = self.recompute(w, group, lin.subject_id, lin.predicate, change, reason,
                                 parties=(lin.object_id, new.object_id))
        if refuse_noop:
            lineage_edits.refuse_invisible(w, kind, new)
        change = listing(change, touched)
        w.insert_change(change, [ChangeEffect(fact_id, lin, new)])
        return change

    def recompute(
        self,
        w: WriteTx,
        group: str,
        subject_id: str,
        predicate: str,
        change: Change,
        reason: str,
        lins: list[LineageState] | None = None,
        parties: Iterable[str] = (),
    ) -> list[str]:
        """Bring one (subject, predicate)'s current versions in line with the rules of the
        predicate as the group declares it (:func:`kgmem.core.supersede.recompute`)."""
        spec = self.predicates.spec(w, group, predicate)
        return recompute(w, group, subject_id, spec, change, reason, lins, parties)
