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
* episodes: an episode is visible at ``known_at`` iff it was stored by then; when
  ``valid_at`` is given explicitly, only episodes said by then are visible too ("what had been
  said as of V"): :func:`kgmem.timeline.episode_visible`.
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
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol, TypedDict

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInputError
from ..model import Entity, Episode, FactVersion
from ..names import check_group, normalize_name
from ..store.base import Store, TimeFilter
from ..store.search_reads import SearchReads
from ..timeline import SITTING_GAP
from ..timeutil import parse_instant, to_micros
from .backend import get_backend
from .fuse import mmr, rrf
from .keyword import FILLER, STOPWORDS, overlap, terms
from .models import KINDS_PLURAL, ScoreParts, SearchResult, TimeWindow
from .ordering import best_sources, current_first, facts_before_their_entities, source_first
from .recency import (
    Ranking,
    check_half_life,
    check_ranking,
    defaults_of,
    generative_agents,
    weigh_recency,
)
from .timefilter import QueryTime, event_reading, parse_query_time, session_window

if TYPE_CHECKING:
    from typing_extensions import Unpack

DEFAULT_KINDS = ("facts", "entities", "episodes")
SESSION_GAP = SITTING_GAP
WINDOW_CAP = 5000  # episodes considered inside one time window
MIN_VECTOR_SIM = 0.0  # a vector hit must be at least this similar to count as a candidate
Key = tuple[str, str]  # (kind, id)
# Extracted facts weigh 0.3 of a verbatim turn's list: there are ~10x fewer facts than turns,
# so ranking first among facts says less than ranking first among turns, and a fact lifts the
# turn that states it (ordering.source_first); at 1.0 those lifts pushed evidence out of the top 10
# (LoCoMo dev 0-4, extraction on: turn recall_any@10 80.4 at 1.0, 81.2 at 0.4, 81.5 at 0.3 =
# extraction off; session any@5 95.3 / 94.9 / 94.7 vs 94.6 off): benchmarks/fact_weights.py,
# results in benchmarks/results/2026-12-02/fact-weights/. Only the order of facts against
# episodes and entities changes: among facts alone all four lists scale alike.
FACT_LIST_WEIGHT = 0.3
DEFAULT_WEIGHTS = {"window": 0.25, "keyword_facts": FACT_LIST_WEIGHT,
                   "vector_facts": FACT_LIST_WEIGHT, "graph_facts": FACT_LIST_WEIGHT,
                   "episode_facts": FACT_LIST_WEIGHT}
# Chosen on LoCoMo conversation 0 (the dev set) only; see benchmarks/RESULTS.md.
NEIGHBOUR_WEIGHT = 0.6  # see _lift_neighbours
RRF_K = 5  # small: an item ranked first by one signal beats one ranked 30th by two
# a name adjacent to more visible facts than this is "common": a fact does not match a query
# by that name alone (chosen a priori, not tuned)
COMMON_NAME_FACTS = 3


class SearchOptions(TypedDict, total=False):
    """The keyword-only options of :func:`search` (and :meth:`kgmem.Memory.search`)."""

    embedder: Embedder | None
    diversity: float | None
    auto_index: bool
    session_gap: timedelta
    weights: Mapping[str, float] | None
    neighbours: float
    rrf_k: int
    ranking: Ranking | None
    half_life_days: float | None


@dataclass(frozen=True)
class SearchParams:
    """One search request: what :func:`search` takes, as one value (see its docstring)."""

    query: str
    valid_at: datetime | str | None = None
    known_at: datetime | str | None = None
    limit: int = 10
    kinds: Sequence[str] | str = DEFAULT_KINDS
    group: str = "default"
    reference_time: datetime | str | None = None
    embedder: Embedder | None = None
    diversity: float | None = None
    auto_index: bool = True
    session_gap: timedelta = SESSION_GAP
    weights: Mapping[str, float] | None = None
    neighbours: float = NEIGHBOUR_WEIGHT
    rrf_k: int = RRF_K
    ranking: Ranking | None = None  # None: the memory's default (see kgmem.retrieve.recency)
    half_life_days: float | None = None  # recency's half-life; 0 = off, None: the default

    def checked(self) -> SearchParams:
        """The same request with ``group`` checked; bad input raises InvalidInputError."""
        group = check_group(self.group)
        if not isinstance(self.query, str) or not self.query.strip():
            raise InvalidInputError("query must be a non-empty string", field="query")
        limit = self.limit
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
            raise InvalidInputError("limit must be an integer from 1 to 1000", field="limit")
        if self.diversity is not None and not 0.0 <= float(self.diversity) <= 1.0:
            raise InvalidInputError("diversity must be between 0 and 1", field="diversity")
        if not 0.0 <= float(self.neighbours) <= 1.0:
            raise InvalidInputError("neighbours must be between 0 and 1", field="neighbours")
        rrf_k = self.rrf_k
        if not isinstance(rrf_k, int) or isinstance(rrf_k, bool) or rrf_k < 0:
            raise InvalidInputError("rrf_k must be a non-negative integer", field="rrf_k")
        if self.ranking is not None:
            check_ranking(self.ranking)
        if self.half_life_days is not None:
            check_half_life(self.half_life_days)
        return replace(self, group=group)


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
    # words of names so many facts share (the people a conversation is about) that they do not
    # say which fact or sentence is meant
    common_words: set[str] = field(default_factory=set)
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
    memory: Searchable,
    query: str,
    valid_at: datetime | str | None = None,
    known_at: datetime | str | None = None,
    limit: int = 10,
    kinds: Sequence[str] | str = DEFAULT_KINDS,
    group: str = "default",
    reference_time: datetime | str | None = None,
    **options: Unpack[SearchOptions],
) -> list[SearchResult]:
    """Hybrid time-aware search; best first (see the module docstring).

    Options (keyword-only, :class:`SearchOptions`):
    ``embedder``: the embedder of queries (default: the memory's, else the offline MiniLM).
    ``diversity``: MMR trade-off in [0, 1] (e.g. 0.7; ``None`` = plain fusion order).
    ``auto_index``: first embed whatever writes queued (so search sees its own writes).
    ``session_gap``: the longest pause inside one sitting (conversation context).
    ``weights``: per-list RRF weights (lists: ``keyword_episodes``, ``vector_episodes``,
    ``time``, ``window``, ``keyword_facts``, ``vector_facts``, ``graph_facts``, ``episode_facts``,
    ``graph_entities``, ``keyword_entities``, ``vector_entities``).
    ``neighbours``: how much an episode's score lifts the episodes said just before and after
    it in the same session (0 = off; see the module docstring). ``rrf_k``: the RRF constant.
    ``ranking``: ``"fused"`` or ``"generative_agents"``; ``half_life_days``: recency's
    half-life (0 = off); both default to the memory's (:mod:`kgmem.retrieve.recency`).
    """
    params = SearchParams(query, valid_at, known_at, limit, kinds, group, reference_time,
                          **options)
    return run_search(memory, params).results


