"""The miss browser: one self-contained HTML page from a run's per-question JSONL; held-out
conversations are counted but not listed unless asked."""

from __future__ import annotations

import json

from benchmarks.misses import first_rank, main, rank_bin


def record(qid, hid, category, gold_t, ranked_t, gold_s, ranked_s):
    return {"question_id": qid, "haystack_id": hid, "category": category, "question": f"Q {qid}?",
            "answer": "A & B", "gold_turn_ids": gold_t, "ranked_turn_ids": ranked_t,
            "gold_session_ids": gold_s, "ranked_session_ids": ranked_s,
            "metrics": {"session.recall_any@5": float(bool(set(gold_s) & set(ranked_s[:5]))),
                        "turn.recall_any@10": float(bool(set(gold_t) & set(ranked_t[:10])))}}


def test_ranks_and_bins():
    assert first_rank(["S3", "S1", "S2"], ["S2", "S1"]) == 2
    assert first_rank(["S3"], ["S9"]) is None and first_rank(None, ["S9"]) is None
    assert [rank_bin(r) for r in (1, 2, 5, 6, 10, 11, None)] == [
        "1", "2-5", "2-5", "6-10", "6-10", "11+", "not ranked"]


def test_miss_browser_lists_dev_misses_with_ranks_and_hides_held_out(tmp_path):
    far = [f"D9:{i}" for i in range(12)]
    recs = [
        record("locomo_0_qa1", "0", "temporal", ["D1:3"], far + ["D1:3"], ["S1"],
               ["S9", "S8", "S7", "S6", "S5", "S1"]),  # both misses: turn at 13, session at 6
        record("locomo_1_qa2", "1", "single-hop", ["D2:1"], ["D2:1"], ["S2"], ["S2"]),  # hit
        record("locomo_7_qa3", "7", "temporal", ["D3:1"], ["D9:1"], ["S3"], ["S9"]),  # held out
    ]
    run = tmp_path / "run"
    (run / "original").mkdir(parents=True)
    (run / "original" / "kgmem-extract.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in recs))
    assert main([str(run)]) == 0
    page = (run / "misses-original-kgmem-extract.html").read_text()
    assert "http" not in page.replace("http-equiv", "")  # self-contained: no CDN, no links
    assert "data:image/png;base64," in page
    assert "locomo_0_qa1" in page and "rank 13" in page and "rank 6" in page
    assert "A &amp; B" in page  # escaped
    assert "locomo_1_qa2" not in page  # not a miss
    assert "locomo_7_qa3" not in page  # held out: counted only
    assert "<td>held-out (5-9)</td><td>temporal</td><td>1</td><td>1</td><td>1</td>" in page
    assert main([str(run), "--held-out-detail", "--out", str(tmp_path / "all.html")]) == 0
    assert "locomo_7_qa3" in (tmp_path / "all.html").read_text()
