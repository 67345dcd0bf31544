"""Retrieval, QA and latency metrics. Every function says exactly what it computes.

Retrieval metrics take ``ranked`` (ids, best first) and ``gold`` (relevant ids). ``ranked`` is
deduplicated keeping first occurrences before scoring, so a system cannot score twice with one
item. Gold must be non-empty (``ValueError`` otherwise): deciding what to do with questions
without evidence is the caller's job, and must be reported (LoCoMo has 4 such questions;
LongMemEval's official code silently scores them ``recall_all = 1``).

* ``recall_any@k``: 1 if at least one gold id is in the top k, else 0.
* ``recall_all@k``: 1 if every gold id is in the top k, else 0.
* ``recall_frac@k``: |gold ∩ top k| / |gold|. With k=10 on sessions this is MemPalace's
  "mean fraction of gold sessions in top 10" once averaged (not recall_any!).
* ``zyphra_recall@k``: |gold ∩ top k| / min(k, |gold|) (Zyphra temporal-memory paper).
* ``ndcg@k``: binary relevance (1 for gold ids), ideal DCG = all gold ids ranked first, capped
  at k. It is neither "any" nor "all": it rewards every gold id found, weighted by rank.
  LongMemEval calls the same quantity ``ndcg_any``. Two discounts exist:
  ``variant="standard"`` (Järvelin-Kekäläinen / trec_eval: gain at rank r is 1/log2(r+1)) and
  ``variant="longmemeval"`` (its ``eval_utils.dcg``: ranks 1 and 2 both get weight 1, rank
  r >= 2 gets 1/log2(r)). The variants differ whenever a gold id sits at rank >= 2.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

# ----------------------------------------------------------------------------- retrieval


def _dedup(ranked: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for x in ranked:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _check(gold: Collection[str], k: int) -> set[str]:
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    g = set(gold)
    if not g:
        raise ValueError("gold is empty: filter such questions out and report how many")
    return g


def hits_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> int:
    """Number of distinct gold ids among the top k distinct ranked ids."""
    g = _check(gold, k)
    return sum(1 for x in _dedup(ranked)[:k] if x in g)


def recall_any_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    return 1.0 if hits_at_k(ranked, gold, k) > 0 else 0.0


def recall_all_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    return 1.0 if hits_at_k(ranked, gold, k) == len(set(gold)) else 0.0


def recall_frac_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """|gold ∩ top k| / |gold| (MemPalace's per-question "fraction of gold in top k")."""
    return hits_at_k(ranked, gold, k) / len(set(gold))


def zyphra_recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """|gold ∩ top k| / min(k, |gold|): 1.0 means the top k is as full of gold as it can be."""
    return hits_at_k(ranked, gold, k) / min(k, len(set(gold)))


def dcg(relevances: Sequence[float], k: int, *, variant: str = "standard") -> float:
    """DCG of the first k relevances (see the module docstring for the two variants)."""
    rel = np.asarray(relevances, dtype=float)[:k]
    if rel.size == 0:
        return 0.0
    ranks = np.arange(1, rel.size + 1)
    if variant == "standard":
        disc = np.log2(ranks + 1)
    elif variant == "longmemeval":
        disc = np.maximum(np.log2(np.maximum(ranks, 2)), 1.0)
    else:
        raise ValueError(f"unknown DCG variant {variant!r}")
    return float(np.sum(rel / disc))


def ndcg_at_k(
    ranked: Sequence[str], gold: Collection[str], k: int, *, variant: str = "standard"
) -> float:
    """Binary-relevance nDCG@k; the ideal ranking puts min(k, |gold|) gold ids first."""
    g = _check(gold, k)
    rel = [1.0 if x in g else 0.0 for x in _dedup(ranked)[:k]]
    ideal = dcg([1.0] * min(k, len(g)), k, variant=variant)
    return dcg(rel, k, variant=variant) / ideal


RETRIEVAL_METRICS: dict[str, Callable[[Sequence[str], Collection[str], int], float]] = {
    "recall_any": recall_any_at_k,
    "recall_all": recall_all_at_k,
    "recall_frac": recall_frac_at_k,
    "zyphra_recall": zyphra_recall_at_k,
    "ndcg": ndcg_at_k,
}


def retrieval_metrics(
    ranked: Sequence[str],
    gold: Collection[str],
    ks: Iterable[int] = (1, 5, 10),
    names: Iterable[str] = ("recall_any", "recall_all", "ndcg"),
) -> dict[str, float]:
    """``{"recall_any@5": 1.0, ...}`` for every metric name and k."""
    out: dict[str, float] = {}
    for name in names:
        fn = RETRIEVAL_METRICS[name]
        for k in ks:
            out[f"{name}@{k}"] = fn(ranked, gold, k)
    return out


def sessions_from_turns(
    turn_ranking: Sequence[str], turn_to_session: Mapping[str, str]
) -> list[str]:
    """Session ranking from a turn ranking: sessions in order of their first (best) turn.

    This equals ranking sessions by their best turn's score (max-pooling), and equals
    LongMemEval's ``evaluate_retrieval_turn2session`` for recall (it grows k over turns until
    k distinct sessions are seen). Turn ids without a session are ignored.
    """
    out: list[str] = []
    seen: set[str] = set()
    for t in turn_ranking:
        s = turn_to_session.get(t)
        if s is not None and s not in seen:
            seen.add(s)
            out.append(s)
    return out


_MEMPALACE_SESSION = re.compile(r"D(\d+):")


def mempalace_locomo_recall(
    ranked_sessions: Sequence[str], evidence_raw: Sequence[str], k: int = 10
) -> float:
    """MemPalace's LoCoMo "Avg Recall" at session level, its quirks included.

    As in MemPalace ``benchmarks/locomo_bench.py`` (``evidence_to_session_ids`` and
    ``compute_retrieval_recall``): gold sessions are ``re.match(r"D(\\d+):", entry)`` of each
    raw evidence string (so ``"D8:6; D9:17"`` yields only session 8, ``"D:11:26"`` and ``"D"``
    yield nothing, and ``D4:36`` keeps session 4 although the turn does not exist); a question
    without gold scores **1.0**; the value is |gold ∩ top k| / |gold|, averaged over all 1,986
    questions. Session ids here are ``S<n>``. Use :func:`recall_frac_at_k` for the clean
    version of the same idea.
    """
    gold = {f"S{m.group(1)}" for e in evidence_raw if (m := _MEMPALACE_SESSION.match(str(e)))}
    if not gold:
        return 1.0
    top = set(_dedup(ranked_sessions)[:k])
    return sum(1 for g in gold if g in top) / len(gold)


def engram_locomo_recall(
    ranked_sessions: Sequence[str], evidence_raw: Sequence[str], k: int = 5
) -> float:
    """engram-search 0.1.7's LoCoMo "R@k" (``benchmarks/locomo_bench.py`` at tag v0.1.7),
    scored on a session ranking.

    Gold sessions: ``ev.split(":")[0].replace("D", "")`` of each raw evidence string (so
    ``"D8:6; D9:17"`` gives session 8 only, ``"D"`` and ``"D:11:26"`` give a session that never
    matches, ``D10:19`` keeps session 10); 1.0 if one of them is among the first k distinct
    sessions. engram averages over the questions with a non-empty evidence list. Its own
    ranking is the sessions of its top-10 chunks; here it is the system's session ranking.
    """
    gold = {f"S{str(e).split(':')[0].replace('D', '')}" for e in evidence_raw}
    return 1.0 if gold & set(_dedup(ranked_sessions)[:k]) else 0.0


# ----------------------------------------------------------------------------- QA answers

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(text: object) -> str:
    """SQuAD v1.1 normalisation: lowercase, drop punctuation and articles, squeeze spaces."""
    s = str(text).lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def exact_match(prediction: object, gold: object | Sequence[object]) -> float:
    """1.0 if the normalised prediction equals a normalised gold answer (max over a list)."""
    golds = gold if isinstance(gold, (list, tuple)) else [gold]
    p = normalize_answer(prediction)
    return max((1.0 if p == normalize_answer(g) else 0.0) for g in golds) if golds else 0.0


def token_f1(prediction: object, gold: object | Sequence[object]) -> float:
    """SQuAD token F1 over normalised whitespace tokens (max over a list of golds)."""
    golds = gold if isinstance(gold, (list, tuple)) else [gold]
    best = 0.0
    p_toks = normalize_answer(prediction).split()
    for g in golds:
        g_toks = normalize_answer(g).split()
        if not p_toks or not g_toks:
            best = max(best, 1.0 if p_toks == g_toks else 0.0)
            continue
        common = Counter(p_toks) & Counter(g_toks)
        same = sum(common.values())
        if same == 0:
            continue
        prec, rec = same / len(p_toks), same / len(g_toks)
        best = max(best, 2 * prec * rec / (prec + rec))
    return best


# LoCoMo paper (snap-research/locomo, branch "code", task_eval/evaluation.py, commit
# 92286325a40764bee61f77824ddb95233b11c4d6): its own normalisation ("and" is an article there,
# commas go first) and Porter-stemmed tokens; category 1 (multi-hop) answers are
# comma-separated lists, category 3 gold keeps what precedes ";", category 5 (adversarial) is
# right when the answer says the information is not there.
_LOCOMO_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


def _locomo_normalize(text: str) -> str:
    s = text.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    return " ".join(_LOCOMO_ARTICLES.sub(" ", s).split())


def _locomo_token_f1(prediction: str, gold: str) -> float:
    from nltk.stem import PorterStemmer

    stem = PorterStemmer().stem
    p = [stem(w) for w in _locomo_normalize(prediction).split()]
    g = [stem(w) for w in _locomo_normalize(gold).split()]
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def locomo_f1(prediction: str, gold: str | None, category: int) -> float:
    """The LoCoMo paper's QA score (``eval_question_answering``) for one answer.

    Categories 2, 3, 4: stemmed token F1 (3: gold cut at the first ";"); 1: the gold and the
    prediction are split at commas, each gold part takes its best-matching prediction part,
    and the parts are averaged; 5: 1.0 when the answer contains "no information available"
    or "not mentioned", else 0.0.
    """
    if category == 5:
        low = prediction.lower()
        return 1.0 if "no information available" in low or "not mentioned" in low else 0.0
    answer = str(gold or "")
    if category == 3:
        answer = answer.split(";")[0].strip()
    if category == 1:
        preds = [p.strip() for p in prediction.split(",")]
        golds = [g.strip() for g in answer.split(",")]
        return float(np.mean([max(_locomo_token_f1(p, g) for p in preds) for g in golds]))
    return _locomo_token_f1(prediction, answer)


# ----------------------------------------------------------------------------- latency


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """n, mean, p50, p95, p99, max (seconds). Percentiles: numpy's default linear method."""
    a = np.asarray(list(seconds), dtype=float)
    if a.size == 0:
        return {
            "n": 0,
            "mean": math.nan,
            "p50": math.nan,
            "p95": math.nan,
            "p99": math.nan,
            "max": math.nan,
        }
    return {
        "n": int(a.size),
        "mean": float(a.mean()),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "p99": float(np.percentile(a, 99)),
        "max": float(a.max()),
    }


# ----------------------------------------------------------------------------- aggregation


def mean_metrics(metric_dicts: Iterable[Mapping[str, float | None]]) -> dict[str, dict[str, float]]:
    """Per metric name: mean over the dicts that have a non-None value, and that count n."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for d in metric_dicts:
        for name, v in d.items():
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            sums[name] = sums.get(name, 0.0) + float(v)
            counts[name] = counts.get(name, 0) + 1
    return {name: {"mean": sums[name] / counts[name], "n": counts[name]} for name in sums}


def aggregate(
    records: Sequence[Mapping[str, Any]],
    *,
    metrics_key: str = "metrics",
    category_key: str = "category",
    category_order: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Overall and per-category means of per-question metric dicts.

    ``records`` are per-question dicts holding ``metrics_key`` -> {name: value or None}.
    Returns ``{"overall": {name: {"mean", "n"}}, "by_category": {cat: {...}}, "n": N}``.
    """
    by_cat: dict[str, list[Mapping[str, float | None]]] = {}
    for r in records:
        by_cat.setdefault(str(r.get(category_key)), []).append(r[metrics_key])
    order = list(category_order or []) + sorted(
        c for c in by_cat if c not in (category_order or [])
    )
    return {
        "n": len(records),
        "overall": mean_metrics(r[metrics_key] for r in records),
        "by_category": {c: mean_metrics(by_cat[c]) for c in order if c in by_cat},
        "category_counts": {c: len(by_cat[c]) for c in order if c in by_cat},
    }


# ----------------------------------------------------------------------------- LongMemEval


def longmemeval_official_retrieval(
    questions: Sequence[Any],
    session_rankings: Mapping[str, Sequence[str]] | None = None,
    turn_rankings: Mapping[str, Sequence[str]] | None = None,
    *,
    no_user_evidence: str = "skip",
) -> dict[str, Any]:
    """LongMemEval's retrieval printout convention (``print_retrieval_metrics.py``).

    Session level: ``recall_all@5, ndcg_any@5, recall_all@10, ndcg_any@10``; turn level adds
    ``@50``. Means over questions, **skipping abstention questions (``_abs``) and questions
    without user-side evidence** (no user turn with ``has_answer``: the official corpus holds
    user turns only, so such questions have no gold; the official code would score them
    recall_all = 1 vacuously and ndcg = 0). Gold: user turns with ``has_answer`` (turn level)
    and the answer sessions holding one (session level). Assistant turns are removed from a
    turn ranking before scoring, as the official corpus never contains them. nDCG uses the
    official discount (``variant="longmemeval"``).

    ``no_user_evidence="as_code"`` keeps those questions the way the released code scores
    them (recall_all = 1.0, ndcg = 0.0), to compare with numbers produced by that code.

    ``questions``: :class:`benchmarks.datasets.longmemeval.LongMemEvalQuestion` objects.
    Rankings are keyed by question_id. Returns means, counts and the skipped ids.
    """
    sess_names = [("recall_all", 5), ("ndcg", 5), ("recall_all", 10), ("ndcg", 10)]
    turn_names = sess_names + [("recall_all", 50), ("ndcg", 50)]
    kept, vacuous, skipped_abs, skipped_noev = [], [], [], []
    for q in questions:
        if q.is_abstention:
            skipped_abs.append(q.question_id)
        elif not q.user_evidence_turn_ids():
            if no_user_evidence == "as_code":
                vacuous.append(q)
            elif no_user_evidence == "skip":
                skipped_noev.append(q.question_id)
            else:
                raise ValueError(
                    f"no_user_evidence must be 'skip' or 'as_code': {no_user_evidence!r}"
                )
        else:
            kept.append(q)

    def level(rankings: Mapping[str, Sequence[str]], names: list[tuple[str, int]], turn: bool):
        vals: dict[str, list[float]] = {
            f"{'ndcg_any' if n == 'ndcg' else n}@{k}": [] for n, k in names
        }
        missing = []
        for q in kept:
            if q.question_id not in rankings:
                missing.append(q.question_id)
                continue
            ranked = list(rankings[q.question_id])
            if turn:
                users = q.user_turn_ids()
                ranked = [t for t in ranked if t in users]
                gold = q.user_evidence_turn_ids()
            else:
                gold = q.user_evidence_session_ids()
            for n, k in names:
                key = f"{'ndcg_any' if n == 'ndcg' else n}@{k}"
                if n == "ndcg":
                    vals[key].append(ndcg_at_k(ranked, gold, k, variant="longmemeval"))
                else:
                    vals[key].append(RETRIEVAL_METRICS[n](ranked, gold, k))
        for q in vacuous:  # the released code: all([]) = 1 for recall_all, ndcg 0
            if q.question_id not in rankings:
                missing.append(q.question_id)
                continue
            for n, k in names:
                vals[f"{'ndcg_any' if n == 'ndcg' else n}@{k}"].append(
                    1.0 if n == "recall_all" else 0.0
                )
        return {k: (float(np.mean(v)) if v else math.nan) for k, v in vals.items()}, missing

    out: dict[str, Any] = {
        "n_scored": len(kept) + len(vacuous),
        "skipped_abstention": skipped_abs,
        "skipped_no_user_evidence": skipped_noev,
    }
    if session_rankings is not None:
        out["session"], out["session_missing"] = level(session_rankings, sess_names, False)
    if turn_rankings is not None:
        out["turn"], out["turn_missing"] = level(turn_rankings, turn_names, True)
    return out


def format_longmemeval_printout(result: Mapping[str, Any]) -> str:
    """Text in the layout of the official printout (values rounded to 4 places)."""
    lines = []
    for lvl, title in (("session", "Session-level metrics:"), ("turn", "Turn-level metrics:")):
        if lvl in result:
            lines.append(title)
            lines.append(", ".join(f"\t{k} = {round(v, 4)}" for k, v in result[lvl].items()))
    return "\n".join(lines)
