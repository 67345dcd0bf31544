"""End-to-end QA (reader + judge) of the LoCoMo and LongMemEval suites over HTTP: a local
OpenAI-compatible server (tests/benchmarks/qa_server.py) answers the published prompts of
benchmarks/qa_prompts.py; accounting, caching and the per-question outputs are checked."""

from __future__ import annotations

import json

import pytest

from benchmarks.llm_qa import parse_judge, parse_yes_no
from benchmarks.qa_prompts import LOCOMO_NOT_MENTIONED, PROTOCOLS

from .conftest import FIXTURES
from .qa_server import QAServer

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"
LME = FIXTURES / "longmemeval_fixture.json"
PRICES = {"gpt-4o-mini": [0.15, 0.6], "gpt-4o": [2.5, 10.0]}
GREY, LISBON, POTTERY, WORK, MARKET = (
    "What is the name of Maya's greyhound?", "When did Maya move to Lisbon?",
    "What does Theo make in his pottery classes?", "Where does Maya work?",
    "What did Theo sell at the winter market?")
LOCOMO_ANSWERS = {
    ("mem0", "reader", GREY): "Pepper",
    ("mem0", "reader", LISBON): "Mid June 2023",
    ("mem0", "reader", POTTERY): "Tiles",
    ("mem0", "reader", WORK): "A bakery",
    ("mem0", "reader", MARKET): "Three vases",
    ("mem0", "judge", GREY): '{"label": "CORRECT"}',
    ("mem0", "judge", LISBON): '```json\n{"label": "CORRECT"}\n```',
    ("mem0", "judge", POTTERY): '{"label": "WRONG"}',
    ("mem0", "judge", WORK): "CORRECT or WRONG, hard to say",  # unusable: not scored
    ("locomo", "reader", GREY): "Pepper",
    ("locomo", "reader", LISBON): "June 2023",
    ("locomo", "reader", POTTERY): "vases, bowls",
    ("locomo", "reader", WORK): "bakery in Lisbon",
    ("locomo", "reader", MARKET): LOCOMO_NOT_MENTIONED,
}


