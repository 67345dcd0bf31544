"""The one place where the benchmark harness reaches past kgmem's public API.

Everything else in ``benchmarks/`` talks to kgmem through :class:`kgmem.Memory`,
:func:`kgmem.open_memory`, :class:`kgmem.Settings` and :mod:`kgmem.retrieve`'s public
functions. kgmem's internals are being moved around; when one of the names below moves, fix
it here (``tests/benchmarks/test_kgmem_api.py`` checks each against the public API).

* :func:`search_with_sessions`: the public API answers a question's turn ranking
  (``Memory.search``) and its session ranking (``Memory.search_sessions``) with two full
  searches; kgmem's session ranking is built on a finished search, so the harness runs the
  search once and ranks sessions on it (``kgmem.retrieve.search.run_search`` and
  ``kgmem.retrieve.sessions.rank_sessions``). Same rankings, half the query time: the query
  latency in RESULTS.md is one search plus the session ranking.
* :func:`open_replay_memory`: a :class:`kgmem.Memory` with the product's extractor setting
  (``Settings.extractor``: ``"offline"`` is the product default, ``"none"`` turns extraction
  off), built by the public :func:`kgmem.open_memory` for a directory; on a store the harness
  shares across haystacks (one Neo4jStore for a run), the extractor comes from
  ``kgmem.ingest.pipeline.make_extractor``, the function ``open_memory`` itself uses.
* :func:`last_transaction_time`: the store's last transaction time (``Memory.store`` is
  public; ``last_tx_time`` is part of the store interface), so a question asked after a
  reused replay still sees everything replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kgmem import Memory, Settings, open_memory


@dataclass(frozen=True)
class SearchAndSessions:
    results: list[Any]  # kgmem.retrieve.SearchResult, best first
    sessions: list[Any]  # kgmem.retrieve.SessionResult, best first


def search_with_sessions(
    memory: Memory,
    query: str,
    *,
    known_at: datetime,
    reference_time: datetime,
    group: str,
    limit: int,
    kinds: tuple[str, ...],
    session_limit: int,
    options: dict[str, Any] | None = None,
) -> SearchAndSessions:
    """One hybrid search and kgmem's session ranking of it (see the module docstring).

    Equals ``memory.search(query, known_at=..., reference_time=..., limit=limit,
    kinds=kinds)`` and, when ``kinds`` holds episodes and facts and ``limit`` is at least
    the session search depth (100), ``memory.search_sessions(query, ..., limit=
    session_limit)``. ``options``: more :class:`kgmem.retrieve.SearchOptions` (``ranking``,
    ``half_life_days``...).
    """
    from kgmem.retrieve.search import SearchParams, run_search
    from kgmem.retrieve.sessions import rank_sessions

    outcome = run_search(memory, SearchParams(query, known_at=known_at, group=group,
                                              reference_time=reference_time, limit=limit,
                                              kinds=kinds, **(options or {})))
    sessions = rank_sessions(memory, outcome, group, limit=session_limit)
    return SearchAndSessions(results=list(outcome.results), sessions=list(sessions))


def open_replay_memory(path: Path | None, *, extract: bool, clock: Any,
                       store: Any = None) -> Memory:
    """A Memory in ``path`` (embedded) or on ``store`` (e.g. a shared Neo4jStore), with the
    product's offline extractor when ``extract`` and none otherwise."""
    settings = Settings(store="embedded", extractor="offline" if extract else "none",
                        **({"home": path} if path is not None else {}))
    if store is not None:
        from kgmem.ingest.pipeline import make_extractor

        return Memory(store=store, clock=clock, extractor=make_extractor(settings))
    return open_memory(settings, clock=clock)  # type: ignore[no-any-return]


def last_transaction_time(memory: Memory, group: str) -> datetime | None:
    return memory.store.last_tx_time(group)
