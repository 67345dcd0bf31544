"""Plain retrieval baselines, each a "system under test" (see :mod:`benchmarks.runner`).

All of them rank within one haystack (one LoCoMo conversation, one LongMemEval question's
haystack, one Zyphra log); none uses dates except the date oracle.

* :class:`RandomSystem`: a uniformly random permutation of turns or sessions, seeded per
  question (``sha256(f"{seed}:{question_id}")``), so results do not depend on run order.
  :func:`random_expectation` gives the exact expected recall of such a ranking.
* :class:`BM25System`: Okapi BM25 written here (no dependency), exactly:

  - tokens: ``re.findall(r"[a-z0-9]+", text.lower())`` (so "I'm" -> "i", "m"; no stemming,
    no stop words);
  - ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))`` (Lucene's, never negative);
  - ``score(q, d) = sum over query tokens t (repeats counted) of
    idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))``,
    ``k1 = 1.5``, ``b = 0.75``, ``|d|`` in tokens;
  - ties (e.g. all documents without a query token) keep document order (chronological).

* :class:`DateOracleSystem`: the question's time read perfectly (the calendar days of its
  gold turns), turns of those days first in random, chronological or BM25 order: the ceiling
  of "a date filter with any ranking" on time-anchored questions (Zyphra).
* :class:`EmbeddingSystem`: cosine similarity between ``embed([query])`` and ``embed(docs)``
  for any ``embed(list[str]) -> np.ndarray`` (rows are L2-normalised here; a model's own
  truncation applies, e.g. MiniLM's 256 tokens: whole LoCoMo sessions get cut).
  :func:`load_kgmem_embedder` adapts ``kgmem.embed.get_default_embedder()``.

Documents: a turn is ``"<speaker>: <text>"`` (``speaker_prefix=True``); with
``captions=True`` an image-sharing turn also gets ``" [image: <caption>]"``; a session is its
turns joined by newlines (:meth:`benchmarks.task.Turn.render`). Captions are off by default:
that is the setting that reproduces the MiniLM rows of docs/BENCHMARKS.md exactly.
``turn_template`` (e.g. MemPalace's ``'{speaker} said, "{text}"'``) overrides both.
``level="session"`` ranks session documents; ``level="turn"`` ranks turns and the runner
derives the session ranking (sessions in order of their best turn).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from benchmarks.task import Haystack, Question, Ranking, Turn

Embedder = Callable[[list[str]], np.ndarray]

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lowercased ASCII word tokens: ``[a-z0-9]+``."""
    return _TOKEN.findall(text.lower())


@runtime_checkable
class RetrievalSystem(Protocol):
    """What the runner needs from a system under test (baseline or kgmem).

    ``index`` is called once per haystack, before the questions asked against it; ``rank``
    returns ids (turn ids and/or session ids of that haystack), best first, at least ``k``
    distinct sessions' worth when it can.
    """

    name: str

    def index(self, haystack: Haystack) -> None: ...

    def rank(self, question: Question, k: int) -> Ranking: ...


class _DocSystem:
    """Shared document building for the baselines."""

    def __init__(
        self,
        level: str = "turn",
        *,
        speaker_prefix: bool = True,
        captions: bool = False,
        speakers: Collection[str] | None = None,
        turn_template: str | None = None,
    ) -> None:
        if level not in ("turn", "session"):
            raise ValueError(f"level must be 'turn' or 'session', got {level!r}")
        self.level = level
        self.speaker_prefix = speaker_prefix
        self.captions = captions
        self.speakers = set(speakers) if speakers is not None else None
        self.turn_template = turn_template
        self.doc_ids: list[str] = []
        self.doc_texts: list[str] = []
        self.haystack_id: str | None = None

    def _keep(self, t: Turn) -> bool:
        return self.speakers is None or t.speaker in self.speakers

    def _text(self, t: Turn) -> str:
        if self.turn_template is not None:
            return self.turn_template.format(speaker=t.speaker, text=t.text)
        return t.render(speaker=self.speaker_prefix, caption=self.captions)

    def _build(self, haystack: Haystack) -> None:
        self.haystack_id = haystack.haystack_id
        ids, texts = [], []
        for s in haystack.sessions:
            turns = [t for t in s.turns if self._keep(t)]
            if self.level == "session":
                if turns:
                    ids.append(s.session_id)
                    texts.append("\n".join(self._text(t) for t in turns))
            else:
                for t in turns:
                    ids.append(t.turn_id)
                    texts.append(self._text(t))
        self.doc_ids, self.doc_texts = ids, texts

    def _ranking(self, order: Sequence[int], scores: np.ndarray | None = None) -> Ranking:
        ids = [self.doc_ids[i] for i in order]
        sc = [float(scores[i]) for i in order] if scores is not None else None
        if self.level == "session":
            return Ranking(session_ids=ids, scores=sc)
        return Ranking(turn_ids=ids, scores=sc)


