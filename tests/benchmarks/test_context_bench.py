"""The context suite on the tiny LoCoMo fixture: every system's block within its budget, the
metric read off the block, per-question lines and a summary written."""

from __future__ import annotations

import json

from benchmarks.context_bench import Block, count_tokens, main, pack, rrf, short_answer
from benchmarks.task import Question

from .conftest import FIXTURES

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"


def test_greedy_packing_keeps_what_fits_and_counts_the_text():
    lines = {"a": "[2023-01-01] A: " + "word " * 40, "b": "[2023-01-02] B: short",
             "c": "[2023-01-03] C: also short"}
    costs = {k: count_tokens(v) for k, v in lines.items()}
    block = pack(["a", "b", "c"], lines, costs, budget=costs["b"] + costs["c"])
    assert block.turn_ids == ("b", "c")  # a does not fit, the next ones still do
    assert block.tokens == count_tokens(block.text) <= costs["b"] + costs["c"]
    recent = pack(["c", "b", "a"], lines, costs, budget=costs["b"] + costs["c"],
                  chronological=True)
    assert recent.turn_ids == ("b", "c")


def test_rrf_and_short_answers():
    assert rrf([["x", "y"], ["y", "z"]])[0] == "y"
    assert short_answer("7 May 2023") == "7 May 2023"
    assert short_answer("a long answer with many more words than a span") is None
    assert short_answer(2022) == "2022"


def test_the_suite_on_the_tiny_conversation(tmp_path):
    rc = main(["--data", str(TINY), "--conversations", "0", "--budgets", "60,200",
               "--systems", "kgmem-extract,recent,bm25", "--no-progress", "--no-cache",
               "--out", str(tmp_path)])
    assert rc == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    per = summary["summaries"]["locomo"]
    assert set(per) == {"kgmem-extract", "recent", "bm25"}
    for name in per:
        recs = [json.loads(x) for x in
                (tmp_path / "locomo" / f"{name}.jsonl").read_text().splitlines()]
        assert {r["budget"] for r in recs} == {60, 200}
        assert all(r["tokens"] <= r["budget"] for r in recs)
        assert all(set(r["found"]) <= set(r["gold"]) for r in recs)
        assert all(r["any"] == bool(r["found"]) for r in recs)
        # a bigger budget never holds less of BM25's ranking
        if name == "bm25":
            by_q: dict[str, dict[int, dict]] = {}
            for r in recs:
                by_q.setdefault(r["question_id"], {})[r["budget"]] = r
            assert all(set(v[60]["found"]) <= set(v[200]["found"]) for v in by_q.values())
    assert "evidence-in-context" in (tmp_path / "report.md").read_text()


def test_the_answer_span_is_read_off_the_block_text():
    from benchmarks.context_bench import score

    q = Question("q", "0", "where?", "Denver", "single-hop", ("t1",), ("S1",))
    s = score(q, Block("[2023-01-01] Maya: I moved to denver!", 10, ("t1",)))
    assert s["any"] and s["all"] and s["answer"]
    s = score(q, Block("[2023-01-01] Maya: I moved.", 5, ()))
    assert not s["any"] and s["answer"] is False


def test_the_documents_suite_scores_the_evidence_sentence(tmp_path):
    """``context-docs``: each question's evidence is verbatim in one item; both systems'
    blocks keep the budget; per-question lines and a summary are written."""
    from benchmarks.context_docs import load
    from benchmarks.context_docs import main as docs_main

    data = load()
    assert all(q["item"] for q in data["questions"])
    assert docs_main(["--budgets", "200", "--out", str(tmp_path)]) == 0
    for name in ("kgmem", "bm25-items"):
        rows = [json.loads(ln) for ln in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert len(rows) == len(data["questions"])
        assert all(r["tokens"] <= 200 for r in rows)
        assert all(isinstance(r["evidence"], bool) for r in rows)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary["summary"]) == {"kgmem", "bm25-items"}
