"""The extraction snapshot's diff: identical files pass, a changed item is shown per input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.extraction.snapshot import diff


def _write(path: Path, items: list[dict]) -> Path:
    lines = sorted(json.dumps(i, sort_keys=True) for i in items)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


FACT = {"source": "locomo", "id": "conv-26 D1:3", "type": "fact", "input": "I moved to Paris.",
        "subject": "Caroline", "predicate": "LIVES_IN", "object": "Paris", "kind": "assert",
        "valid_at": None, "invalid_at": None, "rule": "move_to"}


def test_identical_snapshots_diff_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    a = _write(tmp_path / "a.jsonl", [FACT])
    b = _write(tmp_path / "b.jsonl", [FACT])
    assert diff(a, b) == 0
    assert "identical: 1 items" in capsys.readouterr().out


def test_changed_item_is_listed_under_its_input(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.jsonl", [FACT])
    b = _write(tmp_path / "b.jsonl", [{**FACT, "object": "Lyon"}])
    assert diff(a, b) == 1
    out = capsys.readouterr().out
    assert "locomo conv-26 D1:3: 'I moved to Paris.'" in out
    assert "- [fact] Caroline | LIVES_IN | Paris | assert" in out
    assert "+ [fact] Caroline | LIVES_IN | Lyon | assert" in out
    assert "1 removed, 1 added, over 1 inputs" in out
