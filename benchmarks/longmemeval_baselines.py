"""LongMemEval retrieval (and optional QA): ``python -m benchmarks longmemeval``.

Data: the LongMemEval files (not shipped; see :mod:`benchmarks.datasets.longmemeval`):
``--variant s`` (default: ``longmemeval_s_cleaned.json``), ``oracle`` or ``m``, or
``--path FILE`` (e.g. the official-schema fixture ``tests/benchmarks/fixtures/
longmemeval_fixture.json``). sha256 is checked against the published pins when known.

Systems (``--systems``, default ``random,bm25-sessions,bm25-turns,kgmem-extract,kgmem``):

* ``random-*`` / ``bm25-*`` / ``minilm-*``: documents follow the official retrieval setup,
  **user turns only** (a session document = its user turns joined), query = the question;
* ``kgmem-extract`` (the product default: offline extraction on) and ``kgmem`` (episodes
  only): one fresh store per question's haystack, **both roles replayed** (what a product
  stores), each turn at its session's date, asked at ``question_date``
  (:class:`benchmarks.kgmem_system.KgmemSystem`; replays cached like LoCoMo's).

Printed and written per system:

* the official printout (session ``recall_all@5/@10``, ``ndcg_any@5/@10``; turns add ``@50``),
  skipping abstention questions (``_abs``) and questions without user-side evidence, as the
  official code does (:func:`benchmarks.metrics.longmemeval_official_retrieval`; assistant
  turns are dropped from turn rankings first: the official corpus has none);
* per question type, non-abstention questions, gold = ``answer_session_ids`` /
  ``has_answer`` turns of either role: session ``recall_any@5`` / ``@10``, ``recall_all@10``,
  turn ``recall_any@10`` / ``all@10``;
* the peers' convention (engram-search, MemPalace: "R@5"): session ``recall_any@5`` / ``@10``
  with gold = ``answer_session_ids`` over **every** question, abstention included;
* with ``--qa``: LongMemEval's own reader prompt and GPT-4o judge prompts per question type
  (:mod:`benchmarks.qa_prompts`), accuracy per type, task-averaged, overall and on abstention.

Outputs (``--out``): ``<system>.jsonl`` (one line per question: gold, ranked ids, metrics,
latency, QA answers and labels), ``<system>.summary.json``, ``summary.json``, ``report.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.baselines import (
    BM25System,
    EmbeddingSystem,
    RandomSystem,
    RetrievalSystem,
    load_kgmem_embedder,
)
from benchmarks.datasets.longmemeval import QUESTION_TYPES, LongMemEvalDataset, load_longmemeval
from benchmarks.llm_qa import add_qa_arguments, not_measured, qa_from_args
from benchmarks.metrics import (
    aggregate,
    format_longmemeval_printout,
    longmemeval_official_retrieval,
    mean_metrics,
)
from benchmarks.report import category_table, markdown_table, write_markdown_report
from benchmarks.runner import RunResult, run_retrievals

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "longmemeval"
DEFAULT_CACHE = REPO / "benchmarks" / "out" / "cache" / "kgmem-replays"
DEFAULT_SYSTEMS = "random,bm25-sessions,bm25-turns,kgmem-extract,kgmem"
ALL_SYSTEMS = ("random", "bm25-sessions", "bm25-turns", "minilm-sessions", "minilm-turns",
               "kgmem", "kgmem-extract")
COLUMNS = [
    ("session any@5", "session.recall_any@5"),
    ("session any@10", "session.recall_any@10"),
    ("session all@10", "session.recall_all@10"),
    ("turn any@10", "turn.recall_any@10"),
    ("turn all@10", "turn.recall_all@10"),
]
PEER_METRICS = ("session.recall_any@5", "session.recall_any@10")


def build_systems(names: Sequence[str], seed: int, cache_dir: Path | None,
                  say: Any) -> list[RetrievalSystem]:
    user = {"user"}
    systems: list[RetrievalSystem] = []
    embed = None
    for n in names:
        if n not in ALL_SYSTEMS:
            raise SystemExit(f"unknown system {n!r}; choose from {', '.join(ALL_SYSTEMS)}")
        if n == "random":
            systems += [RandomSystem("session", seed=seed, speakers=user),
                        RandomSystem("turn", seed=seed, speakers=user)]
        elif n.startswith("bm25"):
            systems.append(BM25System(n.split("-")[1].rstrip("s"), speakers=user))
        elif n.startswith("minilm"):
            embed = embed or load_kgmem_embedder(uncached=True)
            if embed is None:
                say("[yellow]kgmem.embed not importable: MiniLM skipped[/]")
                continue
            systems.append(EmbeddingSystem(embed, n.split("-")[1].rstrip("s"), name=n,
                                           speakers=user))
        else:
            from benchmarks.kgmem_system import KgmemSystem

            systems.append(KgmemSystem(n, extract=n == "kgmem-extract", cache_dir=cache_dir))
    return systems


def qa_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """LongMemEval's QA printout (``print_qa_metrics.py``): accuracy per question type,
    task-averaged, overall, and on abstention questions."""
    rows = [r for r in records if r["metrics"].get("qa.lme_acc") is not None]
    if not rows:
        return None
    by_type: dict[str, list[float]] = {}
    for r in rows:
        by_type.setdefault(r["category"], []).append(float(r["metrics"]["qa.lme_acc"]))
    abst = [float(r["metrics"]["qa.lme_acc"]) for r in rows if r["question_id"].endswith("_abs")]
    per_type = {t: sum(v) / len(v) for t, v in by_type.items()}
    return {"by_type": per_type, "n_by_type": {t: len(v) for t, v in by_type.items()},
            "task_averaged": sum(per_type.values()) / len(per_type),
            "overall": sum(sum(v) for v in by_type.values()) / len(rows),
            "abstention": (sum(abst) / len(abst)) if abst else None, "n": len(rows)}


def system_sections(ds: LongMemEvalDataset, res: RunResult) -> tuple[dict[str, Any],
                                                                     list[tuple[str, str]]]:
    """The three views of one system's run (see the module docstring) and its report text."""
    sess = {r["question_id"]: r["ranked_session_ids"] for r in res.records}
    turns = {r["question_id"]: r["ranked_turn_ids"] for r in res.records
             if r["ranked_turn_ids"] is not None}
    official = longmemeval_official_retrieval(ds.questions, session_rankings=sess,
                                              turn_rankings=turns or None)
    scored = {q.question_id for q in ds.questions if not q.is_abstention}
    ours = aggregate([r for r in res.records if r["question_id"] in scored],
                     category_order=list(QUESTION_TYPES))
    ours["system"] = res.system
    peers = mean_metrics({m: r["metrics"].get(m) for m in PEER_METRICS} for r in res.records)
    qa = qa_summary(res.records)
    h, rows = category_table(ours, COLUMNS)
    peer_txt = ", ".join(f"{m} = {100 * v['mean']:.1f}% (n={v['n']})" for m, v in peers.items())
    sections = [
        (f"{res.system}: official printout (n={official['n_scored']})",
         "```\n" + format_longmemeval_printout(official) + "\n```"),
        (f"{res.system}: per question type (non-abstention)", markdown_table(h, rows)),
        (f"{res.system}: peers' convention (all questions, gold = answer_session_ids)",
         peer_txt),
    ]
    if qa is not None:
        sections.append((f"{res.system}: QA accuracy (LongMemEval judge)",
                         "```json\n" + json.dumps(qa, indent=1) + "\n```"))
    return {"official": official, "ours": ours, "peer_convention": peers, "qa": qa}, sections


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks longmemeval",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=("s", "oracle", "m"), default="s")
    ap.add_argument("--path", type=Path, default=None, help="a LongMemEval JSON file")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--systems", default=DEFAULT_SYSTEMS, help=",".join(ALL_SYSTEMS))
    ap.add_argument("--minilm", action="store_true", help="also run the MiniLM baselines")
    ap.add_argument("--limit", type=int, default=None, help="first N questions only")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE,
                    help="reuse replayed kgmem stores from here")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    add_qa_arguments(ap)
    args = ap.parse_args(argv)
    console = Console() if Console().is_terminal else Console(width=150)

    ds = load_longmemeval(args.path, variant=args.variant)
    if args.limit is not None:
        ds.questions = ds.questions[: args.limit]
    console.print(f"LongMemEval {ds.path.name}: {json.dumps(ds.stats())}")
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    names += ["minilm-sessions", "minilm-turns"] if args.minilm else []
    qa = qa_from_args(args, "longmemeval", names, console.print)
    systems = build_systems(names, args.seed, None if args.no_cache else args.cache_dir,
                            console.print)
    t0 = time.time()
    try:
        runs = run_retrievals(systems, ds.to_retrieval_task(include_abstention=True),
                              progress=not args.no_progress,
                              category_order=list(QUESTION_TYPES), on_question=qa)
    finally:
        for s in systems:
            getattr(s, "close", lambda: None)()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"dataset": ds.stats(), "systems": {}}
    sections: list[tuple[str, str]] = []
    for res in runs:
        res.write(out, stem=res.system)
        views, secs = system_sections(ds, res)
        views["latency_s"], views["ingest"] = res.summary["latency_s"], res.summary["ingest"]
        summary["systems"][res.system] = views
        sections += secs
        console.print(f"[bold]{res.system}[/] (official convention, "
                      f"n={views['official']['n_scored']})")
        console.print(format_longmemeval_printout(views["official"]))
    summary["meta"] = {
        "file": str(ds.path), "sha256_ok": ds.sha256_ok, "systems": [s.name for s in systems],
        "qa": qa.report() if qa is not None else not_measured("longmemeval", names),
        "limit": args.limit, "python": sys.version.split()[0], "machine": platform.platform(),
        "elapsed_s": round(time.time() - t0, 1),
        "replays": {s.name: dict(s.stats) for s in systems if hasattr(s, "stats")},
    }
    if qa is not None:
        qa.close()
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n",
                                      encoding="utf-8")
    sections.insert(0, ("Setup", "```json\n" + json.dumps(summary["meta"], indent=1,
                                                          default=str) + "\n```"))
    write_markdown_report(out / "report.md", f"LongMemEval ({ds.path.name})", sections)
    console.print(f"wrote {out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
