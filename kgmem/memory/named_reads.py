"""Memory's hot reads in one round trip on a store that offers
:class:`kgmem.store.named_reads.NamedReads` (Neo4j): ``facts``, ``entity``, ``history`` and
``paths`` (plus one query for the sources of the hops, when a path is found).

The store resolves each name by guessing (the entity with that id, else the first with that
name, in the key's order) and reads from its pick in the same query; it also returns the rows
of the lookup. Here Memory's own rules (:func:`kgmem.core.resolve.first_visible`: no split-off
alias; merges followed) are applied to those rows: when they pick the same entity, and it was
not merged into another, the answer stands; otherwise each function returns None and Memory
reads step by step as before. So the answers are the step-by-step answers, always; only the
number of round trips differs. The vocabulary stamp (symmetric predicates) is checked the same
way: ``facts`` answers with the group's cached declarations and the stamp read in the same
query must be the one they were cached at.
"""

from __future__ import annotations

from typing import Literal, cast

from ..core.resolve import first_visible
from ..core.writes import Writes
from ..errors import InvalidInputError, NotFoundError
from ..model import Entity, FactVersion, Path
from ..names import UUID_SHAPE, clean_name, normalize_name
from ..reason.paths import depths, paths_over, with_source_map
from ..store.base import TimeFilter
from ..store.named_reads import Candidates, NamedReads, NameKey, StampedFacts
from ..vocabulary import PredicateSpec


def name_key(name_or_id: str) -> NameKey:
    """How :meth:`kgmem.core.writes.Writes.lookup_entity` looks ``name_or_id`` up (the same cleaning, the same
    id-or-name order), for a store that does it inside the read it serves."""
    name = clean_name(name_or_id, "entity")
    return NameKey(name, normalize_name(name), bool(UUID_SHAPE.match(name)))

_MISSING = object()


_OFFERS: dict[tuple[type, type], bool] = {}


def _offers(m: Writes, protocol: type) -> bool:
    key = (type(m.store), protocol)
    offers = _OFFERS.get(key)
    if offers is None:
        offers = _OFFERS[key] = isinstance(m.store, protocol)
    return offers


def offered(m: Writes) -> NamedReads | None:
    """The store's named reads, if it offers them (else None: each function below returns
    None and Memory reads step by step).

    Whether a store offers them is a property of its class (the reads are methods, and
    :class:`kgmem.store.named_reads.StepByStep` hides them by class too), so the answer is
    kept per class: an ``isinstance`` against a runtime-checkable protocol inspects every
    member and cost more than a whole as-of read of the embedded store (0.1 of 0.4 ms)."""
    return cast(NamedReads, m.store) if _offers(m, NamedReads) else None


def symmetric_of(specs: dict[str, PredicateSpec], predicate: str | None) -> list[str]:
    """The symmetric predicates a read of ``predicate`` (None: any) answers from both sides."""
    return [p.name for p in specs.values()
            if p.symmetric and (predicate is None or p.name == predicate)]


def facts_at_cached_vocabulary(m: Writes, group: str, when: TimeFilter, subject_id: str | None,
                               predicate: str | None, object_id: str | None,
                               limit: int | None) -> list[FactVersion] | None:
    """``store.facts`` of resolved ids with the symmetric predicates of the group's cached
    declarations, on a store that checks the vocabulary stamp inside that read
    (:class:`~kgmem.store.named_reads.StampedFacts`): the answer of reading the stamp first,
    one statement fewer. None: not offered, nothing cached yet, or the stamp moved (the
    caller reads the stamp, then the facts)."""
    store = cast(StampedFacts, m.store) if _offers(m, StampedFacts) else None
    hit = m.predicates.cached(group)
    if store is None or hit is None:
        return None
    stamp, specs = hit
    return store.facts_at_stamp(stamp, group, when, subject_id, predicate, object_id, limit,
                                symmetric_of(specs, predicate))


def _choice(key: NameKey, found: Candidates) -> Entity | None | object:
    """The entity Memory resolves ``key`` to from the store's rows: it, ``_MISSING`` (no
    such entity: NotFoundError), or None (not the store's pick, or a merged entity: the
    caller falls back to the step-by-step read)."""
    if key.id_first:
        ent = found.by_id or first_visible(found.by_name, key.norm)
    else:
        ent = first_visible(found.by_name, key.norm) or found.by_id
    if ent is None:  # the rows are get_entity's and find_entities': nothing by that name
        return _MISSING
    if ent.id != found.used or ent.merged_into is not None:
        return None
    return ent


def _not_found(name: str, group: str) -> NotFoundError:
    return NotFoundError(f"no entity {name!r} in group {group!r}", entity=name, group=group)


def facts(m: Writes, group: str, when: TimeFilter, subject: str | None,
          predicate: str | None, obj: str | None, limit: int | None
          ) -> list[FactVersion] | None:
    store = offered(m)
    if store is None or (subject is None and obj is None):
        return None
    hit = m.predicates.cached(group)
    if hit is None:  # the group's first read: its declarations (once per process)
        m.predicates.specs(m.store, group)
        hit = m.predicates.cached(group)
        assert hit is not None
    stamp, specs = hit
    mirror = symmetric_of(specs, predicate)
    sk = name_key(subject) if subject is not None else None
    ok = name_key(obj) if obj is not None else None
    got = store.facts_named(group, when, sk, predicate, ok, limit, mirror)
    if got.stamp != stamp:
        return None  # a declaration was written since: read them again
    for role, key in (("subject", sk), ("object", ok)):
        if key is not None:
            ent = _choice(key, got.names[role])
            if ent is _MISSING:
                return []
            if ent is None:
                return None
    return got.versions


def entity(m: Writes, group: str, name_or_id: str, when: TimeFilter
           ) -> tuple[Entity, list[FactVersion], list[FactVersion]] | None:
    store = offered(m)
    if store is None:
        return None
    key = name_key(name_or_id)
    got = store.entity_named(group, key, when)
    ent = _choice(key, got.names["entity"])
    if ent is _MISSING:
        raise _not_found(name_or_id, group)
    if not isinstance(ent, Entity):
        return None
    return ent, got.versions, got.incoming


def history(m: Writes, group: str, entity_or_fact_id: str) -> list[FactVersion] | None:
    store = offered(m)
    if store is None:
        return None
    try:
        key = name_key(entity_or_fact_id)
    except InvalidInputError:  # not a name: the step-by-step read says what it is
        return None
    got = store.history_named(group, entity_or_fact_id, key)
    if got.versions:
        return got.versions
    ent = _choice(key, got.names["entity"])
    if ent is _MISSING:
        raise _not_found(entity_or_fact_id, group)
    return got.incoming if isinstance(ent, Entity) else None


def paths(m: Writes, group: str, a: str, b: str, max_hops: int, when: TimeFilter,
          mode: Literal["slice", "sequenced"], limit: int) -> list[Path] | None:
    store = offered(m)
    if store is None:
        return None
    ka, kb = name_key(a), name_key(b)
    depth_a, depth_b = depths(max_hops)
    got = store.neighbourhood_named(group, ka, kb, depth_a, depth_b, when)
    ents = []
    for name, key, role in ((a, ka, "a"), (b, kb, "b")):
        ent = _choice(key, got.names[role])
        if ent is _MISSING:
            raise _not_found(name, group)
        if not isinstance(ent, Entity):
            return None
        ents.append(ent)
    found = paths_over(got.versions, ents[0].id, ents[1].id, max_hops, mode, limit)
    if not found:
        return found
    hops = [h.fact.id for p in found for h in p.hops]
    return with_source_map(found, store.sources_of_versions(group, hops, when))
