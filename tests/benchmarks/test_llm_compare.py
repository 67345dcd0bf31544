"""The LLM-beside-offline comparison: scores on the dev sets and cost per turn, against the
counting fake server (no network, no model)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from benchmarks.extraction import llm_compare as LC
from kgmem.ingest.llm import LLMExtractor
from tests.llm.fakeserver import FakeOpenAI, counting

from .test_realchat import _label

UTC = timezone.utc
REF = datetime(2023, 1, 20, 16, 4, tzinfo=UTC)


def _items() -> dict:
    turns = ["Hi Jon!", "I work as a banker now, started last year.", "Nice."]
    return {(1, 1): [{"text": t, "reference_time": REF + timedelta(seconds=i),
                      "speaker": "Gina" if i % 2 == 0 else "Jon", "turn": f"D1:{i + 1}",
                      "group": "conv-30", "last_sitting": None}
                     for i, t in enumerate(turns)]}


def test_realchat_scores_and_costs_one_request_per_sitting(tmp_path):
    reply = json.dumps({"facts": [{"turn": "t2", "subject": "I", "predicate": "HAS_ROLE",
                                   "object": "banker", "start_time": "last year",
                                   "end_time": None, "kind": "assert", "confidence": 0.9,
                                   "evidence": "I work as a banker"}]})
    server = FakeOpenAI()
    server.route_path("/v1/chat/completions", counting(lambda seen: reply))
    try:
        with LLMExtractor(server.base_url, "m", cache=False) as ex:
            row = LC.run_realchat(ex, _items(), [_label()])
    finally:
        server.close()
    assert (row["right"], row["required"], row["precision"]) == (1, 1, 1.0)
    cost = row["llm"]
    assert cost["turns"] == 3 and cost["sittings"] == 1 and cost["requests_per_sitting"] == 1
    assert cost["prompt_tokens_per_turn"] > 0 and cost["completion_tokens_per_turn"] > 0
    (fact,) = row["facts"]
    assert fact["turns"] == ["D1:2"] and fact["valid_at"].startswith("2022-01-01")


def test_the_command_prints_and_writes_the_comparison(tmp_path, capsys):
    assert LC.main(["--fake", "--sets", "documents,notes", "--per-turn", "--no-offline",
                    "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "document dev set (fake server: no facts, cost only)" in printed
    report = json.loads((tmp_path / "report.json").read_text())
    rows = report["sets"]["documents"]
    assert set(rows) == {"llm", "llm per turn"}
    assert rows["llm"]["llm"]["requests_per_sitting"] == 1.0  # a document is one request
    assert (tmp_path / "documents" / "llm.labels.jsonl").is_file()
    notes = report["sets"]["notes"]["llm"]
    assert notes["false_memories"] == 0 and notes["required"] > 0  # the fake finds nothing
    assert notes["llm"]["sittings"] == notes["llm"]["chunks"]  # a case is one conversation
