"""Picking LoCoMo conversations (``--conversations``): the dev / held-out split."""

from __future__ import annotations

import json

import pytest

from benchmarks.locomo_baselines import main, parse_index_set, select_conversations

from .conftest import FIXTURES


def test_index_sets_parse_and_bad_ones_are_refused():
    assert parse_index_set("0") == [0]
    assert parse_index_set("1-9") == list(range(1, 10))
    assert parse_index_set("5-7, 0,3,6") == [0, 3, 5, 6, 7]
    for bad in ("", "a", "3-1", "1-", "-2", "1;2"):
        with pytest.raises(SystemExit):
            parse_index_set(bad)


def test_selection_keeps_those_conversations_and_only_their_questions(locomo):
    dev = select_conversations(locomo, [0])
    held = select_conversations(locomo, parse_index_set("1-9"))
    assert [c.conv_index for c in dev.conversations] == [0]
    assert [c.conv_index for c in held.conversations] == list(range(1, 10))
    assert {q.conv_index for q in dev.questions} == {0}
    assert len(dev.questions) + len(held.questions) == len(locomo.questions)
    assert len(dev.to_retrieval_task().questions) == 197  # usable questions of conv-26
    with pytest.raises(SystemExit):
        select_conversations(locomo, [10])


def test_the_suite_runs_on_the_chosen_conversations_only(tmp_path):
    tiny = FIXTURES / "locomo_tiny" / "locomo10.json"
    rc = main(["--data", str(tiny), "--systems", "bm25-turns", "--conversations", "0",
               "--evidence", "original", "--no-progress", "--out", str(tmp_path)])
    assert rc == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["meta"]["conversations"] == "0"
    lines = (tmp_path / "original" / "bm25-turns.jsonl").read_text().splitlines()
    assert lines and {json.loads(x)["haystack_id"] for x in lines} == {"0"}
    with pytest.raises(SystemExit):
        main(["--data", str(tiny), "--systems", "bm25-turns", "--conversations", "1",
              "--no-progress", "--out", str(tmp_path / "x")])
