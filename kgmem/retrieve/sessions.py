"""Session search: which sittings of a conversation hold the answer.

A session is a run of episodes whose reference times are at most ``session_gap`` apart (the
same rule as the conversation-context lift and "in our last session" queries:
:func:`kgmem.retrieve.timefilter.session_bounds`). Sessions are ranked by two signals, fused
with reciprocal-rank fusion (``rrf_k``):

* ``episodes``: the session's best hits of the ordinary hybrid search
  (:func:`kgmem.retrieve.search.run_search`, episodes and facts; a fact counts for the episode
  it came from): the sum of its best ``SESSION_TOP`` fused scores, so several matching turns
  beat a single one;
* ``keyword``: how much of the question the session covers, each content word counted once per
  session and weighted by its rarity across sessions (BM25's IDF over sessions). A question
  whose words are spread over several turns of one sitting ("what did Melanie paint after the
  camping trip?") finds that sitting even when no single turn matches well. A word said in more
  than ``TERM_CAP`` episodes is too common to tell sessions apart and is skipped.

Time rules are the search's: only episodes visible at ``known_at`` and said by ``valid_at``
(when given) count, and a time window the query names strictly (a day, a session reference)
limits both signals to it. The settings (``SESSION_TOP``, ``SESSION_RRF_K``) were chosen on
LoCoMo conversations 0-4 only (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from datetime import datetime, timedelta

from ..embed.base import Embedder
from ..errors import InvalidInputError
from ..timeutil import from_micros, to_micros
from .backend import get_backend
from .fuse import rrf
from .models import SessionParts, SessionResult
from .search import SESSION_GAP, Searchable, SearchOutcome, SearchParams, run_search
from .timefilter import session_bounds

SESSION_TOP = 3  # a session's episode score sums its best 3 hits
SESSION_RRF_K = 5
TERM_CAP = 1000  # a word in more episodes than this does not tell sessions apart
SEARCH_DEPTH = 100  # search hits aggregated into sessions


def search_sessions(
    memory: Searchable,
    query: str,
    valid_at: datetime | str | None = None,
    known_at: datetime | str | None = None,
    limit: int = 10,
    group: str = "default",
    reference_time: datetime | str | None = None,
    *,
    embedder: Embedder | None = None,
    session_gap: timedelta = SESSION_GAP,
    depth: int = SEARCH_DEPTH,
    rrf_k: int = SESSION_RRF_K,
) -> list[SessionResult]:
    """The sessions most likely to hold the answer to ``query``, best first (see the module
    docstring). ``depth``: how many search hits are aggregated into sessions."""
    for name, value in (("limit", limit), ("depth", depth)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
            raise InvalidInputError(f"{name} must be an integer from 1 to 1000", field=name)
    outcome = run_search(memory, SearchParams(
        query, valid_at, known_at, max(depth, limit), ("episodes", "facts"), group,
        reference_time, embedder=embedder, session_gap=session_gap,
    ))
    return rank_sessions(memory, outcome, group, limit=limit, embedder=embedder,
                         session_gap=session_gap, rrf_k=rrf_k)


def rank_sessions(
    memory: Searchable,
    outcome: SearchOutcome,
    group: str = "default",
    *,
    limit: int = 10,
    embedder: Embedder | None = None,
    session_gap: timedelta = SESSION_GAP,
    rrf_k: int = SESSION_RRF_K,
) -> list[SessionResult]:
    """Sessions ranked from a finished search (``outcome`` of :func:`run_search` over episodes
    and facts) plus the session-level keyword coverage of its query."""
    backend = get_backend(memory, embedder)
    K = outcome.known_at
    times = backend.episode_times(group, K)  # ascending
    bounds = session_bounds(times, session_gap)
    if not bounds:
        return []
    starts = [b[0] for b in bounds]

    def session_of(ref_micros: int) -> int | None:
        i = bisect_right(starts, ref_micros) - 1
        return i if i >= 0 and ref_micros <= bounds[i][1] else None

    # search hits, each standing for one episode (a fact for its best source episode)
    hits: dict[str, float] = {}  # each episode once, at its best (first) hit
    refs: dict[str, int] = {}  # reference times the search already read
    for r in outcome.results:
        eid = r.id if r.kind == "episode" else (r.episode_ids[0] if r.episode_ids else None)
        if eid is not None:
            hits.setdefault(eid, r.score)
        if r.kind == "episode" and r.reference_time is not None:
            refs[r.id] = to_micros(r.reference_time)
    refs.update((i, to_micros(ep.reference_time)) for i, ep in outcome.episodes.items())

    tw = outcome.time_window
    window = (tw.start, tw.end) if tw is not None and tw.hard and tw.start and tw.end else None
    # which sessions say each content word (membership only, capped)
    said = {
        word: found
        for word, found in backend.episodes_saying(
            group, outcome.terms, TERM_CAP, K, outcome.ref_max, window
        ).items()
        if 0 < len(found) < TERM_CAP
    }
    missing = [e for e in hits if e not in refs]  # source episodes of facts, mostly
    if missing:
        refs.update((i, st[1]) for i, st in backend.episode_stamps(group, missing).items())

    def sess(eid: str) -> int | None:
        ref = refs.get(eid)
        return None if ref is None else session_of(ref)

    scores: dict[int, list[float]] = {}
    members: dict[int, list[str]] = {}
    for eid, score in hits.items():
        s = sess(eid)
        if s is None:
            continue
        scores.setdefault(s, []).append(score)
        if eid not in members.setdefault(s, []):
            members[s].append(eid)
    by_episodes = {s: sum(sorted(v, reverse=True)[:SESSION_TOP]) for s, v in scores.items()}

    n = len(bounds)
    coverage: dict[int, float] = {}
    for found in said.values():
        where: dict[int, str] = {}
        for eid, ref in found:
            s = session_of(ref)
            if s is not None:
                where.setdefault(s, eid)
        df = len(where)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for s, eid in where.items():
            coverage[s] = coverage.get(s, 0.0) + idf
            if eid not in members.setdefault(s, []):
                members[s].append(eid)

    def order(d: dict[int, float]) -> list[int]:
        return sorted(d, key=lambda s: (-d[s], s))

    rank_e = order(by_episodes)
    rank_k = order(coverage)
    fused = rrf({"episodes": rank_e, "keyword": rank_k}, k=rrf_k)
    pos_e = {s: i + 1 for i, s in enumerate(rank_e)}
    pos_k = {s: i + 1 for i, s in enumerate(rank_k)}
    best = sorted(fused, key=lambda s: (-fused[s], -by_episodes.get(s, 0.0), s))[:limit]
    out: list[SessionResult] = []
    for s in best:
        first, last = bounds[s]
        size = bisect_right(times, last) - bisect_right(times, first - 1)
        out.append(SessionResult(
            id=from_micros(first).isoformat(),
            start=from_micros(first),
            end=from_micros(last),
            score=fused[s],
            episodes=size,
            episode_ids=members.get(s, []),
            parts=SessionParts(
                episodes=by_episodes.get(s), keyword=coverage.get(s),
                episodes_rank=pos_e.get(s), keyword_rank=pos_k.get(s),
            ),
        ))
    return out


__all__ = ["SESSION_RRF_K", "SESSION_TOP", "rank_sessions", "search_sessions"]
