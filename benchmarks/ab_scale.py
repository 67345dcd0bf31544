"""A/B of the scale benchmark between two checkouts, in one run (A B A B ...).

    python -m benchmarks.ab_scale --old /path/to/old/checkout [--facts 200000] [--rounds 2]

Runs ``benchmarks/scale.py`` of each checkout (its own ``kgmem`` first on ``sys.path``, this
interpreter) on the embedded store, alternating, and prints the p50 of each metric per side, the
median over rounds and the ratio new/old. (the load rate in facts/s, higher is better). Writes ``ab_scale.json`` with every run and the
machine load at each. Timings on a shared machine vary 10-20%: compare ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

NEW = Path(__file__).resolve().parents[1]
METRICS = ("as_of_lookup", "history", "paths_3hop_slice", "load_facts_per_s")


def run_once(checkout: Path, facts: int, queries: int, out: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, "-m", "benchmarks.scale", "--facts", str(facts), "--queries",
           str(queries), "--out", str(out)]
    subprocess.run(cmd, cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL)
    data: dict[str, Any] = json.loads(
        (out / f"scale-embedded-{facts}.json").read_text(encoding="utf-8"))
    data["load"] = os.getloadavg()[0]
    return data


def p50(run: dict[str, Any], metric: str) -> float | None:
    """The p50 in ms of ``metric`` (the load rate itself for ``load_facts_per_s``)."""
    val = run.get(metric)
    if isinstance(val, dict) and "p50_ms" in val:
        return float(val["p50_ms"])
    return float(val) if isinstance(val, (int, float)) else None


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path, required=True, help="the old checkout")
    ap.add_argument("--facts", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/ab_scale"))
    args = ap.parse_args(argv)
    console = Console()
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    args.out.mkdir(parents=True, exist_ok=True)
    for r in range(args.rounds):
        for side, checkout in (("old", args.old.resolve()), ("new", NEW)):
            console.print(f"round {r + 1}/{args.rounds}: {side} ({checkout})")
            with tempfile.TemporaryDirectory() as tmp:
                runs[side].append(run_once(checkout, args.facts, args.queries, Path(tmp)))
            # every finished run is kept, so a cut-short A/B still has its rounds
            (args.out / "ab_scale.partial.json").write_text(json.dumps(runs, indent=2),
                                                            encoding="utf-8")
    table = Table(title=f"scale A/B, {args.facts:,} facts, embedded, p50 ms (median of rounds)")
    for col in ("metric", "old", "new", "new/old"):
        table.add_column(col)
    summary: dict[str, Any] = {}
    for metric in METRICS:
        vals = {s: [v for v in (p50(x, metric) for x in runs[s]) if v is not None] for s in runs}
        if not vals["old"] or not vals["new"]:
            continue
        old, new = statistics.median(vals["old"]), statistics.median(vals["new"])
        summary[metric] = {"old_p50_ms": old, "new_p50_ms": new, "ratio": new / old}
        table.add_row(metric, f"{old:.3f}", f"{new:.3f}", f"{new / old:.2f}")
    console.print(table)
    result = {"facts": args.facts, "rounds": args.rounds, "old": str(args.old),
              "summary": summary, "runs": runs}
    (args.out / "ab_scale.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
