"""Request bodies and response envelopes of the HTTP API.

Domain objects (``Episode``, ``FactVersion``, ``Entity``, ``Change``, ``Path``, ``Erasure``)
are returned as the library's own pydantic models from :mod:`kgmem.model`; this module only
adds request bodies, list envelopes and the few API-specific shapes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kgmem.entity_types import EntityType
from kgmem.model import Change, Entity, Episode, FactVersion, Path
from kgmem.names import MAX_CONTENT, MAX_NAME
from kgmem.retrieve.models import SearchResult, SessionResult
from kgmem.timeutil import TIME_PATTERN
from kgmem.vocabulary import PredicateSource

# Hard ceilings baked into the schema; the configured ``max_list`` (settings) may be lower.
MAX_BULK = 1000
MAX_PAGE = 1000
MAX_OFFSET = 100_000
MAX_TEXT = 10_000

Precision = Literal["year", "month", "day", "instant"]
# a time field's published pattern is exactly what kgmem reads (kgmem.timeutil.TIME_PATTERN)
TimeStr = Annotated[str, Field(pattern=TIME_PATTERN)]

TIME_DOC = (
    "ISO-8601 instant or date: '2023', '2023-05', '2023-05-08', '2023-05-08T10:00:00Z'. "
    "A value without a timezone is UTC."
)

T = TypeVar("T")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------- requests
class EpisodeIn(_In):
    content: str = Field(min_length=1, max_length=MAX_CONTENT,
                         description="Raw text, stored verbatim.")
    reference_time: TimeStr = Field(max_length=64,
                                    description="When it was said/written. " + TIME_DOC)
    source: str = Field("message", min_length=1, max_length=64,
                        description="Kind of source: message, text, json, ...")
    speaker: str | None = Field(None, max_length=MAX_NAME,
                                description="Who said it (resolves 'I' during extraction).")
    source_description: str = Field("", max_length=MAX_TEXT)
    extract: bool = Field(True, description="Run the configured fact extraction.")
    user_name: str | None = Field(
        None, max_length=MAX_NAME,
        description="Who the user is: a speaker that is the chat role 'user' (or 'human', "
        "'me', ...) is stored as this person, so 'I' is them and no entity is named 'user'. "
        "Default: the server's KGMEM_USER_NAME; none: the role stays as given.")


class EpisodesBulkIn(_In):
    episodes: list[EpisodeIn] = Field(
        min_length=1, max_length=MAX_BULK,
        description=f"At most {MAX_BULK} (and at most the server's max_list) episodes. "
        "Adding is idempotent per episode, so a failed batch can be retried whole.",
    )


class FactIn(_In):
    subject: str = Field(min_length=1, max_length=MAX_NAME, description="Entity name or id.")
    predicate: str = Field(min_length=1, max_length=128, description="e.g. LIVES_IN.")
    object: str = Field(min_length=1, max_length=MAX_NAME, description="Entity name or id.")
    valid_at: TimeStr | None = Field(None, max_length=64,
                                     description="Start of validity (unknown if omitted). "
                                     + TIME_DOC)
    invalid_at: TimeStr | None = Field(None, max_length=64,
                                       description="Stated end of validity. " + TIME_DOC)
    episode: str | None = Field(None, max_length=128,
                                description="Episode id for provenance (its reference time "
                                "is the default start).")
    fact: str | None = Field(None, max_length=MAX_TEXT, description="Natural-language text.")
    reason: str = Field("", max_length=MAX_TEXT)
    valid_precision: Precision | None = None
    invalid_precision: Precision | None = None
    subject_type: EntityType | None = Field(
        None, description="The subject's type if it has none yet (default: what the predicate "
        "implies, e.g. LIVES_IN's subject is a person); an entity keeps its first type.")
    object_type: EntityType | None = Field(
        None, description="The object's type if it has none yet (LIVES_IN's object is a place).")


class InvalidateIn(_In):
    at: TimeStr = Field(max_length=64,
                        description="When the fact stopped being true. " + TIME_DOC)
    reason: str | None = Field(None, max_length=MAX_TEXT)


class RetractIn(_In):
    reason: str | None = Field(None, max_length=MAX_TEXT)


class CorrectIn(_In):
    object: str | None = Field(None, min_length=1, max_length=MAX_NAME)
    valid_at: TimeStr | None = Field(None, max_length=64, description=TIME_DOC)
    invalid_at: TimeStr | None = Field(None, max_length=64, description=TIME_DOC)
    reason: str | None = Field(None, max_length=MAX_TEXT)


class MergeIn(_In):
    other: str = Field(min_length=1, max_length=MAX_NAME,
                       description="The entity (name, alias or id) merged into the path's.")
    reason: str | None = Field(None, max_length=MAX_TEXT)


class PredicateIn(_In):
    name: str = Field(min_length=1, max_length=128, description="e.g. DRIVES or 'drives'.")
    cardinality: Literal["functional", "multi"] = Field(
        description="functional: one object per subject at a time (a new value closes the "
        "previous one); multi: many at once.")
    symmetric: bool = Field(False, description="A relation told from either side is one "
                            "fact (MARRIED_TO).")
    description: str = Field("", max_length=MAX_TEXT)
    reason: str | None = Field(None, max_length=MAX_TEXT)


# ---------------------------------------------------------------- responses
class Page(BaseModel, Generic[T]):
    items: list[T]
    limit: int = Field(description="Page size used (after clamping to max_list).")
    offset: int
    next_offset: int | None = Field(
        description="Offset of the next page, or null when this is the last page."
    )


class EpisodePage(Page[Episode]):
    """A page of episodes (oldest reference time first)."""


class EntityPage(Page[Entity]):
    """A page of entities (oldest first)."""


class FactPage(Page[FactVersion]):
    """A page of fact versions visible at the requested times."""


class ChangePage(Page[Change]):
    """A page of changes (oldest first)."""


class PredicateOut(BaseModel):
    """A predicate's rules in a group."""

    name: str
    cardinality: Literal["functional", "multi"]
    symmetric: bool
    description: str
    source: PredicateSource = Field(
        description="built-in, declared (stored by a declare change), or first use (recorded "
        "as multi-valued when the group first used a predicate nobody declared).")
    declared_at: datetime | None = Field(None, description="Transaction time of the stored "
                                         "declaration.")
    change_id: str | None = Field(None, description="The change that declared it (undo it "
                                  "to revert).")


