"""Ranking with time and weight: recency as a prior, and the Generative-Agents score.

**Recency** of an item is ``0.5 ** (age / half_life)``, its age measured against the time
the question is asked (``reference_time``, else ``known_at``; never the wall clock): 1.0 for
what was said at that instant (or after it), 0.5 one half-life before. What has a time:

* an episode: when it was said (``reference_time``);
* a fact: when its best-matching source episode was said (the one it lifts, see
  ``source_first`` in :mod:`kgmem.retrieve.ordering`; the latest said when none of them is a
  candidate), else when it was learnt (``created_at``). Not ``valid_at``: "born in 1980" is
  not an old memory when it was told yesterday;
* an entity has none: its score is left as it is.

**Two ranking modes** (``ranking=``):

* ``"fused"`` (default): the fused score (rank fusion, neighbours, the time the query names,
  facts under their episodes) times the prior ``(1 - RECENCY_WEIGHT) + RECENCY_WEIGHT *
  recency``; with the half-life off (``0``) nothing changes.
* ``"generative_agents"``: the retrieval score of Park et al. 2023 (Generative Agents, sec.
  4.1): ``recency + importance + relevance`` with all weights 1, each min-max normalised to
  [0, 1] over the candidates (here divided by 3, which keeps the order and the scale [0, 1]).
  Relevance is the fused score; importance comes from what the extractor found
  (:mod:`kgmem.retrieve.importance`); recency as above (the paper decays by 0.995 per game
  hour since last access; kgmem uses the configurable half-life since said).

**A question that names a time** ("what did I do in 2019?") is not pulled to recent items:
recency is left out of both modes (the prior is not applied; the Generative-Agents score
drops its recency term) and the time it names weighs as before (``_weigh_time``: inside the
window first). The reason: such a question asks about that time, and any decay measured from
the asking instant would favour the end of the window nearest to now, or recent items outside
it, over what was said then.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol, get_args

from ..errors import InvalidInputError
from ..model import FactVersion
from ..store.base import TimeFilter
from ..timeline import age_micros
from ..timeutil import to_micros
from . import importance

Ranking = Literal["fused", "generative_agents"]
RANKINGS: tuple[str, ...] = get_args(Ranking)
Key = tuple[str, str]  # (kind, id)

# 0 = off. Decided by measuring on LoCoMo dev conversations 0-4 and Zyphra (see
# benchmarks/results/2026-12-02/recency/README.md).
DEFAULT_HALF_LIFE_DAYS = 0.0
MAX_HALF_LIFE_DAYS = 1_000_000.0
RECENCY_WEIGHT = 0.2  # the share of an item's fused score that its age can take away
DAY_MICROS = 86_400_000_000


@dataclass(frozen=True)
class RankingDefaults:
    """A memory's defaults for the ranking options a search leaves unset (``None``);
    ``open_memory`` reads them from the settings (``KGMEM_RANKING``,
    ``KGMEM_RECENCY_HALF_LIFE_DAYS``)."""

    ranking: Ranking = "fused"
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS

    def __post_init__(self) -> None:
        check_ranking(self.ranking)
        check_half_life(self.half_life_days)


def check_ranking(value: object) -> Ranking:
    """``value`` if it names a ranking mode, else InvalidInputError (field ``ranking``)."""
    if not isinstance(value, str) or value not in RANKINGS:
        raise InvalidInputError(
            f"ranking must be one of {', '.join(RANKINGS)}; got {value!r}", field="ranking"
        )
    return value  # type: ignore[return-value]


def check_half_life(value: object) -> float:
    """A half-life in days (0 = recency off), else InvalidInputError (``half_life_days``)."""
    if (not isinstance(value, (int, float)) or isinstance(value, bool)
            or not math.isfinite(value) or not 0.0 <= value <= MAX_HALF_LIFE_DAYS):
        raise InvalidInputError(
            f"half_life_days must be a number of days from 0 (off) to {MAX_HALF_LIFE_DAYS:g}; "
            f"got {value!r}", field="half_life_days",
        )
    return float(value)


def defaults_of(memory: object) -> RankingDefaults:
    """The ranking defaults of a memory (the built-in ones when it has none)."""
    found = getattr(memory, "ranking_defaults", None)
    return found if isinstance(found, RankingDefaults) else RankingDefaults()


def decay(age_us: int, half_life_days: float) -> float:
    """Recency of something ``age_us`` microseconds old: ``0.5 ** (age / half_life)``;
    1.0 for every age when the half-life is 0 (off)."""
    if half_life_days == 0:
        return 1.0
    return float(0.5 ** (max(age_us, 0) / (half_life_days * DAY_MICROS)))


def prior(recency: float) -> float:
    """The factor the fused mode multiplies a score by: from ``1 - RECENCY_WEIGHT`` (very
    old) to 1.0 (said at the asking instant)."""
    return (1.0 - RECENCY_WEIGHT) + RECENCY_WEIGHT * recency


def minmax(values: Mapping[Key, float]) -> dict[Key, float]:
    """Values scaled to [0, 1] (min 0, max 1); all 0 when they are all equal."""
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    span = hi - lo
    return {k: (v - lo) / span if span > 0 else 0.0 for k, v in values.items()}


class _Reads(Protocol):
    """What the stages read (a :class:`kgmem.store.search_reads.SearchReads` has them)."""

    def episode_stamps(self, group: str, ids: Sequence[str]) -> dict[str, tuple[int, int]]: ...
    def facts_from_episodes(
        self, group: str, episode_ids: Sequence[str], when: TimeFilter, limit: int
    ) -> list[FactVersion]: ...


def item_times(
    reads: _Reads, group: str, keys: Sequence[Key], facts: Mapping[str, FactVersion],
    fused: Mapping[Key, float],
) -> dict[Key, int]:
    """When each episode and fact among ``keys`` was said (micros; see the module
    docstring); entities and episodes erased meanwhile have none."""
    ep_ids = [i for k, i in keys if k == "episode"]
    sources = [e for k, i in keys if k == "fact" and i in facts for e in facts[i].episodes]
    stamps = reads.episode_stamps(group, ep_ids + sources)
    out: dict[Key, int] = {}
    for key in keys:
        kind, ident = key
        if kind == "episode" and ident in stamps:
            out[key] = stamps[ident][1]
        elif kind == "fact" and ident in facts:
            said = [e for e in facts[ident].episodes if e in stamps]
            reached = [e for e in said if ("episode", e) in fused]
            if reached:  # the source it lifts: the best-matching one (first on ties)
                best = max(reached, key=lambda e: (fused[("episode", e)], -said.index(e)))
                out[key] = stamps[best][1]
            elif said:
                out[key] = max(stamps[e][1] for e in said)
            else:
                out[key] = to_micros(facts[ident].created_at)
    return out


def recency_of(times: Mapping[Key, int], asked: datetime, half_life_days: float
               ) -> dict[Key, float]:
    """Each timed item's recency at the asking instant."""
    at = to_micros(asked)
    return {k: decay(age_micros(t, at), half_life_days) for k, t in times.items()}


