"""LoCoMo retrieval baselines: ``python -m benchmarks.locomo_baselines [--out DIR]``.

Runs, within each of the 10 conversations, on the 1,982 questions with usable evidence:

* ``random (expected)``: the exact expectation of a uniformly random ranking (sessions for
  session metrics, turns for turn metrics); ``random-sessions`` / ``random-turns``: one
  seeded draw of each;
* ``bm25-sessions`` / ``bm25-turns``: :class:`benchmarks.baselines.BM25System`;
  documents are ``"<speaker>: <text>"`` turns (sessions: joined by newlines), image captions
  only with ``--captions``;
* ``minilm-sessions`` / ``minilm-turns``: all-MiniLM-L6-v2 via ``kgmem.embed`` when it is
  importable (whole sessions are cut at the model's 256 tokens); opt-in
  ``minilm-sessions-mempalace`` (``--systems``): sessions written as MemPalace writes them
  (``Speaker said, "text"`` lines), which with MemPalace's scorer gives its 60.29%.

Metrics (fractions of questions): session recall_any@5/@10, recall_all@10, turn
recall_any@10/all@10, overall and per category (official names); plus MemPalace's "mean
fraction of gold sessions in top 10", both clean (``session.recall_frac@10``, usable
questions) and with MemPalace's own scorer and its quirks (``session.mempalace_recall@10``,
all 1,986 questions, original evidence only; see
:func:`benchmarks.metrics.mempalace_locomo_recall`). A turn-level system's
session ranking = sessions in order of their best turn.

Evidence: ``original`` (the file's, malformed ids repaired or dropped, see
:mod:`benchmarks.datasets.locomo`) and ``corrected`` (locomo-audit's ``correct_evidence``);
both by default.

Writes to ``--out`` (default ``benchmarks/out/locomo_baselines/``, git-ignored):
``<evidence>/<system>.jsonl`` (one line per question: gold, ranked ids, metrics, latency),
``<evidence>/<system>.summary.json``, ``summary.json``, ``report.md`` and PNG plots.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.baselines import (
    BM25System,
    EmbeddingSystem,
    RandomSystem,
    RetrievalSystem,
    load_kgmem_embedder,
    random_expectation,
)
from benchmarks.datasets.locomo import CATEGORY_NAMES, LocomoDataset, load_locomo
from benchmarks.llm_qa import METRIC, add_qa_arguments, not_measured, qa_from_args
from benchmarks.metrics import aggregate, mean_metrics, mempalace_locomo_recall
from benchmarks.report import (
    LOCOMO_COLUMNS,
    category_table,
    latency_table,
    markdown_table,
    metric_value,
    plot_category_bars,
    plot_latency_histogram,
    plot_recall_curves,
    systems_table,
    write_markdown_report,
)
from benchmarks.runner import DEFAULT_KS, RunResult, run_retrievals
from benchmarks.task import RetrievalTask

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "locomo_baselines"
DEFAULT_CACHE = REPO / "benchmarks" / "out" / "cache" / "kgmem-replays"
CATEGORY_ORDER = [CATEGORY_NAMES[i] for i in (1, 2, 3, 4, 5)]
COLUMNS = LOCOMO_COLUMNS + [
    ("session frac@10", "session.recall_frac@10"),
    ("MemPalace scorer@10", "session.mempalace_recall@10"),
]
QA_COLUMNS = [("Mem0 J (QA)", "qa.mem0_j"), ("LoCoMo F1 (QA)", "qa.locomo_f1"),
              ("LongMemEval judge (QA)", "qa.lme_acc")]

# docs/BENCHMARKS.md, "Baselines measured here" (percent; None = "-") and the MemPalace metric.
REFERENCE: dict[str, dict[str, float | None]] = {
    "random (expected)": {
        "session.recall_any@5": 22.5,
        "session.recall_any@10": 42.5,
        "session.recall_all@10": 32.5,
        "turn.recall_any@10": 2.4,
    },
    "minilm-sessions": {
        "session.recall_any@5": 51.9,
        "session.recall_any@10": 67.2,
        "session.recall_all@10": 57.4,
    },
    "minilm-turns": {
        "session.recall_any@5": 72.8,
        "session.recall_any@10": 85.7,
        "session.recall_all@10": 77.8,
        "turn.recall_any@10": 47.8,
        "turn.recall_all@10": 38.9,
    },
    "bm25-sessions": {
        "session.recall_any@5": 87.7,
        "session.recall_any@10": 94.7,
        "session.recall_all@10": 86.2,
        "session.mempalace_recall@10": 90.6,
    },
    "minilm-sessions-mempalace": {"session.mempalace_recall@10": 60.29},
    "bm25-turns": {
        "session.recall_any@5": 84.9,
        "session.recall_any@10": 92.8,
        "session.recall_all@10": 84.0,
        "turn.recall_any@10": 58.3,
        "turn.recall_all@10": 49.9,
    },
}

ALL_SYSTEMS = ("random", "bm25-sessions", "bm25-turns", "minilm-sessions", "minilm-turns")
# MemPalace's raw-session document format: with its scorer it gives the published 60.29%.
OPTIONAL_SYSTEMS = (
    "minilm-sessions-mempalace", "kgmem", "kgmem-extract", "graphiti", "graphiti-extract",
    "graphiti-episodes",
)
MEMPALACE_TURN = '{speaker} said, "{text}"'


def expected_random_result(task: RetrievalTask, ks: Sequence[int] = DEFAULT_KS) -> RunResult:
    """Per-question exact expectations of a uniformly random ranking (no sampling noise)."""
    records: list[dict[str, Any]] = []
    for q in task.questions:
        hay = task.haystacks[q.haystack_id]
        n_sess, n_turns = len(hay.sessions), sum(1 for _ in hay.turns())
        m: dict[str, float | None] = {}
        for level, n, g in (
            ("session", n_sess, len(q.gold_session_ids)),
            ("turn", n_turns, len(q.gold_turn_ids)),
        ):
            for k in ks:
                e = random_expectation(n, g, k) if g else None
                for name in ("recall_any", "recall_all", "recall_frac"):
                    m[f"{level}.{name}@{k}"] = e[name] if e else None
        records.append(
            {
                "question_id": q.question_id,
                "haystack_id": q.haystack_id,
                "category": q.category,
                "metrics": m,
            }
        )
    summary = aggregate(records, category_order=CATEGORY_ORDER)
    summary.update({"system": "random (expected)", "task": task.name, "ks": list(ks)})
    return RunResult(system="random (expected)", task=task.name, records=records, summary=summary)


def add_mempalace_metric(res: RunResult, ds: LocomoDataset, k: int = 10) -> None:
    """Add ``session.mempalace_recall@k`` (MemPalace's scorer, all 1,986 questions, original
    evidence; questions without evidence score 1.0) to ``res.summary`` in place."""
    by_id = {r["question_id"]: r for r in res.records}
    vals: list[tuple[str, dict[str, float | None]]] = []
    for q in ds.questions:
        rec = by_id.get(q.question_id)
        ranked = rec["ranked_session_ids"] if rec is not None else []
        if rec is not None and ranked is None:
            return  # no session ranking: not applicable
        v = mempalace_locomo_recall(ranked or [], q.evidence_raw, k)
        vals.append((q.category_name, {f"session.mempalace_recall@{k}": v}))
    res.summary["overall"].update(mean_metrics(m for _, m in vals))
    for cat in res.summary.get("by_category", {}):
        res.summary["by_category"][cat].update(mean_metrics(m for c, m in vals if c == cat))


def parse_index_set(spec: str) -> list[int]:
    """``"0"``, ``"1-9"``, ``"0,3,5-7"`` -> sorted distinct indexes (clear error otherwise)."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if m is None:
            raise SystemExit(f"bad --conversations item {part!r}: use e.g. 0 or 1-9 or 0,3,5-7")
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a:
            raise SystemExit(f"bad --conversations range {part!r}")
        out.update(range(a, b + 1))
    return sorted(out)


