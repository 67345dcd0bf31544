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
# The docs/llm.md recipe for a small CPU model: one request at a time (the server runs one),
# generous timeouts (a shared 2-core machine), short replies, failures recorded not raised.
LOCAL_SETTINGS = {"KGMEM_LLM_CONCURRENCY": "1", "KGMEM_LLM_TIMEOUT": "300",
                  "KGMEM_LLM_EPISODE_TIMEOUT": "600", "KGMEM_LLM_MAX_TOKENS": "384",
                  "KGMEM_LLM_ON_ERROR": "skip", "KGMEM_LLM_CONTEXT_WINDOW": "4096"}


@pytest.fixture(scope="module")
def llama_model() -> str:
    """The model the running server serves (skip, or fail under CI, when none answers)."""
    try:
        resp = httpx.get(f"{LLAMA_URL}/models", timeout=30)  # slow while it generates
        resp.raise_for_status()
        return str(resp.json()["data"][0]["id"])
    except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
        msg = (f"no llama.cpp server at {LLAMA_URL} ({exc}); start one with: "
               "bash scripts/llama.sh start")
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)


def run_ingest(home: Path, cache: Path, file: Path, model: str, *args: str,
               timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **LOCAL_SETTINGS, "KGMEM_LLM_BASE_URL": LLAMA_URL,
           "KGMEM_LLM_MODEL": model, "KGMEM_LLM_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "kgmem.cli.main", "--home", str(home), *args, "ingest", str(file),
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
    with LLMExtractor(LLAMA_URL, llama_model, cache_dir=tmp_path / "cache", concurrency=1,
                      timeout=300, max_tokens=256) as ex:
        ex.extract("I moved to Lisbon in May 2023 and I work at Feedzai.",
                   "2023-06-01T10:00:00Z", speaker="Rui")
        assert ex.stats.requests == 2 and ex.stats.retries == 0  # one 500, then json_object
        assert ex.response_format_mode == "json_object"
        assert ex.stats.failed_episodes == 0
    caps = ResponseCache(tmp_path / "cache").endpoint_caps(f"{LLAMA_URL}/chat/completions",
                                                          llama_model)
    assert caps["response_format"] == "json_object"
    with LLMExtractor(LLAMA_URL, llama_model, cache_dir=tmp_path / "cache", timeout=300,
                      max_tokens=256) as again:
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
    (group,) = summary["groups"].values()
    # every episode has a recorded extraction outcome, none left pending
    assert group["new"] == n and group["extracted"] == n and group["failed"] == 0
    assert group["pending"] == 0
    assert llm["episodes"] == n and llm["failed_episodes"] == 0
    # one request per sitting (more when a reply is cut off at max_tokens: the turns after
    # its last finished fact are asked again)
    assert llm["chunks"] >= 1 and llm["requests"] >= llm["chunks"]
    assert llm["tokens_in"] > 0 and llm["tokens_out"] > 0
    assert llm["request_seconds"]["n"] >= 1
    # the human summary of a second run on a fresh home: every answer from the cache
    again = run_ingest(tmp_path / "home2", tmp_path / "cache", file, llama_model)
    assert again.returncode == 0, again.stderr[-3000:]
    chunks = llm["chunks"]
    said = " ".join(again.stdout.split())  # the terminal's width may wrap the line anywhere
    assert (f"LLM: {n} episodes in {chunks} sitting chunks ({chunks} from cache, 0 episodes "
            "failed); 0 requests") in said


REPO = Path(__file__).resolve().parents[2]


def llama_sh(command: str, port: int, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KGMEM_LLAMA_PORT": str(port), "KGMEM_LLAMA_HOME": str(home)}
    return subprocess.run(["bash", str(REPO / "scripts" / "llama.sh"), command], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def own_server(llama_model, tmp_path):
    """A second server of the same build and model on its own port, for killing."""
    port, home = 8097, tmp_path / "llama-home"
    started = llama_sh("start", port, home)
    assert started.returncode == 0, started.stderr[-2000:]
    yield port, home
    llama_sh("stop", port, home)


def test_server_killed_mid_ingest_stops_with_unreachable(own_server, llama_model, tmp_path):
    port, home = own_server
    file = tmp_path / "eps.jsonl"
    file.write_text("".join(json.dumps({"text": f"I moved to city number {i} this year.",
                                        "speaker": "Ana", "time": f"2023-05-{i + 1:02d}"}) + "\n"
                            for i in range(8)))
    cache = tmp_path / "cache"
    env = {**os.environ, **LOCAL_SETTINGS, "KGMEM_LLM_ON_ERROR": "raise",
           "KGMEM_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "KGMEM_LLM_MODEL": llama_model,
           "KGMEM_LLM_CACHE_DIR": str(cache), "KGMEM_LLM_MAX_RETRIES": "2"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgmem.cli.main", "--home", str(tmp_path / "home"), "ingest",
         str(file), "--extractor", "llm"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        import time

        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:  # until two answers are cached
            db = cache / ResponseCache.FILENAME
            if db.exists() and len(ResponseCache(cache)) >= 2:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.5)
        pid = int((home / f"llama-{port}.pid").read_text())
        os.kill(pid, 9)
        out, err = proc.communicate(timeout=1200)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err[-3000:]
    assert "unreachable" in err and "did not return the facts JSON" not in err
    assert "LLM: 8 episodes" in out  # the figures, before the error
    answered = len(ResponseCache(cache))
    assert 2 <= answered < 8

    # restarted: a re-run of the same ingest retries exactly the episodes left without facts
    restarted = llama_sh("start", port, home)
    assert restarted.returncode == 0, restarted.stderr[-2000:]
    again = subprocess.run(
        [sys.executable, "-m", "kgmem.cli.main", "--home", str(tmp_path / "home"), "--json",
         "ingest", str(file), "--extractor", "llm"], env=env, capture_output=True, text=True,
        timeout=1800)
    assert again.returncode == 0, again.stderr[-3000:]
    summary = json.loads(again.stdout)
    (group,) = summary["groups"].values()
    assert group["new"] == 0 and group["retried"] == 8 - answered
    assert group["extracted"] == 8 - answered and group["failed"] == group["pending"] == 0
    llm = summary["llm"]
    assert llm["episodes"] == 8 - answered and llm["cache_hits"] == 0
    assert llm["requests"] == 8 - answered  # json_object remembered: no second 500
    assert len(ResponseCache(cache)) == 8
