"""The public facade: :class:`Memory`.

It owns the transaction clock and applies the temporal rules of :mod:`kgmem.timeline` on
top of a store (embedded by default). Every write is one atomic store transaction: it either
happens completely or not at all.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from .. import timeline
from ..archive.verbs import ArchiveVerbs
from ..core import lineage_edits as edits
from ..core.fact_ids import resolve_fact_id
from ..core.predicates import declare
from ..core.resolve import EntityResolver, Resolution, Resolver
from ..core.resolve import resolutions as _resolutions
from ..core.writes import Writes
from ..errors import InvalidInputError, NotFoundError
from ..model import Change, Entity, Episode, Erasure, ExtractionStatus, FactVersion
from ..model import Path as GraphPath
from ..names import check_group, check_limit, clean_name, normalize_name
from ..settings import Settings
from ..store.base import (
    OrphanedLineage,
    Store,
    SummaryHistory,
    TimeFilter,
)
from ..timeutil import (
    Precision,
    parse_instant,
)
from ..trust import TrustPolicy
from ..vocabulary import Cardinality, PredicateSpec, Vocabulary, normalize_predicate
from . import named_reads
from .merges import SplitResult
from .merges import merge_entities as _merge_entities
from .merges import split_alias as _split_alias
from .profile import ProfileVerbs

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..embed.base import Embedder
    from ..ingest.episodes import IngestReport
    from ..ingest.extractor import Extractor
    from ..ingest.pipeline import ExtractionPipeline
    from ..retrieve.models import ContextBlock, SearchResult, SessionResult
    from ..retrieve.recency import RankingDefaults
    from ..retrieve.search import SearchOptions

Clock = Callable[[], datetime]
TimeLike = datetime | str
DEFAULT_GROUP = "default"


class _FactRowKeys(TypedDict):
    subject: str
    predicate: str
    object: str


class FactRow(_FactRowKeys, total=False):
    """One row of :meth:`Memory.assert_facts`: the arguments of :meth:`Memory.assert_fact`."""

    valid_at: TimeLike | None
    invalid_at: TimeLike | None
    group: str
    episode: str | Episode | None
    fact: str | None
    reason: str
    valid_precision: Precision | str | None
    invalid_precision: Precision | str | None
    from_text: bool
    subject_type: str | None
    object_type: str | None


class EntityFacts(TypedDict):
    """:meth:`Memory.entity`: the entity and the facts about it."""

    entity: Entity
    facts: list[FactVersion]  # as subject
    incoming: list[FactVersion]  # as object only


def default_path() -> Path:
    """Where ``Memory()`` keeps its embedded store: ``KGMEM_HOME`` (:class:`Settings`)."""
    return Settings().home.expanduser()




def _new_id() -> str:
    return str(uuid.uuid4())



class Memory(ArchiveVerbs, ProfileVerbs):
    """Bi-temporal knowledge-graph memory.

    >>> m = Memory(tmp_path)  # doctest: +SKIP
    >>> m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021-01-01")  # doctest: +SKIP
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        clock: Clock | None = None,
        store: Store | None = None,
        extractor: ExtractionPipeline | Extractor | Literal["offline", "none"] | None = "offline",
        resolver: Resolver | None = None,
        embedder: Embedder | None = None,
        trust: TrustPolicy | None = None,
        ranking: RankingDefaults | None = None,
        user_name: str | None = None,
    ) -> None:
        if store is None:
            from ..store.sqlite import EmbeddedStore

            store = EmbeddedStore(default_path() if path is None else path)
        self.store: Store = store
        # the write steps every write path shares: clock, entities, assertions, lineages
        self.writes = Writes(store, resolver or EntityResolver(), clock)
        self._extractor: Any = None
        self.extractor = extractor  # offline by default (spaCy loads on first use); None: off
        self.embedder = embedder  # for search/context; None = offline MiniLM on first use
        self.trust = trust or TrustPolicy()  # trust level and flags of each new episode
        # search's ranking mode and recency half-life when a search leaves them unset
        # (None: the built-in defaults, kgmem.retrieve.recency)
        self.ranking_defaults: RankingDefaults | None = ranking
        # who the chat role "user" is when a write names nobody (KGMEM_USER_NAME); see ingest
        self.user_name: str | None = user_name

    @property
    def resolver(self) -> Resolver:
        """Which stored entity a name is (:mod:`kgmem.core.resolve`)."""
        return self.writes.resolver

    @resolver.setter
    def resolver(self, resolver: Resolver) -> None:
        self.writes.resolver = resolver

    @property
    def extractor(self) -> ExtractionPipeline | None:
        """The extraction pipeline ``add_episode``/``ingest`` run (``None``: store only);
        ``"offline"`` (the default) is built on first use."""
        if isinstance(self._extractor, str):
            from ..ingest.pipeline import make_extractor

            self._extractor = make_extractor()
        return self._extractor

    @extractor.setter
    def extractor(
        self, extractor: ExtractionPipeline | Extractor | Literal["offline", "none"] | None
    ) -> None:
        if isinstance(extractor, str) and extractor not in ("offline", "none"):
            raise InvalidInputError("extractor: 'offline', 'none' (or None) or an extractor "
                                    "object", field="extractor")
        if extractor == "none":  # as in Settings.extractor
            extractor = None
        if extractor is not None and not isinstance(extractor, str) and not hasattr(
                extractor, "apply_in"):
            from ..ingest.pipeline import ExtractionPipeline

            extractor = ExtractionPipeline(extractor)  # a bare extractor (extract_many)
        self._extractor = extractor

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the store and stop the extraction worker processes, if any were started
        (a pipeline shared with another Memory starts them again when next used)."""
        from ..ingest.pipeline import ExtractionPipeline

        try:
            if isinstance(self._extractor, ExtractionPipeline):  # not a caller's own object
                self._extractor.close()
        finally:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ predicates
    def declare_predicate(
        self, name: str, functional: bool, description: str = "", symmetric: bool = False,
        group: str = DEFAULT_GROUP, reason: str | None = None,
    ) -> PredicateSpec:
        """Declare (or re-declare) a predicate in ``group``: stored, with transaction time.

        A change of kind ``"declare"`` (``spec.change_id``; :meth:`undo` reverts it). When the
        cardinality or symmetry changes, every timeline of the predicate in the group is
        recomputed in the same write. Declaring what is already declared changes nothing."""
        group = check_group(group)
        spec = PredicateSpec(normalize_predicate(name), Cardinality.FUNCTIONAL if functional
                             else Cardinality.MULTI, str(description), bool(symmetric))
        with self.store.write() as w:
            return declare(w, group, spec, self.writes.tick(w, group), reason)[0]

    def predicates(self, group: str = DEFAULT_GROUP, known_at: TimeLike | None = None
                   ) -> list[PredicateSpec]:
        """The group's predicates (built-ins and declarations, by name), now or as the store
        held them at ``known_at``."""
        k = None if known_at is None else parse_instant(known_at, "known_at")
        return self.writes.predicates.listing(self.store, check_group(group), k)

    def predicate(self, name: str, group: str = DEFAULT_GROUP) -> PredicateSpec:
        """One predicate's spec in ``group`` (an unknown one is multi-valued, undeclared)."""
        return self.writes.predicates.spec(self.store, check_group(group), normalize_predicate(name))

    def vocabulary(self, group: str = DEFAULT_GROUP) -> Vocabulary:
        """The group's predicates as a :class:`Vocabulary` (e.g. for an LLM extractor)."""
        return Vocabulary(self.predicates(group))

    # ------------------------------------------------------------------ clock
    def now(self) -> datetime:
        """The store's "now": the injected clock's time, else the wall clock."""
        return self.writes.now()

    def _when(
        self,
        valid_at: TimeLike | None,
        known_at: TimeLike | None,
        valid_to: TimeLike | None = None,
        known_to: TimeLike | None = None,
        any_valid: bool = False,
    ) -> TimeFilter:
        now = self.now()
        v = now if valid_at is None else parse_instant(valid_at, "valid_at")
        k = now if known_at is None else parse_instant(known_at, "known_at")
        vt = None if valid_to is None else parse_instant(valid_to, "valid_to")
        kt = None if known_to is None else parse_instant(known_to, "known_to")
        if vt is not None and not v < vt:
            raise InvalidInputError("valid_to must be after valid_at", field="valid_to")
        if kt is not None and not k < kt:
            raise InvalidInputError("known_to must be after known_at", field="known_to")
        return TimeFilter(valid_at=v, known_at=k, valid_to=vt, known_to=kt, any_valid=any_valid)

    # ------------------------------------------------------------------ entities
    def add_alias(self, entity: str, alias: str, group: str = DEFAULT_GROUP) -> Entity:
        """Record that ``alias`` names the same entity (resolution uses it from now on)."""
        group = check_group(group)
        alias = clean_name(alias, "alias")
        ent = self.writes.lookup_entity(group, entity)
        with self.store.write() as w:
            w.add_alias(group, ent.id, alias, normalize_name(alias))
        return self.writes.lookup_entity(group, ent.id)

    def resolutions(
        self, entity: str | None = None, group: str = DEFAULT_GROUP
    ) -> list[Resolution]:
        """Recorded entity merges and splits (docs/entity-resolution.md), oldest first."""
        group = check_group(group)
        ent_id = self.writes.lookup_entity(group, entity).id if entity is not None else None
        return _resolutions(self.store, group, ent_id)

    def split_alias(
        self, entity: str, alias: str, group: str = DEFAULT_GROUP, reason: str | None = None
    ) -> SplitResult:
        """Undo a merge: ``alias`` stops naming ``entity``; facts asserted through it move."""
        return _split_alias(self.writes, entity, alias, check_group(group), reason)

    def merge_entities(
        self, a: str, b: str, group: str = DEFAULT_GROUP, reason: str | None = None
    ) -> Change:
        """Merge entity ``b`` into ``a``: ``b``'s facts become ``a``'s (timelines recomputed)
        and ``b``'s names and id mean ``a`` from now on. A change of kind ``"merge"``:
        :meth:`undo` gives ``b`` back its facts and names."""
        return _merge_entities(self.writes, a, b, check_group(group), reason)

    # ------------------------------------------------------------------ episodes
    def add_episode(
        self,
        content: str,
        reference_time: TimeLike,
        source: str = "message",
        speaker: str | None = None,
        group: str = DEFAULT_GROUP,
        source_description: str = "",
        extract: bool = True,
        user_name: str | None = None,
    ) -> Episode:
        """Store an episode verbatim (idempotent) and run extraction if configured.
        ``user_name``: who the user is when ``speaker`` is a chat role ("user"); see
        :meth:`ingest`."""
        return self.add_episodes(
            [{"content": content, "reference_time": reference_time, "source": source,
              "speaker": speaker, "source_description": source_description}],
            group=group, extract=extract, user_name=user_name,
        )[0]

    def add_episodes(
        self,
        items: Iterable[Mapping[str, object]],
        group: str = DEFAULT_GROUP,
        extract: bool = True,
        batch_size: int = 500,
        on_batch: Callable[[int], None] | None = None,
        index: bool = False,
        user_name: str | None = None,
    ) -> list[Episode]:
        """Store many episodes (dicts of :meth:`add_episode` arguments; ``group`` and
        ``user_name`` per item optional) in batches, with the facts extracted from them; see
        :meth:`ingest`."""
        return self.ingest(items, group, extract, batch_size, on_batch, index,
                           user_name=user_name).episodes

    def ingest(
        self,
        items: Iterable[Mapping[str, object]],
        group: str = DEFAULT_GROUP,
        extract: bool = True,
        batch_size: int = 500,
        on_batch: Callable[[int], None] | None = None,
        index: bool = False,
        record_time: Literal["now", "reference"] = "now",
        user_name: str | None = None,
    ) -> IngestReport:
        """:meth:`add_episodes`, returning an :class:`~kgmem.ingest.episodes.IngestReport`
        (the episodes, and per group how many were new or already stored, extracted or
        failed).

        Every item is validated before anything is written (an
        :class:`~kgmem.errors.InvalidInputError` lists every bad item's index, field and
        message). Each batch of ``batch_size`` episodes is one atomic write holding the
        episodes, the facts extracted from them and their extraction states
        (:class:`~kgmem.model.ExtractionState`), so a crash never leaves an episode stored
        without its facts. Idempotent: an episode identical to a stored one (same group,
        content, reference time, source and speaker) is returned as stored; it is extracted
        again only if its extraction failed, is pending or was skipped.

        ``index=True`` also embeds and indexes what each batch wrote (as :meth:`index`
        does), in a background thread while the next batch is being extracted, so that the
        embedding model (which releases the GIL) and the parser share the cores; everything
        is indexed when the call returns.

        ``record_time="reference"`` replays history: the episodes are written in reference-time
        order and each is recorded as learnt when it was said (its transaction time, and its
        facts', is its reference time, never after now nor before the group's last write), so
        ``known_at=T`` answers what the conversation had told by T. By default they are
        recorded now, and ``known_at`` before the ingest sees none of them.

        ``user_name`` names the user: an episode whose speaker is a chat role standing for the
        user ("user", "human", "me", "customer", ...) is stored as said by ``user_name``, so
        its "I" is that person and no entity is ever named "user" (an item's own
        ``user_name`` wins; default: the memory's ``user_name``, ``KGMEM_USER_NAME``). The
        caller's name wins over one the text gives ("my name is ..."); the assistant's turns
        and episodes with no speaker are not affected. Trust rules still match the role.
        """
        from ..ingest.episodes import index_groups, parse_episodes, run_batches

        if record_time not in ("now", "reference"):
            raise InvalidInputError("record_time must be 'now' or 'reference'",
                                    field="record_time")
        parsed = parse_episodes(items, group, user_name or self.user_name)
        if record_time == "reference":
            parsed.sort(key=lambda p: p["ref"])
            for p in parsed:
                p["replaying"] = p["ref"]
        if batch_size < 1:
            raise InvalidInputError("batch_size must be at least 1", field="batch_size")
        if not index:
            return run_batches(self, parsed, extract, batch_size, on_batch, None)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgmem-index") as pool:
            out = run_batches(self, parsed, extract, batch_size, on_batch, pool)
        # whatever the last background pass did not see, of these groups only
        index_groups(self, sorted({p["group"] for p in parsed}))
        return out

    def extract_failed(
        self, group: str = DEFAULT_GROUP, batch_size: int = 500,
        on_batch: Callable[[int], None] | None = None, include_skipped: bool = False,
    ) -> IngestReport:
        """Run extraction again on the group's episodes whose extraction failed or is
        pending (and, with ``include_skipped``, those stored without extraction), oldest
        reference time first, with the configured extractor; each batch is one write with
        the facts and the new states."""
        from ..ingest.episodes import IngestReport, extract_stored, pipeline_of

        group = check_group(group)
        pipeline = pipeline_of(self)
        if pipeline is None:
            raise InvalidInputError("no extractor is configured (extractor='none')",
                                    field="extractor")
        report = IngestReport()
        done: set[str] = set()
        statuses: tuple[ExtractionStatus, ...] = (
            ("failed", "pending", "skipped") if include_skipped else ("failed", "pending"))
        while True:
            batch = [ep for ep in self.store.episodes_by_extraction(
                group, statuses, limit=batch_size + len(done)) if ep.id not in done]
            if not batch:
                return report
            batch = batch[:batch_size]
            done.update(ep.id for ep in batch)
            extract_stored(self, pipeline, batch, report=report)
            if on_batch is not None:
                on_batch(len(batch))

    def episode(self, episode_id: str, group: str = DEFAULT_GROUP) -> Episode:
        return self.writes.episode(episode_id, group)

    def episodes(
        self, group: str = DEFAULT_GROUP, limit: int = 100, offset: int = 0
    ) -> list[Episode]:
        return self.store.list_episodes(check_group(group), limit, offset)

    # ------------------------------------------------------------------ facts: writes
    def assert_fact(
        self,
        subject: str,
        predicate: str,
        object: str,
        valid_at: TimeLike | None = None,
        invalid_at: TimeLike | None = None,
        group: str = DEFAULT_GROUP,
        episode: str | None = None,
        fact: str | None = None,
        reason: str = "",
        valid_precision: Precision | str | None = None,
        invalid_precision: Precision | str | None = None,
        from_text: bool = False,
        subject_type: str | None = None,
        object_type: str | None = None,
    ) -> FactVersion:
        """Assert a fact (a new lineage). Returns its current version.

        ``valid_at`` defaults to the episode's ``reference_time`` when ``episode`` is given,
        else the start is unknown (unbounded in the past). Asserting a fact identical to a
        believed one (same subject, predicate, object and interval) returns the existing one
        and only adds the episode to its provenance.

        Subject and object resolve by id, exact normalised name or alias only ("ProjectA" is
        never "ProjectB"). ``from_text=True`` says they are mentions an extractor found in
        text: the resolver may then match them to a known entity by its fuzzy rules
        (docs/entity-resolution.md; every such merge is recorded and reversible).

        ``subject_type`` / ``object_type`` (person, place, organisation, pet, thing, event,
        activity, role, other) type an entity that has no type yet; by default the predicate
        says (``LIVES_IN``'s object is a place; :mod:`kgmem.entity_types`).
        """
        return self.writes.assert_one(self.writes.parse_assertion(
            subject, predicate, object, valid_at, invalid_at, group, episode, fact, reason,
            valid_precision, invalid_precision, from_text, subject_type, object_type))

    def invalidate(
        self, fact_id: str, at: TimeLike, reason: str | None = None, group: str = DEFAULT_GROUP
    ) -> Change:
        """ "This stopped being true at ``at``": end the fact's valid interval there."""
        group = check_group(group)
        return self.writes.change_lineage(group, fact_id, "invalidate", edits.invalidation(at),
                                    reason or "invalidated")

    def retract(
        self, fact_id: str, reason: str | None = None, group: str = DEFAULT_GROUP
    ) -> Change:
        """ "This was never true": the fact stops being believed now (past beliefs kept)."""
        group = check_group(group)
        return self.writes.change_lineage(group, fact_id, "retract", edits.retraction,
                                    reason or "retracted")

    def correct(
        self,
        fact_id: str,
        object: str | None = None,
        valid_at: TimeLike | None = None,
        invalid_at: TimeLike | None = None,
        reason: str | None = None,
        group: str = DEFAULT_GROUP,
    ) -> Change:
        """Change the object and/or interval of a fact: a new version in the same lineage."""
        group = check_group(group)
        if object is None and valid_at is None and invalid_at is None:
            raise InvalidInputError("correct needs at least one of object, valid_at, invalid_at")
        return self.writes.change_lineage(
            group, fact_id, "correct",
            edits.correction(self.writes.resolve_entity, object, valid_at, invalid_at),
            reason or "corrected", needs_tx=True
        )

    def undo(self, change_id: str, group: str = DEFAULT_GROUP) -> Change:
        """Reverse one change: restore the stated beliefs (or predicate declarations) it
        replaced, as a new change (:func:`kgmem.memory.undo.undo_change`). Undoing a merge
        again after a crash half-way finishes it (:func:`kgmem.memory.merges.resume_merge_undo`)
        and returns the same undo change."""
        from .merges import resume_merge_undo, return_merged_facts
        from .undo import undo_change

        g = check_group(group)
        resumed = resume_merge_undo(self.writes, g, change_id)
        if resumed is not None:
            return resumed
        undo = undo_change(self.writes, change_id, g)
        return_merged_facts(self.writes, g, change_id)  # a merge: what was said through its names
        return undo

    def erase(
        self,
        *,
        episode: str | None = None,
        entity: str | None = None,
        group: str = DEFAULT_GROUP,
        whole_group: bool = False,
    ) -> Erasure:
        """Physically delete an episode, an entity, or a whole group (privacy).

        Everything derived only from it is removed at every ``known_at`` -- entities no
        remaining fact or episode refers to included -- and so are its copies in index files
        and in the embedding and LLM caches; an audit record without content remains
        (:meth:`erasures`). Neighbouring facts that were closed by an erased fact keep their
        past versions (their cause reference is scrubbed) and are recomputed from now on.
        See :mod:`kgmem.memory.erase`.
        """
        from .erase import Holders, erase

        return erase(self.writes, Holders(self.embedder, lambda: self.extractor), episode=episode, entity=entity, group=group,
                     whole_group=whole_group)

    def erasures(self, group: str = DEFAULT_GROUP) -> list[Erasure]:
        return self.store.erasures(check_group(group))

    # ------------------------------------------------------------------ reads
    def facts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        group: str = DEFAULT_GROUP,
        valid_to: TimeLike | None = None,
        known_to: TimeLike | None = None,
        limit: int | None = None,
    ) -> list[FactVersion]:
        """Facts visible at (valid_at, known_at), both defaulting to now.

        With ``valid_to`` (``known_to``) the valid (transaction) filter becomes the range
        ``[valid_at, valid_to)`` and a version matches when its interval overlaps it.
        """
        group = check_group(group)
        when = self._when(valid_at, known_at, valid_to, known_to)
        pred = normalize_predicate(predicate) if predicate is not None else None
        got = named_reads.facts(self.writes, group, when, subject, pred, object, limit)
        if got is not None:  # one round trip (else the reads below, step by step)
            return got
        try:
            s = self.writes.lookup_entity(group, subject).id if subject is not None else None
            o = self.writes.lookup_entity(group, object).id if object is not None else None
        except NotFoundError:
            return []
        mirror: list[str] = []
        if s is not None or o is not None:  # symmetric relations answer from either side
            stamped = named_reads.facts_at_cached_vocabulary(self.writes, group, when, s, pred, o, limit)
            if stamped is not None:
                return stamped
            mirror = named_reads.symmetric_of(self.writes.predicates.specs(self.store, group), pred)
        return self.store.facts(group, when, subject_id=s, predicate=pred, object_id=o,
                                limit=limit, mirror=mirror)

    def fact(
        self,
        fact_id: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        group: str = DEFAULT_GROUP,
    ) -> FactVersion | None:
        """The version of one lineage visible at (valid_at, known_at), if any."""
        group = check_group(group)
        when = self._when(valid_at, known_at)
        fact_id = resolve_fact_id(self.store, group, fact_id)
        versions = self.store.versions_of_fact(group, fact_id, sources_at=when)
        if not versions:
            raise NotFoundError(f"no fact {fact_id!r} in group {group!r}", fact_id=fact_id)
        for v in versions:
            if timeline.is_visible(
                valid_at=v.valid_at,
                invalid_at=v.invalid_at,
                created_at=v.created_at,
                expired_at=v.expired_at,
                at_valid=when.valid_at,
                at_known=when.known_at,
            ):
                return v
        return None

    def entity(
        self,
        name_or_id: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        group: str = DEFAULT_GROUP,
    ) -> EntityFacts:
        """The entity (its ``summary`` as known at K) and the facts about it (as subject or
        object) at (V, K)."""
        group = check_group(group)
        when = self._when(valid_at, known_at)
        got = named_reads.entity(self.writes, group, name_or_id, when)  # one round trip, or None
        if got is None:
            ent = self.writes.lookup_entity(group, name_or_id)
            got = (ent, self.store.facts(group, when, subject_id=ent.id),
                   self.store.facts(group, when, object_id=ent.id))
        ent, outgoing, incoming = got
        return {
            "entity": ent.model_copy(update={"summary": self.summary(
                ent.id, known_at=when.known_at, group=group)}),
            "facts": outgoing,
            "incoming": [f for f in incoming if f.subject_id != ent.id],
        }

    def summary(self, entity: str, known_at: TimeLike | None = None,
                group: str = DEFAULT_GROUP) -> str:
        """The entity's summary as known at ``known_at`` (default now): built offline from its
        facts as known then and the most telling episodes behind them (kgmem.memory.summaries);
        the stored history is brought up to date first (kgmem.memory.consolidate)."""
        from .consolidate import refresh
        from .summaries import text_at

        group = check_group(group)
        ent = self.writes.lookup_entity(group, entity)
        now = self.now()
        k = now if known_at is None else parse_instant(known_at, "known_at")
        return text_at(refresh(self.store, group, ent.id, now), k)

    def summary_history(self, entity: str, group: str = DEFAULT_GROUP) -> SummaryHistory:
        """Every stored version of the entity's summary, brought up to date first."""
        from .consolidate import refresh

        group = check_group(group)
        ent = self.writes.lookup_entity(group, entity)
        return refresh(self.store, group, ent.id, self.now())

    def consolidate(self, group: str = DEFAULT_GROUP) -> int:
        """Bring the summaries of every entity of the group up to date (and so the Neo4j
        Entity nodes' ``summary``); returns how many changed."""
        from .consolidate import consolidate

        return consolidate(self.store, check_group(group), self.now())

    def entities(
        self, group: str = DEFAULT_GROUP, limit: int = 100, offset: int = 0
    ) -> list[Entity]:
        return self.store.list_entities(check_group(group), limit, offset)

    def history(self, entity_or_fact_id: str, group: str = DEFAULT_GROUP) -> list[FactVersion]:
        """Every version (both intervals, provenance) of a fact lineage or about an entity."""
        group = check_group(group)
        entity_or_fact_id = resolve_fact_id(self.store, group, entity_or_fact_id)
        got = named_reads.history(self.writes, group, entity_or_fact_id)  # one round trip, or None
        if got is not None:
            return got
        versions = self.store.versions_of_fact(group, entity_or_fact_id)
        if versions:
            return versions
        ent = self.writes.lookup_entity(group, entity_or_fact_id)
        return self.store.versions_of_entity(group, ent.id)

    def changes(self, since: TimeLike, group: str = DEFAULT_GROUP, limit: int | None = None,
                after: str | None = None) -> list[Change]:
        """Changes strictly after ``since``, oldest first (ties: insertion order). A page: at
        most ``limit``, after change id ``after`` (the previous page's last; same ``since``)."""
        return self.store.changes_since(check_group(group), parse_instant(since, "since"),
                                        limit=check_limit(limit), after=after)

    def changed_versions(self, since: TimeLike, group: str = DEFAULT_GROUP) -> list[FactVersion]:
        """Versions created or expired strictly after ``since``."""
        return self.store.versions_changed_since(check_group(group), parse_instant(since, "since"))

    def versions_written_by(self, changes: Sequence[Change],
                            group: str = DEFAULT_GROUP) -> list[FactVersion]:
        """The fact versions ``changes`` (a page of :meth:`changes`) wrote, oldest first: in
        time proportional to the page, however much the memory changed after it."""
        return self.store.versions_written_by(check_group(group), list(changes))

    def paths(
        self,
        a: str,
        b: str,
        max_hops: int = 3,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        mode: Literal["slice", "sequenced"] = "slice",
        group: str = DEFAULT_GROUP,
        limit: int = 50,
    ) -> list[GraphPath]:
        """How are ``a`` and ``b`` connected? See :mod:`kgmem.reason.paths`."""
        from ..reason.paths import find_paths, with_sources

        group = check_group(group)
        if mode not in ("slice", "sequenced"):
            raise InvalidInputError("mode must be 'slice' or 'sequenced'", field="mode")
        if not isinstance(max_hops, int) or not 1 <= max_hops <= 6:
            raise InvalidInputError("max_hops must be an integer from 1 to 6", field="max_hops")
        when = self._when(valid_at, known_at, any_valid=(mode == "sequenced"))
        got = named_reads.paths(self.writes, group, a, b, max_hops, when, mode, limit)
        if got is not None:  # one round trip for the graph (+ one for the hops' sources)
            return got
        ea = self.writes.lookup_entity(group, a)
        eb = self.writes.lookup_entity(group, b)
        found = find_paths(lambda ids: self.store.adjacent(group, ids, when), ea.id, eb.id,
                           max_hops, mode, limit)
        return with_sources(found, lambda fid: self.store.versions_of_fact(group, fid,
                                                                          sources_at=when))

    # ------------------------------------------------------------------ retrieval
    def search(
        self,
        query: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int = 10,
        kinds: Sequence[str] = ("facts", "entities", "episodes"),
        group: str = DEFAULT_GROUP,
        reference_time: TimeLike | None = None,
        **options: Unpack[SearchOptions],
    ) -> list[SearchResult]:
        """Hybrid, time-aware search (keyword + vector + graph, fused); the options of
        :func:`kgmem.retrieve.search` (``diversity=``, ``neighbours=``, ``weights=``,
        ``ranking=``, ``half_life_days=``...)."""
        from ..retrieve import search

        return search(self, query, valid_at=valid_at, known_at=known_at, limit=limit,
                      kinds=tuple(kinds), group=group, reference_time=reference_time, **options)

    def search_sessions(
        self,
        query: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int = 10,
        group: str = DEFAULT_GROUP,
        reference_time: TimeLike | None = None,
    ) -> list[SessionResult]:
        """The sittings (runs of episodes at most 30 min apart) most likely to hold the
        answer, best first; see kgmem.retrieve.sessions."""
        from ..retrieve import search_sessions

        return search_sessions(self, query, valid_at=valid_at, known_at=known_at, limit=limit,
                               group=group, reference_time=reference_time)

    def context(
        self,
        query: str,
        budget_tokens: int = 1000,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        group: str = DEFAULT_GROUP,
        reference_time: TimeLike | None = None,
        superseded: Literal["label", "drop"] = "label",
        untrusted: Literal["flag", "omit"] = "flag",
        ranking: Literal["fused", "generative_agents"] | None = None,
        half_life_days: float | None = None,
    ) -> ContextBlock:
        """A prompt-ready block (dated facts, then quoted episode snippets) within a budget;
        a snippet no longer current at (valid_at, known_at) is labelled or dropped, items from
        untrusted or instruction-like episodes are marked or omitted (kgmem.trust); ranked as
        :meth:`search` ranks (``ranking``, ``half_life_days``; default: this memory's)."""
        from ..retrieve import context

        return context(self, query, budget_tokens=budget_tokens, valid_at=valid_at,
                       known_at=known_at, group=group, reference_time=reference_time,
                       superseded=superseded, untrusted=untrusted, ranking=ranking,
                       half_life_days=half_life_days)

    def index(self, group: str | None = None) -> int:
        """Embed and index everything written since the last call (a search embeds only a
        bounded part of its own group's backlog); with ``group``, only that group's items."""
        from ..retrieve import index_pending

        return index_pending(self, groups=None if group is None else [check_group(group)])

    def pending_index(self, group: str = DEFAULT_GROUP) -> int:
        """Items of ``group`` not embedded yet (searched by keyword and time until indexed)."""
        from ..retrieve import pending

        return pending(self, check_group(group))

    # ------------------------------------------------------------------ bulk
    def assert_facts(
        self, rows: Iterable[FactRow], group: str = DEFAULT_GROUP, batch_size: int = 2000
    ) -> list[str]:
        """Assert many facts (dicts of :meth:`assert_fact` arguments); returns their fact ids.

        Every row is validated before anything is written; rows are then written in
        transactions of ``batch_size`` (each one atomic and durable).
        """
        parsed = []
        for i, row in enumerate(rows):
            try:
                parsed.append(self.writes.parse_assertion(
                    row["subject"], row["predicate"], row["object"], row.get("valid_at"),
                    row.get("invalid_at"), row.get("group", group), row.get("episode"),
                    row.get("fact"), row.get("reason", ""), row.get("valid_precision"),
                    row.get("invalid_precision"), row.get("from_text", False),
                    row.get("subject_type"), row.get("object_type")))
            except KeyError as exc:
                raise InvalidInputError(f"row {i}: missing {exc.args[0]!r}", row=i) from None
            except InvalidInputError as exc:
                raise type(exc)(f"row {i}: {exc.message}", row=i, **exc.details) from None
        parsed = self.writes.check_predicates(self.store, parsed)
        out: list[str] = []
        for i in range(0, len(parsed), batch_size):
            with self.store.write() as w:
                batch = parsed[i:i + batch_size]
                now = self.writes.tick(w, *{a.group for a in batch})
                out += [self.writes.assert_in_tx(w, now, a) for a in batch]
        return out

    def stats(self, group: str | None = None) -> dict[str, int]:
        return self.store.counts(None if group is None else check_group(group))

    def groups(self) -> list[str]:
        """Every group of the store that holds entities, episodes or changes."""
        return self.store.groups()

    def orphans(self, group: str = DEFAULT_GROUP) -> list[OrphanedLineage]:
        """Facts whose versions or entities were deleted outside kgmem (e.g. graphiti-core's
        ``remove_episode`` on a shared Neo4j graph; docs/graphiti.md). They no longer show in
        any read or timeline, and changing them raises :class:`OrphanedFactError`."""
        return self.store.orphaned_lineages(check_group(group))


def fact_ids(versions: Sequence[FactVersion]) -> list[str]:
    return [v.fact_id for v in versions]

