"""Domain model (pydantic). These are the shapes the library, CLI, API and MCP return."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .entity_types import EntityType
from .timeutil import Precision, format_with_precision


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


# Alias keys kept by the entity resolver (kgmem.core.resolve) start with this prefix, which neither
# clean_name nor normalize_name can produce ("\x1f" is whitespace to both). They are hidden from
# Entity.aliases, together with aliases split off by a "~\x1fx:<alias>" key, unless the resolver
# reads raw aliases (SHOW_INTERNAL_ALIASES set).
INTERNAL_ALIAS = "~\x1f"
SHOW_INTERNAL_ALIASES: ContextVar[bool] = ContextVar("kgmem_show_internal_aliases", default=False)


# Memory.merge_entities marks the merged entity with an alias "~\x1fm:<change>:<into>" (and
# "~\x1fM:<into>", so that the entity it went into finds it); undoing that change adds
# "~\x1fu:<change>".
MERGED = INTERNAL_ALIAS + "m:"
MERGED_INTO = INTERNAL_ALIAS + "M:"
UNMERGED = INTERNAL_ALIAS + "u:"


class Entity(_Model):
    id: str
    group: str
    name: str
    summary: str = ""
    aliases: list[str] = Field(default_factory=list)
    created_at: datetime
    merged_into: str | None = Field(
        default=None, description="The entity this one was merged into (Memory.merge_entities): its "
        "names and id now mean that entity, until the merge is undone.")

    @model_validator(mode="before")
    @classmethod
    def _merge_state(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("aliases") and data.get("merged_into") is None:
            into = merged_into(data["aliases"])
            if into is not None:
                data = {**data, "merged_into": into}
        return data
    type: EntityType | None = Field(
        default=None, description="person, place, organisation, pet, thing, event, activity, "
        "role or other (kgmem.entity_types): the first type a fact gave it; None until one does.")

    @field_validator("aliases")
    @classmethod
    def _hide_internal(cls, v: list[str]) -> list[str]:
        return v if not v or SHOW_INTERNAL_ALIASES.get() else public_aliases(v)


def merged_into(aliases: list[str]) -> str | None:
    """The entity a merge (not undone) sent this one into, from its raw aliases."""
    marks = [a[4:].split(":", 1) for a in aliases if a[:4] == MERGED]
    if not marks:
        return None
    undone = {a[4:] for a in aliases if a[:4] == UNMERGED}
    live = sorted(into for change, into in marks if change not in undone)
    return live[-1] if live else None


def public_aliases(aliases: list[str]) -> list[str]:
    """The aliases a user sees: no resolver keys, no aliases that were split off."""
    if not any(a[:2] == INTERNAL_ALIAS for a in aliases):
        return aliases
    split = {a[4:] for a in aliases if a[:4] == INTERNAL_ALIAS + "x:"}
    return [a for a in aliases if a[:2] != INTERNAL_ALIAS and a not in split]


ExtractionStatus = Literal["pending", "done", "failed", "skipped"]


class ExtractionState(_Model):
    """Where the fact extraction of one episode stands; stored with the episode (both stores),
    written in the same transaction as the facts it reports.

    ``status``:

    * ``done``: the extractor ran and its facts were written with this state (``facts`` of
      them touched a fact; ``dropped`` could not be placed, e.g. an interval ending before it
      starts, and ``dropped_reasons`` says why, for the first few).
    * ``failed``: the extractor (or applying its result) raised; ``error_kind`` is the
      :class:`kgmem.errors.KgmemError` ``type`` or the exception class name, ``error_message``
      its text. Nothing of the attempt was written. Re-adding the episode,
      :meth:`kgmem.Memory.extract_failed` and ``kgmem extract --failed`` retry it.
    * ``pending``: stored, extraction wanted but not attempted yet (an extractor that stopped
      a batch early, e.g. on an unreachable endpoint, leaves the rest pending); retried the
      same way as ``failed``.
    * ``skipped``: extraction was not asked for (``extract=False`` or no extractor); re-adding
      the episode with extraction runs it.

    ``attempts`` counts the extraction attempts (successful or not); ``extractor`` and
    ``extractor_version`` name what made the last one (an extractor's ``name`` and ``version``
    attributes, else its class name and the kgmem version). An episode stored before
    extraction states existed has none (``Episode.extraction is None``) and is never
    extracted again implicitly.
    """

    status: ExtractionStatus
    extractor: str = ""
    extractor_version: str = ""
    attempts: int = 0
    facts: int = 0
    dropped: int = 0
    dropped_reasons: list[str] = Field(default_factory=list)
    error_kind: str | None = None
    error_message: str | None = None
    updated_at: datetime | None = None

    @property
    def retryable(self) -> bool:
        """Whether a re-add, ``extract_failed`` or ``kgmem extract --failed`` runs it again."""
        return self.status in ("pending", "failed")


class Episode(_Model):
    id: str
    group: str
    content: str
    source: str = "message"
    source_description: str = ""
    speaker: str | None = None
    reference_time: datetime
    created_at: datetime
    extraction: ExtractionState | None = None
    # kgmem.trust: how far its source and speaker are trusted, and what in its text reads
    # like instructions to the assistant (both decided when it was written)
    trust: Literal["trusted", "normal", "untrusted"] = "normal"
    flags: list[str] = Field(default_factory=list)


class FactVersion(_Model):
    """One immutable version of a fact lineage.

    ``valid_at``/``invalid_at`` is the valid-time interval (closed-open; ``None`` start means
    unknown = unbounded in the past, ``None`` end means still holds).
    ``created_at``/``expired_at`` is the transaction-time interval (``None`` end = believed now).
    ``stated_invalid_at`` is the end the sources stated explicitly (assertion or invalidate);
    ``invalid_at`` may be earlier when a later value of a functional predicate closed it.
    """

    id: str
    fact_id: str
    group: str
    subject: str
    subject_id: str
    predicate: str
    object: str
    object_id: str
    fact: str
    valid_at: datetime | None
    valid_precision: Precision = Precision.INSTANT
    invalid_at: datetime | None = None
    invalid_precision: Precision = Precision.INSTANT
    stated_invalid_at: datetime | None = None
    created_at: datetime
    expired_at: datetime | None = None
    episodes: list[str] = Field(default_factory=list)
    change_id: str
    reason: str = ""
    caused_by: str | None = None  # fact_id of the fact whose arrival closed this interval

    @property
    def start_known(self) -> bool:
        return self.valid_at is not None

    def describe(self) -> str:
        start = format_with_precision(self.valid_at, self.valid_precision)
        end = "now" if self.invalid_at is None else format_with_precision(
            self.invalid_at, self.invalid_precision
        )
        return f"{self.subject} {self.predicate} {self.object} [{start}, {end})"


class Change(_Model):
    """One logical change: what the agent learnt or revised, and which lineages it touched."""

    id: str
    group: str
    kind: Literal["assert", "invalidate", "retract", "correct", "undo", "erase", "declare",
                  "merge"]
    created_at: datetime
    # the lineages it wrote: those it is about (its effects) first, then those its
    # recomputation touched (e.g. the earlier fact of a functional predicate an assert ended)
    fact_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    undoes: str | None = None
    undone_by: str | None = None


class PathHop(_Model):
    source: str
    target: str
    fact: FactVersion
    forward: bool = True  # False when the hop walks the fact against its direction


class Path(_Model):
    entities: list[str]
    hops: list[PathHop]
    # For mode="sequenced": the common intersection of the hops' valid intervals.
    valid_from: datetime | None = None
    valid_to: datetime | None = None


class Erasure(_Model):
    """Audit record left by ``erase``: what kind of thing was erased, when, and how much."""

    id: str
    group: str
    kind: Literal["episode", "entity", "group"]
    created_at: datetime
    counts: dict[str, int] = Field(default_factory=dict)
