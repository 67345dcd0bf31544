"""Optional LLM QA (reader + judge) of the LoCoMo suite, tested at the HTTP boundary: a local
OpenAI-compatible server (tests/llm/fakeserver.py) replays recorded chat-completions bodies
(fixtures/llm_qa/)."""

from __future__ import annotations

import json

import pytest

from benchmarks.llm_qa import parse_judge
from benchmarks.qa_prompts import JUDGE_SYSTEM, PROMPT_VERSION, READER_SYSTEM
from tests.llm.fakeserver import FakeOpenAI, Reply

from .conftest import FIXTURES

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"
RECORDED = FIXTURES / "llm_qa"
PRICES = {"gpt-4o-mini": [0.15, 0.6], "gpt-4o": [2.5, 10.0]}

# question (substring of the user message) -> recorded reader reply, recorded judge reply
SCRIPT = {
    "What is the name of Maya's greyhound?": ("reader_greyhound", "judge_correct"),
    "When did Maya move to Lisbon?": ("reader_lisbon", "judge_correct_fenced"),
    "What does Theo make in his pottery classes?": ("reader_pottery", "judge_wrong"),
    "Where does Maya work?": ("reader_work", "judge_unusable"),
    "What did Theo sell at the winter market?": ("reader_adversarial", None),
}


def recorded(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.json").read_text())


@pytest.fixture
def server(monkeypatch, tmp_path):
    s = FakeOpenAI()
    for question, (reader, judge) in SCRIPT.items():
        if judge is not None:  # judge prompts quote the question after "Question: "
            s.route(f"Question: {question}\nGold answer:", Reply(200, recorded(judge)))
        s.route(f"): {question}\nAnswer:", Reply(200, recorded(reader)))
    monkeypatch.setenv("KGMEM_LLM_BASE_URL", s.base_url)
    monkeypatch.setenv("KGMEM_LLM_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("KGMEM_LLM_JUDGE_MODEL", "gpt-4o")
    monkeypatch.setenv("KGMEM_LLM_API_KEY", "sk-test-qa")
    monkeypatch.setenv("KGMEM_LLM_PRICES", json.dumps(PRICES))
    monkeypatch.setenv("KGMEM_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("KGMEM_LLM_BACKOFF_BASE", "0.001")
    yield s
    s.close()


def run(out, cache):
    from benchmarks.locomo_baselines import main

    assert main(["--data", str(TINY), "--systems", "kgmem,bm25-turns", "--evidence",
                 "original", "--no-progress", "--qa", "--out", str(out),
                 "--cache-dir", str(cache)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    recs = [json.loads(x) for x in (out / "original" / "kgmem.jsonl").open()]
    return summary, recs


def test_reader_and_judge_over_http_with_accounting(server, tmp_path):
    summary, recs = run(tmp_path / "a", tmp_path / "replays")
    reader_calls = [r for r in server.requests if r.body["messages"][0]["content"] == READER_SYSTEM]
    judge_calls = [r for r in server.requests if r.body["messages"][0]["content"] == JUDGE_SYSTEM]
    assert (len(reader_calls), len(judge_calls)) == (5, 4)  # no gold answer: no judge call
    assert len(server.requests) == 9  # bm25 has no context(): no QA for it
    assert {r.body["model"] for r in reader_calls} == {"gpt-4o-mini"}
    assert {r.body["model"] for r in judge_calls} == {"gpt-4o"}
    assert all(r.headers["authorization"] == "Bearer sk-test-qa" for r in server.requests)
    # the reader reads kgmem's context block: the evidence turn is quoted in it
    greyhound = next(r for r in reader_calls if "greyhound?" in r.user_text)
    assert "rescue greyhound called Pepper" in greyhound.user_text
    by_q = {r["question"]: r for r in recs}
    labels = {q: by_q[q]["qa"].get("label") for q in SCRIPT}
    assert labels == {
        "What is the name of Maya's greyhound?": "CORRECT",
        "When did Maya move to Lisbon?": "CORRECT",
        "What does Theo make in his pottery classes?": "WRONG",
        "Where does Maya work?": None,  # unusable judge reply: not scored
        "What did Theo sell at the winter market?": None,  # adversarial: no gold answer
    }
    for q, label in labels.items():
        m = by_q[q]["metrics"]
        assert m["qa.judge_correct"] == (None if label is None else float(label == "CORRECT"))
        assert by_q[q]["qa"]["answer"] == recorded(SCRIPT[q][0])["choices"][0]["message"][
            "content"]
        assert by_q[q]["qa"]["context_tokens"] <= 1000
    assert by_q["What is the name of Maya's greyhound?"]["metrics"]["qa.em"] == 1.0
    rows = {s["system"]: s for s in summary["summaries"]["original"]}
    judged = rows["kgmem"]["overall"]["qa.judge_correct"]
    assert (judged["n"], judged["mean"]) == (3, pytest.approx(2 / 3))
    assert "qa.judge_correct" not in rows["bm25-turns"]["overall"]
    meta = summary["meta"]["qa"]
    assert meta["prompt_version"] == PROMPT_VERSION
    assert (meta["reader"]["model"], meta["judge"]["model"]) == ("gpt-4o-mini", "gpt-4o")
    usage = {role: [recorded(SCRIPT[q][i])["usage"] for q in SCRIPT if SCRIPT[q][i]]
             for i, role in enumerate(("reader", "judge"))}
    for role, price in (("reader", PRICES["gpt-4o-mini"]), ("judge", PRICES["gpt-4o"])):
        pt = sum(u["prompt_tokens"] for u in usage[role])
        ct = sum(u["completion_tokens"] for u in usage[role])
        assert (meta[role]["calls"], meta[role]["prompt_tokens"],
                meta[role]["completion_tokens"]) == (len(usage[role]), pt, ct)
        assert meta[role]["cost_usd"] == pytest.approx((pt * price[0] + ct * price[1]) / 1e6)
    assert meta["judge"]["errors"] == 1
    assert "QA judge" in (tmp_path / "a" / "report.md").read_text()

    # a rerun is answered from the response cache: no request, same answers and grades
    n = len(server.requests)
    summary2, recs2 = run(tmp_path / "b", tmp_path / "replays")
    assert len(server.requests) == n
    assert [r["qa"] for r in recs2] != [] and [r["metrics"] for r in recs2] == [
        r["metrics"] for r in recs]
    assert summary2["meta"]["qa"]["reader"]["cache_hits"] == 5
    assert summary2["meta"]["qa"]["reader"]["calls"] == 0


def test_qa_without_an_endpoint_is_a_clear_error(monkeypatch, tmp_path):
    from benchmarks.locomo_baselines import main

    monkeypatch.delenv("KGMEM_LLM_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file either
    with pytest.raises(SystemExit, match="KGMEM_LLM_BASE_URL"):
        main(["--data", str(TINY), "--systems", "kgmem", "--qa", "--out", str(tmp_path)])


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ('{"reasoning": "x", "label": "CORRECT"}', "CORRECT"),
        ('```json\n{"label": "wrong"}\n```', "WRONG"),
        ("WRONG", "WRONG"),
        ("CORRECT or WRONG, hard to say", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_judge(reply, label):
    assert parse_judge(reply)[0] == label
