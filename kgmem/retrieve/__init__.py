"""Hybrid, time-aware retrieval: ``search`` and a token-budgeted ``context`` block.

Public API (all take the :class:`kgmem.Memory` first)::

    search(memory, query, valid_at=None, known_at=None, limit=10,
           kinds=("facts", "entities", "episodes"), group="default", reference_time=None,
           **options) -> list[SearchResult]    # options: SearchOptions (embedder=,
           # diversity=, auto_index=, session_gap=, weights=, neighbours=, rrf_k=)
    search_sessions(memory, query, valid_at=None, known_at=None, limit=10, group="default",
                    reference_time=None) -> list[SessionResult]   # which sittings hold it
    context(memory, query, budget_tokens=1000, valid_at=None, known_at=None,
            group="default", reference_time=None, *, embedder=None) -> ContextBlock
    index_pending(memory, *, embedder=None) -> int      # embed everything not yet indexed
    pending(memory, group) -> int                      # a group's items not embedded yet
    index_round(memory, per_group=64) -> int           # one round of a background indexer
    flush(memory)                                      # persist ANN index files now
    warm(memory, group="default")                      # load/build a group's ANN indexes now
    reindex(memory, embedder=None)                     # re-embed everything (model change)

The embedder is ``embedder=`` if given, else ``memory.embedder`` if set, else the offline
MiniLM (:func:`kgmem.embed.get_default_embedder`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..errors import InvalidInputError
from .context import context
from .models import ContextBlock, ScoreParts, SearchResult, SessionParts, SessionResult, TimeWindow
from .search import Searchable, SearchOptions, SearchParams, search
from .sessions import search_sessions

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from ..embed.base import Embedder
    from ..store.search_reads import SearchableStore

__all__ = [
    "ContextBlock",
    "ScoreParts",
    "SearchOptions",
    "SearchParams",
    "Searchable",
    "SearchResult",
    "SessionParts",
    "SessionResult",
    "TimeWindow",
    "context",
    "flush",
    "index_pending",
    "index_round",
    "pending",
    "reindex",
    "search",
    "search_sessions",
    "warm",
]


def index_pending(memory: Searchable, *, embedder: Embedder | None = None, batch_size: int = 256,
                  max_items: int | None = None, groups: Collection[str] | None = None) -> int:
    """Embed and index every stored item not indexed yet; returns how many were processed.

    On the embedded store every write is queued by SQLite triggers in its own transaction, so
    this catches up after anything (including a crash); it also scrubs persisted ANN files of
    vectors deleted by an erase. Cheap when nothing is pending. On Neo4j (one server, many
    tenants) ``groups`` limits the catch-up to those groups (None: every group of the server).
    """
    from .backend import get_backend

    return get_backend(memory, embedder).index_pending(batch_size, max_items, groups=groups)


def pending(memory: Searchable, group: str, *, embedder: Embedder | None = None) -> int:
    """Items of ``group`` written but not embedded yet: search finds them by keyword and time
    only until an indexer (``kgmem serve``'s background indexer, ``kgmem index``) embeds
    them (a search itself embeds only a bounded part, and only of its own group)."""
    from .backend import get_backend

    return get_backend(memory, embedder).pending(group)


def index_round(memory: Searchable, per_group: int = 64, *, embedder: Embedder | None = None,
                groups: Collection[str] | None = None,
                should_stop: Callable[[], bool] | None = None) -> int:
    """One round of a background indexer: up to ``per_group`` items of each group with a
    backlog (of ``groups``; None: every group); returns how many were embedded (0: none
    left)."""
    from .backend import get_backend

    return get_backend(memory, embedder).index_round(per_group, groups, should_stop)


def flush(memory: Searchable, *, embedder: Embedder | None = None) -> None:
    """Persist the ANN index files now (they are also saved as they grow and at exit)."""
    from .backend import get_backend

    get_backend(memory, embedder).flush()


def warm(memory: Searchable, group: str = "default", *, embedder: Embedder | None = None) -> None:
    """Load (or build) the group's ANN indexes now instead of on its first search.

    Building an HNSW index from SQLite is the one slow step of a large store (minutes at 1M
    vectors; it is persisted afterwards, and loading a persisted one takes seconds)."""
    from .backend import get_backend

    get_backend(memory, embedder).warm(group)


def reindex(memory: Searchable, embedder: Embedder | None = None) -> int:
    """Drop every stored vector and re-embed everything with ``embedder`` (e.g. after
    switching models). Embedded store only (Neo4j's chunks record their model: InvalidInputError)."""
    from .backend import resolve_embedder

    emb = resolve_embedder(memory, embedder)
    if emb is None:  # before anything is dropped
        raise InvalidInputError("reindex needs an embedder: pass one, or install the offline "
                                "model's weights (kgmem models install)", field="embedder")
    cast("SearchableStore", memory.store).reset_search_vectors(emb)
    return index_pending(memory, embedder=emb)
