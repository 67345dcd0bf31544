"""Predicates as data: each group's predicate declarations live in its store, versioned in
transaction time like facts (kgmem.store.base.Declaration), under the built-ins of
:data:`kgmem.vocabulary.DEFAULT_PREDICATES`.

* :class:`Predicates` reads a group's specs (cached until the store's vocabulary stamp moves,
  so another process's declaration is seen by the next read) and checks the predicate of an
  assertion: a known one is used; an unknown one close to a known one (LIVE_IN for LIVES_IN)
  is refused with :class:`~kgmem.errors.UnknownPredicateError` -- except that a mention found
  in text (an extractor's, e.g. the LLM's) that is an *inflection* of a known predicate is
  mapped to it; any other unknown predicate is recorded as a multi-valued "first use".
* :func:`declare` stores a declaration as a change of kind ``"declare"``; when the predicate's
  cardinality or symmetry changes, every (subject, predicate) timeline of the group is
  recomputed in the same write. :func:`undo_declarations` reverses what a change did to
  declarations (``Memory.undo``).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from ..errors import ConflictError, UnknownPredicateError
from ..model import Change
from ..store.base import Declaration, LineageState, Store, WriteTx
from ..vocabulary import DEFAULT_PREDICATES, Cardinality, PredicateSpec, near_miss
from .supersede import recompute

_BUILT_IN = {s.name: s for s in DEFAULT_PREDICATES}


def undeclared(name: str) -> PredicateSpec:
    return PredicateSpec(name, Cardinality.MULTI, source="undeclared")


def specs_of(declarations: Iterable[Declaration]) -> dict[str, PredicateSpec]:
    """A group's predicates given its declarations: the built-ins, overridden by them."""
    return {**_BUILT_IN, **{d.name: d.spec for d in declarations}}


class _Reader(Protocol):
    """A store, or an open write transaction."""

    def vocabulary_stamp(self) -> str | None: ...
    def declarations(self, group: str) -> list[Declaration]: ...


class Predicates:
    """Each group's predicate specs: built-ins, overridden by the group's declarations."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[str | None, dict[str, PredicateSpec]]] = {}

    def specs(self, reader: _Reader, group: str) -> dict[str, PredicateSpec]:
        # The stamp is random and renewed by every declaration write, so a cached entry can
        # only be reused while the store holds exactly what it was read from.
        stamp = reader.vocabulary_stamp()
        hit = self._cache.get(group)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        specs = specs_of(reader.declarations(group))
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[group] = (stamp, specs)
        return specs

    def cached(self, group: str) -> tuple[str | None, dict[str, PredicateSpec]] | None:
        """The group's specs as last read, with the stamp they were read at (None: not read
        yet). A read that checks the stamp in the same round trip may use them
        (kgmem.memory.named_reads)."""
        return self._cache.get(group)

    def spec(self, reader: _Reader, group: str, name: str) -> PredicateSpec:
        return self.specs(reader, group).get(name) or undeclared(name)

    def check(self, specs: dict[str, PredicateSpec], group: str, name: str,
              from_text: bool) -> str:
        """The predicate an assertion of ``name`` (normalised) is written with."""
        if name in specs:
            return name
        near = near_miss(name, specs)
        if near is None:
            return name
        known, how = near
        if from_text and how == "inflection":
            return known  # an extractor's LIVE_IN is LIVES_IN misspelt
        raise UnknownPredicateError(
            f"predicate {name!r} is not declared in group {group!r}; did you mean {known!r}? "
            f"If {name!r} is a new predicate, declare it first (Memory.declare_predicate, "
            "`kgmem predicates declare`, POST /v1/predicates)",
            field="predicate", predicate=name, suggestion=known, group=group,
        )

    def check_all(self, reader: _Reader, named: Sequence[tuple[str, str, bool]]) -> list[str]:
        """Before anything is written: the predicate of each (group, predicate, from text)
        checked against its group's specs (read once per group); returns the names to use."""
        specs: dict[str, dict[str, PredicateSpec]] = {}
        out: list[str] = []
        for i, (g, pred, mention) in enumerate(named):
            if g not in specs:
                specs[g] = self.specs(reader, g)
            try:
                out.append(self.check(specs[g], g, pred, mention))
            except UnknownPredicateError as exc:
                if len(named) == 1:
                    raise
                raise UnknownPredicateError(f"row {i}: {exc.message}", row=i,
                                            **exc.details) from None
        return out

    def listing(self, store: Store, group: str, known_at: datetime | None
                ) -> list[PredicateSpec]:
        """The group's predicates by name, now or as the store held them at ``known_at``."""
        specs = (self.specs(store, group) if known_at is None
                 else specs_of(store.declarations(group, known_at)))
        return sorted(specs.values(), key=lambda s: s.name)

    def use(self, w: WriteTx, group: str, name: str, from_text: bool, now: datetime
            ) -> PredicateSpec:
        """Inside a write: check ``name`` and record a first use of an unknown predicate."""
        specs = self.specs(w, group)
        name = self.check(specs, group, name, from_text)
        spec = specs.get(name)
        if spec is None:
            d = Declaration(id=str(uuid.uuid4()), group=group, name=name,
                            cardinality=Cardinality.MULTI, symmetric=False, description="",
                            source="first use", created_at=now, change_id=None)
            w.insert_declaration(d)
            spec = d.spec
        return spec


