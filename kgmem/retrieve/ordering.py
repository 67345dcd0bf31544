"""How search orders what it found against each other, after fusion (:mod:`kgmem.retrieve.search`):

* a fact never outranks the verbatim episode that states it (:func:`source_first`), and a
  fact's first source is the one that best matches the query (:func:`best_sources`);
* what is true first: the current fact that replaced a superseded episode's statement rises
  just above that episode (:func:`current_first`, :mod:`kgmem.retrieve.currency`);
* an entity ranks just below the best fact about it (:func:`facts_before_their_entities`).

Each step works in place on the fused scores, keyed ``(kind, id)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..model import FactVersion
from ..store.search_reads import SearchReads
from ..timeutil import from_micros
from .currency import superseded_snippets

Key = tuple[str, str]  # (kind, id)
CURRENCY_DEPTH = 10  # the best episodes checked for statements no longer current


def facts_before_their_entities(facts: Mapping[str, FactVersion],
                                fused: dict[Key, float]) -> None:
    """An entity ranks just below the best fact about it, in place: the name alone
    ("Maya") says less than what is known of it ("Maya lives in Denver")."""
    best: dict[str, float] = {}
    for (kind, ident), s in fused.items():
        if kind == "fact" and ident in facts:
            v = facts[ident]
            for e in (v.subject_id, v.object_id):
                best[e] = max(best.get(e, 0.0), s)
    for e, s in best.items():
        key = ("entity", e)
        if key in fused and fused[key] >= s:
            fused[key] = s * (1 - 1e-6)


def current_first(memory: Any, backend: SearchReads, group: str, valid_at: datetime,
                  known_at: datetime, fused: dict[Key, float],
                  note: Callable[[Key, str, float], None]) -> None:
    """What is true first, in place: a best-ranked episode whose statement no longer holds
    at (valid_at, known_at) (:mod:`kgmem.retrieve.currency`: "I live in Boston" after the move
    to Denver) is marked ``superseded`` and the current fact that replaced it rises just above
    it (it answers the question the old episode matched). The episode keeps its score and its
    place among episodes: it is still the evidence of what held before, which questions about
    the past ask for (halving it cost 1.4 points of LoCoMo held-out turn any@10)."""
    top = sorted((i for k, i in fused if k == "episode"),
                 key=lambda i: -fused[("episode", i)])[:CURRENCY_DEPTH]
    if not top:
        return
    said = backend.episode_stamps(group, top)
    stale = superseded_snippets(memory, backend, group, top, valid_at, known_at,
                                {i: from_micros(v[1]) for i, v in said.items()})
    for ep_id, notes in stale.items():
        key = ("episode", ep_id)
        was = fused[key]
        note(key, "superseded", 1.0)
        for n in notes:
            if n.by_fact_id is None:
                continue
            fkey = ("fact", n.by_fact_id)
            if fkey in fused:  # a candidate of this search (visible, of a wanted kind)
                fused[fkey] = max(fused[fkey], was * (1 + 1e-6))


def source_first(
    fused: dict[Key, float], facts: Mapping[str, FactVersion], parts: dict[Key, dict[str, float]]
) -> None:
    """A fact never outranks the verbatim episode that states it: that episode (the fact's
    best-matching source, when it is a candidate) rises to at least the fact's score, in
    place. An extracted fact is a
    lossy paraphrase of its episode; the episode keeps the wording, speaker and time."""
    lift: dict[str, float] = {}
    arrival = {k: n for n, k in enumerate(fused)}
    for key, s in fused.items():
        if key[0] != "fact" or key[1] not in facts:
            continue
        src = best_sources(facts[key[1]].episodes, fused, arrival)
        if src:
            lift[src[0]] = max(lift.get(src[0], 0.0), s)
    for e, s in lift.items():
        key = ("episode", e)
        if key in fused and s > fused[key]:  # only episodes this search may show
            fused[key] = s
            parts.setdefault(key, {})["fact"] = s


def best_sources(
    episode_ids: Sequence[str], fused: Mapping[Key, float], arrival: Mapping[Key, int]
) -> list[str]:
    """A fact's source episodes, the one that best matches this query first: by fused score,
    equal scores in the order the episode list ranks them (``arrival``), so the first source
    of a fact is never an episode ranked below another of its sources with the same score;
    episodes the search did not reach keep their stored order, after those it did."""
    order = {e: n for n, e in enumerate(episode_ids)}
    unseen = len(arrival)

    def key(e: str) -> tuple[float, int, int]:
        k = ("episode", e)
        return -fused.get(k, 0.0), arrival.get(k, unseen), order[e]

    return sorted(dict.fromkeys(episode_ids), key=key)
