"""The memory tools every adapter gives a model, framework-free: plain methods with typed
arguments and docstrings (what the frameworks turn into tool schemas), bound to one memory
and one group, answering in short text a model reads.

* ``remember``: store what was said (an episode); facts are extracted from it.
* ``recall``: what the memory holds about a question, now, as of a date (``valid_at``) or as
  known at a date (``known_at``): kgmem's context block (dated facts, quoted snippets).
* ``correct``: fix a fact (its object or dates) by its id (the 8 characters recall shows).
* ``forget``: stop believing a fact ("this was never true"): a retraction, undoable, past
  beliefs kept. Physical deletion (erase) is left to people, not to the model.

Errors are :class:`kgmem.errors.KgmemError`; each adapter hands them to its framework's way
of telling the model (LangChain ``ToolException``, the Agents SDK's failure message, Pydantic
AI's ``ModelRetry``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ..memory.facade import Memory
from ..model import Episode, FactVersion
from ..timeutil import EPOCH

if TYPE_CHECKING:
    from ..memory.aio import AsyncMemory


TOOL_NAMES = ("remember", "recall", "correct", "forget")


def memory_of(memory: Memory | AsyncMemory | str | Path | None) -> Memory:
    """What an adapter was given as its memory: a Memory, an AsyncMemory (its Memory), a
    store directory, or None (the configured one: ``KGMEM_HOME`` / ``KGMEM_STORE`` ...)."""
    if isinstance(memory, Memory):
        return memory
    if memory is None:
        from ..factory import open_memory

        return open_memory()
    if isinstance(memory, (str, Path)):
        return Memory(memory)
    return memory.sync


def stored_by(memory: Memory, group: str, source: str) -> Iterator[Episode]:
    """Every episode of ``group`` an adapter stored with ``source`` (in the store's order,
    read 500 at a time); the adapter's document is its ``source_description``."""
    offset = 0
    while page := memory.episodes(group, limit=500, offset=offset):
        offset += len(page)
        yield from (ep for ep in page if ep.source == source)


def _fact_line(v: FactVersion) -> str:
    return f"{v.describe()} (fact {v.fact_id[:8]})"


class MemoryTools:
    """The four tools over ``memory`` in ``group``; ``speaker``: who ``remember`` quotes by
    default (the user the agent talks to)."""

    def __init__(self, memory: Memory | AsyncMemory | str | Path | None = None,
                 group: str = "default", speaker: str | None = None,
                 budget_tokens: int = 800) -> None:
        self.memory, self.group, self.speaker = memory_of(memory), group, speaker
        self.budget_tokens = budget_tokens

    def remember(self, content: str, reference_time: str | None = None,
                 speaker: str | None = None) -> str:
        """Store something worth remembering (what the user said or a note), verbatim; facts
        are extracted from it. reference_time: when it was said (ISO-8601; default now).
        speaker: who said it."""
        m = self.memory
        # this write is recorded at the group's last transaction time at the earliest (an
        # injected clock that did not move, a wall clock stepped back): include that instant
        before = (m.store.last_tx_time(self.group) or EPOCH) - timedelta(microseconds=1)
        ep = m.add_episode(content, reference_time or m.now(), group=self.group,
                           speaker=speaker or self.speaker)
        learnt = [v for v in m.versions_written_by(m.changes(before, group=self.group),
                                                   group=self.group)
                  if ep.id in v.episodes and v.expired_at is None]
        lines = [f"remembered (episode {ep.id[:8]})"]
        lines += [f"learnt: {_fact_line(v)}" for v in learnt]
        return "\n".join(lines)

    def recall(self, query: str, valid_at: str | None = None, known_at: str | None = None
               ) -> str:
        """What the memory holds about query: dated facts (with their fact ids) and quoted
        snippets. valid_at: as true on this date; known_at: as the memory knew it then
        (ISO-8601; both default to now)."""
        block = self.memory.context(query, budget_tokens=self.budget_tokens,
                                    valid_at=valid_at, known_at=known_at, group=self.group)
        ids = [_fact_line(f) for f in block.facts]
        text = block.text or "nothing relevant in memory"
        return text + ("\nfact ids: " + "; ".join(ids) if ids else "")

    def correct(self, fact_id: str, object: str | None = None, valid_at: str | None = None,
                invalid_at: str | None = None, reason: str | None = None) -> str:
        """Correct a fact by its id: a new object, or when it started (valid_at) or ended
        (invalid_at), as ISO-8601 dates. Past versions are kept."""
        c = self.memory.correct(fact_id, object=object, valid_at=valid_at,
                                invalid_at=invalid_at, reason=reason, group=self.group)
        now = self.memory.fact(c.fact_ids[0], group=self.group)
        return f"corrected (change {c.id[:8]})" + (f": {_fact_line(now)}" if now else "")

    def forget(self, fact_id: str, reason: str | None = None) -> str:
        """Stop believing a fact that was never true, by its id (undoable; past beliefs
        kept)."""
        c = self.memory.retract(fact_id, reason=reason, group=self.group)
        return f"forgot fact {c.fact_ids[0][:8]} (change {c.id[:8]}, undoable)"
