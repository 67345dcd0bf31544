"""Dev / held-out rows from one run's per-question outputs (no re-run):
``python -m benchmarks.split_table RESULTS_DIR [--split dev=0-4 --split held-out=5-9]``.

Reads ``<evidence>-<system>.jsonl[.gz]`` or ``<evidence>/<system>.jsonl[.gz]`` under
RESULTS_DIR (what ``python -m benchmarks locomo --out`` writes, gzipped or not) and prints one
Markdown row per system and split: n, session recall_any@5 / any@10 / all@10, turn
recall_any@10 / all@10, and query latency p50 / p95 over the whole run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from pathlib import Path
from typing import Any

from benchmarks.locomo_baselines import parse_index_set
from benchmarks.metrics import mean_metrics

METRICS = ("session.recall_any@5", "session.recall_any@10", "session.recall_all@10",
           "turn.recall_any@10", "turn.recall_all@10")


def read_records(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def find(root: Path, evidence: str, system: str) -> Path | None:
    for name in (f"{evidence}-{system}.jsonl", f"{evidence}/{system}.jsonl"):
        for p in (root / name, root / f"{name}.gz"):
            if p.is_file():
                return p
    return None


def rows(records: list[dict[str, Any]], haystacks: set[str]) -> tuple[int, list[str]]:
    chosen = [r for r in records if r["haystack_id"] in haystacks]
    means = mean_metrics(r["metrics"] for r in chosen)
    return len(chosen), [f"{100 * means[m]['mean']:.1f}%" if m in means else "-"
                         for m in METRICS]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--evidence", default="original")
    ap.add_argument("--systems", default="bm25-sessions,bm25-turns,minilm-turns,kgmem,kgmem-extract")
    ap.add_argument("--split", action="append", default=[],
                    help="NAME=INDEXES, e.g. dev=0-4 (default: dev=0-4, held-out=5-9, all=0-9)")
    args = ap.parse_args(argv)
    splits = [s.split("=", 1) for s in args.split] or [
        ["dev", "0-4"], ["held-out", "5-9"], ["all", "0-9"]]
    print("| method | split | n | session recall_any@5 | session recall_any@10 | "
          "session recall_all@10 | turn recall_any@10 | turn recall_all@10 |")
    print("|---|---|---|---|---|---|---|---|")
    for system in args.systems.split(","):
        path = find(args.root, args.evidence, system)
        if path is None:
            continue
        records = read_records(path)
        for name, spec in splits:
            n, vals = rows(records, {str(i) for i in parse_index_set(spec)})
            print(f"| {system} | {name} ({spec}) | {n:,} | " + " | ".join(vals) + " |")
        lat = sorted(r["latency_s"] for r in records)
        print(f"<!-- {system}: query latency p50 {1000 * statistics.median(lat):.1f} ms, "
              f"p95 {1000 * lat[int(0.95 * (len(lat) - 1))]:.1f} ms -->")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
