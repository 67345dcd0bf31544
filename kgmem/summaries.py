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

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from . import timeline
from .model import Episode, FactVersion
from .store.base import SummaryHistory, SummaryVersion
from .timeutil import Precision, format_with_precision
from .trust import is_suspect

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
    seen: set[tuple[str, str]] = set()
    now: list[FactVersion] = []
    before: list[FactVersion] = []
    for v in versions:
        key = (v.fact, _fact(v))
        if key in seen:
            continue
        seen.add(key)
        (now if v.invalid_at is None else before).append(v)
    now = _newest_first(now)
    before = sorted(before, key=lambda v: (v.invalid_at.isoformat() if v.invalid_at else "",
                                           v.fact), reverse=True)
    parts: list[str] = []
    if now:
        parts.append("Now: " + "; ".join(_fact(v) for v in now[:MAX_NOW])
                     + (f" (and {len(now) - MAX_NOW} more)" if len(now) > MAX_NOW else "") + ".")
    if before:
        parts.append("Before: " + "; ".join(_fact(v) for v in before[:MAX_BEFORE])
                     + (f" (and {len(before) - MAX_BEFORE} more)"
                        if len(before) > MAX_BEFORE else "") + ".")
    quoted = _telling(now, episodes) or _telling(before, episodes)
    for ep in quoted:
        who = f"{ep.speaker}, " if ep.speaker else ""
        parts.append(f"Said: “{_excerpt(ep.content)}” ({who}{_when(ep.reference_time, None)}).")
    return " ".join(parts), tuple(ep.id for ep in quoted)


def _newest_first(vs: list[FactVersion]) -> list[FactVersion]:
    known = [v for v in vs if v.valid_at is not None]
    unknown = [v for v in vs if v.valid_at is None]
    known.sort(key=lambda v: (v.valid_at, v.fact), reverse=True)
    unknown.sort(key=lambda v: v.fact)
    return known + unknown


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


def advance(old: SummaryHistory, versions: Sequence[FactVersion],
            episodes: Mapping[str, Episode], now: datetime) -> SummaryHistory:
    """``old`` brought up to ``now``: a version for each instant from ``old.through`` on (that
    one again: a later write may share its instant) up to ``now`` where the built text
    changes. A history whose provenance links no longer match is rebuilt from the start."""
    n = links(versions)
    through = None if old.links != n else old.through
    hist = [] if through is None else _reopen_at(list(old.versions), through)
    for t in instants(versions, episodes):
        if through is not None and timeline.changed_after(through, None, t):
            continue  # before the mark: built already
        if not timeline.recorded_by(t, now):
            break  # after now: not known yet
        text, quoted = summary_at(versions, episodes, t)
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