@pytest.fixture
def endpoint(monkeypatch, tmp_path):
    def start(answers):
        server = QAServer(answers)
        monkeypatch.setenv("KGMEM_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("KGMEM_LLM_MODEL", "gpt-4o-mini")
        monkeypatch.setenv("KGMEM_LLM_JUDGE_MODEL", "gpt-4o")
        monkeypatch.setenv("KGMEM_LLM_API_KEY", "sk-test-qa")
        monkeypatch.setenv("KGMEM_LLM_PRICES", json.dumps(PRICES))
        monkeypatch.setenv("KGMEM_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
        monkeypatch.setenv("KGMEM_LLM_BACKOFF_BASE", "0.001")
        servers.append(server)
        return server

    servers: list[QAServer] = []
    yield start
    for s in servers:
        s.close()


def run_locomo(out, cache):
    from benchmarks.locomo_baselines import main

    assert main(["--data", str(TINY), "--systems", "kgmem-extract,bm25-turns", "--evidence",
                 "original", "--no-progress", "--qa", "--out", str(out),
                 "--cache-dir", str(cache)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    recs = [json.loads(x) for x in (out / "original" / "kgmem-extract.jsonl").open()]
    return summary, {r["question"]: r for r in recs}


def test_locomo_qa_runs_mem0_j_and_the_paper_f1_over_http(endpoint, tmp_path):
    server = endpoint(LOCOMO_ANSWERS)
    summary, by_q = run_locomo(tmp_path / "a", tmp_path / "replays")
    # 5 questions: Mem0 reader 5 + judge 4 (category 5 skipped) + LoCoMo reader 5; bm25 none
    assert sorted(server.seen) == sorted(LOCOMO_ANSWERS)
    assert all(r.headers["authorization"] == "Bearer sk-test-qa" for r in server.requests)
    models = {(p, role): r.body["model"] for (p, role, _), r in zip(server.seen, server.requests)}
    assert models == {("mem0", "reader"): "gpt-4o-mini", ("mem0", "judge"): "gpt-4o",
                      ("locomo", "reader"): "gpt-4o-mini"}
    judge = next(r for k, r in zip(server.seen, server.requests) if k[1] == "judge")
    assert judge.body["response_format"] == {"type": "json_object"}  # Mem0's judge call
    assert judge.body["temperature"] == 0
    grey = next(r for k, r in zip(server.seen, server.requests) if k == ("mem0", "reader", GREY))
    assert "rescue greyhound called Pepper" in grey.body["messages"][0]["content"]  # context
    lisbon = next(r for k, r in zip(server.seen, server.requests)
                  if k == ("locomo", "reader", LISBON))
    assert lisbon.body["messages"][0]["content"].endswith(
        "Use DATE of CONVERSATION to answer with an approximate date. Short answer:\n")
    j = {q: by_q[q]["metrics"]["qa.mem0_j"] for q in by_q}
    assert j == {GREY: 1.0, LISBON: 1.0, POTTERY: 0.0, WORK: None, MARKET: None}
    f1 = {q: by_q[q]["metrics"]["qa.locomo_f1"] for q in by_q}
    assert f1[GREY] == 1.0 and f1[MARKET] == 1.0  # adversarial: "not mentioned" is right
    # multi-hop: the answer's comma-separated parts each try the gold "vases and bowls"
    assert f1[POTTERY] == pytest.approx(2 / 3)
    assert f1[LISBON] == pytest.approx(2 * (2 / 2) * (2 / 5) / (1 + 2 / 5))  # "june", "2023"
    assert by_q[GREY]["qa"]["mem0"]["answer"] == "Pepper"
    assert by_q[GREY]["qa"]["context_tokens"] <= 1000
    rows = {s["system"]: s for s in summary["summaries"]["original"]}
    assert rows["kgmem-extract"]["overall"]["qa.mem0_j"] == {"mean": pytest.approx(2 / 3),
                                                             "n": 3}
    assert rows["kgmem-extract"]["overall"]["qa.locomo_f1"]["n"] == 5
    assert "qa.mem0_j" not in rows["bm25-turns"]["overall"]  # no context(): no QA
    meta = summary["meta"]["qa"]
    assert meta["protocols"] == {"mem0": PROTOCOLS["mem0"], "locomo": PROTOCOLS["locomo"]}
    assert (meta["reader"]["model"], meta["judge"]["model"]) == ("gpt-4o-mini", "gpt-4o")
    for role, price, n in (("reader", PRICES["gpt-4o-mini"], 10), ("judge", PRICES["gpt-4o"], 4)):
        reqs = [r for k, r in zip(server.seen, server.requests) if k[1] == role]
        pt = sum(sum(len(m["content"]) for m in r.body["messages"]) // 4 for r in reqs)
        ct = sum(len(LOCOMO_ANSWERS[k].split()) for k in server.seen if k[1] == role)
        assert (meta[role]["calls"], meta[role]["prompt_tokens"],
                meta[role]["completion_tokens"]) == (n, pt, ct)
        assert meta[role]["cost_usd"] == pytest.approx((pt * price[0] + ct * price[1]) / 1e6)
    assert meta["judge"]["errors"] == 1
    assert "Mem0 J (QA)" in (tmp_path / "a" / "report.md").read_text()

    # a rerun is answered from the response cache: no request, the same answers and grades
    n = len(server.requests)
    summary2, by_q2 = run_locomo(tmp_path / "b", tmp_path / "replays")
    assert len(server.requests) == n
    assert {q: r["metrics"] for q, r in by_q2.items()} == {q: r["metrics"] for q, r in by_q.items()}
    assert summary2["meta"]["qa"]["reader"]["cache_hits"] == 10
    assert summary2["meta"]["qa"]["reader"]["calls"] == 0


def test_longmemeval_qa_uses_the_judge_prompt_of_each_question_type(endpoint, tmp_path):
    from benchmarks.longmemeval_baselines import main

    qs = {q["question_id"]: q for q in json.loads(LME.read_text())}
    answers = {}
    for qid, q in qs.items():
        answers[("longmemeval", "reader", q["question"])] = f"answer to {qid}"
        answers[("longmemeval", "judge", q["question"])] = "no" if qid == "fx_ms_01" else "Yes."
    server = endpoint(answers)
    out = tmp_path / "lme"
    assert main(["--path", str(LME), "--systems", "kgmem", "--no-progress", "--qa",
                 "--out", str(out), "--cache-dir", str(tmp_path / "replays")]) == 0
    assert sorted(server.seen) == sorted(answers)
    judged = {k[2]: r.body for k, r in zip(server.seen, server.requests) if k[1] == "judge"}
    assert judged[qs["fx_tr_01"]["question"]]["max_tokens"] == 10
    assert "off-by-one" in judged[qs["fx_tr_01"]["question"]]["messages"][0]["content"]
    assert "unanswerable question" in judged[qs["fx_ssu_02_abs"]["question"]]["messages"][0][
        "content"]
    assert "updated answer" in judged[qs["fx_ku_01"]["question"]]["messages"][0]["content"]
    reader = next(r.body for k, r in zip(server.seen, server.requests)
                  if k == ("longmemeval", "reader", qs["fx_ku_01"]["question"]))
    assert "\nCurrent Date: 2023/08/15 (Tue) 20:00\n" in reader["messages"][0]["content"]
    summary = json.loads((out / "summary.json").read_text())
    qa = summary["systems"]["kgmem"]["qa"]
    assert qa["n"] == 6 and qa["overall"] == pytest.approx(5 / 6)
    assert qa["by_type"]["multi-session"] == 0.0 and qa["abstention"] == 1.0
    recs = [json.loads(x) for x in (out / "kgmem.jsonl").open()]
    assert {r["question_id"]: r["metrics"]["qa.lme_acc"] for r in recs}["fx_ms_01"] == 0.0


def test_qa_without_an_endpoint_is_a_clear_error(monkeypatch, tmp_path):
    from benchmarks.locomo_baselines import main

    monkeypatch.delenv("KGMEM_LLM_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file either
    with pytest.raises(SystemExit, match="KGMEM_LLM_BASE_URL"):
        main(["--data", str(TINY), "--systems", "kgmem", "--qa", "--out", str(tmp_path)])


def test_without_qa_the_report_says_not_measured_and_gives_the_command(tmp_path, capsys):
    from benchmarks.locomo_baselines import main

    assert main(["--data", str(TINY), "--systems", "bm25-turns", "--evidence", "original",
                 "--no-progress", "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "summary.json").read_text())["meta"]["qa"]
    assert meta["measured"] is False
    assert "KGMEM_LLM_BASE_URL=" in meta["command"] and "--qa" in meta["command"]
    assert "QA accuracy: not measured" in capsys.readouterr().out


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


@pytest.mark.parametrize(("reply", "label"), [("Yes.", True), ("no", False), ("", None),
                                              (None, None)])
def test_longmemeval_judge_reply_is_read_as_the_official_code_reads_it(reply, label):
    assert parse_yes_no(reply) is label
