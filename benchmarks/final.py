"""The measured run of a finished change set, in one command (a look at held-out LoCoMo 5-9):

    python -m benchmarks final --purpose "issue 19 final numbers" \\
        [--out benchmarks/results/<UTC date>/final] [--skip zyphra,ingest]

Runs, into ``--out``:

* ``locomo/``: LoCoMo, original and corrected evidence, kgmem with extraction on (the product
  default, ``kgmem-extract``) and off (``kgmem``) beside random, BM25 sessions / turns and MiniLM
  turns (``python -m benchmarks locomo``), then ``split.md`` (dev 0-4 / held-out 5-9 / all 10
  rows, :mod:`benchmarks.split_table`);
* ``longmemeval/``: LongMemEval ``_s`` when the file is found (sha256 checked), else the
  official-schema fixture (said in the summary);
* ``zyphra/``: Zyphra, every system (random, BM25, the date oracle, kgmem with and without
  extraction);
* ``ingest/``: ``ingest-locomo`` (all 5,882 turns through the product's ingestion: turns per
  wall second and per CPU-second);
* ``comparison.md`` / ``.json`` (:mod:`benchmarks.compare`), ``headline.md`` (the rows of
  RESULTS.md's headline tables for this run), the miss browser for both kgmem systems
  (:mod:`benchmarks.misses`), ``machine.json`` (commit, load before and after, CPU
  count) and ``look.md``: the row of the held-out look log, which is also added to the log
  table of ``benchmarks/RESULTS.md`` (between its ``heldout-looks`` markers) unless
  ``--no-log``.

Per-question JSONL files are gzipped at the end, ready to commit. QA accuracy runs only with
``--qa`` (an endpoint configured; see :mod:`benchmarks.llm_qa`).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS_MD = REPO / "benchmarks" / "RESULTS.md"
LOG_BEGIN, LOG_END = "<!-- heldout-looks:begin -->", "<!-- heldout-looks:end -->"
LOCOMO_SYSTEMS = "kgmem-extract,kgmem,random,bm25-sessions,bm25-turns,minilm-turns"
FIXTURE = REPO / "tests" / "benchmarks" / "fixtures" / "longmemeval_fixture.json"
STEPS = ("locomo", "longmemeval", "zyphra", "ingest")


def machine_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return out.stdout.strip()

    return {"commit": git("rev-parse", "--short", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "load_average": list(os.getloadavg()), "cpus": os.cpu_count(),
            "utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")}


def log_row(state: dict[str, Any], purpose: str, scored: str) -> str:
    dirty = " (uncommitted changes)" if state["dirty"] else ""
    return f"| {state['utc']} UTC | {state['commit']}{dirty} | {purpose} | {scored} |"


def append_look(results_md: Path, row: str) -> None:
    """Add ``row`` as the last row of the look log table in RESULTS.md."""
    text = results_md.read_text(encoding="utf-8")
    if LOG_BEGIN not in text or LOG_END not in text:
        raise SystemExit(f"{results_md} has no {LOG_BEGIN} ... {LOG_END} table")
    head, rest = text.split(LOG_END, 1)
    results_md.write_text(head.rstrip("\n") + "\n" + row + "\n" + LOG_END + rest,
                          encoding="utf-8")


def gzip_outputs(root: Path) -> int:
    n = 0
    for p in sorted(root.rglob("*.jsonl")):
        with open(p, "rb") as src, gzip.open(f"{p}.gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        p.unlink()
        n += 1
    return n


HEADLINE = (("kgmem-extract", "kgmem, extraction on (product default)"),
            ("kgmem", "kgmem, extraction off"), ("bm25-sessions", "BM25 over sessions"),
            ("bm25-turns", "BM25 over turns"))
HEADLINE_METRICS = ("session.recall_any@5", "session.recall_any@10", "session.recall_all@10",
                    "turn.recall_any@10", "turn.recall_all@10")


def headline_tables(comparison: dict[str, Any], commit: str) -> str:
    """RESULTS.md's headline rows (LoCoMo held-out then dev; Zyphra families) of this run."""
    rows = {(r["system"], r["split"]): r for r in comparison["measured"]
            if r["benchmark"] == "LoCoMo"}
    lines = ["| method | split | n | session recall_any@5 | session recall_any@10 | "
             "session recall_all@10 | turn recall_any@10 | turn recall_all@10 | measured at |",
             "|---|---|---|---|---|---|---|---|---|"]
    for split in ("held-out (5-9)", "dev (0-4)"):
        for system, label in HEADLINE:
            r = rows.get((system, split))
            if r is None:
                continue
            vals = [("-" if r["metrics"].get(m) is None else f"{100 * r['metrics'][m]:.1f}%")
                    for m in HEADLINE_METRICS]
            lines.append(f"| {label} | {split} | {r['n']:,} | " + " | ".join(vals)
                         + f" | {commit} |")
    zy = [r for r in comparison["measured"] if r["benchmark"] == "Zyphra"]
    if zy:
        lines += ["", "| Zyphra family | system | turn.zyphra_recall@10 |", "|---|---|---|"]
        lines += [f"| {r['split']} | {r['system']} | {100 * next(iter(r['metrics'].values())):.1f}%"
                  " |" for r in zy]
    return "\n".join(lines) + "\n"