def run_search(memory: Searchable, params: SearchParams) -> SearchOutcome:
    """:func:`search` with everything it decided on the way, in five stages: read the time
    in the query (:func:`_plan`), candidates per kind, fuse, lift neighbours and weigh time
    (:func:`_fuse`), recency and importance (:func:`_time_and_weight`), then the ranked
    results (:func:`_rank`, :func:`_results`)."""
    plan = _plan(memory, params.checked())
    found = _Candidates()
    matched, hits = _query_entities(plan)
    names = _Names()
    if "fact" in plan.want:
        names = _common_names(plan, matched, hits)
        found.common_words = names.common_words
    plan = _embed_query(plan, names)
    if "episode" in plan.want and not plan.time.no_such_session:
        _episode_candidates(plan, found)
    if "fact" in plan.want:
        _fact_candidates(plan, found, matched, names)
    if "entity" in plan.want:
        _entity_candidates(plan, found, matched)
    fused = _fuse(plan, found)
    _time_and_weight(plan, found, fused)
    if "episode" in plan.want and "fact" in plan.want:
        current_first(memory, plan.backend, plan.p.group, plan.V, plan.K, fused,
                      found.note)
    if "entity" in plan.want and "fact" in plan.want:
        facts_before_their_entities(found.facts, fused)
    ranked, episodes = _rank(plan, found, fused)
    return SearchOutcome(
        results=_results(plan, found, fused, ranked[: plan.p.limit], episodes),
        valid_at=plan.V,
        known_at=plan.K,
        fact_when=plan.fact_when,
        time_window=plan.time.tw,
        matched_entities=matched,
        facts=found.facts,
        episodes=episodes,
        terms=plan.words,
        common_words=found.common_words,
        ref_max=plan.ref_max,
    )