def _stable_desc(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


class RandomSystem(_DocSystem):
    def __init__(self, level: str = "session", seed: int = 0, **kw: object) -> None:
        super().__init__(level, **kw)  # type: ignore[arg-type]
        self.seed = seed
        self.name = f"random-{level}s"

    def index(self, haystack: Haystack) -> None:
        self._build(haystack)

    def rank(self, question: Question, k: int) -> Ranking:
        h = hashlib.sha256(f"{self.seed}:{question.question_id}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(h[:8], "little"))
        return self._ranking(rng.permutation(len(self.doc_ids)).tolist())


class BM25Index:
    """Okapi BM25 over pre-tokenised documents (formula in the module docstring)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.n_docs = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=float)
        avgdl = float(lengths.mean()) if len(docs) and lengths.mean() > 0 else 1.0
        self.norm = k1 * (1.0 - b + b * lengths / avgdl)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(docs):
            for term, tf in Counter(d).items():
                p = postings.setdefault(term, ([], []))
                p[0].append(i)
                p[1].append(tf)
        self.postings = {
            t: (np.array(ix, dtype=np.int64), np.array(tf, dtype=float))
            for t, (ix, tf) in postings.items()
        }
        self.idf = {
            t: math.log(1.0 + (self.n_docs - len(ix) + 0.5) / (len(ix) + 0.5))
            for t, (ix, _) in self.postings.items()
        }

    def scores(self, query: Sequence[str]) -> np.ndarray:
        out = np.zeros(self.n_docs, dtype=float)
        for term in query:
            p = self.postings.get(term)
            if p is None:
                continue
            ix, tf = p
            out[ix] += self.idf[term] * tf * (self.k1 + 1.0) / (tf + self.norm[ix])
        return out


class BM25System(_DocSystem):
    def __init__(
        self,
        level: str = "turn",
        *,
        k1: float = 1.5,
        b: float = 0.75,
        tokenizer: Callable[[str], list[str]] = tokenize,
        **kw: object,
    ) -> None:
        super().__init__(level, **kw)  # type: ignore[arg-type]
        self.k1, self.b, self.tokenizer = k1, b, tokenizer
        self.name = f"bm25-{level}s"
        self._index: BM25Index | None = None

    def index(self, haystack: Haystack) -> None:
        self._build(haystack)
        self._index = BM25Index([self.tokenizer(t) for t in self.doc_texts], self.k1, self.b)

    def rank(self, question: Question, k: int) -> Ranking:
        assert self._index is not None, "index() first"
        s = self._index.scores(self.tokenizer(question.question))
        return self._ranking(_stable_desc(s).tolist(), s)


class DateOracleSystem(BM25System):
    """The strongest simple baseline of a time question: the time the question names, read
    perfectly, with any ranking inside it (docs/BENCHMARKS.md's "date filter").

    An oracle on the time side: the window is the calendar days (UTC) of the question's gold
    turns, so it is what any system that reads the date right and ranks the day's turns in
    ``inner`` order gets. Turns said in the window come first, ranked by ``inner``
    (``"random"``: seeded per question as :class:`RandomSystem`; ``"chronological"``; or
    ``"bm25"``: :class:`BM25System`'s score, ties chronological), then every other turn in the
    same order. Questions without gold turns get the ``inner`` order alone.
    """

    def __init__(self, inner: str = "random", seed: int = 0, **kw: object) -> None:
        if inner not in ("random", "chronological", "bm25"):
            raise ValueError(f"inner must be random, chronological or bm25, got {inner!r}")
        super().__init__("turn", **kw)
        self.inner, self.seed = inner, seed
        self.name = f"date-oracle-{inner}"
        self._day: dict[str, object] = {}

    def index(self, haystack: Haystack) -> None:
        super().index(haystack)
        self._day = {t.turn_id: t.timestamp.date() if t.timestamp else None
                     for t in haystack.turns()}

    def rank(self, question: Question, k: int) -> Ranking:
        n = len(self.doc_ids)
        if self.inner == "bm25":
            assert self._index is not None, "index() first"
            base = _stable_desc(self._index.scores(self.tokenizer(question.question))).tolist()
        elif self.inner == "random":
            h = hashlib.sha256(f"{self.seed}:{question.question_id}".encode()).digest()
            base = np.random.default_rng(int.from_bytes(h[:8], "little")).permutation(n).tolist()
        else:
            base = list(range(n))
        days = {self._day.get(g) for g in question.gold_turn_ids} - {None}
        inside = [i for i in base if self._day.get(self.doc_ids[i]) in days]
        outside = [i for i in base if self._day.get(self.doc_ids[i]) not in days]
        return self._ranking(inside + outside)


def _normalise_rows(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float32)
    if a.ndim == 1:
        a = a[None, :]
    n = np.linalg.norm(a, axis=1, keepdims=True)
    return a / np.where(n == 0, 1.0, n)


class EmbeddingSystem(_DocSystem):
    def __init__(
        self,
        embed: Embedder,
        level: str = "turn",
        *,
        name: str | None = None,
        batch_size: int = 64,
        **kw: object,
    ) -> None:
        super().__init__(level, **kw)  # type: ignore[arg-type]
        self.embed = embed
        self.batch_size = batch_size
        self.name = name or f"embedding-{level}s"
        self._matrix: np.ndarray | None = None

    def index(self, haystack: Haystack) -> None:
        self._build(haystack)
        chunks = [
            _normalise_rows(self.embed(self.doc_texts[i : i + self.batch_size]))
            for i in range(0, len(self.doc_texts), self.batch_size)
        ]
        self._matrix = np.vstack(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)

    def rank(self, question: Question, k: int) -> Ranking:
        assert self._matrix is not None, "index() first"
        q = _normalise_rows(self.embed([question.question]))[0]
        s = self._matrix @ q
        return self._ranking(_stable_desc(s).tolist(), s)


def load_kgmem_embedder(*, uncached: bool = True) -> Embedder | None:
    """``kgmem.embed.get_default_embedder()`` as ``embed(list[str]) -> ndarray``, or None.

    Accepts an embedder that is callable, or has ``embed``, ``embed_texts`` or ``encode``.
    ``uncached``: bypass kgmem's embedding cache (its ``inner`` model) so that timings measure
    the model, not cache hits. Returns None when kgmem.embed or its model is not available.
    """
    emb: Any
    try:
        from kgmem.embed import get_default_embedder

        emb = get_default_embedder()
        if uncached and getattr(emb, "inner", None) is not None:
            emb = emb.inner
    except Exception:  # noqa: BLE001 - any failure means "not available here"
        return None
    fn: Any = next(
        (f for a in ("embed", "embed_texts", "encode") if callable(f := getattr(emb, a, None))),
        emb if callable(emb) else None,
    )
    if fn is None:
        return None

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(fn(list(texts)))

    return embed


def hashing_embedder(dim: int = 256) -> Embedder:
    """A toy, dependency-free embedder (hashed bag of tokens) for tests and dry runs."""

    def embed(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for tok in tokenize(t):
                h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
                out[i, h % dim] += 1.0
        return out

    return embed


# ----------------------------------------------------------------------------- random recall


def _comb_ratio(n: int, r: int, n2: int, r2: int) -> float:
    """C(n, r) / C(n2, r2) computed in log space (0 when C(n, r) is 0)."""
    if r < 0 or r > n:
        return 0.0
    lg = math.lgamma
    return math.exp(
        lg(n + 1) - lg(r + 1) - lg(n - r + 1) - (lg(n2 + 1) - lg(r2 + 1) - lg(n2 - r2 + 1))
    )


def random_expectation(n_docs: int, n_gold: int, k: int) -> dict[str, float]:
    """Exact expected recall_any@k / recall_all@k / recall_frac@k of a uniform random ranking."""
    k = min(k, n_docs)
    any_ = 1.0 - _comb_ratio(n_docs - n_gold, k, n_docs, k)
    all_ = _comb_ratio(n_docs - n_gold, k - n_gold, n_docs, k) if n_gold <= k else 0.0
    return {"recall_any": any_, "recall_all": all_, "recall_frac": k / n_docs}
