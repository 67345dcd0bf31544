"""Benchmark systems name their ranking by a suffix (benchmarks.kgmem_system.variant), and
the recency table counts per-question wins and losses against the ``@off`` row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.kgmem_system import variant
from benchmarks.recency_table import main as table_main


def test_suffixes_name_ranking_options() -> None:
    assert variant("kgmem-extract") == ("kgmem-extract", {})
    assert variant("kgmem-extract@off") == ("kgmem-extract", {"half_life_days": 0.0})
    assert variant("kgmem@hl90") == ("kgmem", {"half_life_days": 90.0})
    assert variant("kgmem-extract@ga-hl365") == (
        "kgmem-extract", {"ranking": "generative_agents", "half_life_days": 365.0})
    assert variant("bm25-turns") is None
    with pytest.raises(ValueError):
        variant("kgmem-extract@newest")


def _run(folder: Path, system: str, hits: list[float]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"question_id": f"q{i}", "metrics": {"turn.recall_any@10": h,
                                                  "session.recall_any@5": 1.0}}
            for i, h in enumerate(hits)]
    (folder / f"{system}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    mean = sum(hits) / len(hits)
    (folder / f"{system}.summary.json").write_text(json.dumps({
        "n": len(hits), "overall": {"turn.recall_any@10": {"mean": mean},
                                    "session.recall_any@5": {"mean": 1.0}}}))


def test_table_counts_wins_and_losses_against_off(tmp_path: Path) -> None:
    run = tmp_path / "run" / "original"
    _run(run, "kgmem-extract@off", [1, 0, 0, 1])
    _run(run, "kgmem-extract@hl30", [1, 1, 0, 0])
    out = tmp_path / "out"
    assert table_main(["--out", str(out), f"locomo-dev={tmp_path / 'run'}"]) == 0
    text = (out / "tables.md").read_text()
    assert "| kgmem-extract@hl30 | 4 | 50.0% | 100.0% | n/a | 1 / 1 |" in text
    assert (out / "locomo-dev" / "kgmem-extract@hl30.jsonl.gz").exists()
    assert (out / "half_life_sweep.png").stat().st_size > 0
