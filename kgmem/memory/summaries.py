"""Entity summaries: consolidation built offline from what the memory knows, versioned in
transaction time.

A summary is **derived data**: the summary of an entity *as known at K* is a function of the
facts about it as known at K (every version whose transaction interval holds K, whatever its
valid time) and of the episodes behind them that were stored by K:

    summary_at(K) == build(versions known at K, episodes stored by K)

:func:`build` is that function (deterministic, no LLM, no clock: a fact's valid time is
written as its dates, never judged against "now", so a summary changes only when the memory
learns or revises something). The stored history is :func:`advance` of that function over the
instants where its inputs change (a version created or expired, a supporting episode stored),
so the history agrees with the facts as known at every K and can always be rebuilt from them.

Text: the facts that hold open-ended first ("Now: ..."), newest start first, then those whose
end is known ("Before: ..."), then at most two quotes from the most telling episodes (those
behind the most open-ended facts, newest first; when no open-ended fact has an episode, those
behind the ended ones). An episode from an untrusted source or with
instruction-like text (kgmem.trust) is never quoted; the facts it supports are listed as facts.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime

from .. import timeline
from ..model import Episode, FactVersion
from ..store.base import SummaryHistory, SummaryVersion
from ..timeutil import Precision, format_with_precision
from ..trust import is_suspect

MAX_NOW = 10  # open-ended facts listed
MAX_BEFORE = 5  # ended facts listed (latest end first)
MAX_QUOTES = 2  # episode excerpts
QUOTE_CHARS = 140


def _when(t: datetime | None, p: Precision | str | None) -> str:
    if t is None:
        return "?"
    if p is None or Precision(p) is Precision.INSTANT:
        if t.hour == t.minute == t.second == t.microsecond == 0:
            return t.date().isoformat()
        return t.strftime("%Y-%m-%d %H:%M")
    return format_with_precision(t, p)


def _fact(v: FactVersion) -> str:
    start = None if v.valid_at is None else _when(v.valid_at, v.valid_precision)
    end = None if v.invalid_at is None else _when(v.invalid_at, v.invalid_precision)
    if start and end:
        return f"{v.fact} ({start} to {end})"
    if start:
        return f"{v.fact} (since {start})"
    if end:
        return f"{v.fact} (until {end})"
    return v.fact


def _excerpt(text: str) -> str:
    one = " ".join(text.split())
    if len(one) <= QUOTE_CHARS:
        return one
    cut = one[:QUOTE_CHARS].rsplit(" ", 1)[0] or one[:QUOTE_CHARS]
    return cut + "…"


def build(versions: Sequence[FactVersion], episodes: Mapping[str, Episode]
          ) -> tuple[str, tuple[str, ...]]:
    """The summary text of the facts ``versions`` (those about one entity known at one K)
    and the ids of the episodes it quotes, drawn from ``episodes`` (those stored by K)."""
    if not versions:
        return "", ()
    seen: set[tuple[object, ...]] = set()
    now: list[FactVersion] = []  # one per line shown
    before: list[FactVersion] = []
    open_all: list[FactVersion] = []  # every version, for the episodes behind them
    ended_all: list[FactVersion] = []
    for v in versions:
        (open_all if v.invalid_at is None else ended_all).append(v)
        key = (v.fact, v.valid_at, v.valid_precision, v.invalid_at, v.invalid_precision)
        if key in seen:  # the same line twice (one text, two lineages)
            continue
        seen.add(key)
        (now if v.invalid_at is None else before).append(v)
    now_shown = _newest_first(now, MAX_NOW)
    before_shown = heapq.nlargest(MAX_BEFORE, before, key=lambda v: (v.invalid_at, v.fact))
    parts: list[str] = []
    if now:
        parts.append("Now: " + "; ".join(_fact(v) for v in now_shown)
                     + (f" (and {len(now) - MAX_NOW} more)" if len(now) > MAX_NOW else "") + ".")
    if before:
        parts.append("Before: " + "; ".join(_fact(v) for v in before_shown)
                     + (f" (and {len(before) - MAX_BEFORE} more)"
                        if len(before) > MAX_BEFORE else "") + ".")
    quoted = _telling(open_all, episodes) or _telling(ended_all, episodes)
    for ep in quoted:
        who = f"{ep.speaker}, " if ep.speaker else ""
        parts.append(f"Said: “{_excerpt(ep.content)}” ({who}{_when(ep.reference_time, None)}).")
    return " ".join(parts), tuple(ep.id for ep in quoted)


def _newest_first(vs: list[FactVersion], n: int) -> list[FactVersion]:
    """The first ``n`` of ``vs`` by start, newest first, then those of unknown start by text."""
    known = heapq.nlargest(n, (v for v in vs if v.valid_at is not None),
                           key=lambda v: (v.valid_at, v.fact))
    if len(known) == n:
        return known
    return known + heapq.nsmallest(n - len(known), (v for v in vs if v.valid_at is None),
                                   key=lambda v: v.fact)


def _telling(vs: Sequence[FactVersion], episodes: Mapping[str, Episode]) -> list[Episode]:
    """The episodes behind most of ``vs``, newest said first; never a suspect one."""
    support: dict[str, int] = {}
    for v in vs:
        for eid in set(v.episodes):
            ep = episodes.get(eid)
            if ep is not None and not is_suspect(ep.trust, ep.flags):
                support[eid] = support.get(eid, 0) + 1
    ranked = sorted(support, key=lambda e: (episodes[e].reference_time, e), reverse=True)
    ranked.sort(key=lambda e: -support[e])  # stable: newest said first among equals
    out = [episodes[e] for e in ranked]
    return out[:MAX_QUOTES]


def known_at(versions: Iterable[FactVersion], k: datetime) -> list[FactVersion]:
    """The versions the memory held at transaction time ``k``."""
    return [v for v in versions if timeline.in_interval(k, v.created_at, v.expired_at)]


def stored_by(episodes: Mapping[str, Episode], k: datetime) -> dict[str, Episode]:
    return {i: e for i, e in episodes.items() if timeline.recorded_by(e.created_at, k)}


def summary_at(versions: Sequence[FactVersion], episodes: Mapping[str, Episode], k: datetime
               ) -> tuple[str, tuple[str, ...]]:
    """The reference: the summary as known at ``k``, built from scratch."""
    return build(known_at(versions, k), stored_by(episodes, k))


def links(versions: Iterable[FactVersion]) -> int:
    """(fact, episode) provenance links behind ``versions`` (provenance is not versioned:
    when it changes under an instant already built, the history is rebuilt)."""
    return len({(v.fact_id, e) for v in versions for e in v.episodes})


def instants(versions: Iterable[FactVersion], episodes: Mapping[str, Episode]
             ) -> list[datetime]:
    """Every instant at which the inputs of the summary may change, in order."""
    ts: set[datetime] = set()
    for v in versions:
        ts.add(v.created_at)
        if v.expired_at is not None:
            ts.add(v.expired_at)
    ts.update(e.created_at for e in episodes.values())
    return sorted(ts)


def _reopen_at(hist: list[SummaryVersion], t: datetime) -> list[SummaryVersion]:
    """The history as it stood just before instant ``t``: the version made at ``t`` removed,
    the one it closed open again."""
    out = [v for v in hist if v.created_at != t]
    if out and out[-1].expired_at == t:
        v = out[-1]
        out[-1] = SummaryVersion(v.text, v.created_at, None, v.episodes)
    return out


def _sweep(versions: Sequence[FactVersion], episodes: Mapping[str, Episode],
           ts: Sequence[datetime]) -> Iterator[tuple[datetime, list[FactVersion],
                                                     dict[str, Episode]]]:
    """For each instant of ``ts`` (ascending): the versions known then and the episodes
    stored by then (what :func:`known_at` and :func:`stored_by` give, kept up in one pass)."""
    by_created = sorted(versions, key=lambda v: v.created_at)
    eps = sorted(episodes.values(), key=lambda e: e.created_at)
    active: dict[str, FactVersion] = {}
    expiries: list[tuple[datetime, str]] = []
    stored: dict[str, Episode] = {}
    i = j = 0
    for t in ts:
        while i < len(by_created) and timeline.recorded_by(by_created[i].created_at, t):
            v = by_created[i]
            active[v.id] = v
            if v.expired_at is not None:
                heapq.heappush(expiries, (v.expired_at, v.id))
            i += 1
        while expiries and timeline.ended_by(t, expiries[0][0]):
            active.pop(heapq.heappop(expiries)[1], None)
        while j < len(eps) and timeline.recorded_by(eps[j].created_at, t):
            stored[eps[j].id] = eps[j]
            j += 1
        yield t, list(active.values()), stored


def advance(old: SummaryHistory, versions: Sequence[FactVersion],
            episodes: Mapping[str, Episode], now: datetime) -> SummaryHistory:
    """``old`` brought up to ``now``: a version for each instant from ``old.through`` on (that
    one again: a later write may share its instant) up to ``now`` where the built text
    changes. A history whose provenance links no longer match is rebuilt from the start."""
    n = links(versions)
    through = None if old.links != n else old.through
    hist = [] if through is None else _reopen_at(list(old.versions), through)
    ts = [t for t in instants(versions, episodes) if timeline.recorded_by(t, now)]
    for t, known, stored in _sweep(versions, episodes, ts):
        if through is not None and timeline.changed_after(through, None, t):
            continue  # before the mark: built already
        text, quoted = build(known, stored)
        through = t
        current = hist[-1] if hist and hist[-1].expired_at is None else None
        if (current.text if current else "") == text:
            continue
        if current is not None:
            hist[-1] = SummaryVersion(current.text, current.created_at, t, current.episodes)
        if text:
            hist.append(SummaryVersion(text, t, None, quoted))
    return SummaryHistory(tuple(hist), through, n)


def text_at(history: SummaryHistory, k: datetime) -> str:
    """The stored summary as known at ``k`` ("" before the first, or when it had none)."""
    for v in history.versions:
        if timeline.in_interval(k, v.created_at, v.expired_at):
            return v.text
    return ""