class Searchable(Protocol):
    """What search needs of a :class:`kgmem.Memory`: its store, clock and embedder."""

    @property
    def store(self) -> Store: ...
    @property
    def embedder(self) -> Embedder | None: ...
    def now(self) -> datetime: ...


Said = list[tuple[str, int]]  # (episode id, reference time in micros)
Window = tuple[datetime, datetime]


@dataclass
class _WindowReads:
    """Episodes said in a window and episodes mentioning a time in it, each window read once."""

    backend: SearchReads
    group: str
    known_at: datetime
    ref_max: datetime | None
    fetched: dict[Window, tuple[Said, Said]] = field(default_factory=dict)

    def __call__(self, w: Window) -> tuple[Said, Said]:
        if w not in self.fetched:
            be, g, K = self.backend, self.group, self.known_at
            self.fetched[w] = (
                be.episodes_in_window(g, w, WINDOW_CAP, K, self.ref_max),
                be.episodes_mentioning_window(g, w, WINDOW_CAP, K, self.ref_max),
            )
        return self.fetched[w]


@dataclass(frozen=True)
class _TimeReading:
    """The window a time in the query stands for (``None``: none, or nothing said then)."""

    window: Window | None = None
    hard: bool = False  # episodes outside the window are excluded
    core: Window | None = None  # the strict reading of a loose window
    no_such_session: bool = False  # the query names a session that does not exist
    tw: TimeWindow | None = None


@dataclass(frozen=True)
class _Plan:
    """A checked request with its times resolved and the time in the query read."""

    p: SearchParams
    backend: SearchReads
    want: set[str]
    V: datetime
    K: datetime
    asked: datetime  # when the question is asked (reference_time, else known_at)
    ranking: Ranking
    half_life_days: float
    ref_max: datetime | None  # episodes said after this are out (valid_at given)
    time: _TimeReading
    said: _WindowReads
    words: list[str]  # the query's content words
    qtext: str  # what is embedded
    qvec: np.ndarray | None  # the query's embedding (set by _embed_query)
    fact_when: TimeFilter
    n_cand: int
    need_vec: bool = False
    fvec: np.ndarray | None = None  # facts' query embedding (see _embed_query)

    @property
    def window(self) -> Window | None:
        return self.time.window

    @property
    def hard(self) -> bool:
        return self.time.hard

    @property
    def content_free(self) -> bool:
        return not self.words


@dataclass
class _Candidates:
    """The ranked lists per signal and what each signal said about each candidate."""

    lists: dict[str, list[Key]] = field(default_factory=dict)
    parts: dict[Key, dict[str, float]] = field(default_factory=dict)
    facts: dict[str, FactVersion] = field(default_factory=dict)
    chunks: dict[str, tuple[int, int]] = field(default_factory=dict)  # best span per episode
    tscore: dict[str, float] = field(default_factory=dict)  # episode -> time score
    common_words: set[str] = field(default_factory=set)  # see SearchOutcome.common_words

    def note(self, key: Key, part: str, value: float) -> None:
        d = self.parts.setdefault(key, {})
        if part not in d or value > d[part]:
            d[part] = value

    def fact(self, v: FactVersion, part: str, value: float) -> None:
        self.facts.setdefault(v.fact_id, v)
        self.note(("fact", v.fact_id), part, value)


