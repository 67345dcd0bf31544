"""The store seam: what a backend (embedded SQLite, Neo4j) must provide.

Stores are deliberately dumb: they persist entities, episodes, lineage states, immutable
fact versions and change records, and answer visibility-filtered reads. The temporal rules
(visibility, supersession, undo) are defined in :mod:`kgmem.timeline` and applied by
:mod:`kgmem.core.supersede` and :mod:`kgmem.memory.facade`; the stores' SQL and Cypher forms of the
visibility rules are in :mod:`kgmem.store.visibility`, side by side, and nowhere else (a
property test holds the three to agree). The contract tests (tests/contract) run the same
suite on every store.

Writes happen inside ``with store.write() as w:``; everything done through ``w`` commits
atomically and durably when the block exits normally, and is rolled back otherwise.

Transaction time is kept *per group*: ``last_tx_time(group)`` is the transaction time of the
group's last write (None before its first). Groups are isolated tenants, possibly driven by
their own injected clocks (replays, tests sharing one Neo4j server), so one group's clock never
constrains another's. The store only records the clocks; :meth:`kgmem.core.writes.Writes.tick`
reads them inside the write (after the store's write lock) and refuses to go backwards.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Hashable, Iterator, MutableMapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TypedDict, TypeVar

from ..errors import OrphanedFactError
from ..model import (
    Change,
    Entity,
    Episode,
    Erasure,
    ExtractionState,
    ExtractionStatus,
    FactVersion,
)
from ..timeutil import Precision, parse_optional
from ..vocabulary import Cardinality, PredicateSource, PredicateSpec

# one fact version's valid interval as the integrity checks read it (kgmem.jobs.check): (group,
# fact_id, subject_id, object_id, predicate, valid_at, invalid_at), times as epoch
# microseconds (None = unbounded)
FactInterval = tuple[str, str, str, str, str, "int | None", "int | None"]


@dataclass(frozen=True)
class OrphanedLineage:
    """A lineage whose versions, subject or object were deleted outside kgmem (another tool
    sharing the Neo4j graph, e.g. graphiti-core's ``remove_episode``). ``missing`` names what
    is gone: ``"versions"``, ``"subject"``, ``"object"``."""

    fact_id: str
    group: str
    predicate: str
    fact_text: str
    missing: tuple[str, ...]


@dataclass(frozen=True)
class LineageState:
    """The current *stated* belief about one fact lineage (what sources said about it).

    Fact versions are derived from the believed lineage states by the timeline rules.
    """

    fact_id: str
    group: str
    subject_id: str
    predicate: str
    object_id: str
    valid_at: datetime | None
    valid_precision: Precision
    stated_invalid_at: datetime | None
    invalid_precision: Precision
    believed: bool
    seq: int
    fact_text: str

    def to_json(self) -> dict[str, object]:
        return {
            "fact_id": self.fact_id, "group": self.group, "subject_id": self.subject_id,
            "predicate": self.predicate, "object_id": self.object_id,
            "valid_at": self.valid_at.isoformat() if self.valid_at else None,
            "valid_precision": self.valid_precision.value,
            "stated_invalid_at": (self.stated_invalid_at.isoformat()
                                  if self.stated_invalid_at else None),
            "invalid_precision": self.invalid_precision.value, "believed": self.believed,
            "seq": self.seq, "fact_text": self.fact_text,
        }

    @classmethod
    def from_row(
        cls, r: Sequence[Any], to_dt: Callable[[Any], datetime | None]
    ) -> LineageState:
        """From a store row in ``fact_id, group, subject_id, predicate, object_id, valid_at,
        valid_precision, stated_invalid_at, invalid_precision, believed, seq, fact_text``
        order; ``to_dt`` converts the store's time values."""
        return cls(
            fact_id=r[0], group=r[1], subject_id=r[2], predicate=r[3], object_id=r[4],
            valid_at=to_dt(r[5]), valid_precision=Precision(r[6]),
            stated_invalid_at=to_dt(r[7]), invalid_precision=Precision(r[8]),
            believed=bool(r[9]), seq=int(r[10]), fact_text=r[11],
        )

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LineageState:
        d = dict(d)
        d["valid_at"] = parse_optional(d["valid_at"])
        d["stated_invalid_at"] = parse_optional(d["stated_invalid_at"])
        d["valid_precision"] = Precision(d["valid_precision"])
        d["invalid_precision"] = Precision(d["invalid_precision"])
        return cls(**d)


@dataclass(frozen=True)
class ChangeEffect:
    """How one change moved one lineage's stated belief (``None`` = did not exist/erased)."""

    fact_id: str
    before: LineageState | None
    after: LineageState | None

    @classmethod
    def from_stored(cls, fact_id: str, before: str | None, after: str | None) -> ChangeEffect:
        """From the JSON texts both stores keep (:meth:`LineageState.to_json`; none: ``None``)."""
        return cls(fact_id, stored_lineage(before), stored_lineage(after))


def stored_lineage(text: str | None) -> LineageState | None:
    """A lineage state from the JSON text a store keeps of it (``None``: none)."""
    return LineageState.from_json(json.loads(text)) if text else None


# the reason both stores give a version whose causing change was erased, replacing its own
ERASED_CHANGE = "recomputed by a change that was erased"


@dataclass(frozen=True)
class ErasedContent:
    """The texts an erase removes, for the caches outside the store that may hold their
    embeddings or extractions: fact texts, entity names and aliases, and episodes as
    ``(content, speaker)``."""

    texts: list[str]
    episodes: list[tuple[str, str | None]]


@dataclass(frozen=True)
class Declaration:
    """One version of a predicate declaration in a group. Like a fact version it is never
    edited but expired: kgmem held it during ``[created_at, expired_at)``. ``change_id``: the
    change that made it (None for a first use); ``expired_by``: the change that replaced or
    withdrew it."""

    id: str
    group: str
    name: str
    cardinality: Cardinality
    symmetric: bool
    description: str
    source: PredicateSource  # "declared" | "first use"
    created_at: datetime
    change_id: str | None
    expired_at: datetime | None = None
    expired_by: str | None = None

    @property
    def spec(self) -> PredicateSpec:
        return PredicateSpec(self.name, self.cardinality, self.description, self.symmetric,
                             self.source, self.created_at, self.change_id)

    @classmethod
    def from_row(cls, r: Sequence[Any], to_dt: Callable[[Any], datetime | None]) -> Declaration:
        """From a row in ``id, group, name, cardinality, symmetric, description, source,
        created_at, change_id, expired_at, expired_by`` order."""
        created = to_dt(r[7])
        assert created is not None
        return cls(id=r[0], group=r[1], name=r[2], cardinality=Cardinality(r[3]),
                   symmetric=bool(r[4]), description=r[5] or "", source=r[6],
                   created_at=created, change_id=r[8], expired_at=to_dt(r[9]),
                   expired_by=r[10])


@dataclass(frozen=True)
class SummaryVersion:
    """One version of an entity's summary (:mod:`kgmem.memory.summaries`): derived data, held during
    ``[created_at, expired_at)`` of transaction time; ``episodes``: the episodes it quotes."""

    text: str
    created_at: datetime
    expired_at: datetime | None = None
    episodes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SummaryHistory:
    """An entity's stored summary versions (oldest first) and how far they were built:
    ``through`` is the last instant of its facts' history they account for, ``links`` the
    (fact, episode) provenance links seen then (a change of count means a rebuild)."""

    versions: tuple[SummaryVersion, ...] = ()
    through: datetime | None = None
    links: int = 0


def current_text(h: SummaryHistory) -> str:
    """The text of the history's open version ("" when it has none)."""
    return next((v.text for v in h.versions if v.expired_at is None), "")


@dataclass(frozen=True)
class TimeFilter:
    """Visibility filter for reads.

    Point semantics when ``valid_to``/``known_to`` are None: the version must contain the
    instant. Range semantics (``*_to`` given): the version's interval must overlap
    ``[from, to)``.
    """

    valid_at: datetime
    known_at: datetime
    valid_to: datetime | None = None
    known_to: datetime | None = None
    any_valid: bool = False  # ignore valid time entirely (sequenced paths, history-like reads)


class WriteTx(Protocol):
    """Operations available inside one atomic write."""

    def last_tx_time(self, group: str) -> datetime | None: ...
    def set_last_tx_time(self, group: str, t: datetime) -> None: ...
    def next_seq(self) -> int: ...

    # entities
    def get_entity(self, group: str, entity_id: str) -> Entity | None: ...
    def find_entities(self, group: str, norm_name: str) -> list[Entity]: ...
    def insert_entity(self, entity: Entity, norm_name: str) -> None: ...
    def set_entity_type(self, group: str, entity_id: str, entity_type: str) -> None:
        """Give an entity its type, unless it has one (the first type it was given stays)."""
        ...
    def add_alias(self, group: str, entity_id: str, alias: str, norm_alias: str) -> None: ...

    # episodes
    def find_episode_by_hash(self, group: str, content_hash: str) -> Episode | None: ...
    def get_episode(self, group: str, episode_id: str) -> Episode | None: ...
    def insert_episode(self, episode: Episode, content_hash: str) -> None:
        """Store the episode (with ``episode.extraction`` as its extraction state)."""
        ...
    def set_extraction(self, episode_id: str, state: ExtractionState) -> None:
        """Replace the episode's extraction state (:class:`kgmem.model.ExtractionState`)."""
        ...
    def add_mentions(self, episode_id: str, entity_ids: Sequence[str]) -> None: ...

    # lineages, versions, provenance
    def get_lineage(self, fact_id: str) -> LineageState | None: ...
    def lineages_for(self, group: str, subject_id: str, predicate: str) -> list[LineageState]: ...
    def lineages_touching(
        self, group: str, entity_id: str, predicate: str
    ) -> list[LineageState]: ...  # entity as subject or object (symmetric predicates), by seq
    def put_lineage(self, state: LineageState) -> None: ...
    def current_versions(self, fact_ids: Sequence[str]) -> dict[str, FactVersion]: ...
    def insert_version(self, version: FactVersion) -> None: ...
    def expire_version(self, version_id: str, at: datetime) -> None: ...
    def add_provenance(self, fact_id: str, episode_id: str, recorded_at: datetime) -> None:
        """Episode ``episode_id`` supports lineage ``fact_id`` from transaction time
        ``recorded_at`` on (a link already there keeps its first time)."""
        ...
    def orphaned(self, fact_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Of ``fact_ids``, the lineages left without versions or entities (deleted outside
        kgmem) and what is missing (see :class:`OrphanedLineage`)."""
        ...
    def lineages_of_predicate(self, group: str, predicate: str) -> list[LineageState]: ...

    # predicate declarations (each write of one also renews vocabulary_stamp)
    def vocabulary_stamp(self) -> str | None: ...
    def declarations(self, group: str) -> list[Declaration]: ...  # the current ones
    def insert_declaration(self, d: Declaration) -> None: ...
    def expire_declaration(self, declaration_id: str, at: datetime, by: str | None) -> None: ...
    def declarations_of_change(
        self, group: str, change_id: str
    ) -> tuple[list[Declaration], list[Declaration]]: ...  # (made by it, expired by it)

    # changes
    def insert_change(self, change: Change, effects: Sequence[ChangeEffect]) -> None: ...
    def get_change(self, group: str, change_id: str) -> Change | None: ...
    def change_effects(self, change_id: str) -> list[ChangeEffect]: ...
    def mark_undone(self, change_id: str, undone_by: str) -> None: ...

    # erase (physical; kgmem/memory/erase.py)
    def fact_ids_only_from_episode(self, group: str, episode_id: str) -> list[str]: ...
    def fact_ids_touching_entity(self, group: str, entity_id: str) -> list[str]: ...
    def entities_of_facts(self, fact_ids: Sequence[str]) -> set[str]:
        """Subjects and objects of the facts' lineages and of all their versions."""
        ...
    def episode_mentions(self, episode_id: str) -> list[str]: ...
    def unreferenced_entities(self, group: str, entity_ids: Collection[str]) -> list[str]:
        """Those of ``entity_ids`` that no fact version, lineage or episode mention refers to."""
        ...
    def erased_content(
        self, group: str, fact_ids: Sequence[str], entity_ids: Sequence[str],
        episode_ids: Sequence[str],
    ) -> ErasedContent:
        """What was embedded for these items (read before they are deleted)."""
        ...
    def group_content(self, group: str) -> ErasedContent: ...
    def erase_changes(
        self, group: str, fact_ids: Sequence[str], entity_ids: Collection[str]
    ) -> int:
        """Delete the changes that touched only these facts (``entity_ids``: their parties);
        drop their ids from the others."""
        ...
    def delete_lineages(self, fact_ids: Sequence[str]) -> int: ...
    def delete_episode(self, group: str, episode_id: str) -> int: ...
    def delete_entity(self, group: str, entity_id: str) -> int: ...
    def delete_alias_keys(self, group: str, norm_aliases: Sequence[str]) -> None: ...
    def clear_summaries(self, group: str, entity_ids: Sequence[str]) -> None:
        """The entities' summaries go: the current text and every stored version."""
        ...
    def summary_entities_citing(self, group: str, episode_ids: Sequence[str]) -> list[str]:
        """Entities some of whose summary versions quote one of the episodes."""
        ...
    def delete_group(self, group: str) -> dict[str, int]: ...
    def scrub_caused_by(self, fact_ids: Sequence[str]) -> None: ...
    def purge_erased(self) -> None:
        """Inside the erase transaction: rewrite what keeps deleted content past a delete
        (the embedded store's FTS5 segments)."""
        ...
    def insert_erasure(self, erasure: Erasure) -> None: ...

    # entity summaries (kgmem.memory.consolidate)
    def put_summary_history(self, group: str, entity_id: str, history: SummaryHistory,
                            keep: int = 0) -> None:
        """Replace the entity's summary versions from the ``keep``-th on (the first ``keep``
        are stored already) and its build mark; the entity's ``summary`` becomes the current
        text (nothing is written for an entity that is gone)."""
        ...


class SearchBackend(Protocol):
    """A search backend kept beside a store (:mod:`kgmem.retrieve`): asked to, it catches up
    with the store's writes and erasures (embeds what is new, drops what was erased)."""

    def index_pending(self, batch_size: int = 256, max_items: int | None = None) -> int: ...
    def forget_erased(self, group: str) -> None:
        """Drop what it keeps of items erased in ``group`` (embedding nothing)."""
        ...


class Store(Protocol):
    """A persistent backend."""

    def write(self) -> AbstractContextManager[WriteTx]: ...
    def close(self) -> None: ...
    def ready(self) -> None:
        """Return when the store can serve (``GET /ready``), else raise
        :class:`kgmem.errors.StoreUnavailableError`."""
        ...
    def after_erase(self) -> None:
        """After an erase committed: drop the copies a store keeps outside its live data (the
        embedded store truncates its WAL); best effort, never undoes the erase."""
        ...
    def scrub_search_files(self) -> None:
        """After an erase, once the open search backends caught up: rewrite the search files
        no backend of this process has loaded (the embedded store's ANN files)."""
        ...
    def search_backends(self) -> MutableMapping[Hashable, SearchBackend]:
        """The search backends open over this store, keyed by their embedder: the same mapping
        on every call. :mod:`kgmem.retrieve` keeps them here so that loaded ANN indexes live
        as long as the store; an erase asks each of them to catch up."""
        ...

    # reads
    def get_entity(self, group: str, entity_id: str) -> Entity | None: ...
    def find_entities(self, group: str, norm_name: str) -> list[Entity]: ...
    def list_entities(self, group: str, limit: int = 100, offset: int = 0) -> list[Entity]: ...
    def get_episode(self, group: str, episode_id: str) -> Episode | None: ...
    def list_episodes(self, group: str, limit: int = 100, offset: int = 0) -> list[Episode]: ...
    def episodes_by_hash(self, group: str, content_hashes: Sequence[str]) -> dict[str, Episode]:
        """The stored episodes among ``content_hashes`` (with their extraction state)."""
        ...
    def episodes_by_extraction(
        self, group: str, statuses: Collection[ExtractionStatus], limit: int = 1000
    ) -> list[Episode]:
        """Episodes whose extraction status is one of ``statuses``, oldest reference time
        first."""
        ...
    def extraction_counts(self, group: str) -> dict[str, int]:
        """Episodes per extraction status (``none``: stored before extraction states)."""
        ...
    def facts(
        self,
        group: str,
        when: TimeFilter,
        subject_id: str | None = None,
        predicate: str | None = None,
        object_id: str | None = None,
        limit: int | None = None,
        mirror: Collection[str] = (),
    ) -> list[FactVersion]:
        """Visible versions; with ``mirror`` (predicate names) a version of one of those
        predicates also matches with subject and object swapped (symmetric relations)."""
        ...
    def versions_of_fact(self, group: str, fact_id: str,
                         sources_at: TimeFilter | None = None) -> list[FactVersion]:
        """Every version of lineage ``fact_id``; each version's ``episodes`` are the links
        known under ``sources_at`` (None: every link, as now)."""
        ...
    def fact_ids_starting(self, group: str, prefix: str, limit: int = 2) -> list[str]:
        """The group's fact ids that start with ``prefix`` (at most ``limit``, sorted): how
        the short ids the tables print are resolved."""
        ...
    def versions_of_entity(self, group: str, entity_id: str) -> list[FactVersion]: ...
    def versions_changed_since(self, group: str, since: datetime) -> list[FactVersion]: ...
    def versions_written_by(self, group: str, changes: Sequence[Change]) -> list[FactVersion]:
        """The versions these changes wrote (``change_id`` one of theirs), found through the
        lineages each names (``Change.fact_ids``: its own and those its recomputation
        touched): what a page of the change feed wrote, read in time proportional to the
        page, ordered as :meth:`versions_changed_since`."""
        ...
    def changes_since(self, group: str, since: datetime, limit: int | None = None,
                      after: str | None = None) -> list[Change]:
        """Changes after ``since``, oldest first (ties: insertion order); with ``after`` (a
        change id of that group, else NotFoundError) only those after that change."""
        ...
    def adjacent(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter
    ) -> list[FactVersion]: ...
    def erasures(self, group: str) -> list[Erasure]: ...
    def summary_history(self, group: str, entity_id: str) -> SummaryHistory: ...
    def summarized_entities(self, group: str) -> list[str]:
        """The entities of ``group`` with a stored summary history."""
        ...
    def last_tx_time(self, group: str) -> datetime | None: ...
    def vocabulary_stamp(self) -> str | None:
        """A value that changes with every write of a predicate declaration (in any group):
        what a cache of declarations is keyed by."""
        ...
    def declarations(self, group: str | None, known_at: datetime | None = None
                     ) -> list[Declaration]:
        """The group's predicate declarations believed now, or at ``known_at`` (``group``
        None: every group's current ones)."""
        ...
    def counts(self, group: str | None = None) -> dict[str, int]: ...
    def groups(self) -> list[str]:
        """Every group that holds entities, episodes or changes, sorted."""
        ...
    def group_counts(self) -> dict[str, dict[str, int]]:
        """Every group that holds anything, with :meth:`counts` of each (``kgmem groups``)."""
        ...
    def orphaned_lineages(self, group: str) -> list[OrphanedLineage]:
        """The group's lineages whose versions or entities were deleted outside kgmem."""
        ...
    def archive_reads(self) -> ArchiveReads:
        """The raw reads of an export (:mod:`kgmem.archive`)."""
        ...


def refuse_orphans(w: WriteTx, fact_ids: Sequence[str]) -> None:
    """A change to a lineage whose versions vanished would write nothing: refuse it with
    :class:`~kgmem.errors.OrphanedFactError`."""
    gone = w.orphaned(fact_ids)
    if gone:
        fid, missing = next(iter(gone.items()))
        raise OrphanedFactError(
            f"fact {fid} was deleted outside kgmem ({', '.join(missing)} missing, e.g. by "
            "graphiti-core's remove_episode): it cannot be changed", fact_id=fid,
            missing=list(missing))


def episode_keyword_text(content: str, speaker: str | None) -> str:
    """The text an episode is keyword-indexed under on every store: ``"speaker: content"``
    (the speaker's name is searchable), or the content alone without a speaker."""
    return content if not speaker else f"{speaker}: {content}"


def extraction_json(state: ExtractionState | None) -> tuple[str | None, str | None]:
    """An extraction state as the stores keep it: (status, JSON of the whole state)."""
    return (None, None) if state is None else (state.status, state.model_dump_json())


def trust_json(episode: Episode) -> str | None:
    """An episode's trust level and flags as the stores keep them (JSON; None = normal and
    no flags, as for episodes written before kgmem.trust)."""
    if episode.trust == "normal" and not episode.flags:
        return None
    return json.dumps({"level": episode.trust, "flags": episode.flags})


class TrustFields(TypedDict, total=False):
    """An :class:`~kgmem.model.Episode`'s trust keywords, as :func:`trust_json` stored them."""

    trust: Literal["trusted", "normal", "untrusted"]  # kgmem.trust.TrustLevel
    flags: list[str]


def trust_from_json(text: str | None) -> TrustFields:
    """``Episode`` keyword arguments (trust, flags) from :func:`trust_json`'s text."""
    if not text:
        return {}
    data = json.loads(text)
    return {"trust": data.get("level", "normal"), "flags": list(data.get("flags") or [])}


def extraction_from_json(text: str | None) -> ExtractionState | None:
    return None if not text else ExtractionState.model_validate_json(text)


T = TypeVar("T")


def iter_chunks(seq: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


# What an archive (kgmem.archive) reads of a store beyond the Store protocol: the rows no
# other read shows as they are stored (lookup keys, content hashes, raw alias rows, mentions,
# lineage states, change effects, every declaration version). Each store answers them in its
# own module (kgmem/store/sqlite/archive.py, kgmem/store/neo4j/archive.py).
class ArchiveReads(Protocol):
    def entity_keys(self, group: str) -> dict[str, str]:
        """entity id -> the normalised name it is looked up by."""
        ...

    def episode_hashes(self, group: str) -> dict[str, str]:
        """episode id -> content hash (what makes a re-added episode a duplicate)."""
        ...

    def alias_rows(self, group: str) -> list[tuple[str, str, str]]:
        """(entity id, alias, lookup key) of every alias row, the resolver's internal ones
        (merges, splits, fuzzy keys) included, sorted."""
        ...

    def mention_rows(self, group: str) -> list[tuple[str, str]]:
        """(episode id, entity id), sorted."""
        ...

    def provenance_rows(self, group: str) -> list[tuple[str, str, datetime]]:
        """(fact id, episode id, the transaction time the link was recorded) of the group's
        lineages, sorted."""
        ...

    def lineages(self, group: str) -> list[LineageState]:
        """Every lineage's stated belief, by seq."""
        ...

    def effects(self, group: str) -> dict[str, list[ChangeEffect]]:
        """change id -> how it moved each lineage, in the order written."""
        ...

    def declaration_versions(self, group: str) -> list[Declaration]:
        """Every version of every predicate declaration, oldest first."""
        ...
