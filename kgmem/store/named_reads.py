"""Reads that resolve their entity names in the same round trip (a store over a network).

``Memory.facts("Alice")`` resolves the name, reads the group's vocabulary stamp (for the
symmetric predicates it answers from both sides) and reads the facts: three sequential round
trips on a server store, ~0.7 ms each before the server does any work. A store that offers
:class:`NamedReads` does all of it in one query: it is sent each name as a :class:`NameKey`,
returns what the name lookup found (:class:`Candidates`, the same rows ``get_entity`` and
``find_entities`` return) beside the read it made for its own pick (``used``), and
:mod:`kgmem.memory.named_reads` keeps the answer only when Memory's resolution rules, applied to
those rows, pick the same entity (else it falls back to the step-by-step reads). The rules
of name resolution stay in one place (kgmem.memory.facade / kgmem.core.resolve); the store only guesses.

The embedded store does not need it (SQLite is in-process: a "round trip" is a function call),
but a statement still costs a few microseconds of a ~0.25 ms read: it offers
:class:`StampedFacts`, the facts statement that checks the vocabulary stamp itself, so a read
with cached declarations makes no statement for the stamp.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..model import Entity, FactVersion
from .base import TimeFilter


@dataclass(frozen=True)
class NameKey:
    """A name or id to look up as :meth:`kgmem.core.writes.Writes.lookup_entity` does: ``name`` cleaned,
    ``norm`` its normalised form, ``id_first`` when it is uuid-shaped (tried as an id first,
    else as a name first)."""

    name: str
    norm: str
    id_first: bool


@dataclass(frozen=True)
class Candidates:
    """What a store found for a :class:`NameKey`: the entity whose id is the name
    (``get_entity``), the entities whose normalised name or alias it is (``find_entities``, in
    its order), and the id of the entity the store read for (``used``: the first of
    ``by_id``, ``by_name[0]`` in the key's order; None when neither exists)."""

    by_id: Entity | None
    by_name: list[Entity]
    used: str | None


@dataclass(frozen=True)
class NamedRead:
    """One round trip's answer: the lookups by role (``"subject"``, ``"object"``,
    ``"entity"``, ``"a"``, ``"b"``), the vocabulary stamp at the time of the read, and the
    versions read for the store's picks."""

    names: dict[str, Candidates]
    stamp: str | None
    versions: list[FactVersion] = field(default_factory=list)
    incoming: list[FactVersion] = field(default_factory=list)


@runtime_checkable
class NamedReads(Protocol):
    """The reads of Memory a server store answers in one round trip each."""

    def facts_named(
        self,
        group: str,
        when: TimeFilter,
        subject: NameKey | None,
        predicate: str | None,
        object: NameKey | None,
        limit: int | None,
        mirror: Collection[str],
    ) -> NamedRead:
        """``facts`` for the picks of ``subject`` / ``object`` (both None is not asked)."""
        ...

    def entity_named(self, group: str, key: NameKey, when: TimeFilter) -> NamedRead:
        """The pick's outgoing (``versions``) and incoming (``incoming``) facts at ``when``."""
        ...

    def history_named(self, group: str, fact_id: str, key: NameKey) -> NamedRead:
        """``versions_of_fact(fact_id)`` (``versions``) and the versions about the pick of
        ``key`` (``incoming``, as ``versions_of_entity``): Memory.history uses the first when
        the lineage exists."""
        ...

    def neighbourhood_named(self, group: str, a: NameKey, b: NameKey, depth_a: int,
                            depth_b: int, when: TimeFilter) -> NamedRead:
        """Every version ``adjacent`` would return while exploring ``depth_a`` hops from the
        pick of ``a`` and ``depth_b`` hops from the pick of ``b`` (kgmem.reason.paths), in
        one query (without provenance: ``sources_of_versions`` adds it to the hops kept)."""
        ...

    def sources_of_versions(self, group: str, version_ids: Sequence[str],
                            when: TimeFilter | None = None) -> dict[str, list[str]]:
        """Version id -> its source episodes known under ``when`` (as ``versions_of_fact``
        gives them with ``sources_at=when``; None: every link), in one query."""
        ...


@runtime_checkable
class StampedFacts(Protocol):
    """``facts`` that checks the vocabulary stamp in the same statement (the embedded store):
    a read with the group's cached declarations costs no statement of its own for the stamp."""

    def facts_at_stamp(
        self,
        stamp: str | None,
        group: str,
        when: TimeFilter,
        subject_id: str | None,
        predicate: str | None,
        object_id: str | None,
        limit: int | None,
        mirror: Collection[str],
    ) -> list[FactVersion] | None:
        """``facts(...)`` read while the stamp is ``stamp``; None when it is not."""
        ...


NAMED_READS = ("facts_named", "entity_named", "history_named", "neighbourhood_named",
               "sources_of_versions")


class StepByStep:
    """``store`` without its :class:`NamedReads`: a Memory over it reads step by step (a
    lookup, then the read), as on a store that does not offer them. For comparing the two
    (tests, benchmarks/neo4j_round_trips.py)."""

    def __init__(self, store: object) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        if name in NAMED_READS:
            raise AttributeError(name)
        return getattr(self._store, name)