def _plan(memory: Searchable, p: SearchParams) -> _Plan:
    """Stage 1: the request's times, the time the query mentions and its content words."""
    want = _kinds(p.kinds)
    now = memory.now()
    V = now if p.valid_at is None else parse_instant(p.valid_at, "valid_at")
    K = now if p.known_at is None else parse_instant(p.known_at, "known_at")
    asking = K if p.reference_time is None else parse_instant(p.reference_time, "reference_time")
    ref_max = V if p.valid_at is not None else None
    backend: SearchReads = get_backend(memory, p.embedder)
    if p.auto_index:
        backend.auto_index(p.group)
    said = _WindowReads(backend, p.group, K, ref_max)
    pq = parse_query_time(p.query, asking)
    qt = event_reading(p.query, pq.time)
    time = _TimeReading()
    if qt is not None:
        time = _read_time(qt, said, p.session_gap, has_content=bool(terms(pq.content)))
    content = pq.content if qt is not None else p.query
    words = terms(content)
    window = time.window
    if window is not None and p.valid_at is None:
        fact_when = TimeFilter(valid_at=window[0], known_at=K, valid_to=window[1])
    else:
        fact_when = TimeFilter(valid_at=V, known_at=K)
    need_vec = backend.embedder is not None and not (
        not words and (window is not None or time.no_such_session))
    qtext = content if content.strip() and words else p.query
    dflt = defaults_of(memory)
    ranking = dflt.ranking if p.ranking is None else p.ranking
    half_life = dflt.half_life_days if p.half_life_days is None else float(p.half_life_days)
    return _Plan(p, backend, want, V, K, asking, ranking, half_life, ref_max, time, said, words,
                 qtext, None, fact_when, n_cand=max(3 * p.limit, 30), need_vec=need_vec)


def _read_time(
    qt: QueryTime, said: _WindowReads, session_gap: timedelta, has_content: bool
) -> _TimeReading:
    """The window the query's time stands for, and whether it excludes (``hard``)."""
    be, g, K = said.backend, said.group, said.known_at
    window: Window | None
    no_such_session = False
    if qt.session is not None:
        window = session_window(qt.session, be.episode_times(g, K), session_gap)
        hard = True
        no_such_session = window is None
    else:
        window, hard = qt.window, qt.hard
    if window is not None and not window[0] < window[1]:
        window = None
    if window is not None and hard and qt.alternatives:
        # a weekday nothing was said on: the same weekday of earlier weeks
        for alt in (window, *qt.alternatives):
            if be.episodes_in_window(g, alt, 1, K, said.ref_max):
                window = alt
                break
    if window is not None and hard and qt.session is None and has_content:
        said_then = said(window)
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
    return _TimeReading(window, hard, qt.core, no_such_session, tw)


def _query_entities(plan: _Plan) -> tuple[list[str], dict[str, list[str]]]:
    """Entities named in the query (longer names first) and the names that matched them."""
    matched: list[str] = []
    hits: dict[str, list[str]] = {}
    if "fact" in plan.want or "entity" in plan.want:
        hits = plan.backend.match_entities(
            plan.p.group, query_name_candidates(plan.p.query), plan.K
        )
        for norm in sorted(hits, key=lambda n: -len(n)):
            for eid in hits[norm]:
                if eid not in matched:
                    matched.append(eid)
    return matched, hits


def _episode_candidates(plan: _Plan, found: _Candidates) -> None:
    """Stage 2a: episodes said in the query's window, and by keyword and vector."""
    be, g, K, ref_max, n_cand = plan.backend, plan.p.group, plan.K, plan.ref_max, plan.n_cand
    window, hard, words, qvec = plan.window, plan.hard, plan.words, plan.qvec
    tscore = found.tscore
    in_win: list[tuple[str, int]] = []
    mentioned: list[tuple[str, int]] = []
    if window is not None:
        in_win, mentioned = (list(x) for x in plan.said(window))
        core = plan.time.core
        if core is not None:  # loose window: the strict reading ranks first
            c0, c1 = to_micros(core[0]), to_micros(core[1])
            in_win.sort(key=lambda x: (not c0 <= x[1] < c1, x[1]))
        for i, at in in_win:
            tscore[i] = 1.0 if core is None or c0 <= at < c1 else 0.9
        for i, _ in mentioned:
            tscore.setdefault(i, 0.8)
    allowed = set(tscore) if window is not None else None
    chrono = [i for i, _ in in_win] + [i for i, _ in mentioned if i not in dict(in_win)]
    if plan.content_free and window is not None:
        found.lists["time"] = [("episode", i) for i in chrono[:n_cand]]
        return
    kw: list[tuple[str, float]] = []
    if words:
        if hard and window is not None:
            kw = be.keyword_episodes(g, words, n_cand, K, ref_max, window)
            if mentioned:
                extra = be.keyword_episodes(g, words, n_cand * 4, K, ref_max, None)
                kw += [(i, s) for i, s in extra if i in tscore and tscore[i] < 1.0]
                kw.sort(key=lambda x: -x[1])
        else:
            kw = be.keyword_episodes(g, words, n_cand, K, ref_max, None)
    vec: list[tuple[str, float, tuple[int, int]]] = []
    if qvec is not None:
        vec = be.vector_episodes(g, qvec, n_cand, K, ref_max, allowed if hard else None)
        vec = [x for x in vec if x[1] > MIN_VECTOR_SIM]
    if hard and window is not None:
        # every episode of the window stays a (weak) candidate even without a match
        found.lists["window"] = [("episode", i) for i in chrono[:n_cand]]
    found.lists["keyword_episodes"] = [("episode", i) for i, _ in kw]
    found.lists["vector_episodes"] = [("episode", i) for i, _, _ in vec]
    _note_episodes(found, kw, vec)
    if window is not None and not hard and allowed:
        # broad window: in-window episodes ranked by content form the time list
        win_vec = (
            be.vector_episodes(g, qvec, n_cand, K, ref_max, allowed) if qvec is not None else []
        )
        win_vec = [x for x in win_vec if x[1] > MIN_VECTOR_SIM]
        win_kw = be.keyword_episodes(g, words, n_cand, K, ref_max, window) if words else []
        merged = rrf(
            {"k": [i for i, _ in win_kw], "v": [i for i, _, _ in win_vec]}, k=plan.p.rrf_k
        )
        order = sorted(merged, key=lambda i: -merged[i])
        found.lists["time"] = [("episode", i) for i in order[:n_cand]]
        _note_episodes(found, win_kw, win_vec)


