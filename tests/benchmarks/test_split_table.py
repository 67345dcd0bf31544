"""benchmarks.split_table: dev / held-out rows regrouped from one run's per-question outputs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from benchmarks.split_table import main


def _record(hay: str, any5: float, lat: float) -> dict:
    m = {"session.recall_any@5": any5, "session.recall_any@10": 1.0,
         "session.recall_all@10": any5, "turn.recall_any@10": None, "turn.recall_all@10": None}
    return {"haystack_id": hay, "metrics": m, "latency_s": lat}


def test_rows_group_questions_by_conversation(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    recs = [_record("0", 1.0, 0.01), _record("0", 0.0, 0.02), _record("5", 1.0, 0.03)]
    with gzip.open(tmp_path / "original-kgmem.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in recs))
    assert main([str(tmp_path), "--systems", "kgmem,absent",
                 "--split", "dev=0-4", "--split", "held-out=5-9"]) == 0
    out = capsys.readouterr().out
    assert "| kgmem | dev (0-4) | 2 | 50.0% | 100.0% | 50.0% | - | - |" in out
    assert "| kgmem | held-out (5-9) | 1 | 100.0% | 100.0% | 100.0% | - | - |" in out
    assert "p50 20.0 ms" in out and "absent" not in out
