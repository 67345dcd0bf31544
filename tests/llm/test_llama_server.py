"""The LLM extractor against a real llama-cpp-python server on loopback (``scripts/llama.sh``,
started by ``scripts/test.sh``). Skipped when no server answers; under ``CI=true`` a missing
server fails, like the Neo4j tier.

The default model (SmolLM2-135M-Instruct) is far too small to extract well: these tests pin
what a real local server does to the request/response path (a 500 for json_schema, grammars,
prompt caching, real timings, a server that dies), not extraction quality.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from kgmem.ingest.llm import LLMExtractor
from kgmem.llm import ResponseCache

from ..conftest import IN_CI

pytestmark = pytest.mark.llama

LLAMA_URL = os.environ.get("KGMEM_LLAMA_URL", "http://127.0.0.1:8091/v1")
DEMO = Path(__file__).resolve().parents[2] / "kgmem" / "data" / "demo_conversation.jsonl"


@pytest.fixture(scope="module")
def llama_model() -> str:
    """The model the running server serves (skip, or fail under CI, when none answers)."""
    try:
        resp = httpx.get(f"{LLAMA_URL}/models", timeout=5)
        resp.raise_for_status()
        return str(resp.json()["data"][0]["id"])
    except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
        msg = (f"no llama.cpp server at {LLAMA_URL} ({exc}); start one with: "
               "bash scripts/llama.sh start")
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)


def run_ingest(home: Path, cache: Path, file: Path, model: str, *args: str,
               timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KGMEM_LLM_BASE_URL": LLAMA_URL, "KGMEM_LLM_MODEL": model,
           "KGMEM_LLM_CACHE_DIR": str(cache), "KGMEM_LLM_CONCURRENCY": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kgmem.cli", "--home", str(home), *args, "ingest", str(file),
         "--extractor", "llm"], env=env, capture_output=True, text=True, timeout=timeout)


def locomo_session(tmp_path: Path) -> Path:
    """LoCoMo conversation 0 (dev split), session 1, as a JSONL file of episodes."""
    from benchmarks.datasets._common import default_data_dir

    src = default_data_dir() / "locomo" / "locomo10.json"
    if not src.is_file():
        msg = f"LoCoMo data not found at {src} (set KGMEM_BENCH_DATA)"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    from kgmem.ingest.formats import read_episodes

    conv0 = json.loads(src.read_text())[:1]
    one = tmp_path / "locomo0.json"
    one.write_text(json.dumps(conv0))
    turns = [e for e in read_episodes(one, "locomo")
             if e["source_description"].split()[-1].startswith("D1:")]
    out = tmp_path / "locomo0_session1.jsonl"
    out.write_text("".join(json.dumps({"text": e["content"], "speaker": e["speaker"],
                                       "time": e["reference_time"].isoformat()}) + "\n"
                           for e in turns))
    return out


def test_json_schema_refused_with_500_is_detected_in_one_request(llama_model, tmp_path):
    with LLMExtractor(LLAMA_URL, llama_model, cache_dir=tmp_path / "cache",
                      concurrency=1) as ex:
        ex.extract("I moved to Lisbon in May 2023 and I work at Feedzai.",
                   "2023-06-01T10:00:00Z", speaker="Rui")
        assert ex.stats.requests == 2 and ex.stats.retries == 0  # one 500, then json_object
        assert ex.response_format_mode == "json_object"
        assert ex.stats.failed_episodes == 0
    caps = ResponseCache(tmp_path / "cache").endpoint_caps(f"{LLAMA_URL}/chat/completions",
                                                          llama_model)
    assert caps["response_format"] == "json_object"
    with LLMExtractor(LLAMA_URL, llama_model, cache_dir=tmp_path / "cache") as again:
        again.extract("I have a cat called Miso.", "2023-06-02T10:00:00Z", speaker="Rui")
        assert again.stats.requests == 1  # remembered: no second 500


@pytest.mark.parametrize("source", ["demo", "locomo"])
def test_ingest_through_the_real_server(llama_model, tmp_path, source):
    file = DEMO if source == "demo" else locomo_session(tmp_path)
    n = sum(1 for line in file.read_text().splitlines() if line.strip())
    proc = run_ingest(tmp_path / "home", tmp_path / "cache", file, llama_model, "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    llm = summary["llm"]
    assert summary["episodes"] == n and llm["episodes"] == n
    assert llm["failed_episodes"] == 0, proc.stderr[-3000:]
    assert llm["requests"] >= n and llm["tokens_in"] > 0 and llm["tokens_out"] > 0
    assert llm["episode_seconds"]["n"] == n
    # the human summary of a second run on a fresh home: every answer from the cache
    again = run_ingest(tmp_path / "home2", tmp_path / "cache", file, llama_model)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"LLM: {n} episodes ({n} from cache, 0 failed); 0 requests" in again.stdout
