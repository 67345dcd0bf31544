"""The real-chat dev set (hand labels of LoCoMo dev sessions) and its scorer's matching rules."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from benchmarks.extraction import realchat as RC
from benchmarks.extraction.realchat_labels import SESSIONS, build_rows
from kgmem.ingest import ExtractedFact
from kgmem.timeutil import Precision

UTC = timezone.utc
REF = datetime(2023, 1, 20, 16, 4, tzinfo=UTC)


def _label(**kw) -> dict:
    base = {
        "id": "c1s1-01", "conv": 1, "session": 1, "turns": ["D1:2"], "required": True,
        "cat": "role", "kind": "state", "subject": "Jon", "subject_type": "person",
        "predicate": "HAS_ROLE", "object": "banker", "object_type": ["role"],
        "accept": [{"predicate": "HAS_ROLE", "object": "banker", "aliases": ["bank clerk"]}],
        "start": None, "ended": None, "note": "", "added_after_review": False,
        "sample_id": "conv-30", "session_date": REF.isoformat(), "previous_session_date": None,
        "subject_aliases": [],
    }
    return base | kw


def _fact(subject="Jon", predicate="HAS_ROLE", obj="banker", **kw) -> ExtractedFact:
    return ExtractedFact(subject, predicate, obj, **kw)


def _score(labels, facts):
    items = {(1, 1): [{"text": "t", "reference_time": REF, "speaker": "Jon", "turn": "D1:2",
                       "group": "conv-30", "last_sitting": None}]}
    return RC.score(labels, items, {(1, 1): [facts]})


def test_labels_file_is_built_from_the_label_source(data_dir):
    locomo = json.loads((data_dir / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    assert RC.load_labels() == build_rows(locomo)  # regenerate: python -m ...realchat_labels


def test_labels_come_from_dev_conversations_only():
    assert {conv for conv, _s in SESSIONS} <= set(range(5))
    for row in RC.load_labels():
        assert row["conv"] < 5 and row["kind"] in ("state", "event")
        for window in (row["start"], row["ended"]):
            if window and window["from"]:
                assert window["from"] <= window["to"]
                assert set(window["precision"]) <= {"year", "month", "day"}


def test_object_alias_articles_and_plural_match():
    lab = _label()
    assert RC.matches(lab, _fact(obj="a Banker"))
    assert RC.matches(lab, _fact(obj="bank clerks"))
    assert not RC.matches(lab, _fact(obj="bank"))
    assert not RC.matches(lab, _fact(predicate="WORKS_AT"))
    assert not RC.matches(lab, _fact(subject="Gina"))


def test_symmetric_predicates_match_either_way_round():
    lab = _label(predicate="KNOWS", object="Anthony",
                 accept=[{"predicate": "KNOWS", "object": "Anthony", "aliases": []}])
    assert RC.matches(lab, _fact("Anthony", "KNOWS", "Jon"))
    lab_one_way = _label(accept=[{"predicate": "LIKES", "object": "Anthony", "aliases": []}])
    assert not RC.matches(lab_one_way, _fact("Anthony", "LIKES", "Jon"))


def test_retractions_never_match_a_label():
    assert not RC.matches(_label(), _fact(kind="retract"))


def test_an_ended_fact_needs_an_extracted_end_on_the_right_day():
    ended = {"from": "2023-01-19", "to": "2023-01-19", "precision": ["day"]}
    lab = _label(ended=ended)
    still_open = _score([lab], [_fact()])["labels"][0]["result"]
    assert still_open["found"] and not still_open["correct"]
    told_end = _score([lab], [_fact(kind="end", invalid_at=datetime(2023, 1, 19, tzinfo=UTC),
                                    invalid_precision=Precision.DAY)])["labels"][0]["result"]
    assert told_end["correct"] and told_end["end_ok"]
    end_today = _score([lab], [_fact(kind="end")])["labels"][0]["result"]
    assert end_today["correct"] and not end_today["end_ok"]  # the reference time is the 20th


def test_a_state_still_holding_is_wrong_when_extracted_as_ended():
    res = _score([_label()], [_fact(kind="end")])["labels"][0]["result"]
    assert res["found"] and not res["correct"]


def test_where_one_comes_from_never_ends():
    """"my home country, Sweden": an ended LIVES_IN, or FROM, which holds for good."""
    ended = {"from": None, "to": None, "precision": None}
    accept = [{"predicate": "LIVES_IN", "object": "Sweden", "aliases": []},
              {"predicate": "FROM", "object": "Sweden", "aliases": []}]
    lab = _label(cat="home", predicate="LIVES_IN", object="Sweden", accept=accept, ended=ended)
    came_from = _score([lab], [_fact("Jon", "FROM", "Sweden")])["labels"][0]["result"]
    assert came_from["correct"]
    still_lives = _score([lab], [_fact("Jon", "LIVES_IN", "Sweden")])["labels"][0]["result"]
    assert still_lives["found"] and not still_lives["correct"]


def test_start_date_needs_the_window_and_its_precision():
    lab = _label(start={"from": "2022-01-01", "to": "2022-12-31", "precision": ["year"]})
    year = _fact(valid_at=datetime(2022, 1, 1, tzinfo=UTC), valid_precision=Precision.YEAR)
    day = _fact(valid_at=datetime(2022, 3, 4, tzinfo=UTC), valid_precision=Precision.DAY)
    assert _score([lab], [year])["labels"][0]["result"]["start_ok"]
    assert not _score([lab], [day])["labels"][0]["result"]["start_ok"]
    undated = _score([lab], [_fact()])["labels"][0]["result"]
    assert not undated["start_ok"] and not undated["session_date_ok"]


def test_events_want_the_event_mark():
    lab = _label(kind="event")
    assert not _score([lab], [_fact()])["labels"][0]["result"]["kind_ok"]
    assert _score([lab], [_fact(event=True)])["labels"][0]["result"]["kind_ok"]
    marked = _fact(attributes={"event": True})  # an extractor without the field
    assert _score([lab], [marked])["labels"][0]["result"]["kind_ok"]


def test_precision_counts_distinct_unmatched_facts_and_optional_labels_count_as_right():
    opt = _label(id="c1s1-02", required=False, predicate="LIKES", object="dancing",
                 accept=[{"predicate": "LIKES", "object": "dancing", "aliases": []}])
    facts = [_fact(), _fact(), _fact("Jon", "LIKES", "dancing"), _fact("Jon", "LIKES", "pets")]
    summary = _score([_label(), opt], facts)["summary"]
    assert summary["precision"] == {"extracted": 3, "matched": 2, "precision": pytest.approx(2 / 3,
                                                                                        abs=1e-4)}
    assert summary["required"]["recall"] == 1.0 and summary["optional"]["labels"] == 1


def test_the_llm_extractor_is_taken_from_the_settings(monkeypatch):
    from kgmem.ingest.llm import LLMExtractor

    monkeypatch.setenv("KGMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KGMEM_LLM_MODEL", "some-model")
    ex = RC.make_extractor("llm")
    assert isinstance(ex, LLMExtractor)
    ex.close()


def test_an_unconfigured_llm_endpoint_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("KGMEM_LLM_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.delenv("KGMEM_LLM_API_KEY", raising=False)
    monkeypatch.setattr(RC, "session_items", lambda labels: {})
    assert RC.main(["--extractor", "llm", "--out", str(tmp_path)]) == 2
    assert "KGMEM_LLM_API_KEY" in capsys.readouterr().err