def declare(w: WriteTx, group: str, spec: PredicateSpec, now: datetime, reason: str | None
            ) -> tuple[PredicateSpec, Change | None]:
    """Store ``spec`` as the group's declaration of its predicate (a ``"declare"`` change,
    inserted here), recomputing the predicate's timelines when its rules change. Returns the
    stored spec and the change, or the current declaration and None when nothing changes."""
    current = next((d for d in w.declarations(group) if d.name == spec.name), None)
    before = current.spec if current is not None else _BUILT_IN.get(spec.name)
    if (current is not None and current.source == "declared" and before is not None
            and before.same_rules(spec) and before.description == spec.description):
        return before, None
    rules = f"{spec.cardinality.value}{', symmetric' if spec.symmetric else ''}"
    change = Change(id=str(uuid.uuid4()), group=group, kind="declare", created_at=now,
                    reason=reason or f"declared {spec.name} {rules}")
    if current is not None:
        w.expire_declaration(current.id, now, change.id)
    d = Declaration(id=str(uuid.uuid4()), group=group, name=spec.name,
                    cardinality=spec.cardinality, symmetric=spec.symmetric,
                    description=spec.description, source="declared", created_at=now,
                    change_id=change.id)
    w.insert_declaration(d)
    touched: list[str] = []
    if not (before or undeclared(spec.name)).same_rules(d.spec):
        touched = recompute_predicate(w, group, d.spec, change, change.reason)
    change = change.model_copy(update={"fact_ids": touched})
    w.insert_change(change, [])
    return d.spec, change


def undo_declarations(w: WriteTx, group: str, change: Change, undo: Change) -> list[str]:
    """Reverse what ``change`` did to declarations, as part of ``undo``: what it declared is
    withdrawn, what it replaced is declared again, and the timelines of predicates whose
    rules change are recomputed. Returns the fact ids recomputed."""
    if change.kind not in ("declare", "undo"):
        return []
    made, ended = w.declarations_of_change(group, change.id)
    if not made and not ended:
        return []
    current = {d.id for d in w.declarations(group)}
    for d in made:
        if d.id not in current:
            raise ConflictError(
                f"predicate {d.name} was declared again after change {change.id}; undo the "
                "later change first", change_id=change.id, predicate=d.name)
    after: dict[str, PredicateSpec] = {}
    before = {d.name: d.spec for d in made}
    for d in made:
        w.expire_declaration(d.id, undo.created_at, undo.id)
    for d in ended:
        again = replace(d, id=str(uuid.uuid4()), created_at=undo.created_at, change_id=undo.id,
                        expired_at=None, expired_by=None)
        w.insert_declaration(again)
        after[d.name] = again.spec
    touched: list[str] = []
    for name in sorted(set(before) | set(after)):
        old = before.get(name) or _BUILT_IN.get(name) or undeclared(name)
        new = after.get(name) or _BUILT_IN.get(name) or undeclared(name)
        if not old.same_rules(new):
            touched += recompute_predicate(w, group, replace(new, name=name), undo, undo.reason)
    return touched


def recompute_predicate(w: WriteTx, group: str, spec: PredicateSpec, change: Change,
                        reason: str) -> list[str]:
    """Recompute every (subject, predicate) timeline of ``spec``'s predicate in ``group``."""
    by_subject: dict[str, list[LineageState]] = defaultdict(list)
    for lin in w.lineages_of_predicate(group, spec.name):
        by_subject[lin.subject_id].append(lin)
    touched: list[str] = []
    for subject, lins in sorted(by_subject.items()):
        touched += recompute(w, group, subject, spec, change, reason, lins,
                             parties={lin.object_id for lin in lins})
    return list(dict.fromkeys(touched))