def weigh_recency(
    reads: _Reads, group: str, fused: dict[Key, float], facts: Mapping[str, FactVersion],
    parts: dict[Key, dict[str, float]], asked: datetime, half_life_days: float,
) -> None:
    """The fused mode's prior, in place: each timed item's score times :func:`prior` of its
    recency (noted as ``parts["recency"]``)."""
    if half_life_days == 0 or not fused:
        return
    times = item_times(reads, group, list(fused), facts, fused)
    for key, r in recency_of(times, asked, half_life_days).items():
        parts.setdefault(key, {})["recency"] = r
        fused[key] *= prior(r)


def importances(
    reads: _Reads, group: str, keys: Sequence[Key], facts: Mapping[str, FactVersion],
    when: TimeFilter,
) -> dict[Key, float]:
    """Each item's importance (:mod:`kgmem.retrieve.importance`): a fact by its predicate,
    an episode by the facts extracted from it (as known at ``when.known_at``, at any valid
    time: "I lived in Boston" stays a life event after the move), an entity 0.4."""
    ep_ids = [i for k, i in keys if k == "episode"]
    said: dict[str, list[str]] = {}
    if ep_ids:
        wanted = set(ep_ids)
        extracted = replace(when, valid_to=None, any_valid=True)
        for v in reads.facts_from_episodes(group, ep_ids, extracted, 50 * len(ep_ids)):
            for e in set(v.episodes) & wanted:
                said.setdefault(e, []).append(v.predicate)
    out: dict[Key, float] = {}
    for key in keys:
        kind, ident = key
        if kind == "episode":
            out[key] = importance.of_episode(said.get(ident, ()))
        elif kind == "fact" and ident in facts:
            out[key] = importance.of_predicate(facts[ident].predicate)
        else:
            out[key] = importance.OTHER
    return out


def generative_agents(
    reads: _Reads, group: str, fused: dict[Key, float], facts: Mapping[str, FactVersion],
    parts: dict[Key, dict[str, float]], asked: datetime, half_life_days: float | None,
    when: TimeFilter, pool: int,
) -> None:
    """The Generative-Agents score, in place: the ``pool`` best items by fused score (the
    relevance) are rescored ``(recency + importance + relevance) / 3``, each min-max
    normalised over the pool; the rest drop out. ``half_life_days`` None or 0: no recency
    term (a question naming a time, or recency off)."""
    top = sorted(fused, key=lambda k: (-fused[k], k[0] != "episode"))[:pool]
    if not top:
        return
    relevance = minmax({k: fused[k] for k in top})
    imp_raw = importances(reads, group, top, facts, when)
    imp = minmax(imp_raw)
    rec: dict[Key, float] = {}
    if half_life_days:
        raw = recency_of(item_times(reads, group, top, facts, fused), asked, half_life_days)
        for k, r in raw.items():
            parts.setdefault(k, {})["recency"] = r
        # an item without a time (an entity) counts as the least recent
        rec = minmax({k: raw.get(k, 0.0) for k in top})
    for k in top:
        parts.setdefault(k, {})["importance"] = imp_raw[k]
    scores = {k: (relevance[k] + imp[k] + rec.get(k, 0.0)) / 3.0 for k in top}
    fused.clear()
    fused.update(scores)
