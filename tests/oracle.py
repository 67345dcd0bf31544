"""A deliberately naive in-memory reference model of kgmem's temporal semantics.

It keeps a full snapshot of every lineage's stated belief after every operation and answers
``facts(valid_at=V, known_at=K)`` by taking the last snapshot at or before ``K`` and asking,
for each functional (subject, predicate), which assertion holds at ``V`` by a direct probe
(latest start <= V, then latest arrival; visible if V is before its stated end). It shares
no code with kgmem's timeline or stores.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime

FUNCTIONAL = {"LIVES_IN", "WORKS_AT", "HAS_ROLE", "LEADS", "MARRIED_TO"}


class OracleError(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind  # "not_found" | "conflict" | "invalid_interval"


@dataclass
class L:
    fact_id: str
    group: str
    subject: str
    predicate: str
    object: str
    start: datetime | None
    end: datetime | None
    believed: bool
    seq: int
    episodes: set[str] = field(default_factory=set)
    ever: set[str] = field(default_factory=set)  # every entity any version referred to

    def state(self) -> tuple:
        return (self.object, self.start, self.end, self.believed, self.seq)


@dataclass
class OChange:
    id: str
    group: str
    kind: str
    effects: list[tuple[str, tuple | None, tuple | None]]
    undone: bool = False


class Oracle:
    def __init__(self) -> None:
        self.lineages: dict[str, L] = {}
        self.snapshots: list[tuple[datetime, dict[str, L]]] = []
        self.erased: set[str] = set()
        self.changes: dict[str, OChange] = {}
        self.episodes: dict[str, tuple[str, datetime]] = {}  # id -> (group, reference_time)
        self.seq = 0

    # -- writes --------------------------------------------------------------------------
    def _snap(self, t: datetime) -> None:
        self.snapshots.append((t, copy.deepcopy(self.lineages)))

    def add_episode(self, ep_id: str, group: str, ref: datetime) -> None:
        self.episodes[ep_id] = (group, ref)

    def assert_fact(self, t, fact_id, group, s, p, o, start, end, episode, change_id):
        if episode is not None and start is None:
            start = self.episodes[episode][1]
        if start is not None and end is not None and not start < end:
            raise OracleError("invalid_interval")
        for lin in self.lineages.values():
            shadowed = p in FUNCTIONAL and any(
                c.group == group and c.subject == s and c.predicate == p and c.believed
                and c.start == lin.start and c.seq > lin.seq for c in self.lineages.values())
            if (lin.group == group and lin.subject == s and lin.predicate == p
                    and lin.object == o and lin.believed and lin.start == start
                    and lin.end == end and not shadowed):
                if episode is not None:
                    lin.episodes.add(episode)
                self._snap(t)
                return lin.fact_id, None
        self.seq += 1
        lin = L(fact_id, group, s, p, o, start, end, True, self.seq,
                {episode} if episode else set(), {o})
        self.lineages[fact_id] = lin
        self.changes[change_id] = OChange(change_id, group, "assert", [(fact_id, None, lin.state())])
        self._snap(t)
        return fact_id, change_id

    def _get(self, group: str, fact_id: str) -> L:
        lin = self.lineages.get(fact_id)
        if lin is None or lin.group != group:
            raise OracleError("not_found")
        if not lin.believed:
            raise OracleError("conflict")
        return lin

    def _edit(self, t, group, fact_id, change_id, kind, **changes) -> None:
        lin = self._get(group, fact_id)
        before = lin.state()
        new_start = changes.get("start", lin.start)
        new_end = changes.get("end", lin.end)
        if new_start is not None and new_end is not None and not new_start < new_end:
            raise OracleError("invalid_interval")
        if kind != "retract" and all(getattr(lin, k) == v for k, v in changes.items()):
            raise OracleError("unchanged")  # a caller's edit that changes nothing (issue 32)
        saved = copy.deepcopy(lin)
        for k, v in changes.items():
            setattr(lin, k, v)
        if kind != "retract" and self._replaced_whole(lin):
            self.lineages[fact_id] = saved  # refused: nothing written
            raise OracleError("unchanged")
        lin.ever.add(lin.object)
        self.changes[change_id] = OChange(change_id, group, kind, [(fact_id, before, lin.state())])
        self._snap(t)

    def _replaced_whole(self, lin: L) -> bool:
        """A functional fact left without a version: a later-stated believed fact of the same
        subject and predicate has the same start (the store refuses such an edit)."""
        return lin.predicate in FUNCTIONAL and any(
            c.group == lin.group and c.subject == lin.subject and c.predicate == lin.predicate
            and c.believed and c.start == lin.start and c.seq > lin.seq
            for c in self.lineages.values())

    def invalidate(self, t, group, fact_id, at, change_id):
        self._edit(t, group, fact_id, change_id, "invalidate", end=at)

    def retract(self, t, group, fact_id, change_id):
        self._edit(t, group, fact_id, change_id, "retract", believed=False)

    def correct(self, t, group, fact_id, change_id, obj=None, start=None, end=None):
        kw = {}
        if obj is not None:
            kw["object"] = obj
        if start is not None:
            kw["start"] = start
        if end is not None:
            kw["end"] = end
        self._edit(t, group, fact_id, change_id, "correct", **kw)

    def undo(self, t, group, change_id, new_change_id):
        ch = self.changes.get(change_id)
        if ch is None or ch.group != group:
            raise OracleError("not_found")
        if ch.undone or ch.kind == "erase":
            raise OracleError("conflict")
        effects = [e for e in ch.effects if e[0] not in self.erased]
        for fid, _before, after in effects:
            if self.lineages[fid].state() != after:
                raise OracleError("conflict")
        rev = []
        for fid, before, after in effects:
            lin = self.lineages[fid]
            if before is None:
                lin.believed = False
            else:
                lin.object, lin.start, lin.end, lin.believed, lin.seq = before
                lin.ever.add(lin.object)
            rev.append((fid, after, lin.state()))
        ch.undone = True
        self.changes[new_change_id] = OChange(new_change_id, group, "undo", rev)
        self._snap(t)

    def erase_episode(self, t, group, ep_id):
        gone = []
        for lin in self.lineages.values():
            if lin.group == group and ep_id in lin.episodes:
                lin.episodes.discard(ep_id)
                if not lin.episodes:
                    gone.append(lin.fact_id)
        self._erase(t, gone)
        del self.episodes[ep_id]

    def erase_entity(self, t, group, name):
        gone = [lin.fact_id for lin in self.lineages.values()
                if lin.group == group and (name in (lin.subject, lin.object) or name in lin.ever)]
        self._erase(t, gone)

    def _erase(self, t, fact_ids):
        self.erased.update(fact_ids)
        for f in fact_ids:
            del self.lineages[f]
        # a change that touched only erased facts is erased with them (its reason may quote
        # them): undoing it is then "not found"
        for cid, ch in list(self.changes.items()):
            ids = {e[0] for e in ch.effects}
            if ids & set(fact_ids) and ids <= self.erased:
                del self.changes[cid]
        self._snap(t)

    # -- reads ---------------------------------------------------------------------------
    def facts(self, group: str, V: datetime, K: datetime) -> set[tuple[str, str, str, str]]:
        snap: dict[str, L] = {}
        for t, s in self.snapshots:
            if t <= K:
                snap = s
        believed = [lin for lin in snap.values() if lin.group == group and lin.believed]
        out: list[L] = []
        keys = {(lin.subject, lin.predicate) for lin in believed}
        for s, p in keys:
            cands = [lin for lin in believed if lin.subject == s and lin.predicate == p]
            if p in FUNCTIONAL:
                started = [c for c in cands if c.start is None or c.start <= V]
                if not started:
                    continue
                best = max(started, key=lambda c: (c.start is not None,
                                                   c.start.timestamp() if c.start else 0, c.seq))
                if best.end is None or V < best.end:
                    out.append(best)
            else:
                out.extend(c for c in cands
                           if (c.start is None or c.start <= V) and (c.end is None or V < c.end))
        return {(c.fact_id, c.subject, c.predicate, c.object) for c in out
                if c.fact_id not in self.erased}
