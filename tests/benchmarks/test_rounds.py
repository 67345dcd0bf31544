"""The round log keeps each fresh round's first look and refuses to replace it."""

from pathlib import Path

import pytest

from benchmarks.extraction import rounds


def test_first_look_is_recorded_once(tmp_path: Path) -> None:
    log = tmp_path / "rounds.jsonl"
    first = rounds.record("r1", "chat", "first", required=10, found=4, facts=5, right=4, path=log)
    assert (first.recall, first.precision) == (0.4, 0.8)
    with pytest.raises(rounds.RoundLogError, match="already has its first look"):
        rounds.record("r1", "chat", "first", required=10, found=9, facts=9, right=9, path=log)
    rounds.record("r1", "chat", "after", required=10, found=9, facts=9, right=9, path=log)
    rounds.record("r1", "notes", "first", required=2, found=2, facts=2, right=2, path=log)
    rows = rounds.load(log)
    assert [(r.genre, r.look, r.found) for r in rows] == [
        ("chat", "first", 4), ("chat", "after", 9), ("notes", "first", 2)]
    text = rounds.table(rows)
    assert "| all first looks | chat | first | | 4/10 (40%) | 4/5 | trend 40% |" in text


def test_unknown_look_is_refused(tmp_path: Path) -> None:
    with pytest.raises(rounds.RoundLogError):
        rounds.record("r1", "chat", "second", required=1, found=1, facts=1, right=1,
                      path=tmp_path / "log.jsonl")


def test_the_committed_log_reads() -> None:
    rows = rounds.load()
    assert any(r.round == "round11" and r.look == "first" for r in rows)
    firsts = [(r.round, r.genre) for r in rows if r.look == "first"]
    assert len(firsts) == len(set(firsts))