def _note_episodes(
    found: _Candidates, kw: list[tuple[str, float]], vec: list[tuple[str, float, tuple[int, int]]]
) -> None:
    """Record keyword and vector scores of episodes (and each one's best-matching span)."""
    for i, s in kw:
        found.note(("episode", i), "keyword", s)
    for i, s, span in vec:
        found.note(("episode", i), "vector", s)
        found.chunks.setdefault(i, span)


@dataclass(frozen=True)
class _Names:
    """The entities a query names and which of their names are too common to match facts by
    themselves (see :func:`_fact_candidates`)."""

    graph: list[FactVersion] = field(default_factory=list)  # facts next to the named entities
    common_ids: set[str] = field(default_factory=set)
    common_words: set[str] = field(default_factory=set)
    topic: list[str] = field(default_factory=list)  # the query's words but those names
    named: bool = False  # the query names a common entity and asks something about it


def _common_names(plan: _Plan, matched: list[str], hits: dict[str, list[str]]) -> _Names:
    """A name many facts share (a person the whole conversation is about) says little about
    which fact is meant: facts are matched on what the query asks about such a name
    ("Caroline likes art" is no match for "what did Caroline research?")."""
    be, g, words = plan.backend, plan.p.group, plan.words
    gf = be.graph_facts(g, matched[:10], plan.fact_when, plan.n_cand * 4) if matched else []
    mset = set(matched)
    degree = Counter(e for v in gf for e in {v.subject_id, v.object_id} if e in mset)
    common_ids = {e for e in mset if degree[e] > COMMON_NAME_FACTS}
    common_words = {
        w for norm, eids in hits.items() if common_ids.intersection(eids) for w in terms(norm)
    }
    topic = [w for w in words if w not in common_words]
    named = bool(topic) and len(topic) < len(words)
    return _Names(gf, common_ids, common_words, topic if named else words, named)


def _embed_query(plan: _Plan, names: _Names) -> _Plan:
    """The query's embedding and, when it names a common entity, the embedding of what it
    asks about that entity (for facts, which name their entities), in one embedder call."""
    if not plan.need_vec:
        return plan
    fact_text = _without(plan.qtext, names.common_words) if names.named else None
    texts = [plan.qtext] if fact_text is None or fact_text == plan.qtext else [plan.qtext,
                                                                               fact_text]
    vecs = plan.backend.embedder.embed(texts)
    return replace(plan, qvec=vecs[0], fvec=vecs[-1])


