"""Published numbers of other memory systems, with what their code computes (quoted here,
not measured), for the comparison table of :mod:`benchmarks.compare`.

Each entry was read from the peer's own evaluation code at the commit named in ``source``
(engram-search from its PyPI wheel 0.1.7 and the matching ``v0.1.7`` tag), not from a README
alone. ``ours`` names the metric of this harness that computes the same thing on kgmem's
rankings when there is one (``None``: nothing here computes it), and ``mismatch`` says where
the two still differ. Percentages; ``n`` = questions the peer averaged over.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

ENGRAM = "Nitin-Gupta1109/engram@v0.1.7 (68e8ade), benchmarks/{}; PyPI engram-search 0.1.7"
MEMPALACE = "MemPalace/mempalace@9b7cfc9, benchmarks/{}"
MEM0 = "mem0ai/mem0@b3ede5b, evaluation/ (llm_judge.py, prompts.py); arXiv:2504.19413 Table 1"
ZEP_PAPER = "Rasmussen et al., arXiv:2501.13956 (Zep), LongMemEval table; getzep/zep-papers@4b7f26c"
LME = "xiaowu0162/LongMemEval@9e0b455, src/retrieval/run_retrieval.py, print_retrieval_metrics.py"


@dataclass(frozen=True)
class PeerNumber:
    system: str
    benchmark: str
    metric: str  # the peer's own name for it
    value: float  # percent
    n: int | None
    setup: str  # what produced the number (models, rerankers, LLMs)
    definition: str  # what the peer's code computes
    ours: str | None  # the metric here that computes the same on our rankings
    mismatch: str  # where it still does not map
    source: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_ENGRAM_LOCOMO_DEF = (
    "any gold session among the first k distinct sessions of the top-10 retrieved chunks; "
    "gold = session of the first 'D<n>' of each evidence string; the 1,982 questions with a "
    "non-empty evidence list")
_ENGRAM_LOCOMO_GAP = (
    "its ranking holds at most 10 chunks, so R@10 counts fewer than 10 sessions when chunks "
    "share one (ours: 10 distinct sessions); malformed evidence ('D', 'D:11:26') becomes a "
    "session that never matches (ours repairs or drops it); its category names follow Mem0's "
    "relabelling (its 'single-hop' = official multi-hop 1, 'multi-hop' = open-domain 3, "
    "'contextual' = single-hop 4)")
_LME_PEER_DEF = (
    "session recall_any@5: any of answer_session_ids among the top 5 sessions, averaged over "
    "all 500 questions, the 30 abstention questions included")
_LME_PEER_GAP = (
    "not LongMemEval's official retrieval metric (recall_all / ndcg_any, user-side evidence "
    "only, abstention and no-user-evidence questions skipped): compare with the peers' "
    "convention row, not the official printout")

PEERS: list[PeerNumber] = [
    PeerNumber(
        "engram-search 0.1.7 (--mode rerank)", "LoCoMo", "R@5", 93.9, 1982,
        "bge-large-en-v1.5 + BM25 + RRF, BAAI/bge-reranker-v2-m3 cross-encoder (568M), "
        "speaker-name injection, no LLM",
        _ENGRAM_LOCOMO_DEF, "session.engram_recall@5", _ENGRAM_LOCOMO_GAP,
        ENGRAM.format("locomo_bench.py")),
    PeerNumber(
        "engram-search 0.1.7 (--mode rerank)", "LoCoMo", "R@10", 95.0, 1982,
        "as above", _ENGRAM_LOCOMO_DEF.replace("first k distinct", "distinct"),
        "session.engram_recall@10",
        "an upper bound of ours at best: its 10 chunks rarely span 10 sessions. "
        + _ENGRAM_LOCOMO_GAP, ENGRAM.format("locomo_bench.py")),
    PeerNumber(
        "engram-search 0.1.7 (--mode rerank)", "LoCoMo", "NDCG@5", 89.4, 1982,
        "as above",
        "DCG of the top 5 sessions divided by the DCG of the same 5 relevances sorted "
        "(ideal taken from the retrieved list, not from the number of gold sessions)",
        None, "no metric here: ours (ndcg) takes the ideal from the gold set, which a "
        "ranking that misses gold cannot reach; theirs is 1.0 whenever the first hit is gold",
        ENGRAM.format("locomo_bench.py")),
    PeerNumber(
        "engram-search 0.1.7 (--mode hybrid)", "LongMemEval_S", "R@5", 98.4, 500,
        "bge-large + BM25 + RRF over user, assistant and preference documents, no LLM",
        _LME_PEER_DEF + "; ranking = sessions of the top-10 chunks",
        "peer_convention.session.recall_any@5", _LME_PEER_GAP,
        ENGRAM.format("longmemeval_bench.py")),
    PeerNumber(
        "MemPalace raw", "LongMemEval_S", "R@5", 96.6, 500,
        "ChromaDB default embeddings (all-MiniLM-L6-v2), one document per session of its "
        "user turns, no LLM", _LME_PEER_DEF, "peer_convention.session.recall_any@5",
        _LME_PEER_GAP + "; MemPalace indexes user turns only (kgmem replays both roles)",
        MEMPALACE.format("longmemeval_bench.py (mode raw, granularity session), BENCHMARKS.md")),
    PeerNumber(
        "MemPalace hybrid v4, held-out 450", "LongMemEval_S", "R@5", 98.4, 450,
        "hybrid keyword + MiniLM, tuned on the other 50 questions, no LLM", _LME_PEER_DEF,
        "peer_convention.session.recall_any@5",
        _LME_PEER_GAP + "; 450 of the 500 questions (lme_split_50_450.json)",
        MEMPALACE.format("BENCHMARKS.md")),
    PeerNumber(
        "MemPalace session, no rerank", "LoCoMo", "Avg Recall (top-10)", 60.3, 1986,
        "raw sessions + all-MiniLM-L6-v2, no LLM",
        "mean fraction of gold sessions in the top 10 (recall_frac, not recall_any), over all "
        "1,986 questions; a question without gold scores 1.0; gold = first 'D<n>' of each "
        "evidence string", "session.mempalace_recall@10",
        "none left: the MemPalace scorer here reproduces its quirks (60.29% on its own setup)",
        MEMPALACE.format("locomo_bench.py, BENCHMARKS.md")),
    PeerNumber(
        "MemPalace hybrid v5", "LoCoMo", "Avg Recall (top-10)", 88.9, 1986,
        "hybrid keyword + MiniLM, no LLM", "as MemPalace session, no rerank",
        "session.mempalace_recall@10", "none left (same scorer)",
        MEMPALACE.format("BENCHMARKS.md")),
    PeerNumber(
        "MemPalace bge-large hybrid", "LoCoMo", "Avg Recall (top-10)", 92.4, 1986,
        "hybrid keyword + bge-large, no LLM", "as MemPalace session, no rerank",
        "session.mempalace_recall@10", "none left (same scorer)",
        MEMPALACE.format("BENCHMARKS.md")),
    PeerNumber(
        "Mem0", "LoCoMo", "J (LLM-as-judge)", 66.88, 1540,
        "gpt-4o-mini reader and judge, top memories of each speaker",
        "share of answers Mem0's judge prompt labels CORRECT; categories 1-4 (adversarial "
        "skipped)", "qa.mem0_j",
        "QA accuracy, not retrieval: needs an LLM endpoint, not measured here; its per-category "
        "labels 1/3/4 are swapped against the official ones (only temporal and overall line up)",
        MEM0),
    PeerNumber(
        "Mem0 graph (Mem0^g)", "LoCoMo", "J (LLM-as-judge)", 68.44, 1540,
        "as Mem0, plus graph relations in the reader prompt", "as Mem0", "qa.mem0_j",
        "as Mem0", MEM0),
    PeerNumber(
        "Zep (as run by Mem0)", "LoCoMo", "J (LLM-as-judge)", 65.99, 1540,
        "Mem0's harness, ANSWER_PROMPT_ZEP reader, gpt-4o-mini", "as Mem0", "qa.mem0_j",
        "as Mem0", MEM0),
    PeerNumber(
        "Zep (own re-run)", "LoCoMo", "J (LLM-as-judge)", 75.14, 1540,
        "Zep search results, gpt-4o-mini reader and judge (Mem0's judge prompt)", "as Mem0",
        "qa.mem0_j", "as Mem0; Zep's own answers and grades are in its repository",
        "getzep/zep-papers@4b7f26c, kg_architecture_agent_memory/locomo_eval/"),
    PeerNumber(
        "Zep / Graphiti", "LongMemEval_S", "QA accuracy", 71.2, 500,
        "gpt-4o reader on Zep's retrieved context (~1.6k tokens); full-context gpt-4o 60.2%",
        "share of answers LongMemEval's judge prompts (one per question type, abstention "
        "included) label correct", "qa.lme_acc",
        "QA accuracy, not retrieval: needs an LLM endpoint, not measured here", ZEP_PAPER),
]

# What the official LongMemEval printout computes (for the comparison table's notes).
LONGMEMEVAL_OFFICIAL = (
    "recall_all@k and ndcg_any@k (its DCG: ranks 1 and 2 weigh 1), session and turn level, "
    "user-side evidence only, abstention and no-user-evidence questions skipped: " + LME)
