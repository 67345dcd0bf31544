"""Tables and the half-life plot of the recency runs (issue 16, "ranking with time and weight").

``python -m benchmarks.recency_table --out DIR NAME=RUN_DIR ...`` reads each run's
``*.summary.json`` and per-question ``*.jsonl`` (a LoCoMo run's ``original/`` folder, or a
Zyphra run folder), copies the per-question outputs into ``DIR/NAME/`` (gzipped), and writes
``DIR/tables.md`` (one row per system: the metric, n, and per-question wins / losses against
the ``@off`` row of the same run, on the same questions) and ``DIR/half_life_sweep.png`` (the
dev runs: metric against half-life; ``off`` drawn at the left edge).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LOCOMO_METRICS = ("turn.recall_any@10", "session.recall_any@5", "session.recall_any@10")
ZYPHRA_METRICS = ("turn.zyphra_recall@10", "session.zyphra_recall@10")


def _folder(run: Path) -> Path:
    return run / "original" if (run / "original").is_dir() else run


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        return {r["question_id"]: r for r in map(json.loads, f) if r.get("question_id")}


def _metric(row: dict[str, Any], name: str) -> float | None:
    m = row.get("metrics", {})
    v = m.get(name)
    return float(v) if isinstance(v, (int, float)) else None


def _half_life(system: str) -> float | None:
    """Half-life in days of a ``kgmem-extract@...`` system; 0 for ``@off``; None if unnamed."""
    for part in system.partition("@")[2].split("-"):
        if part == "off":
            return 0.0
        if part.startswith("hl"):
            return float(part[2:])
    return None


def _order(summary: Path) -> tuple[bool, bool, float, str]:
    """Rows: the plain system, then fused by half-life (off first), then Generative-Agents."""
    system = summary.name.removesuffix(".summary.json")
    return ("@" in system, "@ga" in system, _half_life(system) or 0.0, system)


def table(name: str, run: Path, out: Path) -> tuple[list[str], dict[str, dict[str, float]]]:
    folder = _folder(run)
    summaries = sorted(folder.glob("*.summary.json"), key=_order)
    zyphra = any("zyphra" in json.dumps(json.loads(s.read_text())["overall"]) for s in summaries)
    metrics = ZYPHRA_METRICS if zyphra else LOCOMO_METRICS
    dest = out / name
    dest.mkdir(parents=True, exist_ok=True)
    per: dict[str, dict[str, dict[str, Any]]] = {}
    means: dict[str, dict[str, float]] = {}
    for s in summaries:
        system = s.name.removesuffix(".summary.json")
        if not system.startswith("kgmem"):
            continue
        summary = json.loads(s.read_text())
        means[system] = {m: summary["overall"][m]["mean"] for m in metrics
                         if m in summary["overall"]}
        means[system]["n"] = summary["n"]
        shutil.copy(s, dest / s.name)
        jl = folder / f"{system}.jsonl"
        if not jl.exists():
            jl = folder / f"{system}.jsonl.gz"
        if jl.exists():
            per[system] = _rows(jl)
            with open(jl, "rb") as src, gzip.open(dest / f"{system}.jsonl.gz", "wb") as dst:
                shutil.copyfileobj(gzip.GzipFile(fileobj=src) if jl.suffix == ".gz" else src, dst)
    base = next((s for s in per if s.endswith("@off")), None)
    head = metrics[0]
    lines = [f"### {name}", "", f"| system | n | {' | '.join(metrics)} | "
             f"{head}: better / worse than {base or 'off'} |",
             "|---|---|" + "---|" * len(metrics) + "---|"]
    for system, vals in means.items():
        cells = [f"{100 * vals[m]:.1f}%" if m in vals else "n/a" for m in metrics]
        diff = ""
        if base is not None and system in per and system != base:
            up = down = 0
            for q, row in per[system].items():
                a, b = _metric(row, head), _metric(per[base].get(q, {}), head)
                if a is not None and b is not None:
                    up += a > b
                    down += a < b
            diff = f"{up} / {down}"
        lines.append(f"| {system} | {int(vals['n'])} | {' | '.join(cells)} | {diff} |")
    return lines + [""], means


def plot(sweeps: dict[str, dict[str, dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, means in sweeps.items():
        for metric in (LOCOMO_METRICS[:2] if "locomo" in name else ZYPHRA_METRICS[:1]):
            pts = sorted((h, v[metric]) for s, v in means.items()
                         if (h := _half_life(s)) is not None and "@ga" not in s and metric in v)
            if not pts:
                continue
            xs = [h if h > 0 else 10.0 for h, _ in pts]  # off drawn at the left edge
            ax.plot(xs, [100 * y for _, y in pts], marker="o", label=f"{name}: {metric}")
    ax.set_xscale("log")
    ticks = sorted({h for means in sweeps.values() for s in means
                    if (h := _half_life(s)) is not None and h > 0})
    ax.set_xticks([10.0, *ticks], ["off", *(f"{t:g}" for t in ticks)])
    ax.minorticks_off()
    ax.set_xlabel("recency half-life, days (leftmost point: off)")
    ax.set_ylabel("recall, %")
    ax.set_title("kgmem-extract, fused ranking: recency half-life on the dev sets")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.recency_table")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("runs", nargs="+", help="NAME=RUN_DIR (a name with 'dev' joins the plot)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    sweeps: dict[str, dict[str, dict[str, float]]] = {}
    for spec in args.runs:
        name, _, run = spec.partition("=")
        rows, means = table(name, Path(run), args.out)
        lines += rows
        if "dev" in name:
            sweeps[name] = means
    (args.out / "tables.md").write_text("\n".join(lines))
    if sweeps:
        plot(sweeps, args.out / "half_life_sweep.png")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