def _fact_candidates(
    plan: _Plan, found: _Candidates, matched: list[str], names: _Names
) -> None:
    """Stage 2b: facts by keyword, vector, the entities the query names and the window."""
    be, g, when, n_cand, words = (
        plan.backend, plan.p.group, plan.fact_when, plan.n_cand, plan.words
    )
    gf, common_ids, topic, named = names.graph, names.common_ids, names.topic, names.named
    mset = set(matched)
    if words:
        kf = be.keyword_facts(g, topic, n_cand, when)
        found.lists["keyword_facts"] = [("fact", v.fact_id) for v, _ in kf]
        for v, s in kf:
            found.fact(v, "keyword", s)
    if plan.qvec is not None and not plan.content_free:
        # facts are short and name their entities: compared with the whole query, a
        # shared name alone makes them look similar; compare what is asked about them
        fvec = plan.fvec if plan.fvec is not None else plan.qvec
        vf = [x for x in be.vector_facts(g, fvec, n_cand, when) if x[1] > MIN_VECTOR_SIM]
        found.lists["vector_facts"] = [("fact", v.fact_id) for v, _ in vf]
        for v, s in vf:
            found.fact(v, "vector", s)
    if matched:
        found.lists["graph_facts"] = _graph_facts(found, gf, mset, common_ids, topic, named,
                                                  n_cand)
    if plan.content_free and plan.window is not None and "time" in found.lists:
        ep_ids = [i for _, i in found.lists["time"]]
        ef = be.facts_from_episodes(g, ep_ids, when, n_cand)
        # in the order of their episodes: a fact from an episode said that day before one
        # from an episode that only mentions the day (it lifts its source episode to its own
        # rank, see ordering.source_first; in the store's order one said weeks later came first)
        pos = {e: n for n, e in enumerate(ep_ids)}
        first = {v.fact_id: min((pos[e] for e in v.episodes if e in pos), default=len(pos))
                 for v in ef}
        ef.sort(key=lambda v: first[v.fact_id])
        found.lists["episode_facts"] = [("fact", v.fact_id) for v in ef]
        for v in ef:
            src = ep_ids[first[v.fact_id]] if first[v.fact_id] < len(ep_ids) else None
            found.fact(v, "time", found.tscore.get(src, 1.0) if src is not None else 1.0)


def _graph_facts(
    found: _Candidates,
    gf: list[FactVersion],
    mset: set[str],
    common_ids: set[str],
    topic: list[str],
    named: bool,
    n_cand: int,
) -> list[Key]:
    """Facts next to the entities the query names: both ends named first, then by overlap
    with the query's topic, newest first; none that only share a much-discussed name."""

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
        found.fact(v, "graph", 1.0 if ends >= 2 else 0.5)
        if len(seen_g) >= n_cand:
            break
    return seen_g


def _entity_candidates(plan: _Plan, found: _Candidates, matched: list[str]) -> None:
    """Stage 2c: entities the query names, and by keyword and vector."""
    be, g, K, n_cand = plan.backend, plan.p.group, plan.K, plan.n_cand
    if matched:
        found.lists["graph_entities"] = [("entity", e) for e in matched]
        for e in matched:
            found.note(("entity", e), "graph", 1.0)
    if plan.words:
        ke = be.keyword_entities(g, plan.words, n_cand, K)
        found.lists["keyword_entities"] = [("entity", e) for e, _ in ke]
        for e, s in ke:
            found.note(("entity", e), "keyword", s)
    if plan.qvec is not None and not plan.content_free:
        ve = [x for x in be.vector_entities(g, plan.qvec, n_cand, K) if x[1] > MIN_VECTOR_SIM]
        found.lists["vector_entities"] = [("entity", e) for e, _ in ve]
        for e, s in ve:
            found.note(("entity", e), "vector", s)


def _fuse(plan: _Plan, found: _Candidates) -> dict[Key, float]:
    """Stages 3 and 4: reciprocal rank fusion, the lift of conversation neighbours, the
    weight of time, and no fact above the episode that states it."""
    p, window = plan.p, plan.window
    fused = rrf(found.lists, {**DEFAULT_WEIGHTS, **(p.weights or {})}, k=p.rrf_k)
    if p.neighbours > 0:
        _lift_neighbours(
            plan.backend, p.group, fused, found.parts, p.neighbours, max(2 * p.limit, 20),
            p.session_gap, plan.K, plan.ref_max,
            set(found.tscore) if plan.hard and window is not None else None,
        )
    if window is not None:
        _weigh_time(plan, found, fused, window)
    if "episode" in plan.want and "fact" in plan.want:
        source_first(fused, found.facts, found.parts)
    return fused


