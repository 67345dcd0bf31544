"""Comparison table: kgmem and the baselines of one run beside the peers' published numbers.

    python -m benchmarks compare --locomo DIR [--longmemeval DIR] [--zyphra DIR] --out DIR

``--locomo``: a LoCoMo run folder (``python -m benchmarks locomo --out``: ``original/<system>.
jsonl``, or a committed results folder: ``original-<system>.jsonl.gz``); ``--longmemeval`` /
``--zyphra``: those suites' ``--out`` folders (``summary.json``). Writes ``comparison.md`` and
``comparison.json``:

* **measured here**: every system of the runs, metric by metric (LoCoMo per split: dev 0-4,
  held-out 5-9, all 10), including the peers' own scorers applied to our rankings
  (``session.engram_recall@k``: engram-search's R@k; ``session.mempalace_recall@10``:
  MemPalace's "Avg Recall") and QA accuracy when the run had ``--qa`` ("not measured here"
  otherwise);
* **quoted**: the peers' published numbers (:mod:`benchmarks.peers`), each with its metric
  name, what the peer's code computes, the metric here that computes the same on kgmem's
  rankings and kgmem's value on it from this run, and where the two still do not map.

Nothing is re-run: the table is computed from the per-question outputs, so it can be rebuilt
for any committed run.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.datasets._common import default_data_dir
from benchmarks.locomo_baselines import parse_index_set
from benchmarks.metrics import engram_locomo_recall, mean_metrics, mempalace_locomo_recall
from benchmarks.outputs import write_json
from benchmarks.peers import LONGMEMEVAL_OFFICIAL, PEERS
from benchmarks.report import markdown_table
from benchmarks.split_table import read_records

SPLITS = (("dev (0-4)", "0-4"), ("held-out (5-9)", "5-9"), ("all 10", "0-9"))
LOCOMO_METRICS = (
    ("session any@5", "session.recall_any@5"), ("session any@10", "session.recall_any@10"),
    ("session all@10", "session.recall_all@10"), ("turn any@10", "turn.recall_any@10"),
    ("engram R@5 scorer", "session.engram_recall@5"),
    ("engram R@10 scorer", "session.engram_recall@10"),
    ("MemPalace scorer@10", "session.mempalace_recall@10"),
    ("Mem0 J (QA)", "qa.mem0_j"), ("LoCoMo F1 (QA)", "qa.locomo_f1"),
)
# headline first: the product default, then kgmem without extraction, then baselines
ORDER = ("kgmem-extract", "kgmem", "bm25-sessions", "bm25-turns", "minilm-turns",
         "minilm-sessions", "random-sessions", "random-turns")
NOT_MEASURED = "not measured here"


def _rank(system: str) -> tuple[int, str]:
    return (ORDER.index(system) if system in ORDER else len(ORDER), system)


def locomo_runs(root: Path, evidence: str = "original") -> dict[str, list[dict[str, Any]]]:
    """system -> per-question records of a LoCoMo run folder (fresh or committed layout)."""
    found: dict[str, Path] = {}
    for p in sorted((root / evidence).glob("*.jsonl*")) if (root / evidence).is_dir() else []:
        found[p.name.split(".jsonl")[0]] = p
    for p in sorted(root.glob(f"{evidence}-*.jsonl*")):
        found.setdefault(p.name.split(".jsonl")[0].removeprefix(f"{evidence}-"), p)
    return {s: read_records(p) for s, p in sorted(found.items(), key=lambda kv: _rank(kv[0]))}


def with_peer_scorers(records: list[dict[str, Any]]) -> list[dict[str, float | None]]:
    """Each record's metrics plus the peers' scorers applied to its session ranking."""
    out = []
    for r in records:
        m = dict(r["metrics"])
        ranked, raw = r.get("ranked_session_ids"), (r.get("extra") or {}).get("evidence_raw")
        if ranked is not None and raw is not None:
            for k in (5, 10):
                m[f"session.engram_recall@{k}"] = engram_locomo_recall(ranked, raw, k)
            m["session.mempalace_recall@10"] = mempalace_locomo_recall(ranked, raw, 10)
        out.append(m)
    return out


def locomo_rows(runs: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for system, records in runs.items():
        for split, spec in SPLITS:
            keep = {str(i) for i in parse_index_set(spec)}
            chosen = [r for r in records if r["haystack_id"] in keep]
            if not chosen:
                continue
            means = mean_metrics(with_peer_scorers(chosen))
            rows.append({"system": system, "benchmark": "LoCoMo", "split": split,
                         "n": len(chosen),
                         "metrics": {m: (means[m]["mean"] if m in means else None)
                                     for _, m in LOCOMO_METRICS}})
    return rows


LME_METRICS = (("official", "session", "recall_all@5"), ("official", "session", "ndcg_any@5"),
               ("official", "session", "recall_all@10"), ("official", "turn", "recall_all@10"),
               ("official", "turn", "ndcg_any@10"))


def longmemeval_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for system, v in sorted(summary["systems"].items(), key=lambda kv: _rank(kv[0])):
        metrics: dict[str, float | None] = {
            f"{a}.{lvl}.{m}": v[a].get(lvl, {}).get(m) for a, lvl, m in LME_METRICS}
        metrics.update({f"peer_convention.{k}": x["mean"]
                        for k, x in v["peer_convention"].items()})
        metrics["qa.lme_acc"] = (v.get("qa") or {}).get("overall")
        rows.append({"system": system, "benchmark": "LongMemEval",
                     "split": summary.get("meta", {}).get("file", ""),
                     "n": v["official"]["n_scored"], "metrics": metrics})
    return rows


def zyphra_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for fam, by_system in summary.get("families", {}).items():
        for system, value in sorted(by_system.items(), key=lambda kv: _rank(kv[0])):
            rows.append({"system": system, "benchmark": "Zyphra", "split": fam, "n": None,
                         "metrics": {summary["metric"]: float(value.rstrip("%")) / 100}})
    return rows


def _pct(v: float | None) -> str:
    return NOT_MEASURED if v is None else f"{100 * v:.1f}%"


def _cell(v: float | None, metric: str) -> str:
    """A QA metric without a value was not measured; a retrieval one does not apply."""
    if v is None:
        return NOT_MEASURED if metric.startswith("qa.") else "-"
    return f"{100 * v:.1f}%"


def quoted_rows(measured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Peers' numbers, each with kgmem's value on the same metric from this run (headline:
    kgmem-extract, all 10 conversations / the whole LongMemEval file)."""
    bench_of = {"LoCoMo": "LoCoMo", "LongMemEval_S": "LongMemEval"}
    out = []
    for p in PEERS:
        mine: dict[str, float | None] = {}
        for row in measured:
            if row["benchmark"] != bench_of.get(p.benchmark) or not row["system"].startswith(
                    "kgmem") or row["split"] in ("dev (0-4)", "held-out (5-9)"):
                continue
            mine[row["system"]] = row["metrics"].get(p.ours) if p.ours else None
        out.append({**p.to_dict(), "kgmem_this_run": mine})
    return out


