"""Zyphra temporal-memory and TimeQA loaders on the real files (shared data folder)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from benchmarks.datasets.timeqa import load_timeqa
from benchmarks.datasets.zyphra import load_zyphra, parse_zyphra_datetime


@pytest.fixture(scope="module")
def zyphra(data_dir):
    root = data_dir / "zyphra_temporal_memory"
    if not root.is_dir():
        pytest.skip("zyphra data not available")
    return load_zyphra(root)


def test_zyphra_counts(zyphra):
    s = zyphra.stats()
    assert s["logs"] == 12
    assert s["messages"] == 7463
    assert s["groups_by_family"] == {
        "ambiguous_time_qs": 1944,
        "content_time_qs": 177,
        "time_qs": 1957,
    }
    assert s["by_family"] == {"ambiguous_time_qs": 8526, "content_time_qs": 177, "time_qs": 11612}
    assert s["by_type"]["time_qs/test_dates"] == 3960
    assert s["sha256_mismatches"] == []


def test_zyphra_messages_and_reference_time(zyphra):
    log = zyphra.logs[26]
    assert [m.response_number for m in log.messages] == list(range(432))
    first = log.messages[0]
    assert (first.dia_id, first.speaker) == ("D1:1", "Caroline")
    assert first.timestamp == datetime(2023, 5, 8, 1, 56, 4, tzinfo=timezone.utc)
    assert log.reference_time == datetime(2023, 10, 22, 11, 17, 51, tzinfo=timezone.utc)
    # SOURCE.md: 8 May 2023 + 167 days = 22 Oct 2023 = the last message's day
    assert (log.reference_time.date() - first.timestamp.date()).days == 167


def test_zyphra_questions_and_gold(zyphra):
    q = next(q for q in zyphra.questions if q.family == "time_qs" and q.qtype == "test_dates")
    assert q.log_id == 26 and q.text == "What did we chat about on May 8th?"
    assert q.relevant_docs == tuple(range(18))
    amb = next(q for q in zyphra.questions if q.family == "ambiguous_time_qs")
    assert amb.dialogue is not None and amb.text.startswith(amb.dialogue[0][0] + ": ")
    task = zyphra.to_retrieval_task(families=("content_time_qs",))
    assert len(task.questions) == 177
    tq = task.questions[0]
    assert tq.gold_turn_ids == ("79", "80", "81") and tq.gold_session_ids == ("S5",)
    assert tq.question_date == zyphra.logs[26].reference_time


def test_zyphra_date_parsing():
    assert parse_zyphra_datetime("12:05:09 PM on Sunday 22 October, 2023") == datetime(
        2023, 10, 22, 12, 5, 9, tzinfo=timezone.utc
    )
    with pytest.raises(ValueError):
        parse_zyphra_datetime("22/10/2023")


def test_timeqa_loader(data_dir):
    p = data_dir / "timeqa" / "human_annotated_test.json"
    if not p.is_file():
        pytest.skip("timeqa data not available")
    ds = load_timeqa(p)
    s = ds.stats()
    assert (s["documents"], s["questions"]) == (257, 989)
    assert s["sha256_ok"] is True
    assert s["no_answer_questions"] == 0 and s["multi_answer_questions"] == 49
    assert ds.span_mismatches() == []
    q = ds.questions[0]
    assert q.question_id == "/wiki/Sabine_Hossenfelder#P937#q0"
    assert q.answer_texts == ["University of Arizona , Tucson"]
    assert ds.documents[0].relation == "P937"
