"""Replayed kgmem stores are cached between runs of the LoCoMo suite (embedded store)."""

from __future__ import annotations

import dataclasses
import json

from benchmarks.datasets.locomo import load_locomo
from benchmarks.kgmem_system import KgmemSystem, replay_key

from .conftest import FIXTURES

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"


def _run(out, cache, *extra):
    from benchmarks.locomo_baselines import main

    assert main(["--data", str(TINY), "--systems", "kgmem", "--evidence", "original",
                 "--no-progress", "--out", str(out), "--cache-dir", str(cache), *extra]) == 0
    summary = json.loads((out / "summary.json").read_text())
    recs = [json.loads(x) for x in (out / "original" / "kgmem.jsonl").open()]
    return summary["meta"]["replays"]["kgmem"], [r["ranked_turn_ids"] for r in recs]


def test_second_run_reuses_the_cache_with_identical_rankings(tmp_path):
    cache = tmp_path / "cache"
    first, ranks1 = _run(tmp_path / "a", cache)
    assert (first["replayed"], first["reused"]) == (1, 0)
    assert len(list(cache.glob("*/*/replay.json"))) == 1
    second, ranks2 = _run(tmp_path / "b", cache)
    assert (second["replayed"], second["reused"]) == (0, 1)
    assert second["episodes"] == first["episodes"] > 0
    assert ranks2 == ranks1 and all(ranks1)
    third, ranks3 = _run(tmp_path / "c", cache, "--no-cache")
    assert (third["replayed"], third["reused"]) == (1, 0)
    assert ranks3 == ranks1


def test_cache_key_follows_data_and_config(tmp_path):
    hay = next(iter(load_locomo(TINY, verify=False).to_retrieval_task().haystacks.values()))
    sys_ = KgmemSystem(cache_dir=tmp_path)
    base = replay_key(hay, sys_.config())
    assert replay_key(hay, sys_.config()) == base  # stable
    assert replay_key(hay, {**sys_.config(), "extract": True}) != base
    s0 = hay.sessions[0]
    t0 = dataclasses.replace(s0.turns[0], text=s0.turns[0].text + "!")
    edited = dataclasses.replace(
        hay, sessions=(dataclasses.replace(s0, turns=(t0, *s0.turns[1:])), *hay.sessions[1:]))
    assert replay_key(edited, sys_.config()) != base


def test_an_unfinished_replay_is_not_reused(tmp_path):
    """A directory without its marker (a crash mid-replay) is replayed again."""
    hay = next(iter(load_locomo(TINY, verify=False).to_retrieval_task().haystacks.values()))
    s1 = KgmemSystem(cache_dir=tmp_path)
    s1.index(hay)
    s1.close()
    (marker,) = tmp_path.glob("*/*/replay.json")
    marker.unlink()
    s2 = KgmemSystem(cache_dir=tmp_path)
    s2.index(hay)
    s2.close()
    assert (s2.stats["replayed"], s2.stats["reused"]) == (1, 0)
    assert marker.is_file()
