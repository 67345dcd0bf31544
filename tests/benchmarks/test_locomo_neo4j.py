"""The LoCoMo suite on Neo4j: kgmem replays into a fresh group, graphiti-core's search reads
the same group; one tiny synthetic conversation (fixtures/locomo_tiny)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import neo4j_settings, neo4j_store_or_skip

from .conftest import FIXTURES

pytest.importorskip("graphiti_core")

pytestmark = pytest.mark.neo4j

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"


def test_locomo_suite_on_neo4j_with_graphiti_search(tmp_path, monkeypatch):
    from benchmarks.locomo_baselines import main

    store = neo4j_store_or_skip()
    monkeypatch.setenv("GRAPHITI_TELEMETRY_ENABLED", "false")
    for k, v in neo4j_settings().items():
        if v is not None:
            monkeypatch.setenv(f"KGMEM_NEO4J_{k.upper()}", v)
    systems = ("kgmem", "graphiti", "graphiti-extract", "graphiti-episodes")
    rc = main(["--data", str(TINY), "--systems", ",".join(systems), "--store", "neo4j",
               "--evidence", "original", "--no-progress", "--out", str(tmp_path)])
    assert rc == 0
    raw = json.loads(TINY.read_text())[0]
    conv = raw["conversation"]
    turn_session = {t["dia_id"]: f"S{n}" for n in (1, 2, 3) for t in conv[f"session_{n}"]}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["meta"]["store"] == "neo4j"
    rows = {s["system"]: s for s in summary["summaries"]["original"]}
    assert set(rows) == set(systems)  # kgmem-extract replays only as graphiti-extract's source
    for system in systems:
        lines = (tmp_path / "original" / f"{system}.jsonl").read_text().splitlines()
        recs = [json.loads(x) for x in lines]
        assert [r["question"] for r in recs] == [q["question"] for q in raw["qa"]]
        for r in recs:
            ranked = r["ranked_turn_ids"]
            assert ranked and len(ranked) == len(set(ranked))
            assert set(ranked) <= set(turn_session)
            assert r["gold_turn_ids"] and r["latency_s"] > 0
            # metrics are computed from the ranking, not copied from anywhere
            gold = set(r["gold_turn_ids"])
            for k in (1, 5, 10):
                top = set(ranked[:k])
                assert r["metrics"][f"turn.recall_any@{k}"] == float(bool(top & gold))
                assert r["metrics"][f"turn.recall_all@{k}"] == float(gold <= top)
            sessions = list(dict.fromkeys(turn_session[t] for t in ranked))
            if system == "kgmem":  # its own session ranking (best turns' scores summed)
                assert sorted(r["ranked_session_ids"]) == sorted(sessions)
            else:
                assert r["ranked_session_ids"] == sessions
        overall = rows[system]["overall"]["turn.recall_any@10"]
        assert overall["n"] == len(raw["qa"])
        assert overall["mean"] == pytest.approx(
            sum(r["metrics"]["turn.recall_any@10"] for r in recs) / len(recs))
    def info(system: str, key: str) -> int:
        lines = (tmp_path / "original" / f"{system}.jsonl").open()
        return sum(json.loads(x)["info"][key] for x in lines)

    assert info("graphiti", "episodes") > 0  # graphiti's BM25 found kgmem's episodes
    assert info("graphiti-extract", "edges") > 0  # ... and kgmem's extracted facts
    assert info("graphiti-episodes", "nodes") == info("graphiti-episodes", "edges") == 0
    assert summary["meta"]["replays"]["kgmem-extract"]["facts"] > 0
    # the replay groups are gone afterwards (nothing else in the database was touched)
    groups = [g for s in ("kgmem", "kgmem-extract") for g in summary["meta"]["replays"][s]["groups"]]
    assert len(set(groups)) == 2 and all(g.startswith("bench-") for g in groups)
    left = store.cypher("MATCH (n) WHERE n.group_id IN $gs RETURN count(n)", gs=groups)[0][0]
    assert left == 0
