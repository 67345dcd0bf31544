"""LongMemEval loader and official retrieval convention, on the synthetic fixture."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from benchmarks.datasets._common import ChecksumMismatchWarning, DatasetNotFoundError
from benchmarks.datasets.longmemeval import (
    KNOWN_SHA256,
    find_longmemeval_file,
    load_longmemeval,
    parse_longmemeval_date,
)
from benchmarks.metrics import format_longmemeval_printout, longmemeval_official_retrieval

from .conftest import FIXTURES


def test_fixture_loads_in_official_schema(lme_fixture):
    qs = {q.question_id: q for q in lme_fixture.questions}
    assert len(qs) == 6
    ssu = qs["fx_ssu_01"]
    assert ssu.question_type == "single-session-user"
    assert ssu.question_date == datetime(2023, 5, 30, 23, 40, tzinfo=timezone.utc)
    assert [s.session_id for s in ssu.sessions] == [
        "sharegpt_fx01_0",
        "answer_fx_ssu_01_1",
        "sharegpt_fx02_0",
    ]
    assert ssu.sessions[0].date == datetime(2023, 5, 20, 2, 21, tzinfo=timezone.utc)
    assert ssu.evidence_turn_ids() == ["answer_fx_ssu_01_1_1"]
    assert ssu.sessions[0].turns[0].has_answer is None  # field absent in distractors
    assert qs["fx_ms_01"].answer == "3"  # int answers become strings


def test_abstention_detected(lme_fixture):
    abs_ids = [q.question_id for q in lme_fixture.questions if q.is_abstention]
    assert abs_ids == ["fx_ssu_02_abs"]
    assert lme_fixture.stats()["abstention"] == 1
    task = lme_fixture.to_retrieval_task()
    assert "fx_ssu_02_abs" not in {q.question_id for q in task.questions}
    assert len(lme_fixture.to_retrieval_task(include_abstention=True).questions) == 6


def test_assistant_side_evidence(lme_fixture):
    q = {q.question_id: q for q in lme_fixture.questions}["fx_ssa_01"]
    assert q.evidence_turn_ids() == ["answer_fx_ssa_01_1_2"]
    assert q.user_evidence_turn_ids() == []
    assert q.user_evidence_session_ids() == []
    assert lme_fixture.stats()["no_user_side_evidence"] == 1


def test_official_metric_skips_abstention_and_no_user_evidence(lme_fixture):
    rankings = {q.question_id: [s.session_id for s in q.sessions] for q in lme_fixture.questions}
    res = longmemeval_official_retrieval(lme_fixture.questions, session_rankings=rankings)
    assert res["skipped_abstention"] == ["fx_ssu_02_abs"]
    assert res["skipped_no_user_evidence"] == ["fx_ssa_01"]
    assert res["n_scored"] == 4


def test_official_metric_hand_computed(lme_fixture):
    qs = lme_fixture.questions
    # session rankings (haystack order unless given):
    sess = {q.question_id: [s.session_id for s in q.sessions] for q in qs}
    sess["fx_ssu_01"] = ["answer_fx_ssu_01_1", "sharegpt_fx01_0", "sharegpt_fx02_0"]  # rank 1
    sess["fx_ms_01"] = ["answer_fx_ms_01_1", "ultrachat_fx03", "answer_fx_ms_01_2"]  # ranks 1, 3
    sess["fx_ku_01"] = ["sharegpt_fx02_0", "answer_fx_ku_01_2", "answer_fx_ku_01_1"]  # ranks 2, 3
    # fx_tr_01 in haystack order: answers at ranks 1 and 3
    res = longmemeval_official_retrieval(qs, session_rankings=sess)
    # all haystacks have 3 sessions, so every gold set is inside the top 5 and top 10
    assert res["session"]["recall_all@5"] == 1.0
    # official DCG: rank1 -> 1, rank2 -> 1, rank3 -> 1/log2(3)=0.63093
    # ssu: 1/1; ms: (1 + 0.63093) / 2; ku: (1 + 0.63093) / 2; tr: (1 + 0.63093) / 2
    expected = (1.0 + 3 * (1.0 + 0.6309298) / 2.0) / 4.0
    assert res["session"]["ndcg_any@5"] == pytest.approx(expected, abs=1e-6)
    assert res["session"]["ndcg_any@10"] == pytest.approx(expected, abs=1e-6)
    text = format_longmemeval_printout(res)
    assert text.startswith("Session-level metrics:")
    assert "recall_all@5 = 1.0" in text


def test_official_turn_level_drops_assistant_turns(lme_fixture):
    qs = [q for q in lme_fixture.questions if q.question_id == "fx_ms_01"]
    # assistant turns ranked first must not push user evidence out of the top 5
    ranking = [
        "answer_fx_ms_01_1_2",
        "answer_fx_ms_01_2_2",
        "ultrachat_fx03_2",
        "ultrachat_fx03_1",
        "answer_fx_ms_01_1_1",
        "answer_fx_ms_01_2_1",
    ]
    res = longmemeval_official_retrieval(qs, turn_rankings={"fx_ms_01": ranking})
    # user-only ranking: [ultrachat_fx03_1, ms_1_1, ms_2_1] -> both gold in the top 3
    assert res["turn"]["recall_all@5"] == 1.0
    assert res["turn"]["ndcg_any@5"] == pytest.approx((1.0 + 0.6309298) / 2.0, abs=1e-6)
    assert res["turn_missing"] == []


def test_missing_file_message_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGMEMEVAL_DIR", str(tmp_path))
    monkeypatch.setenv("KGMEM_BENCH_DATA", str(tmp_path))
    with pytest.raises(DatasetNotFoundError, match="xiaowu0162/longmemeval-cleaned"):
        load_longmemeval(variant="s")
    with pytest.raises(DatasetNotFoundError, match="LONGMEMEVAL_DIR"):
        load_longmemeval(tmp_path / "longmemeval_oracle.json")


def test_file_discovery_accepts_old_names_and_checks_known_hashes(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGMEMEVAL_DIR", str(tmp_path))
    old = tmp_path / "longmemeval_oracle"  # original release: no extension
    old.write_text((FIXTURES / "longmemeval_fixture.json").read_text())
    assert find_longmemeval_file("oracle") == old
    ds = load_longmemeval(variant="oracle")  # no pin known for the old name: no warning
    assert ds.sha256_ok is None and len(ds.questions) == 6
    new = tmp_path / "longmemeval_oracle.json"  # cleaned name has a pin: this copy mismatches
    new.write_text(json.dumps(json.loads(old.read_text())[:2]))
    assert "longmemeval_oracle.json" in KNOWN_SHA256
    with pytest.warns(ChecksumMismatchWarning):
        ds = load_longmemeval(variant="oracle")
    assert ds.path == new and ds.sha256_ok is False


def test_date_parsing():
    assert parse_longmemeval_date("2023/05/20 (Sat) 02:21") == datetime(
        2023, 5, 20, 2, 21, tzinfo=timezone.utc
    )
    assert parse_longmemeval_date("2023/05/20") == datetime(2023, 5, 20, tzinfo=timezone.utc)
    with pytest.raises(ValueError):
        parse_longmemeval_date("May 20")


def test_bm25_on_the_fixture_in_the_official_setup(lme_fixture):
    from benchmarks.baselines import BM25System
    from benchmarks.runner import run_retrieval

    task = lme_fixture.to_retrieval_task(include_abstention=True)
    res = run_retrieval(BM25System("turn", speakers={"user"}), task, ks=(5, 10), progress=False)
    turns = {r["question_id"]: r["ranked_turn_ids"] for r in res.records}
    sessions = {r["question_id"]: r["ranked_session_ids"] for r in res.records}
    out = longmemeval_official_retrieval(
        lme_fixture.questions, session_rankings=sessions, turn_rankings=turns
    )
    assert out["n_scored"] == 4
    # every fixture haystack has at most 3 sessions and 3 user turns per session
    assert out["session"]["recall_all@5"] == 1.0
    assert 0.0 < out["turn"]["ndcg_any@5"] <= 1.0
    assert turns["fx_ssu_01"][0] == "answer_fx_ssu_01_1_1"


def test_official_metric_can_score_no_evidence_questions_as_the_released_code(lme_fixture):
    rankings = {q.question_id: [s.session_id for s in q.sessions] for q in lme_fixture.questions}
    skip = longmemeval_official_retrieval(lme_fixture.questions, session_rankings=rankings)
    code = longmemeval_official_retrieval(
        lme_fixture.questions, session_rankings=rankings, no_user_evidence="as_code"
    )
    assert code["n_scored"] == 5 and code["skipped_no_user_evidence"] == []
    # fx_ssa_01 adds recall_all = 1 and ndcg = 0 to the 4 scored questions
    assert code["session"]["recall_all@5"] == 1.0
    assert code["session"]["ndcg_any@5"] == pytest.approx(skip["session"]["ndcg_any@5"] * 4 / 5)
    with pytest.raises(ValueError):
        longmemeval_official_retrieval(lme_fixture.questions, no_user_evidence="drop")