def render(measured: list[dict[str, Any]], quoted: list[dict[str, Any]]) -> str:
    parts = ["# kgmem beside its peers", "",
             "Measured here = computed from this run's per-question outputs. Quoted = the "
             "peer's published number, not re-run here; each says what the peer's code "
             "computes and where it does not map onto ours. Retrieval recall and QA accuracy "
             "are different columns, never one.", ""]
    for bench in ("LoCoMo", "LongMemEval", "Zyphra"):
        rows = [r for r in measured if r["benchmark"] == bench]
        if not rows:
            continue
        names = list(dict.fromkeys(k for r in rows for k in r["metrics"]))
        labels = {m: h for h, m in LOCOMO_METRICS} if bench == "LoCoMo" else {
            m: m for m in names}
        table = [[r["system"], r["split"], r["n"] if r["n"] is not None else "-"]
                 + [_cell(r["metrics"].get(m), m) for m in names] for r in rows]
        parts += [f"## Measured here: {bench}", "",
                  markdown_table(["system", "split", "n"] + [labels[m] for m in names], table),
                  ""]
    parts += ["## Quoted from the peers (not measured here)", ""]
    table = []
    for q in quoted:
        if q["ours"] is None:
            kg = "no such metric here"
        else:
            kg = "; ".join(f"{s} {_pct(v)}" for s, v in q["kgmem_this_run"].items()) or (
                "no run given")
        table.append([q["system"], q["benchmark"], q["metric"], f"{q['value']:.1f}%",
                      q["n"] or "-", q["ours"] or "-", kg, q["setup"], q["source"]])
    parts += [markdown_table(["peer", "benchmark", "their metric", "their value", "n",
                              "same metric here", "kgmem, this run", "their setup", "source"],
                             table), "", "## Where the metrics do not map", ""]
    seen: set[tuple[str, str]] = set()
    for q in quoted:
        key = (q["system"].split(" (")[0].split(",")[0], q["benchmark"], q["metric"])
        if key in seen:
            continue
        seen.add(key)
        parts.append(f"* **{q['system']}, {q['benchmark']} {q['metric']}**: computes "
                     f"{q['definition']}. Here: `{q['ours'] or '-'}`. Differs: {q['mismatch']}.")
    parts += ["", f"LongMemEval's official printout: {LONGMEMEVAL_OFFICIAL}.", ""]
    return "\n".join(parts)


def build(locomo: Path | None, longmemeval: Path | None, zyphra: Path | None
          ) -> dict[str, Any]:
    measured: list[dict[str, Any]] = []
    if locomo is not None:
        measured += locomo_rows(locomo_runs(locomo))
    if longmemeval is not None:
        measured += longmemeval_rows(json.loads((longmemeval / "summary.json").read_text()))
    if zyphra is not None:
        measured += zyphra_rows(json.loads((zyphra / "summary.json").read_text()))
    return {"measured": measured, "quoted": quoted_rows(measured),
            "sources": {"locomo": str(locomo) if locomo else None,
                        "longmemeval": str(longmemeval) if longmemeval else None,
                        "zyphra": str(zyphra) if zyphra else None,
                        "data": str(default_data_dir())}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks compare",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", type=Path, default=None)
    ap.add_argument("--longmemeval", type=Path, default=None)
    ap.add_argument("--zyphra", type=Path, default=None)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    result = build(args.locomo, args.longmemeval, args.zyphra)
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "comparison.json", result, indent=1)
    (args.out / "comparison.md").write_text(render(result["measured"], result["quoted"]),
                                            encoding="utf-8")
    print(f"wrote {args.out}/comparison.md and comparison.json "
          f"({len(result['measured'])} measured rows, {len(result['quoted'])} quoted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
