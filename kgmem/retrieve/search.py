"""Hybrid, time-aware search over facts, entities and episodes.

Candidates come from three kinds of signal, each a ranked list:

* **keyword**: BM25 over episodes, fact texts and entity names (FTS5 on the embedded store);
* **vector**: cosine over embeddings (an episode scores by its best chunk);
* **graph**: facts adjacent to entities named in the query (exact name or alias match on the
  query's word n-grams), and those entities themselves;

plus a **time** list when the query mentions a time (see :mod:`kgmem.retrieve.timefilter`).
Lists are fused with reciprocal rank fusion (``rrf_k``, default 5: a first place in one list
counts more than agreement low in two); MMR diversity is optional (``diversity=``).

**Facts next to episodes.** Extracted facts are short paraphrases that name their entities.
A name adjacent to more than ``COMMON_NAME_FACTS`` visible facts (the people a conversation is
about) does not make a fact match by itself: keyword and vector matching of facts use what the
query asks about such names, and graph facts sharing only that name are left out. A fact's
``episode_ids`` list its best-matching source episode (by fused score) first, and a candidate
episode ranks at least as high as any fact extracted from it (``parts.fact``), so a lossy fact
never outranks the verbatim turn that states it.

**Conversation context** (``neighbours=``, default 0.6): an episode gains that fraction of the
fused score of the better of the two episodes said right before and after it in the same
session (adjacent in ``(reference_time, created_at, id)`` order, within ``session_gap``). In a
dialogue the turn that matches the question is often the question itself or a reaction; the
answer is next to it. Neighbours of the best episodes join the candidates.

Visibility (strict filters, never boosts):

* facts: versions visible at ``(valid_at, known_at)`` (both default to the store's now). When
  the query mentions a time and ``valid_at`` is not given, facts valid at any moment of that
  window are visible instead ("where did Maya live in 2019?").
* entities: stored by ``known_at``.
* episodes: an episode is visible at ``known_at`` iff it was stored by then
  (``created_at <= known_at``); when ``valid_at`` is given explicitly, only episodes said by
  then (``reference_time <= valid_at``) are visible too ("what had been said as of V").
* a day-precise time (or session) in the query keeps only episodes said in that window or
  mentioning a time inside it; broader periods boost instead (see timefilter).

Times in the query are resolved relative to ``reference_time`` (the asking time), which
defaults to ``known_at``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInputError
from ..model import Entity, Episode, FactVersion
from ..names import check_group, normalize_name
from ..store.base import TimeFilter
from ..timeline import SITTING_GAP
from ..timeutil import parse_instant, to_micros
from .backend import get_backend
from .fuse import mmr, rrf
from .keyword import FILLER, STOPWORDS, overlap, terms
from .models import KINDS_PLURAL, ScoreParts, SearchResult, TimeWindow
from .timefilter import event_reading, parse_query_time, session_window

DEFAULT_KINDS = ("facts", "entities", "episodes")
SESSION_GAP = SITTING_GAP
WINDOW_CAP = 5000  # episodes considered inside one time window
MIN_VECTOR_SIM = 0.0  # a vector hit must be at least this similar to count as a candidate
Key = tuple[str, str]  # (kind, id)
DEFAULT_WEIGHTS = {"window": 0.25}
# Chosen on LoCoMo conversation 0 (the dev set) only; see benchmarks/RESULTS.md.
NEIGHBOUR_WEIGHT = 0.6  # see _lift_neighbours
RRF_K = 5  # small: an item ranked first by one signal beats one ranked 30th by two
# a name adjacent to more visible facts than this is "common": a fact does not match a query
# by that name alone (chosen a priori, not tuned)
COMMON_NAME_FACTS = 3


@dataclass
class SearchOutcome:
    """Everything a search decided (used by :func:`kgmem.retrieve.context`)."""

    results: list[SearchResult]
    valid_at: datetime
    known_at: datetime
    fact_when: TimeFilter
    time_window: TimeWindow | None
    matched_entities: list[str] = field(default_factory=list)
    facts: dict[str, FactVersion] = field(default_factory=dict)
    episodes: dict[str, Episode] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)  # the query's content words (keyword side)
    ref_max: datetime | None = None  # episodes said after this are out (valid_at given)


def _kinds(kinds: Iterable[str] | str) -> set[str]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    out = set()
    for k in kinds:
        singular = KINDS_PLURAL.get(k, k)
        if singular not in KINDS_PLURAL.values():
            raise InvalidInputError(
                f"unknown kind {k!r}: use 'facts', 'entities' and/or 'episodes'", field="kinds"
            )
        out.add(singular)
    if not out:
        raise InvalidInputError("kinds must not be empty", field="kinds")
    return out


_NGRAM_WORD = re.compile(r"[^\W_][\w'’.&-]*", re.UNICODE)


def query_name_candidates(text: str, max_n: int = 4) -> list[str]:
    """Normalised word n-grams of the query that could be entity names or aliases."""
    words = [re.sub(r"['’]s$", "", w).strip(".-'’") for w in _NGRAM_WORD.findall(text)]
    words = [w for w in words if w]
    out: list[str] = []
    seen: set[str] = set()
    for n in range(1, max_n + 1):
        for i in range(len(words) - n + 1):
            norm = normalize_name(" ".join(words[i : i + n]))
            if not norm or norm in seen:
                continue
            if n == 1 and (norm in STOPWORDS or norm in FILLER or len(norm) < 2):
                continue
            seen.add(norm)
            out.append(norm)
    return out


def search(
    memory: Any,
    query: str,
    valid_at: datetime | str | None = None,
    known_at: datetime | str | None = None,
    limit: int = 10,
    kinds: Sequence[str] | str = DEFAULT_KINDS,
    group: str = "default",
    reference_time: datetime | str | None = None,
    *,
    embedder: Any = None,
    diversity: float | None = None,
    auto_index: bool = True,
    session_gap: timedelta = SESSION_GAP,
    weights: Mapping[str, float] | None = None,
    neighbours: float = NEIGHBOUR_WEIGHT,
    rrf_k: int = RRF_K,
) -> list[SearchResult]:
    """Hybrid time-aware search; best first (see the module docstring).

    ``diversity``: MMR trade-off in [0, 1] (e.g. 0.7; ``None`` = plain fusion order).
    ``auto_index``: first embed whatever writes queued (so search sees its own writes).
    ``weights``: per-list RRF weights (lists: ``keyword_episodes``, ``vector_episodes``,
    ``time``, ``window``, ``keyword_facts``, ``vector_facts``, ``graph_facts``, ``episode_facts``,
    ``graph_entities``, ``keyword_entities``, ``vector_entities``).
    ``neighbours``: how much an episode's score lifts the episodes said just before and after
    it in the same session (0 = off; see the module docstring). ``rrf_k``: the RRF constant.
    """
    return run_search(
        memory, query, valid_at, known_at, limit, kinds, group, reference_time,
        embedder=embedder, diversity=diversity, auto_index=auto_index,
        session_gap=session_gap, weights=weights, neighbours=neighbours, rrf_k=rrf_k,
    ).results


def run_search(  # noqa: C901 - one pipeline, kept in one place on purpose
    memory: Any,
    query: str,
    valid_at: datetime | str | None = None,
    known_at: datetime | str | None = None,
    limit: int = 10,
    kinds: Sequence[str] | str = DEFAULT_KINDS,
    group: str = "default",
    reference_time: datetime | str | None = None,
    *,
    embedder: Any = None,
    diversity: float | None = None,
    auto_index: bool = True,
    session_gap: timedelta = SESSION_GAP,
    weights: Mapping[str, float] | None = None,
    neighbours: float = NEIGHBOUR_WEIGHT,
    rrf_k: int = RRF_K,
) -> SearchOutcome:
    group = check_group(group)
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string", field="query")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
        raise InvalidInputError("limit must be an integer from 1 to 1000", field="limit")
    if diversity is not None and not 0.0 <= float(diversity) <= 1.0:
        raise InvalidInputError("diversity must be between 0 and 1", field="diversity")
    if not 0.0 <= float(neighbours) <= 1.0:
        raise InvalidInputError("neighbours must be between 0 and 1", field="neighbours")
    if not isinstance(rrf_k, int) or isinstance(rrf_k, bool) or rrf_k < 0:
        raise InvalidInputError("rrf_k must be a non-negative integer", field="rrf_k")
    want = _kinds(kinds)
    now = memory.now()
    V = now if valid_at is None else parse_instant(valid_at, "valid_at")
    K = now if known_at is None else parse_instant(known_at, "known_at")
    asking = K if reference_time is None else parse_instant(reference_time, "reference_time")
    ref_max = V if valid_at is not None else None

    backend = get_backend(memory, embedder)
    if auto_index:
        backend.auto_index()

    # ---------------------------------------------------------------- time in the query
    pq = parse_query_time(query, asking)
    qt = event_reading(query, pq.time)
    window: tuple[datetime, datetime] | None = None
    hard = False
    no_such_session = False
    tw: TimeWindow | None = None
    Said = list[tuple[str, int]]  # (episode id, reference time in micros)
    fetched: dict[tuple[datetime, datetime], tuple[Said, Said]] = {}

    def window_episodes(w: tuple[datetime, datetime]) -> tuple[Said, Said]:
        """Episodes said in ``w`` and episodes mentioning a time in it (read once)."""
        if w not in fetched:
            fetched[w] = (
                backend.episodes_in_window(group, w, WINDOW_CAP, K, ref_max),
                backend.episodes_mentioning_window(group, w, WINDOW_CAP, K, ref_max),
            )
        return fetched[w]

    if qt is not None:
        if qt.session is not None:
            window = session_window(qt.session, backend.episode_times(group, K), session_gap)
            hard = True
            no_such_session = window is None
        else:
            window, hard = qt.window, qt.hard
        if window is not None and not window[0] < window[1]:
            window = None
        if window is not None and hard and qt.alternatives:
            # a weekday nothing was said on: the same weekday of earlier weeks
            for alt in (window, *qt.alternatives):
                if backend.episodes_in_window(group, alt, 1, K, ref_max):
                    window = alt
                    break
        if window is not None and hard and qt.session is None and terms(pq.content):
            said_then = window_episodes(window)
            if not said_then[0] and not said_then[1]:
                # nothing was said in (or about) that window: a question with content ("where
                # was James on July 12?") ranks by content with the time as a boost instead of
                # coming back empty; a content-free one ("what did we discuss on May 8th?")
                # stays empty
                hard = False
        tw = TimeWindow(
            text=qt.text,
            start=window[0] if window else None,
            end=window[1] if window else None,
            precision=qt.precision,
            hard=hard,
            session=qt.session.text if qt.session else None,
        )
    content = pq.content if qt is not None else query
    words = terms(content)
    content_free = not words
    if window is not None and valid_at is None:
        fact_when = TimeFilter(valid_at=window[0], known_at=K, valid_to=window[1])
    else:
        fact_when = TimeFilter(valid_at=V, known_at=K)

    need_vec = backend.embedder is not None and not (
        content_free and (window is not None or no_such_session))
    qtext = content if content.strip() and not content_free else query
    qvec = backend.embedder.embed_one(qtext) if need_vec else None
    n_cand = max(3 * limit, 30)

    lists: dict[str, list[Key]] = {}
    parts: dict[Key, dict[str, float]] = {}
    facts: dict[str, FactVersion] = {}
    chunks: dict[str, tuple[int, int]] = {}
    tscore: dict[str, float] = {}

    def note(key: Key, part: str, value: float) -> None:
        d = parts.setdefault(key, {})
        if part not in d or value > d[part]:
            d[part] = value

    # ---------------------------------------------------------------- entities in the query
    matched: list[str] = []
    hits: dict[str, list[str]] = {}
    if "fact" in want or "entity" in want:
        hits = backend.match_entities(group, query_name_candidates(query), K)
        for norm in sorted(hits, key=lambda n: -len(n)):  # longer names first
            for eid in hits[norm]:
                if eid not in matched:
                    matched.append(eid)

    # ---------------------------------------------------------------- episodes
    if "episode" in want and not no_such_session:
        in_win: list[tuple[str, int]] = []
        mentioned: list[tuple[str, int]] = []
        if window is not None:
            in_win, mentioned = (list(x) for x in window_episodes(window))
            core = qt.core if qt is not None else None
            if core is not None:  # loose window: the strict reading ranks first
                c0, c1 = to_micros(core[0]), to_micros(core[1])
                in_win.sort(key=lambda x: (not c0 <= x[1] < c1, x[1]))
            for i, at in in_win:
                tscore[i] = 1.0 if core is None or c0 <= at < c1 else 0.9
            for i, _ in mentioned:
                tscore.setdefault(i, 0.8)
        allowed = set(tscore) if window is not None else None
        chrono = [i for i, _ in in_win] + [i for i, _ in mentioned if i not in dict(in_win)]
        if content_free and window is not None:
            lists["time"] = [("episode", i) for i in chrono[:n_cand]]
        else:
            kw: list[tuple[str, float]] = []
            if words:
                if hard and window is not None:
                    kw = backend.keyword_episodes(group, words, n_cand, K, ref_max, window)
                    if mentioned:
                        extra = backend.keyword_episodes(group, words, n_cand * 4, K, ref_max, None)
                        kw += [(i, s) for i, s in extra if i in tscore and tscore[i] < 1.0]
                        kw.sort(key=lambda x: -x[1])
                else:
                    kw = backend.keyword_episodes(group, words, n_cand, K, ref_max, None)
            vec: list[tuple[str, float, tuple[int, int]]] = []
            if qvec is not None:
                vec = backend.vector_episodes(
                    group, qvec, n_cand, K, ref_max, allowed if hard else None
                )
                vec = [x for x in vec if x[1] > MIN_VECTOR_SIM]
            if hard and window is not None:
                # every episode of the window stays a (weak) candidate even without a match
                lists["window"] = [("episode", i) for i in chrono[:n_cand]]
            lists["keyword_episodes"] = [("episode", i) for i, _ in kw]
            lists["vector_episodes"] = [("episode", i) for i, _, _ in vec]
            for i, s in kw:
                note(("episode", i), "keyword", s)
            for i, s, span in vec:
                note(("episode", i), "vector", s)
                chunks.setdefault(i, span)
            if window is not None and not hard and allowed:
                # broad window: in-window episodes ranked by content form the time list
                win_vec = (
                    backend.vector_episodes(group, qvec, n_cand, K, ref_max, allowed)
                    if qvec is not None
                    else []
                )
                win_vec = [x for x in win_vec if x[1] > MIN_VECTOR_SIM]
                win_kw = (
                    backend.keyword_episodes(group, words, n_cand, K, ref_max, window)
                    if words
                    else []
                )
                merged = rrf(
                    {"k": [i for i, _ in win_kw], "v": [i for i, _, _ in win_vec]}, k=rrf_k
                )
                order = sorted(merged, key=lambda i: -merged[i])
                lists["time"] = [("episode", i) for i in order[:n_cand]]
                for i, s, span in win_vec:
                    note(("episode", i), "vector", s)
                    chunks.setdefault(i, span)
                for i, s in win_kw:
                    note(("episode", i), "keyword", s)

    # ---------------------------------------------------------------- facts
    if "fact" in want:
        gf = backend.graph_facts(group, matched[:10], fact_when, n_cand * 4) if matched else []
        mset = set(matched)
        # A name many facts share (a person the whole conversation is about) says little
        # about which fact is meant: facts are matched on what the query asks about such a
        # name ("Caroline likes art" is no match for "what did Caroline research?").
        degree = Counter(e for v in gf for e in {v.subject_id, v.object_id} if e in mset)
        common_ids = {e for e in mset if degree[e] > COMMON_NAME_FACTS}
        common_words = {
            w for norm, eids in hits.items() if common_ids.intersection(eids) for w in terms(norm)
        }
        topic = [w for w in words if w not in common_words]
        named = bool(topic) and len(topic) < len(words)
        if not named:
            topic = words
        if words:
            kf = backend.keyword_facts(group, topic, n_cand, fact_when)
            lists["keyword_facts"] = [("fact", v.fact_id) for v, _ in kf]
            for v, s in kf:
                facts.setdefault(v.fact_id, v)
                note(("fact", v.fact_id), "keyword", s)
        if qvec is not None and not content_free:
            # facts are short and name their entities: compared with the whole query, a
            # shared name alone makes them look similar; compare what is asked about them
            fvec = backend.embedder.embed_one(_without(qtext, common_words)) if named else qvec
            vf = [
                x for x in backend.vector_facts(group, fvec, n_cand, fact_when)
                if x[1] > MIN_VECTOR_SIM
            ]
            lists["vector_facts"] = [("fact", v.fact_id) for v, _ in vf]
            for v, s in vf:
                facts.setdefault(v.fact_id, v)
                note(("fact", v.fact_id), "vector", s)
        if matched:

            def gkey(v: FactVersion) -> tuple[int, float, float]:
                ends = (v.subject_id in mset) + (v.object_id in mset)
                return (-ends, -overlap(topic, v.fact), -v.created_at.timestamp())

            gf.sort(key=gkey)

            def about_common_name_only(v: FactVersion) -> bool:
                ends = {v.subject_id, v.object_id} & mset
                return named and ends <= common_ids and overlap(topic, v.fact) == 0.0

            seen_g: list[Key] = []
            for v in gf:
                key = ("fact", v.fact_id)
                if key in seen_g:
                    continue
                ends = (v.subject_id in mset) + (v.object_id in mset)
                if ends < 2 and about_common_name_only(v):
                    continue  # next to a much-discussed entity, but about something else
                seen_g.append(key)
                facts.setdefault(v.fact_id, v)
                note(key, "graph", 1.0 if ends >= 2 else 0.5)
                if len(seen_g) >= n_cand:
                    break
            lists["graph_facts"] = seen_g
        if content_free and window is not None and "time" in lists:
            ep_ids = [i for _, i in lists["time"]]
            ef = backend.facts_from_episodes(group, ep_ids, fact_when, n_cand)
            lists["episode_facts"] = [("fact", v.fact_id) for v in ef]
            for v in ef:
                facts.setdefault(v.fact_id, v)
                note(("fact", v.fact_id), "time", 1.0)

    # ---------------------------------------------------------------- entities
    if "entity" in want:
        if matched:
            lists["graph_entities"] = [("entity", e) for e in matched]
            for e in matched:
                note(("entity", e), "graph", 1.0)
        if words:
            ke = backend.keyword_entities(group, words, n_cand, K)
            lists["keyword_entities"] = [("entity", e) for e, _ in ke]
            for e, s in ke:
                note(("entity", e), "keyword", s)
        if qvec is not None and not content_free:
            ve = [
                x for x in backend.vector_entities(group, qvec, n_cand, K) if x[1] > MIN_VECTOR_SIM
            ]
            lists["vector_entities"] = [("entity", e) for e, _ in ve]
            for e, s in ve:
                note(("entity", e), "vector", s)

    # ---------------------------------------------------------------- fuse
    fused = rrf(lists, {**DEFAULT_WEIGHTS, **(weights or {})}, k=rrf_k)
    if neighbours > 0:
        _lift_neighbours(
            backend, group, fused, parts, neighbours, max(2 * limit, 20), session_gap, K, ref_max,
            set(tscore) if hard and window is not None else None,
        )
    if window is not None:
        stamps = backend.episode_stamps(group, [i for k, i in fused if k == "episode"])
        w0, w1 = to_micros(window[0]), to_micros(window[1])
        width = max(w1 - w0, 3_600_000_000)
        for key in list(fused):
            if key[0] != "episode":
                continue
            t = tscore.get(key[1])
            if t is None:
                if key[1] not in stamps:  # erased meanwhile
                    del fused[key]
                    continue
                ref = stamps[key[1]][1]
                t = math.exp(-max(w0 - ref, ref - w1, 0) / width)
            note(key, "time", t)
            fused[key] *= 0.8 + 0.2 * t
    if "episode" in want and "fact" in want:
        _source_first(fused, facts, parts)
    # ties: the verbatim episode before the fact extracted from it
    pool = sorted(fused, key=lambda k: (-fused[k], k[0] != "episode"))[: limit * 3]
    if diversity is None:
        # read episodes in rank order, only as far as the answer needs (a few spare for any
        # erased meanwhile), not the whole pool
        episodes: dict[str, Episode] = {}
        ranked: list[Key] = []
        start = 0
        while len(ranked) < limit and start < len(pool):
            part = pool[start:start + limit - len(ranked) + 5]
            start += len(part)
            episodes.update(backend.episodes_by_ids(group, [i for k, i in part if k == "episode"]))
            ranked += [k for k in part if k[0] != "episode" or k[1] in episodes]
    else:
        episodes = backend.episodes_by_ids(group, [i for k, i in pool if k == "episode"])
        ranked = [k for k in pool if k[0] != "episode" or k[1] in episodes]  # erased meanwhile
    if diversity is not None and ranked and backend.embedder is not None:
        pool = ranked
        texts = [_text_of(k, facts, episodes, chunks, None) for k in pool]
        ents = backend.entities_by_ids(group, [i for k, i in pool if k == "entity"])
        texts = [
            ents[k[1]].name if k[0] == "entity" and k[1] in ents else t
            for k, t in zip(pool, texts)
        ]
        vecs = backend.embedder.embed(texts)
        ranked = mmr(pool, fused, dict(zip(pool, vecs)), limit, lam=float(diversity))
    top = ranked[:limit]

    ents = backend.entities_by_ids(group, [i for k, i in top if k == "entity"])
    results: list[SearchResult] = []
    for key in top:
        p = ScoreParts(**parts.get(key, {}))
        kind, ident = key
        if kind == "episode":
            ep = episodes[ident]
            results.append(
                SearchResult(
                    kind="episode", id=ident, text=ep.content, score=fused[key], parts=p,
                    episode_ids=[ident], reference_time=ep.reference_time,
                    created_at=ep.created_at, speaker=ep.speaker, chunk=chunks.get(ident),
                    time_window=tw,
                )
            )
        elif kind == "fact":
            v = facts[ident]
            results.append(
                SearchResult(
                    kind="fact", id=ident, text=v.fact, score=fused[key], parts=p,
                    episode_ids=_best_sources(v.episodes, fused), fact_ids=[v.fact_id],
                    entity_ids=list(dict.fromkeys([v.subject_id, v.object_id])),
                    valid_at=v.valid_at, invalid_at=v.invalid_at, created_at=v.created_at,
                    expired_at=v.expired_at, version_id=v.id, fact=v, time_window=tw,
                )
            )
        else:
            ent: Entity | None = ents.get(ident)
            if ent is None:
                continue
            results.append(
                SearchResult(
                    kind="entity", id=ident, text=ent.name, score=fused[key], parts=p,
                    entity_ids=[ident], created_at=ent.created_at, entity=ent, time_window=tw,
                )
            )
    return SearchOutcome(
        results=results,
        valid_at=V,
        known_at=K,
        fact_when=fact_when,
        time_window=tw,
        matched_entities=matched,
        facts=facts,
        episodes=episodes,
        terms=words,
        ref_max=ref_max,
    )


def _lift_neighbours(
    backend: Any,
    group: str,
    fused: dict[Key, float],
    parts: dict[Key, dict[str, float]],
    weight: float,
    top: int,
    gap: timedelta,
    known_at: datetime,
    ref_max: datetime | None,
    allowed: set[str] | None,
) -> None:
    """Conversation context: an episode gains ``weight`` x the better fused score of the two
    episodes said right before and after it (same session: within ``gap``), in place.

    A turn that matches the query is often the question or the reaction; the answer is the
    turn next to it. Scores are read before any update, so lifts do not cascade. Neighbours
    of the ``top`` best episodes join as candidates (only inside ``allowed`` when a strict
    time window applies).
    """
    base = {i: s for (k, i), s in fused.items() if k == "episode"}
    if not base:
        return
    best = sorted(base, key=lambda i: -base[i])[:top]
    around = backend.episode_neighbours(group, best, gap, known_at, ref_max)
    lift: dict[str, float] = {}
    for i in best:
        for nb in around.get(i, (None, None)):
            if nb is None or (allowed is not None and nb not in allowed):
                continue
            lift[nb] = max(lift.get(nb, 0.0), base[i])
    for i, s in lift.items():
        key = ("episode", i)
        fused[key] = base.get(i, 0.0) + weight * s
        parts.setdefault(key, {})["context"] = s


def _without(text: str, words: set[str]) -> str:
    """``text`` without the given (lower-case) words and their possessives."""
    out = _WORD_POSS.sub(lambda m: "" if m.group(1).lower() in words else m.group(0), text)
    return " ".join(out.split()) or text


_WORD_POSS = re.compile(r"(\w+)(?:['’]s\b)?")


def _source_first(
    fused: dict[Key, float], facts: Mapping[str, FactVersion], parts: dict[Key, dict[str, float]]
) -> None:
    """A fact never outranks the verbatim episode that states it: that episode (the fact's
    best-matching source, when it is a candidate) rises to at least the fact's score, in
    place. An extracted fact is a
    lossy paraphrase of its episode; the episode keeps the wording, speaker and time."""
    lift: dict[str, float] = {}
    for key, s in fused.items():
        if key[0] != "fact" or key[1] not in facts:
            continue
        src = _best_sources(facts[key[1]].episodes, fused)
        if src:
            lift[src[0]] = max(lift.get(src[0], 0.0), s)
    for e, s in lift.items():
        key = ("episode", e)
        if key in fused and s > fused[key]:  # only episodes this search may show
            fused[key] = s
            parts.setdefault(key, {})["fact"] = s


def _best_sources(episode_ids: Sequence[str], fused: Mapping[Key, float]) -> list[str]:
    """A fact's source episodes, the one that best matches this query first (by its fused
    score; episodes the search did not reach keep their stored order, after those it did)."""
    order = {e: n for n, e in enumerate(episode_ids)}
    return sorted(
        dict.fromkeys(episode_ids), key=lambda e: (-fused.get(("episode", e), 0.0), order[e])
    )


def _text_of(
    key: Key,
    facts: Mapping[str, FactVersion],
    episodes: Mapping[str, Episode],
    chunks: Mapping[str, tuple[int, int]],
    default: str | None,
) -> str:
    kind, ident = key
    if kind == "fact" and ident in facts:
        return facts[ident].fact
    if kind == "episode" and ident in episodes:
        text = episodes[ident].content
        if ident in chunks:
            a, b = chunks[ident]
            return text[a:b] or text
        return text
    return default or ident
