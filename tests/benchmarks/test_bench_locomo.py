"""LoCoMo loader on the real file (CC BY-NC 4.0, read from the shared data folder)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from benchmarks.datasets._common import (
    ChecksumMismatchWarning,
    DatasetNotFoundError,
    expected_sha256_from_source_md,
)
from benchmarks.datasets.locomo import (
    CATEGORY_NAMES,
    load_locomo,
    parse_evidence,
    parse_locomo_datetime,
)


def test_counts_match_the_published_ones(locomo):
    s = locomo.stats()
    assert (s["conversations"], s["sessions"], s["turns"], s["questions"]) == (10, 272, 5882, 1986)
    assert s["questions_by_category"] == {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
    assert s["empty_evidence"] == 4
    assert s["usable"] == 1982
    assert s["sha256_ok"] is True
    assert s["orphan_session_dates"] == 16  # conversation 0 lists dates of sessions 20..35


def test_session_dates_parse_to_utc(locomo):
    c0 = locomo.conversations[0]
    assert c0.sample_id == "conv-26"
    assert c0.speakers == ("Caroline", "Melanie")
    assert c0.sessions[0].date == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert all(t.timestamp == c0.sessions[0].date for t in c0.sessions[0].turns)
    assert parse_locomo_datetime("12:09 am on 3 July, 2023") == datetime(
        2023, 7, 3, 0, 9, tzinfo=timezone.utc
    )
    with pytest.raises(ValueError):
        parse_locomo_datetime("yesterday")


def test_turns_have_ids_speakers_and_captions(locomo):
    turns = [t for c in locomo.conversations for t in c.turns]
    assert all(t.dia_id == f"D{t.session}:{t.index}" for t in turns)
    assert sum(1 for t in turns if t.img_caption) == 1226


def test_categories_have_official_names(locomo):
    q = locomo.questions[0]
    assert (q.category, q.category_name) == (2, "temporal")
    assert CATEGORY_NAMES == {
        1: "multi-hop",
        2: "temporal",
        3: "open-domain",
        4: "single-hop",
        5: "adversarial",
    }
    adv = [q for q in locomo.questions if q.category == 5]
    assert sum(1 for q in adv if q.answer is None) == 444
    assert all(q.adversarial_answer for q in adv if q.answer is None)


def test_malformed_evidence_is_handled_and_counted(locomo):
    by_id = {q.question_id: q for q in locomo.questions}
    assert by_id["locomo_0_qa37"].evidence == ["D8:6", "D9:17"]  # "D8:6; D9:17"
    assert by_id["locomo_8_qa31"].evidence == ["D9:1", "D4:4", "D4:6"]  # space separated
    assert by_id["locomo_3_qa88"].evidence == ["D1:18", "D1:20"]  # "D" dropped
    assert by_id["locomo_4_qa18"].evidence[4] == "D11:26"  # "D:11:26"
    assert by_id["locomo_9_qa69"].evidence == ["D30:5"]  # "D30:05"
    assert "D10:19" not in by_id["locomo_3_qa58"].evidence  # missing turn
    assert by_id["locomo_6_qa38"].gold_session_ids() == ["S18"]  # D4:36 missing
    assert locomo.stats()["evidence_issues"] == {
        "malformed": 1,
        "missing_turn": 2,
        "normalized": 2,
        "split": 4,
    }


def test_parse_evidence_edge_cases():
    existing = {"D1:1", "D1:2", "D2:3"}
    ids, issues = parse_evidence(["D1:1,D1:2", "", "D1:1", "X9", "D2:03", 7], existing)
    assert ids == ["D1:1", "D1:2", "D2:3"]
    kinds = [i.kind for i in issues]
    assert kinds.count("split") == 1
    assert kinds.count("malformed") == 3  # "", "X9", "7"
    assert kinds.count("normalized") == 1


def test_audit_corrections_are_attached(locomo):
    by_id = {q.question_id: q for q in locomo.questions}
    s = locomo.stats()
    assert s["audited_questions"] == 156
    q = by_id["locomo_0_qa1"]
    assert q.audit_error_type == "WRONG_CITATION"
    assert q.gold_turn_ids() == ["D1:12"]
    assert q.gold_turn_ids(corrected=True) == ["D1:14"]
    assert by_id["locomo_6_qa11"].usable(corrected=True) is False  # audit empties it
    assert s["usable_corrected"] == 1981


def test_retrieval_task_conversion(locomo):
    task = locomo.to_retrieval_task()
    assert len(task.questions) == 1982
    assert len(task.haystacks) == 10
    q = task.questions[0]
    assert q.question_id == "locomo_0_qa0"
    assert q.gold_turn_ids == ("D1:3",) and q.gold_session_ids == ("S1",)
    hay = task.haystacks["0"]
    assert hay.turn_to_session["D1:3"] == "S1"
    assert sum(len(h.sessions) for h in task.haystacks.values()) == 272
    assert len(locomo.to_retrieval_task(corrected=True).questions) == 1981


def test_sha256_mismatch_warns_and_missing_file_errors(tmp_path, data_dir):
    src = data_dir / "locomo" / "locomo10.json"
    copy = tmp_path / "locomo10.json"
    data = json.loads(src.read_text())[:1]
    copy.write_text(json.dumps(data))
    with pytest.warns(ChecksumMismatchWarning):
        ds = load_locomo(copy)
    assert ds.sha256_ok is False and len(ds.conversations) == 1
    with pytest.raises(DatasetNotFoundError, match="snap-research/locomo"):
        load_locomo(tmp_path / "nope.json")


def test_source_md_hash_lookup(data_dir):
    assert expected_sha256_from_source_md(
        data_dir / "locomo" / "SOURCE.md", "locomo10.json"
    ).startswith("79fa87e9")
    assert expected_sha256_from_source_md(
        data_dir / "locomo" / "SOURCE.md", "locomo_audit_errors.json"
    ).startswith("f298ef46")
