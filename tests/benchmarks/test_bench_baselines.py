"""Baselines, the runner and the report helpers on small hand-made haystacks."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

import numpy as np
import pytest

from benchmarks.baselines import (
    BM25Index,
    BM25System,
    EmbeddingSystem,
    RandomSystem,
    RetrievalSystem,
    hashing_embedder,
    random_expectation,
    tokenize,
)
from benchmarks.report import (
    category_table,
    markdown_table,
    plot_category_bars,
    plot_latency_histogram,
    plot_recall_curves,
    systems_table,
    write_markdown_report,
)
from benchmarks.runner import run_retrieval, score_ranking
from benchmarks.task import Haystack, Question, Ranking, RetrievalTask, Session, Turn

T0 = datetime(2023, 5, 8, tzinfo=timezone.utc)


def _hay() -> Haystack:
    texts = {
        "S1": ["I adopted a dog named Rex", "Nice, what breed is Rex?"],
        "S2": ["I started painting sunsets", "Painting is relaxing"],
        "S3": ["My dog Rex learned to fetch", "Good boy Rex"],
    }
    sessions = []
    for sid, tt in texts.items():
        turns = tuple(
            Turn(f"{sid}-{i}", sid, "A" if i % 2 == 0 else "B", t, T0) for i, t in enumerate(tt)
        )
        sessions.append(Session(sid, T0, turns))
    return Haystack("h", tuple(sessions))


def _task() -> RetrievalTask:
    qs = [
        Question("q1", "h", "what is my dog called", "Rex", "pets", ("S1-0",), ("S1",)),
        Question("q2", "h", "I started painting what?", "sunsets", "hobby", ("S2-0",), ("S2",)),
        Question("q3", "h", "what did Rex learn", "fetch", "pets", ("S3-0",), ("S3",)),
    ]
    return RetrievalTask("toy", {"h": _hay()}, qs)


def test_tokenize_is_lowercase_alnum():
    assert tokenize("I'm at Café-42, OK?") == ["i", "m", "at", "caf", "42", "ok"]


def test_bm25_scores_match_hand_computation():
    docs = [["a", "b"], ["a", "c", "c"], ["d"]]
    idx = BM25Index(docs, k1=1.5, b=0.75)
    avgdl = 2.0
    idf_c = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    tf, dl = 2, 3
    expected = idf_c * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / avgdl))
    s = idx.scores(["c"])
    assert s[1] == pytest.approx(expected)
    assert s[0] == 0.0 and s[2] == 0.0
    # repeated query tokens count twice
    assert idx.scores(["c", "c"])[1] == pytest.approx(2 * expected)


def test_systems_satisfy_the_protocol():
    assert isinstance(BM25System("turn"), RetrievalSystem)
    assert isinstance(RandomSystem("session"), RetrievalSystem)
    assert isinstance(EmbeddingSystem(hashing_embedder(), "turn"), RetrievalSystem)


def test_bm25_turns_finds_the_right_turns_and_sessions():
    res = run_retrieval(BM25System("turn"), _task(), ks=(1, 2), progress=False)
    by = {r["question_id"]: r for r in res.records}
    assert by["q2"]["ranked_turn_ids"][0] == "S2-0"
    assert by["q2"]["metrics"]["turn.recall_any@1"] == 1.0
    assert by["q2"]["ranked_session_ids"][0] == "S2"
    assert res.summary["overall"]["session.recall_any@2"]["mean"] == 1.0
    assert set(res.summary["by_category"]) == {"pets", "hobby"}
    assert res.summary["latency_s"]["n"] == 3 and res.summary["index_s"]["n"] == 1


def test_session_level_system_has_no_turn_metrics():
    res = run_retrieval(BM25System("session"), _task(), ks=(1,), progress=False)
    rec = res.records[0]
    assert rec["ranked_turn_ids"] is None
    assert rec["metrics"]["turn.recall_any@1"] is None
    assert "turn.recall_any@1" not in res.summary["overall"]


def test_random_is_seeded_per_question_and_order_independent():
    task = _task()
    a = run_retrieval(RandomSystem("turn", seed=3), task, progress=False)
    task.questions.reverse()
    b = run_retrieval(RandomSystem("turn", seed=3), task, progress=False)
    ra = {r["question_id"]: r["ranked_turn_ids"] for r in a.records}
    rb = {r["question_id"]: r["ranked_turn_ids"] for r in b.records}
    assert ra == rb
    assert sorted(ra["q1"]) == sorted(t.turn_id for t in _hay().turns())


def test_random_expectation_exact_values():
    # N=4, g=1, k=2: P(any) = 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert random_expectation(4, 1, 2)["recall_any"] == pytest.approx(0.5)
    # N=4, g=2, k=2: P(all) = C(2,0)/C(4,2) = 1/6
    assert random_expectation(4, 2, 2)["recall_all"] == pytest.approx(1 / 6)
    assert random_expectation(4, 3, 2)["recall_all"] == 0.0
    assert random_expectation(3, 1, 10)["recall_any"] == pytest.approx(1.0)


def test_embedding_system_with_a_toy_embedding():
    def embed(texts):  # 2-d toy: axis 0 = "dog"/"rex", axis 1 = "paint"
        return np.array(
            [
                [t.lower().count("rex") + t.lower().count("dog"), t.lower().count("paint")]
                for t in texts
            ],
            dtype=float,
        )

    res = run_retrieval(EmbeddingSystem(embed, "session"), _task(), ks=(1,), progress=False)
    by = {r["question_id"]: r for r in res.records}
    assert by["q2"]["ranked_session_ids"][0] == "S2"
    assert by["q1"]["ranked_session_ids"][0] in {"S1", "S3"}


def test_speaker_filter_keeps_only_given_speakers():
    sys_ = BM25System("turn", speakers={"A"})
    sys_.index(_hay())
    assert sys_.doc_ids == ["S1-0", "S2-0", "S3-0"]


def test_score_ranking_derives_sessions_from_turns():
    q = Question("q", "h", "x", None, "c", ("S3-1",), ("S3",))
    m, turns, sessions = score_ranking(
        q, Ranking(turn_ids=["S1-0", "S1-1", "S3-1"]), _hay().turn_to_session, ks=(1, 2)
    )
    assert sessions == ["S1", "S3"]
    assert m["session.recall_any@1"] == 0.0 and m["session.recall_any@2"] == 1.0
    assert m["turn.recall_any@2"] == 0.0


def test_run_result_writes_jsonl_and_summary(tmp_path):
    res = run_retrieval(BM25System("turn"), _task(), ks=(1,), progress=False)
    jl, sj = res.write(tmp_path, stem="bm25")
    lines = [json.loads(x) for x in jl.read_text().splitlines()]
    assert len(lines) == 3 and {"question_id", "metrics", "latency_s"} <= set(lines[0])
    assert json.loads(sj.read_text())["system"] == "bm25-turns"


def test_report_tables_and_plots(tmp_path):
    task = _task()
    sums = [
        run_retrieval(s, task, ks=(1, 2, 5), progress=False).summary
        for s in (BM25System("turn"), BM25System("session"))
    ]
    h, rows = systems_table(sums)
    assert h[0] == "method" and rows[1][4] == "-"  # session system: no turn any@10
    h, rows = category_table(sums[0])
    assert rows[-1][0] == "overall"
    md = markdown_table(["a", "b"], [[1, "x|y"]])
    assert md.splitlines()[2] == "| 1 | x\\|y |"
    imgs = [
        ("curve", plot_recall_curves(sums, tmp_path / "c.png")),
        ("bars", plot_category_bars(sums, tmp_path / "b.png")),
        ("lat", plot_latency_histogram({"x": [0.001, 0.002]}, tmp_path / "l.png")),
    ]
    assert all(p.stat().st_size > 1000 for _, p in imgs)
    rep = write_markdown_report(tmp_path / "r.md", "T", [("S", "body")], images=imgs)
    text = rep.read_text()
    assert "# T" in text and "![curve](c.png)" in text


def test_kgmem_embedder_adapter_uses_embed_and_bypasses_cache(monkeypatch):
    import kgmem.embed
    from benchmarks.baselines import load_kgmem_embedder

    class Inner:
        def embed(self, texts):
            return [[float(len(t)), 1.0] for t in texts]

    class Cached:
        inner = Inner()

        def embed(self, texts):
            raise AssertionError("cache should be bypassed")

    monkeypatch.setattr(kgmem.embed, "get_default_embedder", lambda: Cached())
    fn = load_kgmem_embedder(uncached=True)
    assert fn is not None
    assert fn(["ab", "c"]).tolist() == [[2.0, 1.0], [1.0, 1.0]]

    def broken():
        raise RuntimeError("model files missing")

    monkeypatch.setattr(kgmem.embed, "get_default_embedder", broken)
    assert load_kgmem_embedder() is None


def test_turn_template_overrides_rendering():
    sys_ = BM25System("session", turn_template='{speaker} said, "{text}"')
    sys_.index(_hay())
    assert sys_.doc_texts[0].splitlines()[0] == 'A said, "I adopted a dog named Rex"'


def test_date_oracle_puts_the_gold_days_first_in_the_inner_order():
    from datetime import timedelta

    from benchmarks.baselines import DateOracleSystem

    day = [T0 + timedelta(days=d) for d in (0, 0, 1, 1, 1, 2)]
    texts = ["rex the dog", "hello", "painting sunsets", "rex again", "more paint", "rex"]
    turns = tuple(Turn(f"t{i}", f"S{day[i].day}", "A", t, day[i])
                  for i, t in enumerate(texts))
    hay = Haystack("h", (Session("S", T0, turns),))
    q = Question("q", "h", "rex", None, "x", ("t3",), ("S",))  # gold said on day 1
    chrono = DateOracleSystem("chronological")
    chrono.index(hay)
    assert list(chrono.rank(q, 10).turn_ids) == ["t2", "t3", "t4", "t0", "t1", "t5"]
    bm25 = DateOracleSystem("bm25")
    bm25.index(hay)
    assert list(bm25.rank(q, 10).turn_ids)[:3] == ["t3", "t2", "t4"]  # BM25 inside the day
    rnd = DateOracleSystem("random", seed=3)
    rnd.index(hay)
    assert set(rnd.rank(q, 10).turn_ids[:3]) == {"t2", "t3", "t4"}
    with pytest.raises(ValueError):
        DateOracleSystem("best")
