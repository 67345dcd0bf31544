"""Markdown tables and matplotlib plots from run summaries (:class:`benchmarks.runner.RunResult`).

Summaries are the dicts built by :func:`benchmarks.runner.run_retrieval`:
``{"system", "task", "overall": {metric: {"mean", "n"}}, "by_category": {cat: {...}},
"latency_s": {...}}``. Values are fractions; tables print percentages with one decimal and
``-`` when a metric does not apply (e.g. turn metrics of a session-level system).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

Column = tuple[str, str]  # (header, metric name such as "session.recall_any@5")

LOCOMO_COLUMNS: list[Column] = [
    ("session any@5", "session.recall_any@5"),
    ("session any@10", "session.recall_any@10"),
    ("session all@10", "session.recall_all@10"),
    ("turn any@10", "turn.recall_any@10"),
    ("turn all@10", "turn.recall_all@10"),
]


def fmt_pct(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def metric_value(stats: Mapping[str, Any], metric: str) -> float | None:
    """Mean of ``metric`` in an ``overall``/category dict, None when absent."""
    entry = stats.get(metric)
    return None if entry is None else float(entry["mean"])


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(x: object) -> str:
        return str(x).replace("|", "\\|")

    lines = [
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def systems_table(
    summaries: Sequence[Mapping[str, Any]],
    columns: Sequence[Column] = LOCOMO_COLUMNS,
    *,
    category: str | None = None,
) -> tuple[list[str], list[list[str]]]:
    """Rows = systems, columns = metrics (overall, or one category)."""
    headers = ["method"] + [h for h, _ in columns]
    rows = []
    for s in summaries:
        stats = s["overall"] if category is None else s.get("by_category", {}).get(category, {})
        rows.append([s["system"]] + [fmt_pct(metric_value(stats, m)) for _, m in columns])
    return headers, rows


def category_table(
    summary: Mapping[str, Any], columns: Sequence[Column] = LOCOMO_COLUMNS
) -> tuple[list[str], list[list[str]]]:
    """Rows = categories (with counts) then "overall", columns = metrics, for one system."""
    headers = ["category", "n"] + [h for h, _ in columns]
    rows = []
    counts = summary.get("category_counts", {})
    for cat, stats in summary.get("by_category", {}).items():
        rows.append(
            [cat, counts.get(cat, "")] + [fmt_pct(metric_value(stats, m)) for _, m in columns]
        )
    rows.append(
        ["overall", summary.get("n", "")]
        + [fmt_pct(metric_value(summary["overall"], m)) for _, m in columns]
    )
    return headers, rows


def latency_table(summaries: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    headers = ["method", "queries", "p50 ms", "p95 ms", "mean ms", "index p50 s", "index total s"]
    rows = []
    for s in summaries:
        lat, idx = s.get("latency_s", {}), s.get("index_s", {})
        total = idx.get("mean", 0.0) * idx.get("n", 0)
        rows.append(
            [
                s["system"],
                lat.get("n", 0),
                f"{1000 * lat.get('p50', 0):.2f}",
                f"{1000 * lat.get('p95', 0):.2f}",
                f"{1000 * lat.get('mean', 0):.2f}",
                f"{idx.get('p50', 0):.3f}",
                f"{total:.2f}",
            ]
        )
    return headers, rows


# ----------------------------------------------------------------------------- plots


def plot_recall_curves(
    summaries: Sequence[Mapping[str, Any]],
    path: Path,
    *,
    level: str = "session",
    metric: str = "recall_any",
    title: str | None = None,
) -> Path:
    """``<level>.<metric>@k`` against k, one line per system."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for s in summaries:
        pts = []
        for k in s.get("ks", []):
            v = metric_value(s["overall"], f"{level}.{metric}@{k}")
            if v is not None:
                pts.append((k, 100 * v))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s["system"])
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel(f"{level} {metric}@k (%)")
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or f"{level} {metric}@k")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_category_bars(
    summaries: Sequence[Mapping[str, Any]],
    path: Path,
    *,
    metric: str = "session.recall_any@10",
    title: str | None = None,
) -> Path:
    """Grouped bars: one group per category, one bar per system."""
    cats: list[str] = []
    for s in summaries:
        cats += [c for c in s.get("by_category", {}) if c not in cats]
    fig, ax = plt.subplots(figsize=(max(7, 1.3 * len(cats) + 4), 4))
    width = 0.8 / max(1, len(summaries))
    for i, s in enumerate(summaries):
        vals = [metric_value(s.get("by_category", {}).get(c, {}), metric) for c in cats]
        xs = [j + i * width for j in range(len(cats))]
        ax.bar(xs, [100 * v if v is not None else 0 for v in vals], width, label=s["system"])
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))])
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(f"{metric} (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(title or f"{metric} per category")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_latency_histogram(
    latencies_s: Mapping[str, Sequence[float]], path: Path, *, title: str = "query latency"
) -> Path:
    """Histogram of per-query latency (ms), one series per system."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, vals in latencies_s.items():
        if len(vals):
            ax.hist([1000 * v for v in vals], bins=50, alpha=0.5, label=name)
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("queries")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------------- markdown


def write_markdown_report(
    path: Path,
    title: str,
    sections: Sequence[tuple[str, str]],
    *,
    images: Sequence[tuple[str, Path]] = (),
) -> Path:
    """Write ``# title`` then ``## heading`` + body per section, then images (relative links)."""
    parts = [f"# {title}", ""]
    for heading, body in sections:
        parts += [f"## {heading}", "", body.rstrip(), ""]
    if images:
        parts += ["## Plots", ""]
        for caption, img in images:
            rel = (
                Path(img).resolve().relative_to(path.parent.resolve())
                if Path(img).resolve().is_relative_to(path.parent.resolve())
                else Path(img)
            )
            parts += [f"![{caption}]({rel.as_posix()})", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