def longmemeval_source(path: Path | None) -> Path:
    if path is not None:
        return path
    from benchmarks.datasets._common import DatasetNotFoundError
    from benchmarks.datasets.longmemeval import find_longmemeval_file

    try:
        return find_longmemeval_file("s")
    except DatasetNotFoundError:
        return FIXTURE


def run_steps(args: argparse.Namespace, out: Path, skip: set[str]) -> dict[str, Any]:
    from benchmarks import (
        compare,
        ingest_locomo,
        locomo_baselines,
        longmemeval_baselines,
        misses,
        split_table,
        zyphra_baselines,
    )

    done: dict[str, Any] = {}
    qa = ["--qa"] if args.qa else []
    if "locomo" not in skip:
        extra = ["--data", str(args.locomo_data)] if args.locomo_data else []
        locomo_baselines.main(["--systems", LOCOMO_SYSTEMS, "--evidence", "both", "--no-progress",
                               "--out", str(out / "locomo"), *extra, *qa])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            split_table.main([str(out / "locomo")])
        (out / "locomo" / "split.md").write_text(buf.getvalue(), encoding="utf-8")
        done["locomo"] = "all 10 conversations (held-out 5-9 included), both evidence versions"
    if "longmemeval" not in skip:
        lme = longmemeval_source(args.longmemeval)
        longmemeval_baselines.main(["--path", str(lme), "--no-progress",
                                    "--out", str(out / "longmemeval"), *qa])
        done["longmemeval"] = lme.name
    if "zyphra" not in skip:
        zyphra_baselines.main(["--no-progress", "--out", str(out / "zyphra")])
        done["zyphra"] = "time_qs, content_time_qs"
    if "ingest" not in skip:
        extra = ["--data", str(args.locomo_data)] if args.locomo_data else []
        ingest_locomo.main(["--out", str(out / "ingest"), *extra])
        done["ingest"] = "ingest-locomo"
    compare.main(["--out", str(out),
                  *(["--locomo", str(out / "locomo")] if "locomo" in done else []),
                  *(["--longmemeval", str(out / "longmemeval")] if "longmemeval" in done else []),
                  *(["--zyphra", str(out / "zyphra")] if "zyphra" in done else [])])
    if "locomo" in done:
        for system in ("kgmem-extract", "kgmem"):
            misses.main([str(out / "locomo"), "--system", system])
    return done


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks final",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--purpose", required=True, help="why held-out is looked at (the log)")
    ap.add_argument("--out", type=Path, default=None,
                    help="default: benchmarks/results/<UTC date>/final")
    ap.add_argument("--skip", default="", help=f"comma-separated steps of {', '.join(STEPS)}")
    ap.add_argument("--locomo-data", type=Path, default=None, help="locomo10.json")
    ap.add_argument("--longmemeval", type=Path, default=None,
                    help="a LongMemEval file (default: longmemeval_s if found, else the fixture)")
    ap.add_argument("--qa", action="store_true", help="QA accuracy too (needs an endpoint)")
    ap.add_argument("--no-log", action="store_true", help="do not add the look to RESULTS.md")
    ap.add_argument("--results-md", type=Path, default=RESULTS_MD)
    args = ap.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if skip - set(STEPS):
        raise SystemExit(f"--skip: unknown steps {sorted(skip - set(STEPS))}; have {STEPS}")
    before = machine_state()
    out: Path = args.out or REPO / "benchmarks" / "results" / before["utc"][:10] / "final"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    done = run_steps(args, out, skip)
    state = {"before": before, "after": machine_state(), "elapsed_s": round(time.time() - t0),
             "steps": done, "gzipped_jsonl": gzip_outputs(out)}
    (out / "machine.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
    comparison = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    (out / "headline.md").write_text(headline_tables(comparison, before["commit"]),
                                     encoding="utf-8")
    scored = "; ".join(f"{k}: {v}" for k, v in done.items())
    row = log_row(before, args.purpose, scored)
    (out / "look.md").write_text(row + "\n", encoding="utf-8")
    if "locomo" in done and not args.no_log:
        append_look(args.results_md, row)
    print(f"wrote {out}/ (look log row: {row})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
