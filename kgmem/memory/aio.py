""":class:`AsyncMemory`: the verbs of :class:`~kgmem.memory.facade.Memory`, awaitable.

One implementation: every verb is the synchronous ``Memory`` method run in a worker thread
(``anyio.to_thread.run_sync``, so asyncio and trio loops alike), never on the event loop.
Arguments, results and errors are the ``Memory`` method's own (a ``NotFoundError`` is a
``NotFoundError``). ``Memory`` is safe to call from several threads at once (the HTTP API
does), so concurrent awaits on one ``AsyncMemory`` are too; how many run at a time is bounded
by anyio's thread limiter (``limiter=``; default 40).

Neo4j is reached the same way: through the synchronous driver in the worker thread. The
driver's async API would need a second store implementation (every Cypher path of
``kgmem/store/neo4j`` again, awaited) for no gain in answers; a thread per in-flight call is
what that costs instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import anyio.to_thread

from .facade import Memory

if TYPE_CHECKING:
    from anyio import CapacityLimiter

P = ParamSpec("P")
R = TypeVar("R")


def _awaitable(method: Callable[Concatenate[Memory, P], R]
               ) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, R]]:
    """``Memory.method`` as a coroutine method of AsyncMemory, run in a worker thread."""

    @functools.wraps(method)
    async def verb(self: AsyncMemory, *args: P.args, **kwargs: P.kwargs) -> R:
        call = functools.partial(method, self.sync, *args, **kwargs)
        return await anyio.to_thread.run_sync(call, limiter=self.limiter)

    return verb


class AsyncMemory:
    """``await``-able :class:`~kgmem.memory.facade.Memory`.

    >>> async with AsyncMemory("./memory", extractor=None) as m:  # doctest: +SKIP
    ...     f = await m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021")
    ...     await m.facts("Alice", valid_at="2022-01-01")
    """

    def __init__(self, path: str | Path | None = None, *, memory: Memory | None = None,
                 limiter: CapacityLimiter | None = None, **kwargs: Any) -> None:
        """Open a Memory (``path`` and ``kwargs`` as :class:`Memory` takes them), or wrap
        ``memory``."""
        if memory is not None and (path is not None or kwargs):
            raise TypeError("pass either memory= or Memory's own arguments, not both")
        self.sync: Memory = memory if memory is not None else Memory(path, **kwargs)
        self.limiter = limiter

    def now(self) -> datetime:
        return self.sync.now()

    async def close(self) -> None:
        await anyio.to_thread.run_sync(self.sync.close, limiter=self.limiter)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # the verbs (tests/unit/test_async_memory.py holds this list to Memory's public methods)
    declare_predicate = _awaitable(Memory.declare_predicate)
    predicates = _awaitable(Memory.predicates)
    predicate = _awaitable(Memory.predicate)
    vocabulary = _awaitable(Memory.vocabulary)
    add_alias = _awaitable(Memory.add_alias)
    resolutions = _awaitable(Memory.resolutions)
    split_alias = _awaitable(Memory.split_alias)
    merge_entities = _awaitable(Memory.merge_entities)
    add_episode = _awaitable(Memory.add_episode)
    add_episodes = _awaitable(Memory.add_episodes)
    ingest = _awaitable(Memory.ingest)
    extract_failed = _awaitable(Memory.extract_failed)
    episode = _awaitable(Memory.episode)
    episodes = _awaitable(Memory.episodes)
    assert_fact = _awaitable(Memory.assert_fact)
    assert_facts = _awaitable(Memory.assert_facts)
    invalidate = _awaitable(Memory.invalidate)
    retract = _awaitable(Memory.retract)
    correct = _awaitable(Memory.correct)
    undo = _awaitable(Memory.undo)
    erase = _awaitable(Memory.erase)
    erasures = _awaitable(Memory.erasures)
    facts = _awaitable(Memory.facts)
    fact = _awaitable(Memory.fact)
    entity = _awaitable(Memory.entity)
    entities = _awaitable(Memory.entities)
    summary = _awaitable(Memory.summary)
    summary_history = _awaitable(Memory.summary_history)
    consolidate = _awaitable(Memory.consolidate)
    history = _awaitable(Memory.history)
    changes = _awaitable(Memory.changes)
    changed_versions = _awaitable(Memory.changed_versions)
    versions_written_by = _awaitable(Memory.versions_written_by)
    paths = _awaitable(Memory.paths)
    search = _awaitable(Memory.search)
    search_sessions = _awaitable(Memory.search_sessions)
    context = _awaitable(Memory.context)
    index = _awaitable(Memory.index)
    pending_index = _awaitable(Memory.pending_index)
    stats = _awaitable(Memory.stats)
    groups = _awaitable(Memory.groups)
    orphans = _awaitable(Memory.orphans)
    export = _awaitable(Memory.export)
    import_ = _awaitable(Memory.import_)
    backup = _awaitable(Memory.backup)
    profile = _awaitable(Memory.profile)
    apply_profile = _awaitable(Memory.apply_profile)