class PredicateList(BaseModel):
    items: list[PredicateOut]


class EpisodeList(BaseModel):
    items: list[Episode]


class VersionList(BaseModel):
    """Fact versions (both time intervals and provenance of each)."""

    items: list[FactVersion]


class PathList(BaseModel):
    items: list[Path]


class EntityProfile(BaseModel):
    """What the memory holds about one entity at (valid_at, known_at)."""

    entity: Entity = Field(description="The entity; its summary is the one as known at "
                           "known_at, built offline from its facts as known then.")
    facts: list[FactVersion] = Field(description="Facts with the entity as subject.")
    incoming: list[FactVersion] = Field(description="Facts with the entity as object only.")


class SearchResponse(BaseModel):
    query: str
    items: list[SearchResult] = Field(
        description="Ranked results (facts, entities, episodes), best first."
    )
    index_pending: int = Field(
        0, description="Items of the group written but not embedded yet: found by keyword "
        "and time only until the background indexer embeds them.")


class SessionsResponse(BaseModel):
    query: str
    items: list[SessionResult] = Field(
        description="Sessions (runs of episodes at most 30 minutes apart), best first."
    )


class ContextResponse(BaseModel):
    query: str
    budget_tokens: int
    context: str = Field(description="A compact prompt block within the token budget; "
                         "stored text is quoted as data.")
    tokens: int | None = Field(None, description="Tokens used by the block.")
    truncated: bool = Field(False, description="Relevant items were left out for the budget.")
    facts: list[FactVersion] = Field(default_factory=list,
                                     description="The facts the block cites.")
    episodes: list[Episode] = Field(default_factory=list,
                                    description="The episodes the block quotes.")
    details: dict[str, Any] = Field(default_factory=dict,
                                    description="Anything else the library reported: the "
                                    "(valid_at, known_at) used, the query's time window, the "
                                    "superseded snippets labelled or dropped, the flagged "
                                    "items (marked or omitted).")


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Ready(BaseModel):
    status: Literal["ready"] = "ready"
    store: str