def select_conversations(ds: LocomoDataset, indexes: Sequence[int]) -> LocomoDataset:
    """The dataset restricted to the conversations with these indexes (and their questions)."""
    have = {c.conv_index for c in ds.conversations}
    missing = sorted(set(indexes) - have)
    if missing:
        raise SystemExit(f"no conversation {missing} (have {min(have)}-{max(have)})")
    keep = set(indexes)
    return dataclasses.replace(
        ds,
        conversations=[c for c in ds.conversations if c.conv_index in keep],
        questions=[q for q in ds.questions if q.conv_index in keep],
    )


def build_systems(
    names: Sequence[str], seed: int, console: Console, *, captions: bool = False,
    store: str = "embedded", cache_dir: Path | None = None,
) -> list[RetrievalSystem]:
    """Systems in run order. ``store``/``cache_dir`` apply to the kgmem systems; a
    ``graphiti*`` system reads the Neo4j group of its kgmem source (``graphiti`` ->
    ``kgmem``, ``graphiti-extract`` -> ``kgmem-extract``), created if not asked for."""
    systems: list[RetrievalSystem] = []
    embed = None
    if any(n.startswith("minilm") for n in names):
        embed = load_kgmem_embedder(uncached=True)
        if embed is None:
            console.print("[yellow]kgmem.embed is not importable here: MiniLM rows skipped[/]")
    kgmem_systems: dict[str, Any] = {}

    def kgmem_system(n: str) -> Any:
        if n not in kgmem_systems:
            from benchmarks.kgmem_system import KgmemSystem, variant

            base, opts = variant(n) or (n, {})
            kgmem_systems[n] = KgmemSystem(
                n, extract=base == "kgmem-extract", captions=captions, store=store,
                cache_dir=cache_dir if store == "embedded" else None, search=opts,
            )
        return kgmem_systems[n]

    for n in names:
        if n == "random":
            systems += [RandomSystem("session", seed=seed), RandomSystem("turn", seed=seed)]
        elif n == "bm25-sessions":
            systems.append(BM25System("session", captions=captions))
        elif n == "bm25-turns":
            systems.append(BM25System("turn", captions=captions))
        elif n == "minilm-sessions-mempalace" and embed is not None:
            systems.append(EmbeddingSystem(embed, "session", name=n, turn_template=MEMPALACE_TURN))
        elif n in ("minilm-sessions", "minilm-turns") and embed is not None:
            level = "session" if n == "minilm-sessions" else "turn"
            systems.append(EmbeddingSystem(embed, level, name=n, captions=captions))
        elif n in ("kgmem", "kgmem-extract") or n.partition("@")[0] in ("kgmem", "kgmem-extract"):
            systems.append(kgmem_system(n))
        elif n in ("graphiti", "graphiti-extract", "graphiti-episodes"):
            if store != "neo4j":
                raise SystemExit(f"system {n!r} reads kgmem's graph in Neo4j: add --store neo4j")
            from benchmarks.graphiti_system import GraphitiSearchSystem

            src = "kgmem-extract" if n == "graphiti-extract" else "kgmem"
            layers = ("episodes",) if n == "graphiti-episodes" else ("edges", "nodes", "episodes")
            # the source indexes first (the runner indexes in list order)
            systems.append(GraphitiSearchSystem(kgmem_system(src), name=n, layers=layers))
        elif n not in ALL_SYSTEMS + OPTIONAL_SYSTEMS:
            raise SystemExit(
                f"unknown system {n!r}; choose from {', '.join(ALL_SYSTEMS + OPTIONAL_SYSTEMS)}"
            )
    return systems


