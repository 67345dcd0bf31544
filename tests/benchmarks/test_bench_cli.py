"""Smoke runs of the baseline CLIs on the real data (small subsets)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow


def test_locomo_baselines_cli_writes_outputs(tmp_path, locomo):
    from benchmarks.locomo_baselines import main

    assert (
        main(
            [
                "--out",
                str(tmp_path),
                "--systems",
                "random,bm25-sessions",
                "--evidence",
                "original",
                "--no-progress",
            ]
        )
        == 0
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = {s["system"]: s for s in summary["summaries"]["original"]}
    assert set(rows) == {"random (expected)", "random-sessions", "random-turns", "bm25-sessions"}
    assert rows["random (expected)"]["overall"]["session.recall_any@5"]["mean"] == pytest.approx(
        0.2251, abs=1e-3
    )
    bm25 = rows["bm25-sessions"]["overall"]
    assert bm25["session.recall_any@5"]["n"] == 1982
    assert bm25["session.mempalace_recall@10"]["n"] == 1986
    lines = (tmp_path / "original" / "bm25-sessions.jsonl").read_text().splitlines()
    assert len(lines) == 1982
    assert (tmp_path / "report.md").read_text().startswith("# LoCoMo retrieval baselines")
    assert (tmp_path / "session_recall_any.png").stat().st_size > 1000


def test_zyphra_baselines_cli(tmp_path, data_dir):
    from benchmarks.zyphra_baselines import main

    assert main(["--out", str(tmp_path), "--families", "content_time_qs", "--no-progress",
                 "--systems", "bm25-turns,date-oracle-bm25"]) == 0
    s = json.loads((tmp_path / "bm25-turns.summary.json").read_text())
    assert s["n"] == 177
    assert 0.2 < s["overall"]["turn.zyphra_recall@10"]["mean"] < 0.7
    # the date read perfectly lifts BM25 (docs/BENCHMARKS.md: the date filter)
    families = json.loads((tmp_path / "summary.json").read_text())["families"]
    both = families["content_time_qs (all)"]
    assert float(both["date-oracle-bm25"].rstrip("%")) > float(both["bm25-turns"].rstrip("%"))


def test_longmemeval_baselines_cli_on_the_fixture(tmp_path):
    from benchmarks.longmemeval_baselines import main

    from .conftest import FIXTURES

    fixture = FIXTURES / "longmemeval_fixture.json"
    assert main(["--path", str(fixture), "--out", str(tmp_path), "--no-progress"]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    off = s["systems"]["bm25-turns"]["official"]
    assert off["n_scored"] == 4
    assert off["skipped_abstention"] == ["fx_ssu_02_abs"]
    assert off["skipped_no_user_evidence"] == ["fx_ssa_01"]
    assert set(off["turn"]) >= {"recall_all@50", "ndcg_any@50"}
    assert s["systems"]["bm25-sessions"]["ours"]["n"] == 5  # non-abstention questions
