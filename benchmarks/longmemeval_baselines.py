"""LongMemEval retrieval baselines: ``python -m benchmarks.longmemeval_baselines``.

Needs the LongMemEval files (not shipped; see :mod:`benchmarks.datasets.longmemeval`):
``--variant s`` (default), ``oracle`` or ``m``, or ``--path FILE``.

Systems: random and BM25 over sessions and over turns (plus MiniLM through ``kgmem.embed``
when importable, with ``--minilm``). Documents follow the official retrieval setup: **user
turns only** (a session document = its user turns joined), question = the question text.

Printed per system:

* the official printout (``recall_all@5/@10``, ``ndcg_any@5/@10`` sessions; turns add
  ``@50``), skipping abstention questions and questions without user-side evidence
  (:func:`benchmarks.metrics.longmemeval_official_retrieval`);
* our table: session ``recall_any@5`` (MemPalace's headline LongMemEval number),
  ``recall_any@10``, ``recall_all@10``, turn ``recall_any@10``, per question type, on the
  non-abstention questions with gold = ``answer_session_ids`` / ``has_answer`` turns of
  either role.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from benchmarks.baselines import (
    BM25System,
    EmbeddingSystem,
    RandomSystem,
    RetrievalSystem,
    load_kgmem_embedder,
)
from benchmarks.datasets.longmemeval import QUESTION_TYPES, load_longmemeval
from benchmarks.metrics import (
    aggregate,
    format_longmemeval_printout,
    longmemeval_official_retrieval,
)
from benchmarks.report import category_table, markdown_table, write_markdown_report
from benchmarks.runner import run_retrieval

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "longmemeval_baselines"
COLUMNS = [
    ("session any@5", "session.recall_any@5"),
    ("session any@10", "session.recall_any@10"),
    ("session all@10", "session.recall_all@10"),
    ("turn any@10", "turn.recall_any@10"),
    ("turn all@10", "turn.recall_all@10"),
]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.longmemeval_baselines")
    ap.add_argument("--variant", choices=("s", "oracle", "m"), default="s")
    ap.add_argument("--path", type=Path, default=None, help="a LongMemEval JSON file")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--minilm", action="store_true", help="also run MiniLM (kgmem.embed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    console = Console()
    if not console.is_terminal:
        console = Console(width=150)

    ds = load_longmemeval(args.path, variant=args.variant)
    console.print(f"LongMemEval {ds.path.name}: {json.dumps(ds.stats())}")
    task = ds.to_retrieval_task(include_abstention=True)
    user = {"user"}
    systems: list[RetrievalSystem] = [
        RandomSystem("session", seed=args.seed, speakers=user),
        RandomSystem("turn", seed=args.seed, speakers=user),
        BM25System("session", speakers=user),
        BM25System("turn", speakers=user),
    ]
    if args.minilm:
        embed = load_kgmem_embedder(uncached=True)
        if embed is None:
            console.print("[yellow]kgmem.embed not importable: MiniLM skipped[/]")
        else:
            systems += [
                EmbeddingSystem(embed, "session", name="minilm-sessions", speakers=user),
                EmbeddingSystem(embed, "turn", name="minilm-turns", speakers=user),
            ]
    sections = []
    summary_out = {"dataset": ds.stats(), "systems": {}}
    scored_ids = {q.question_id for q in ds.questions if not q.is_abstention}
    for system in systems:
        res = run_retrieval(
            system, task, progress=not args.no_progress, category_order=list(QUESTION_TYPES)
        )
        res.write(args.out, stem=system.name)
        sess = {r["question_id"]: r["ranked_session_ids"] for r in res.records}
        turns = {
            r["question_id"]: r["ranked_turn_ids"]
            for r in res.records
            if r["ranked_turn_ids"] is not None
        }
        official = longmemeval_official_retrieval(
            ds.questions, session_rankings=sess, turn_rankings=turns or None
        )
        console.print(f"[bold]{system.name}[/] (official convention, n={official['n_scored']})")
        console.print(format_longmemeval_printout(official))
        ours = [r for r in res.records if r["question_id"] in scored_ids]

        agg = aggregate(ours, category_order=list(QUESTION_TYPES))
        agg["system"] = system.name
        h, rows = category_table(agg, COLUMNS)
        console.print(markdown_table(h, rows))
        sections.append(
            (
                f"{system.name}: official printout",
                "```\n" + format_longmemeval_printout(official) + "\n```",
            )
        )
        sections.append(
            (f"{system.name}: per question type (non-abstention)", markdown_table(h, rows))
        )
        summary_out["systems"][system.name] = {"official": official, "ours": agg}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary_out, indent=1, default=str) + "\n")
    write_markdown_report(
        args.out / "report.md", f"LongMemEval baselines ({ds.path.name})", sections
    )
    console.print(f"wrote {args.out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
