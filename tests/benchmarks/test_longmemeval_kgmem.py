"""kgmem (extraction on, the product default, and off) as a system of the LongMemEval suite,
on the official-schema fixture: per-question outputs and the official metric's skips."""

from __future__ import annotations

import json

from .conftest import FIXTURES

LME = FIXTURES / "longmemeval_fixture.json"


def test_longmemeval_suite_runs_kgmem_with_official_metric_and_outputs(tmp_path):
    from benchmarks.longmemeval_baselines import main

    out = tmp_path / "lme"
    assert main(["--path", str(LME), "--systems", "kgmem-extract,kgmem,bm25-turns",
                 "--no-progress", "--out", str(out), "--cache-dir", str(tmp_path / "c")]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["systems"]) == {"kgmem-extract", "kgmem", "bm25-turns"}
    for name in ("kgmem-extract", "kgmem"):
        recs = [json.loads(x) for x in (out / f"{name}.jsonl").open()]
        assert len(recs) == 6  # every question, abstention included, one line each
        by_id = {r["question_id"]: r for r in recs}
        # both roles are replayed: assistant turns can be ranked ...
        assert any(t.endswith("_2") for t in by_id["fx_ssa_01"]["ranked_turn_ids"])
        assert by_id["fx_ssu_01"]["ranked_turn_ids"][0] == "answer_fx_ssu_01_1_1"
        view = summary["systems"][name]
        official = view["official"]
        # ... the official printout skips _abs and questions without user-side evidence
        assert official["n_scored"] == 4
        assert official["skipped_abstention"] == ["fx_ssu_02_abs"]
        assert official["skipped_no_user_evidence"] == ["fx_ssa_01"]
        assert set(official["turn"]) >= {"recall_all@50", "ndcg_any@50"}
        assert view["ours"]["n"] == 5  # non-abstention questions
        assert view["peer_convention"]["session.recall_any@5"]["n"] == 6  # _abs included
        assert view["ingest"]["turns"] > 0 and view["ingest"]["turns_per_cpu_s"] > 0
    assert summary["meta"]["qa"]["measured"] is False
    assert (out / "report.md").read_text().startswith("# LongMemEval")
