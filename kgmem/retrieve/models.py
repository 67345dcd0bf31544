"""Result types of :mod:`kgmem.retrieve` (pydantic; the shapes the library and API return)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..model import Entity, Episode, FactVersion
from ..timeutil import Precision

Kind = Literal["fact", "entity", "episode"]
KINDS_PLURAL = {"facts": "fact", "entities": "entity", "episodes": "episode"}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class ScoreParts(_Model):
    """The signals behind a result's fused score (``None`` = that signal did not find it).

    ``keyword``: BM25 (FTS5) score; ``vector``: cosine similarity of the best-matching
    chunk; ``graph``: 1.0 when the result touches two entities named in the query, 0.5 for one;
    ``time``: 1.0 said inside the time the query mentions, 0.8 mentions a time inside it, less
    with distance outside it (only when the query mentions a time); ``context``: the fused
    score of the best-scoring episode said right before or after this one (neighbour lift);
    ``fact``: the fused score of the best fact extracted from this episode, when that beat the
    episode's own (an episode ranks at least as high as a fact it states); ``recency``:
    ``0.5 ** (age / half-life)`` at the asking time, when recency applied; ``importance``: what
    the extractor found in it (``ranking="generative_agents"``; kgmem.retrieve.importance);
    ``superseded``: 1.0 when the episode says something no longer current at (valid_at,
    known_at), ranked below the current fact that replaced it (kgmem.retrieve.currency).
    """

    keyword: float | None = None
    vector: float | None = None
    graph: float | None = None
    time: float | None = None
    context: float | None = None
    fact: float | None = None
    recency: float | None = None
    importance: float | None = None
    superseded: float | None = None


class TimeWindow(_Model):
    """How a time mentioned in the query was interpreted (closed-open window, UTC)."""

    text: str
    start: datetime | None = None
    end: datetime | None = None
    precision: Precision = Precision.DAY
    hard: bool = False  # True: episodes outside the window were excluded
    session: str | None = None  # the session reference, when the query named sessions


class SearchResult(_Model):
    """One hit. ``id`` is the fact lineage id, entity id or episode id."""

    kind: Kind
    id: str
    text: str
    score: float
    parts: ScoreParts = Field(default_factory=ScoreParts)
    # provenance / links
    episode_ids: list[str] = Field(default_factory=list)
    fact_ids: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    # times: valid interval and transaction interval (facts), reference time (episodes)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    created_at: datetime | None = None
    expired_at: datetime | None = None
    reference_time: datetime | None = None
    speaker: str | None = None
    version_id: str | None = None
    chunk: tuple[int, int] | None = None  # best-matching character span (long episodes)
    fact: FactVersion | None = None
    entity: Entity | None = None
    time_window: TimeWindow | None = None


class SessionParts(_Model):
    """The two signals behind a session's fused score (``None`` = that signal did not find it).

    ``episodes``: sum of the fused search scores of the session's best 3 hits (a fact counts
    for the episode it came from); ``keyword``: summed IDF (over sessions) of the query's
    content words said anywhere in the session, each word once; ``*_rank``: 1-based rank of
    the session on that signal.
    """

    episodes: float | None = None
    keyword: float | None = None
    episodes_rank: int | None = None
    keyword_rank: int | None = None


class SessionResult(_Model):
    """A session (a run of episodes at most ``session_gap`` apart). ``id`` is its start
    (ISO 8601, UTC); ``episode_ids``: its episodes among the search hits, best first, then
    episodes that only said words of the query."""

    id: str
    start: datetime
    end: datetime
    score: float
    episodes: int  # episodes in the session, visible at known_at
    episode_ids: list[str] = Field(default_factory=list)
    parts: SessionParts = Field(default_factory=SessionParts)


class SupersededSnippet(_Model):
    """A statement of a retrieved episode that no longer holds at the block's valid_at (as
    known at its known_at), and the current fact that replaced it, if any."""

    episode_id: str
    fact_id: str
    fact: str
    ended_at: datetime | None
    ended_precision: Precision = Precision.INSTANT
    by_fact_id: str | None = None
    by_fact: str | None = None
    by_since: datetime | None = None
    by_precision: Precision | None = None
    dropped: bool = False  # left out of the block (superseded="drop")


class FlaggedItem(_Model):
    """An item of a context block from an untrusted source or with instruction-like text
    (kgmem.trust): marked in the block, or left out (``omitted``) with untrusted="omit"."""

    kind: Literal["fact", "episode"]
    id: str  # fact lineage id or episode id
    trust: str
    flags: list[str] = Field(default_factory=list)
    omitted: bool = False


class ContextBlock(_Model):
    """A prompt-ready memory block. ``tokens`` is counted with the offline MiniLM WordPiece
    tokenizer (:func:`kgmem.embed.tokens.count_tokens`) and is always ``<= budget_tokens``."""

    text: str
    tokens: int
    budget_tokens: int
    facts: list[FactVersion] = Field(default_factory=list)
    episodes: list[Episode] = Field(default_factory=list)
    valid_at: datetime
    known_at: datetime
    time_window: TimeWindow | None = None
    truncated: bool = False  # True when relevant items were left out for the budget
    superseded: list[SupersededSnippet] = Field(default_factory=list)
    flagged: list[FlaggedItem] = Field(default_factory=list)