def _rich_table(title: str, headers: list[str], rows: list[list[Any]]) -> Table:
    t = Table(title=title, title_justify="left")
    for i, h in enumerate(headers):
        t.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*[str(c) for c in r])
    return t


def reference_comparison(summaries: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """ours / BENCHMARKS.md / difference in points, for every referenced cell."""
    headers = ["method", "metric", "ours", "BENCHMARKS.md", "diff (pt)"]
    rows = []
    for s in summaries:
        ref = REFERENCE.get(s["system"])
        if not ref:
            continue
        for metric, want in ref.items():
            got = metric_value(s["overall"], metric)
            if got is None or want is None:
                continue
            rows.append(
                [
                    s["system"],
                    metric,
                    f"{100 * got:.1f}%",
                    f"{want:.1f}%",
                    f"{100 * got - want:+.1f}",
                ]
            )
    return headers, rows


def close_systems(systems: Sequence[Any]) -> None:
    for system in systems:
        close = getattr(system, "close", None)
        if close is not None:
            close()


def add_store_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--store", choices=("embedded", "neo4j"), default="embedded",
        help="where kgmem replays each conversation: embedded SQLite, or Neo4j "
        "(KGMEM_NEO4J_* settings; one fresh group per conversation, erased afterwards)",
    )
    ap.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE,
        help="reuse replayed embedded stores from here (key: data, config, kgmem code)",
    )
    ap.add_argument("--no-cache", action="store_true", help="replay every conversation afresh")
    add_qa_arguments(ap)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.locomo_baselines", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    ap.add_argument("--data", type=Path, default=None, help="path to locomo10.json")
    ap.add_argument("--evidence", choices=("original", "corrected", "both"), default="both")
    ap.add_argument(
        "--systems",
        default=",".join(ALL_SYSTEMS),
        help=f"comma-separated subset of {','.join(ALL_SYSTEMS)}",
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the random draws")
    ap.add_argument(
        "--captions",
        action="store_true",
        help="append image captions to turns (off: the setting of docs/BENCHMARKS.md)",
    )
    ap.add_argument(
        "--conversations",
        default=None,
        help="conversation indexes to run, e.g. '0' (the dev set), '1-9' (held out), '0,3,5-7' "
        "(default: all)",
    )
    ap.add_argument("--no-progress", action="store_true")
    add_store_arguments(ap)
    args = ap.parse_args(argv)
    console = Console()
    if not console.is_terminal:  # piped: wide enough for the tables
        console = Console(width=170)

    ds = load_locomo(args.data, audit=True)
    if args.conversations is not None:
        ds = select_conversations(ds, parse_index_set(args.conversations))
    stats = ds.stats()
    console.print(
        f"LoCoMo: {stats['conversations']} conversations, {stats['sessions']} sessions, "
        f"{stats['turns']} turns, {stats['questions']} questions; usable "
        f"{stats['usable']} (corrected evidence: {stats['usable_corrected']}); evidence issues "
        f"{stats['evidence_issues']}; sha256 ok: {stats['sha256_ok']}"
    )
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    qa = qa_from_args(args, "locomo", names, console.print)
    columns = COLUMNS + ([c for c in QA_COLUMNS if c[1] in {
        METRIC[p] for p in qa.config.protocols}] if qa is not None else [])
    systems = build_systems(names, args.seed, console, captions=args.captions,
                            store=args.store, cache_dir=None if args.no_cache else args.cache_dir)
    versions = ["original", "corrected"] if args.evidence == "both" else [args.evidence]

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    all_summaries: dict[str, list[dict[str, Any]]] = {}
    latencies: dict[str, list[float]] = {}
    sections: list[tuple[str, str]] = []
    t_start = time.time()
    for version in versions:
        task = ds.to_retrieval_task(corrected=version == "corrected")
        results: list[RunResult] = []
        if "random" in names:
            results.append(expected_random_result(task))
        try:
            runs = run_retrievals(
                systems, task, progress=not args.no_progress, category_order=CATEGORY_ORDER,
                on_question=qa,
            ) if systems else []
        except BaseException:
            close_systems(systems)  # Neo4j: erase the replay group even on failure
            raise
        for system, res in zip(systems, runs, strict=True):
            if version == "original":
                add_mempalace_metric(res, ds)
            res.write(out / version, stem=system.name)
            if version == versions[0]:
                latencies[system.name] = [r["latency_s"] for r in res.records]
            results.append(res)
        summaries = [r.summary for r in results]
        all_summaries[version] = summaries
        title = f"LoCoMo retrieval, {version} evidence ({len(task.questions)} questions)"
        h, rows = systems_table(summaries, columns)
        console.print(_rich_table(title, h, rows))
        sections.append((title, markdown_table(h, rows)))
        h, rows = reference_comparison(summaries)
        if version == "original" and rows:
            console.print(_rich_table("vs docs/BENCHMARKS.md", h, rows))
            sections.append(
                ("Comparison with docs/BENCHMARKS.md (original evidence)", markdown_table(h, rows))
            )
        for s in summaries:
            h, rows = category_table(s, columns)
            if version == versions[0]:
                console.print(_rich_table(f"{s['system']}: per category ({version})", h, rows))
            sections.append(
                (f"{s['system']} per category ({version} evidence)", markdown_table(h, rows))
            )
        timed = [s for s in summaries if "latency_s" in s]
        h, rows = latency_table(timed)
        sections.append((f"Latency ({version} evidence)", markdown_table(h, rows)))
        if version == versions[0]:
            console.print(_rich_table("latency (wall clock, this machine)", h, rows))

    first = all_summaries[versions[0]]
    images = [
        ("session recall_any@k", plot_recall_curves(first, out / "session_recall_any.png")),
        (
            "session recall_all@k",
            plot_recall_curves(first, out / "session_recall_all.png", metric="recall_all"),
        ),
        ("turn recall_any@k", plot_recall_curves(first, out / "turn_recall_any.png", level="turn")),
        (
            "session recall_any@10 per category",
            plot_category_bars(first, out / "category_session_any10.png"),
        ),
        ("query latency", plot_latency_histogram(latencies, out / "latency.png")),
    ]
    close_systems(systems)  # Neo4j groups are erased here
    meta = {
        "store": args.store,
        "qa": qa.report() if qa is not None else not_measured("locomo", names),
        "replays": {  # kgmem replays, graphiti's sources included
            k.name: dict(k.stats)
            for s in systems for k in (getattr(s, "source", None), s) if hasattr(k, "stats")
        },
        "dataset": stats,
        "conversations": args.conversations or "all",
        "systems": [s.name for s in systems],
        "evidence_versions": versions,
        "seed": args.seed,
        "captions": args.captions,
        "python": sys.version.split()[0],
        "machine": platform.platform(),
        "elapsed_s": round(time.time() - t_start, 1),
    }
    if qa is not None:
        qa.close()
    sections.insert(0, ("Setup", "```json\n" + json.dumps(meta, indent=1, default=str) + "\n```"))
    write_markdown_report(out / "report.md", "LoCoMo retrieval baselines", sections, images=images)
    (out / "summary.json").write_text(
        json.dumps(
            {"meta": meta, "summaries": all_summaries, "reference": REFERENCE},
            indent=1,
            default=str,
        )
        + "\n",
        encoding="utf-8",
    )
    console.print(f"wrote {out}/ (report.md, summary.json, per-question JSONL)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
