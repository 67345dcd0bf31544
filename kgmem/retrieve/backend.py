"""The store-specific half of search: candidate generation against one backend.

:func:`get_backend` asks the store for its search half, ``store.search_reads(embedder,
mentions)`` (the embedded store's is :mod:`kgmem.store.sqlite.search_reads`, Neo4j's
:mod:`kgmem.store.neo4j.search_reads`), both answering :class:`kgmem.store.search_reads.SearchReads`
and both handed :func:`kgmem.retrieve.indexing.episode_time_mentions` to index the periods an
episode mentions. They return plain candidates; :mod:`kgmem.retrieve.search` fuses them.

The embedder is, in order: the ``embedder=`` argument, ``memory.embedder`` if the Memory has
one, else :func:`kgmem.embed.get_default_embedder` (offline MiniLM) if its weights are
installed. Without them the backend has no embedder: search runs on keyword, time and graph
signals, and what writes queued for embedding stays queued until the weights come
(``kgmem models install``), so nothing is indexed with a different model in between.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol, cast

from ..errors import InvalidInputError
from ..store.base import Store
from ..store.search_reads import SearchableStore, SearchReads
from .indexing import episode_time_mentions

if TYPE_CHECKING:
    from ..embed.base import Embedder

_LOCK = threading.Lock()


class WithStore(Protocol):
    """What a search backend is found from: a :class:`kgmem.Memory`'s store and embedder."""

    @property
    def store(self) -> Store: ...
    @property
    def embedder(self) -> Embedder | None: ...


def resolve_embedder(memory: object, embedder: Embedder | None = None) -> Embedder | None:
    """The embedder to search with; ``None`` = keyword-only (no MiniLM weights installed)."""
    if embedder is not None:
        return embedder
    emb = getattr(memory, "embedder", None)
    if emb is not None:
        return emb
    from ..embed import default_embedder_or_none

    return default_embedder_or_none()


def get_backend(memory: WithStore, embedder: Embedder | None = None) -> SearchReads:
    """The (cached) search backend of ``memory``'s store for the resolved embedder."""
    emb = resolve_embedder(memory, embedder)
    store = cast(SearchableStore, memory.store)  # both stores bring their search half
    with _LOCK:
        cache = store.search_backends()
        key = ("", 0) if emb is None else (emb.name, id(emb))
        be = cache.get(key)
        if be is not None:
            return cast(SearchReads, be)
        if not hasattr(store, "search_reads"):
            raise InvalidInputError(
                f"search is not available for store type {type(store).__name__}")
        reads = store.search_reads(emb, episode_time_mentions)
        cache[key] = reads
        return reads
