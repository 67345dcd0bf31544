"""The search half of a store, as :mod:`kgmem.retrieve` reads it: the protocol each store's
search reads answer (each store returns its own from ``store.search_reads``: the embedded
store's :mod:`kgmem.store.sqlite.search_reads`, Neo4j's :mod:`kgmem.store.neo4j.search_reads`), and the
limits and orders both stores' candidates share, so that they rank alike."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, MutableMapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..model import Entity, Episode, FactVersion
from ..timeutil import UTC
from .base import SearchBackend, TimeFilter
from .indexing import TimeMentions

if TYPE_CHECKING:
    from ..embed.base import Embedder

EXACT_WINDOW_MAX = 5000  # rank a time window's episodes exactly up to this many
# A query word found in more rows than this is left out of the keyword query (it carries
# almost no BM25 weight, and scoring every row that has it is what makes FTS slow at 1M rows);
# the vector side still sees the whole query. The rarest word is always kept.
DF_MAX = 5000
# When every word left is that common (a one-word query such as "live" over 1M facts), BM25
# still cannot tell the matches apart and ranking all of them costs ~350 ms: only the newest
# COMMON_POOL matches are scored (~9 ms).
COMMON_POOL = 1000

# What one request may embed of the backlog before it answers (a search sees its own small
# writes at once); the rest is the background indexer's (``kgmem serve``, ``kgmem index``,
# the end of ``kgmem ingest``), and search answers meanwhile from what is indexed plus the
# keyword and time signals, which need no embedding. An episode longer than this is never
# embedded inside a request.
REQUEST_INDEX_CHARS = 4_000
REQUEST_INDEX_ITEMS = 32

_MIN_TIME = datetime(1, 1, 1, tzinfo=UTC)


def version_rank_key(v: FactVersion) -> tuple[datetime, datetime]:
    """Among versions of one lineage visible in a range, prefer the latest-valid."""
    return (v.valid_at or _MIN_TIME, v.created_at)


class SearchReads(Protocol):
    """What :func:`kgmem.retrieve.search` needs from a store: candidates, visibility-filtered
    (kgmem.store.visibility), and the catch-up indexing of what was written or erased."""

    embedder: Any

    def queued(self) -> int | None:
        """How many items wait to be embedded (None: the store finds its work when it
        indexes, it keeps no queue to count)."""
        ...

    def index_pending(self, batch_size: int = 256, max_items: int | None = None,
                      force: bool = True, groups: Collection[str] | None = None) -> int:
        """Catch up with what was written or erased, in ``groups`` (None: all); a store
        whose indexes are its own (the embedded store's queue) may catch up with all."""
        ...
    def auto_index(self, group: str | None = None) -> int:
        """Search-time catch-up before searching ``group``: bounded (at most
        :data:`REQUEST_INDEX_CHARS` characters, :data:`REQUEST_INDEX_ITEMS` items, of that
        group only), best effort (never waits for another indexer or writer)."""
        ...
    def pending(self, group: str) -> int:
        """Items of ``group`` written but not embedded yet (search answers for them from
        keyword and time signals only)."""
        ...
    def index_round(self, per_group: int = 64, groups: Collection[str] | None = None,
                    should_stop: Callable[[], bool] | None = None) -> int:
        """One round of a background indexer: up to ``per_group`` items of every group with a
        backlog (of ``groups``; None: all), group by group (one group's backlog does not keep
        another's waiting)."""
        ...
    def forget_erased(self, group: str) -> None:
        """After an erase in ``group``: drop what search keeps of erased items outside the
        store's transaction (the embedded store's ANN files; Neo4j's orphan chunks), without
        embedding anything."""
        ...
    def flush(self) -> None:
        """Persist what the reads keep in memory (the embedded store's ANN files)."""
        ...
    def warm(self, group: str) -> None:
        """Catch up and load (or build) the group's vector indexes now, not on first search."""
        ...
    def episode_times(self, group: str, known_at: datetime) -> list[int]: ...  # ascending
    def episodes_in_window(
        self, group: str, window: tuple[datetime, datetime], limit: int, known_at: datetime,
        ref_max: datetime | None,
    ) -> list[tuple[str, int]]: ...
    def episodes_mentioning_window(
        self, group: str, window: tuple[datetime, datetime], limit: int, known_at: datetime,
        ref_max: datetime | None,
    ) -> list[tuple[str, int]]: ...
    def keyword_episodes(
        self, group: str, words: list[str], limit: int, known_at: datetime,
        ref_max: datetime | None, window: tuple[datetime, datetime] | None,
    ) -> list[tuple[str, float]]: ...
    def vector_episodes(
        self, group: str, q: np.ndarray, limit: int, known_at: datetime,
        ref_max: datetime | None, allowed: set[str] | None,
    ) -> list[tuple[str, float, tuple[int, int]]]: ...
    def keyword_facts(
        self, group: str, words: list[str], limit: int, when: TimeFilter
    ) -> list[tuple[FactVersion, float]]: ...
    def vector_facts(
        self, group: str, q: np.ndarray, limit: int, when: TimeFilter
    ) -> list[tuple[FactVersion, float]]: ...
    def graph_facts(
        self, group: str, entity_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]: ...
    def facts_from_episodes(
        self, group: str, episode_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]: ...
    def fact_sources(self, group: str, fact_ids: Sequence[str],
                     when: TimeFilter | None = None) -> dict[str, list[str]]: ...
    def match_entities(
        self, group: str, norms: Sequence[str], known_at: datetime
    ) -> dict[str, list[str]]: ...
    def keyword_entities(
        self, group: str, words: list[str], limit: int, known_at: datetime
    ) -> list[tuple[str, float]]: ...
    def vector_entities(
        self, group: str, q: np.ndarray, limit: int, known_at: datetime
    ) -> list[tuple[str, float]]: ...
    def episodes_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Episode]: ...
    def episode_neighbours(
        self, group: str, ids: Sequence[str], gap: timedelta, known_at: datetime,
        ref_max: datetime | None,
    ) -> dict[str, tuple[str | None, str | None]]: ...
    def episode_stamps(self, group: str, ids: Sequence[str]) -> dict[str, tuple[int, int]]: ...
    def episodes_saying(
        self, group: str, words: Sequence[str], limit: int, known_at: datetime,
        ref_max: datetime | None, window: tuple[datetime, datetime] | None,
    ) -> dict[str, list[tuple[str, int]]]: ...
    def entities_by_ids(self, group: str, ids: Sequence[str]) -> dict[str, Entity]: ...


class SearchableStore(Protocol):
    """A store that brings its search half (both stores)."""

    def search_reads(self, embedder: Embedder | None, mentions: TimeMentions) -> SearchReads:
        """New search reads for ``embedder`` (``None``: keyword-only); ``mentions`` finds the
        periods an episode mentions when it is indexed."""
        ...
    def search_backends(self) -> MutableMapping[Hashable, SearchBackend]: ...
    def reset_search_vectors(self, embedder: Embedder) -> None:
        """Drop every stored vector, to re-embed everything with ``embedder``."""
        ...
