"""How the LLM extractor cuts a batch of episodes into requests: one per sitting.

A *sitting* is a run of consecutive turns of one conversation (``group``), each later than
the one before and at most :data:`kgmem.timeline.SITTING_GAP` after it -- the sitting of
:mod:`kgmem.ingest.offline.sitting`. Its turns go to the model in one request, so the
instructions (about 1,700 tokens) are paid once per sitting instead of once per ~80-token
turn, and a later turn's "she" or "the dog" can lean on an earlier one.

A sitting longer than ``chunk_tokens`` is cut into *chunks* at turn boundaries; each chunk
after the first repeats the last ``context_turns`` turns before it as context only (shown,
never extracted from: the model names the turn of each fact, and facts naming a context turn
are dropped). A turn is never split: one longer than the budget is a chunk of its own (the
pipeline already cuts episodes longer than ``chunk_chars`` into pieces). A document
(``source="text"``, one episode) is a sitting of one turn. Texts dated at the same instant
start a new sitting each (a batch of unrelated notes dated alike says nothing about order),
as the offline extractor does.

Turn tokens are estimated from characters (:func:`estimate_tokens`, 3.5 characters a token:
English is about 4, so the estimate errs on the side of smaller requests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from kgmem.timeline import is_interval, same_sitting

from .llm_prompt import PromptTurn

__all__ = ["Chunk", "Turn", "estimate_tokens", "plan_chunks"]

CHARS_PER_TOKEN = 3.5
TURN_OVERHEAD = 6  # the "[t12] Name: " header and line break, in tokens


@dataclass(frozen=True)
class Turn:
    """One episode of the batch: ``index`` is its position (its outcome's), ``last_sitting``
    when the previous sitting of its conversation ended (for "since we last talked")."""

    index: int
    text: str
    reference_time: datetime
    speaker: str | None = None
    user: str | None = None
    group: str | None = None
    last_sitting: datetime | None = None


@dataclass(frozen=True)
class Chunk:
    """One request: ``turns`` to extract from (ids ``t1``...), after ``context`` turns shown
    only to carry the sitting over from the previous chunk (ids ``c1``...)."""

    turns: tuple[Turn, ...]
    context: tuple[Turn, ...] = ()

    def prompt_turns(self) -> tuple[list[PromptTurn], list[PromptTurn]]:
        """(turns, context) as the prompt shows them."""
        return ([PromptTurn(f"t{i}", t.text, t.speaker, t.user)
                 for i, t in enumerate(self.turns, 1)],
                [PromptTurn(f"c{i}", t.text, t.speaker, t.user)
                 for i, t in enumerate(self.context, 1)])

    def turn(self, turn_id: str) -> Turn | None:
        """The turn a fact names (``"t2"``, ``"[t2]"``, ``"2"``), or None (a context turn,
        an unknown id)."""
        tid = turn_id.strip().strip("[]").strip().lower()
        if tid.isdigit():
            tid = f"t{tid}"
        if not tid.startswith("t") or not tid[1:].isdigit():
            return None
        k = int(tid[1:])
        return self.turns[k - 1] if 1 <= k <= len(self.turns) else None

    def split(self, keep: int | None = None) -> tuple[Chunk, Chunk]:
        """Two halves (a reply cut off before its first fact, a request too long for the
        server); the second half keeps the last ``keep`` turns before it as context (default:
        as many as this chunk had, else the whole first half)."""
        half = max(1, len(self.turns) // 2)
        first, second = self.turns[:half], self.turns[half:]
        if keep is None:
            keep = len(self.context) or len(first)
        before = (*self.context, *first)[-keep:] if keep > 0 else ()
        return Chunk(first, self.context), Chunk(second, before)


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + TURN_OVERHEAD


def sittings(turns: Sequence[Turn]) -> list[list[Turn]]:
    """Consecutive turns of one group, each later than the last and within a sitting's gap;
    a new sitting of a group learns when the previous one ended (``last_sitting``), unless
    the item said."""
    out: list[list[Turn]] = []
    ended: dict[str | None, datetime] = {}
    for t in turns:
        prev = out[-1][-1] if out else None
        if (prev is not None and prev.group == t.group
                and is_interval(prev.reference_time, t.reference_time)  # strictly later
                and same_sitting(prev.reference_time, t.reference_time)):
            out[-1].append(_with_last(t, out[-1][0].last_sitting))
            continue
        if prev is not None:
            ended[prev.group] = prev.reference_time
        before = ended.get(t.group)
        if t.last_sitting is None and before is not None and is_interval(before, t.reference_time):
            t = _with_last(t, before)
        out.append([t])
    return out


def _with_last(t: Turn, last: datetime | None) -> Turn:
    if t.last_sitting is not None or last is None:
        return t
    return Turn(t.index, t.text, t.reference_time, t.speaker, t.user, t.group, last)


def plan_chunks(turns: Sequence[Turn], chunk_tokens: int, context_turns: int = 6
                ) -> list[Chunk]:
    """The requests for ``turns`` (in order; empty texts left out): each sitting cut into
    chunks of at most ``chunk_tokens`` estimated tokens of turns (context included; at least
    one turn each), each chunk after a sitting's first carrying up to ``context_turns``
    earlier turns as context. ``chunk_tokens <= 0``: one turn per request."""
    chunks: list[Chunk] = []
    for sitting in sittings([t for t in turns if t.text.strip()]):
        done: list[Turn] = []
        cur: list[Turn] = []
        context: tuple[Turn, ...] = ()
        size = 0
        for t in sitting:
            need = estimate_tokens(t.text)
            if cur and size + need > chunk_tokens:
                chunks.append(Chunk(tuple(cur), context))
                done += cur
                context = _context(done, context_turns, chunk_tokens - need)
                cur, size = [], sum(estimate_tokens(c.text) for c in context)
            cur.append(t)
            size += need
        if cur:
            chunks.append(Chunk(tuple(cur), context))
    return chunks


def _context(done: list[Turn], most: int, budget: int) -> tuple[Turn, ...]:
    """The last turns of ``done``, at most ``most`` of them and about half the budget."""
    out: list[Turn] = []
    size = 0
    for t in reversed(done[-most:] if most > 0 else []):
        size += estimate_tokens(t.text)
        if size > budget // 2:
            break
        out.append(t)
    return tuple(reversed(out))