def _weigh_time(
    plan: _Plan, found: _Candidates, fused: dict[Key, float], window: tuple[datetime, datetime]
) -> None:
    """An episode keeps 80% of its score plus 20% of its time score (1.0 inside the window,
    decaying with its distance outside), in place; episodes erased meanwhile drop out."""
    stamps = plan.backend.episode_stamps(plan.p.group, [i for k, i in fused if k == "episode"])
    w0, w1 = to_micros(window[0]), to_micros(window[1])
    width = max(w1 - w0, 3_600_000_000)
    for key in list(fused):
        if key[0] != "episode":
            continue
        t = found.tscore.get(key[1])
        if t is None:
            if key[1] not in stamps:  # erased meanwhile
                del fused[key]
                continue
            ref = stamps[key[1]][1]
            t = math.exp(-max(w0 - ref, ref - w1, 0) / width)
        found.note(key, "time", t)
        fused[key] *= 0.8 + 0.2 * t


def _time_and_weight(plan: _Plan, found: _Candidates, fused: dict[Key, float]) -> None:
    """Stage 4b, in place: the recency prior (``ranking="fused"``) or the Generative-Agents
    score; recency is left out for a question that names a time (kgmem.retrieve.recency)."""
    half_life = plan.half_life_days if plan.window is None else 0.0
    g = plan.p.group
    if plan.ranking == "generative_agents":
        generative_agents(plan.backend, g, fused, found.facts, found.parts, plan.asked,
                          half_life, plan.fact_when, pool=3 * plan.p.limit)
    elif half_life:
        weigh_recency(plan.backend, g, fused, found.facts, found.parts, plan.asked, half_life)


def _rank(
    plan: _Plan, found: _Candidates, fused: dict[Key, float]
) -> tuple[list[Key], dict[str, Episode]]:
    """Stage 5a: the ranked keys (MMR when ``diversity`` is set) and the episodes read."""
    be, g, limit, diversity = plan.backend, plan.p.group, plan.p.limit, plan.p.diversity
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
            episodes.update(be.episodes_by_ids(g, [i for k, i in part if k == "episode"]))
            ranked += [k for k in part if k[0] != "episode" or k[1] in episodes]
        return ranked, episodes
    episodes = be.episodes_by_ids(g, [i for k, i in pool if k == "episode"])
    ranked = [k for k in pool if k[0] != "episode" or k[1] in episodes]  # erased meanwhile
    if ranked and be.embedder is not None:
        pool = ranked
        texts = [_text_of(k, found.facts, episodes, found.chunks, None) for k in pool]
        ents = be.entities_by_ids(g, [i for k, i in pool if k == "entity"])
        texts = [
            ents[k[1]].name if k[0] == "entity" and k[1] in ents else t
            for k, t in zip(pool, texts)
        ]
        vecs = be.embedder.embed(texts)
        ranked = mmr(pool, fused, dict(zip(pool, vecs)), limit, lam=float(diversity))
    return ranked, episodes


def _results(
    plan: _Plan,
    found: _Candidates,
    fused: dict[Key, float],
    top: list[Key],
    episodes: dict[str, Episode],
) -> list[SearchResult]:
    """Stage 5b: one :class:`SearchResult` per ranked key (entities erased meanwhile drop)."""
    tw = plan.time.tw
    ents = plan.backend.entities_by_ids(plan.p.group, [i for k, i in top if k == "entity"])
    arrival = {k: n for n, k in enumerate(fused)}  # _rank's tie order (a stable sort)
    results: list[SearchResult] = []
    for key in top:
        p = ScoreParts(**found.parts.get(key, {}))
        kind, ident = key
        if kind == "episode":
            ep = episodes[ident]
            results.append(
                SearchResult(
                    kind="episode", id=ident, text=ep.content, score=fused[key], parts=p,
                    episode_ids=[ident], reference_time=ep.reference_time,
                    created_at=ep.created_at, speaker=ep.speaker, chunk=found.chunks.get(ident),
                    time_window=tw,
                )
            )
        elif kind == "fact":
            v = found.facts[ident]
            results.append(
                SearchResult(
                    kind="fact", id=ident, text=v.fact, score=fused[key], parts=p,
                    episode_ids=best_sources(v.episodes, fused, arrival), fact_ids=[v.fact_id],
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
    return results


def _lift_neighbours(
    backend: SearchReads,
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
