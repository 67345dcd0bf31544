"""The comparison table: measured rows from a run's per-question outputs, the peers' scorers
applied to our rankings, quoted peer numbers with their metric definitions."""

from __future__ import annotations

import json

import pytest

from benchmarks.metrics import engram_locomo_recall

from .conftest import FIXTURES

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"


def test_engram_scorer_reads_evidence_as_its_code_does():
    # first "D<n>" of each string: "D8:6; D9:17" is session 8 only; "D" matches nothing
    assert engram_locomo_recall(["S9", "S1"], ["D8:6; D9:17"], 5) == 0.0
    assert engram_locomo_recall(["S2", "S8"], ["D8:6; D9:17"], 5) == 1.0
    assert engram_locomo_recall(["S1", "S2"], ["D"], 5) == 0.0
    assert engram_locomo_recall(["S1", "S1", "S2", "S3", "S4", "S5", "S10"], ["D10:19"], 5) == 0.0
    assert engram_locomo_recall(["S1", "S1", "S2", "S3", "S4", "S10"], ["D10:19"], 5) == 1.0


def test_compare_puts_kgmem_beside_baselines_and_quoted_peers(tmp_path):
    from benchmarks.compare import main as compare
    from benchmarks.locomo_baselines import main as locomo

    run = tmp_path / "run"
    assert locomo(["--data", str(TINY), "--systems", "bm25-sessions,kgmem-extract", "--evidence",
                   "original", "--no-progress", "--out", str(run),
                   "--cache-dir", str(tmp_path / "c")]) == 0
    assert compare(["--locomo", str(run), "--out", str(tmp_path / "cmp")]) == 0
    data = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    rows = {(r["system"], r["split"]): r for r in data["measured"]}
    assert list(rows)[0] == ("kgmem-extract", "dev (0-4)")  # the product default first
    kg = rows[("kgmem-extract", "all 10")]
    assert kg["n"] == 5  # the questions of the one-conversation fixture
    summary = json.loads((run / "summary.json").read_text())
    ours = {s["system"]: s for s in summary["summaries"]["original"]}["kgmem-extract"]
    assert kg["metrics"]["session.recall_any@5"] == pytest.approx(
        ours["overall"]["session.recall_any@5"]["mean"])
    assert kg["metrics"]["qa.mem0_j"] is None
    engram = next(q for q in data["quoted"] if q["metric"] == "R@5" and q["benchmark"] == "LoCoMo")
    assert engram["value"] == 93.9 and engram["ours"] == "session.engram_recall@5"
    assert engram["kgmem_this_run"]["kgmem-extract"] == kg["metrics"]["session.engram_recall@5"]
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "## Quoted from the peers (not measured here)" in md
    assert "| Mem0 | LoCoMo | J (LLM-as-judge) | 66.9% |" in md
    assert "not measured here" in md and "Where the metrics do not map" in md
