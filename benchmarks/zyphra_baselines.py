"""Zyphra temporal memory: ``python -m benchmarks zyphra [--systems ...]``.

Ranks the messages of each log for every question variant and scores the paper's metric:
gold hits in top 10 / min(10, |gold|) (``turn.zyphra_recall@10``), per family and question
type. Systems (``--systems``, default all of them):

* ``random``, ``bm25-turns``: content only (no dates), the floors;
* ``date-oracle-random`` / ``date-oracle-bm25``: the time the question names read perfectly
  (the days of its gold messages), messages of those days first, in random / BM25 order
  (:class:`benchmarks.baselines.DateOracleSystem`): the strongest simple baseline, what "a date
  filter with any ranking" gives;
* ``kgmem-extract`` (offline extraction on, the product default) and ``kgmem`` (episodes
  only): time-aware search; kgmem reads the dates from the question itself ("on May 8th",
  "167 days ago" relative to the log's last message, ``Question.question_date``).

Writes per-question JSONL and summaries to ``--out`` (default
``benchmarks/out/zyphra_baselines/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.baselines import BM25System, DateOracleSystem, RandomSystem, RetrievalSystem
from benchmarks.datasets.zyphra import FAMILIES, load_zyphra
from benchmarks.report import markdown_table, write_markdown_report
from benchmarks.runner import run_retrieval

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "zyphra_baselines"
METRIC = "turn.zyphra_recall@10"
ALL_SYSTEMS = ("random", "bm25-turns", "date-oracle-random", "date-oracle-bm25",
               "kgmem-extract", "kgmem")


def build_systems(names: list[str], seed: int, cache_dir: Path | None = None
                  ) -> list[RetrievalSystem]:
    """Systems in run order; kgmem ones may carry a ranking suffix (``kgmem-extract@hl90``,
    :func:`benchmarks.kgmem_system.variant`) and reuse replays from ``cache_dir``."""
    systems: list[RetrievalSystem] = []
    for n in names:
        if n == "random":
            systems.append(RandomSystem("turn", seed=seed))
        elif n == "bm25-turns":
            systems.append(BM25System("turn"))
        elif n.startswith("date-oracle-"):
            systems.append(DateOracleSystem(n.removeprefix("date-oracle-"), seed=seed))
        elif n.partition("@")[0] in ("kgmem", "kgmem-extract"):
            from benchmarks.kgmem_system import KgmemSystem, variant

            base, opts = variant(n) or (n, {})
            systems.append(KgmemSystem(n, extract=base == "kgmem-extract", search=opts,
                                       cache_dir=cache_dir))
        else:
            raise SystemExit(f"unknown system {n!r}; choose from {', '.join(ALL_SYSTEMS)}")
    return systems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.zyphra_baselines")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--root", type=Path, default=None, help="zyphra_temporal_memory folder")
    ap.add_argument("--families", default="time_qs,content_time_qs", help=",".join(FAMILIES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--systems", default=",".join(ALL_SYSTEMS), help=",".join(ALL_SYSTEMS))
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--logs", default=None,
                    help="only these log ids, e.g. 26,41,42,43 (the logs of LoCoMo dev "
                         "conversations 0, 2, 3, 4; default: all 12)")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="reuse replayed embedded stores from here (key: data, config, code)")
    args = ap.parse_args(argv)
    console = Console()
    if not console.is_terminal:
        console = Console(width=140)

    families = tuple(f.strip() for f in args.families.split(",") if f.strip())
    ds = load_zyphra(args.root, families=families)
    if args.logs:
        keep = {int(x) for x in args.logs.split(",") if x.strip()}
        ds = dataclasses.replace(ds, logs={k: v for k, v in ds.logs.items() if k in keep},
                                 questions=[q for q in ds.questions if q.log_id in keep])
    task = ds.to_retrieval_task(families)
    console.print(f"Zyphra: {len(ds.logs)} logs, {len(task.questions)} question variants")
    summaries = []
    systems = build_systems([n.strip() for n in args.systems.split(",") if n.strip()],
                            args.seed, args.cache_dir)
    for system in systems:
        res = run_retrieval(
            system,
            task,
            ks=(10,),
            metrics=("zyphra_recall", "recall_any"),
            progress=not args.no_progress,
        )
        res.write(args.out, stem=system.name)
        summaries.append(res.summary)
        getattr(system, "close", lambda: None)()

    cats = sorted({c for s in summaries for c in s["by_category"]})
    fams = sorted({c.split("/")[0] for c in cats})
    headers = ["category", "n"] + [s["system"] for s in summaries]
    rows = []
    for c in cats:
        n = summaries[0]["category_counts"].get(c, 0)
        rows.append(
            [c, n] + [f"{100 * s['by_category'][c][METRIC]['mean']:.1f}%" for s in summaries]
        )
    for fam in fams:  # family means over question variants
        vals = []
        for s in summaries:
            tot = sum(
                s["by_category"][c][METRIC]["mean"] * s["category_counts"][c]
                for c in cats
                if c.startswith(fam + "/")
            )
            cnt = sum(s["category_counts"][c] for c in cats if c.startswith(fam + "/"))
            vals.append(f"{100 * tot / cnt:.1f}%")
        n = sum(summaries[0]["category_counts"][c] for c in cats if c.startswith(fam + "/"))
        rows.append([f"{fam} (all)", n] + vals)
    table = Table(title=f"Zyphra, {METRIC} (gold hits in top 10 / min(10, |gold|))")
    for i, h in enumerate(headers):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*[str(x) for x in r])
    console.print(table)
    write_markdown_report(
        args.out / "report.md",
        "Zyphra temporal memory",
        [(f"{METRIC} per question type", markdown_table(headers, rows))],
    )
    (args.out / "summary.json").write_text(json.dumps(
        {"metric": METRIC, "systems": {s["system"]: s for s in summaries},
         "families": {r[0]: dict(zip(headers[2:], r[2:], strict=True))
                      for r in rows if r[0].endswith("(all)")}}, indent=1, default=str) + "\n",
        encoding="utf-8")
    console.print(f"wrote {args.out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
