"""What a context block spends its budget on (:func:`kgmem.retrieve.context`).

An agent reads the block, not the ranking, so the block keeps the ranking's lead:

* most of the budget goes to the best-ranked episodes (turn-level snippets, each with its
  date and speaker): search finds the evidence-bearing turn, the block must not drop it;
* facts get a few lines (:func:`fact_lines_for`, at most ``FACT_SHARE`` of the budget), in
  the order search ranked them (never by name), current ones before those that ended;
* the same fact said many times (or near-identical facts: same subject and predicate,
  objects sharing a word, "has pet dog" / "has pet pup") is one line with a count and the
  dates it was said (:func:`collapse_facts`).

The numbers were chosen on LoCoMo conversations 0-4 only (``python -m benchmarks context``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .. import timeline
from ..model import FactVersion
from .keyword import STOPWORDS

FACT_SHARE = 0.2  # facts take at most this share of the budget
COMPACT_BELOW = 1200  # smaller budgets get the short preamble and dates without times
TOKENS_PER_FACT_LINE = 150  # one fact line per this many tokens of budget
TOKENS_PER_EPISODE_LINE = 18  # episode lines considered: budget / this (LoCoMo turns ~30)
MAX_SEARCH_DEPTH = 80
MAX_EPISODE_TOKENS = 160  # one episode line takes at most this much of the budget
MIN_EPISODE_TOKENS = 40


def fact_lines_for(budget_tokens: int) -> int:
    """How many fact lines a block of this budget may hold (200 -> 1, 500 -> 3, 1000 -> 6)."""
    return max(0, budget_tokens // TOKENS_PER_FACT_LINE)


def fact_rank_cutoff(n_facts: int) -> int:
    """A fact is considered for a line only when search ranked it this high among all
    results: the block's few fact lines go to clearly relevant facts (200 -> top 4, 500 ->
    top 8), never to a loosely matching fact that happens to fit."""
    return 2 * n_facts + 2


def episode_lines_for(budget_tokens: int) -> int:
    """How many episodes a block of this budget considers, best first."""
    return max(1, min(60, budget_tokens // TOKENS_PER_EPISODE_LINE))


def episode_tokens_for(budget_tokens: int) -> int:
    """The most one episode line may take: its best-matching chunk, cut at a word, so one
    long turn does not crowd out the others (200 -> 50, 500 -> 125, 1000+ -> 160)."""
    return max(MIN_EPISODE_TOKENS, min(MAX_EPISODE_TOKENS, budget_tokens // 4))


def search_depth(n_facts: int, n_episodes: int) -> int:
    """The search limit behind a block: room for its episodes and facts (and spares for
    collapsed duplicates and entities, which get no line)."""
    return max(10, min(MAX_SEARCH_DEPTH, n_episodes + 3 * n_facts + 5))


@dataclass(frozen=True)
class FactGroup:
    """One fact line: the best-ranked version and the near-duplicates it stands for."""

    versions: tuple[FactVersion, ...]

    @property
    def lead(self) -> FactVersion:
        return self.versions[0]

    @property
    def count(self) -> int:
        """How many times it was said: its distinct source episodes (or versions)."""
        eps = {e for v in self.versions for e in v.episodes}
        return max(len(eps), len(self.versions))

    def said_between(self) -> tuple[datetime, datetime] | None:
        """(first, last) time the group's facts hold from, when it folds several."""
        if len(self.versions) < 2:
            return None
        ts = sorted(v.valid_at or v.created_at for v in self.versions)
        return ts[0], ts[-1]

    def current_at(self, valid_at: datetime) -> bool:
        return not timeline.ended_by(valid_at, self.lead.invalid_at)


_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _same_word(x: str, y: str) -> bool:
    """Equal, or one a prefix of the other of at least 3 letters (dog/dogs, pup/puppy)."""
    short, long_ = sorted((x, y), key=len)
    return x == y or (len(short) >= 3 and long_.startswith(short))


def near_duplicates(a: FactVersion, b: FactVersion) -> bool:
    """The same statement twice: equal text, or the same subject and predicate with
    objects (what follows the words both texts share) that share a content word ("has pet
    dog" / "has pet dogs", "likes pizza" / "likes pizza margherita"; not "likes sushi")."""
    wa, wb = _words(a.fact), _words(b.fact)
    if wa == wb:
        return True
    if (a.subject_id, a.predicate) != (b.subject_id, b.predicate):
        return False
    if a.object_id == b.object_id:
        return True
    n = 0
    while n < min(len(wa), len(wb)) and wa[n] == wb[n]:
        n += 1
    oa = [w for w in wa[n:] if w not in STOPWORDS]
    ob = [w for w in wb[n:] if w not in STOPWORDS]
    if not oa or not ob:  # one object is the other's leading words: "pizza" / "pizza x"
        return True
    return any(_same_word(x, y) for x in oa for y in ob)


def collapse_facts(ranked: Sequence[FactVersion]) -> list[FactGroup]:
    """Facts in rank order, near-duplicates folded into the first (best-ranked) of them."""
    groups: list[list[FactVersion]] = []
    seen: set[str] = set()
    for v in ranked:
        if v.fact_id in seen:
            continue
        seen.add(v.fact_id)
        for g in groups:
            if near_duplicates(g[0], v):
                g.append(v)
                break
        else:
            groups.append([v])
    return [FactGroup(tuple(g)) for g in groups]


_WHEN = re.compile(r"\b(when|what (year|month|date|day|time)|which (year|month|day)|how long"
                   r"|since|until|dates?)\b", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """The question asks for a time ("when did...", "what year...", "how long..."): a fact
    line earns its tokens with its date even when the episode that states it is shown."""
    return _WHEN.search(query) is not None
