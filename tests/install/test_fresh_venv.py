"""A newcomer's first run from a plain ``pip install <checkout>`` in a fresh virtual environment
(not editable, none of the scripts): only the kgmem namespace lands in site-packages; demo and
search work without the MiniLM weights (keyword + graph, with a one-line notice); after
``kgmem models install`` an ingest of one LoCoMo conversation builds the search index, so its
first search costs what the second does; ``groups`` lists what the ingest wrote.

One test, several minutes on 2 cores: at load 11, 7.8 min with pip byte-compiling (install
5.4 min, ingest 55 s, first and second search 6.1 s and 3.3 s); at load 12 with --no-compile,
10.6 min (install 3.6 min, demo 60 s, ingest 137 s, searches 18 s and 20 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONVERSATION = 1  # conv-30, the shortest of the dev split (369 turns)

pytestmark = pytest.mark.slow


def _locomo() -> Path:
    from benchmarks.datasets._common import default_data_dir

    return default_data_dir() / "locomo" / "locomo10.json"


class Venv:
    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.path, self.env = path, env

    def run(self, *args: str, timeout: float = 600) -> tuple[subprocess.CompletedProcess[str], float]:
        t = time.perf_counter()
        r = subprocess.run([str(self.path / "bin" / args[0]), *args[1:]], capture_output=True,
                           text=True, env=self.env, timeout=timeout, cwd=self.path.parent)
        return r, time.perf_counter() - t

    def ok(self, *args: str, timeout: float = 600) -> tuple[str, str, float]:
        r, took = self.run(*args, timeout=timeout)
        assert r.returncode == 0, f"{' '.join(args)} exited {r.returncode}:\n{r.stderr[-3000:]}"
        return r.stdout, r.stderr, took


def _serve_docs_offline(venv: Venv, home: str) -> None:
    """`kgmem serve` from the wheel (kgmem.api) answers /health and serves /docs offline."""
    import socket

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(venv.path / "bin" / "kgmem"), "--home", home, "serve",
                             "--port", str(port)], env=venv.env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/health").json()["status"] == "ok"
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
                time.sleep(0.5)
        docs = httpx.get(f"http://127.0.0.1:{port}/docs").text
        assert "swagger-ui-bundle.js" in docs and "https://" not in docs
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_plain_pip_install_runs_a_newcomers_first_steps(tmp_path: Path) -> None:
    data = _locomo()
    if not data.is_file():
        pytest.skip(f"LoCoMo data not found at {data}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGMEM_", "VIRTUAL_ENV"))}
    env.update(KGMEM_CACHE_DIR=str(tmp_path / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1",
               COLUMNS="200", KGMEM_LLAMA="off")
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    venv = Venv(tmp_path / "venv", env)
    timings: dict[str, float] = {}
    # --no-compile: pip's byte-compiling of ~800 MB of packages is a third of the install, and
    # Python compiles what it imports anyway
    _, _, timings["pip install"] = venv.ok("pip", "install", "--quiet", "--no-compile",
                                           str(ROOT), timeout=1500)

    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    tops = {p.name for p in site.iterdir() if not p.name.endswith((".dist-info", ".pth"))}
    assert "kgmem" in tops and not {"api", "benchmarks", "tests"} & tops, sorted(tops)
    assert (site / "kgmem" / "api" / "app.py").is_file()

    home = str(tmp_path / "demo")
    out, _, timings["demo"] = venv.ok("kgmem", "--home", home, "demo")
    assert "Denver" in out and "Boston" in out
    out, err, timings["search, no weights"] = venv.ok(
        "kgmem", "--home", home, "search", "where does Maya live now?")
    assert "Denver" in out
    assert err.count("kgmem models install") == 1, err  # one line says semantic search is off
    out, _, _ = venv.ok("kgmem", "--home", home, "sessions", "where does Maya live now?")
    assert "Maya:" in out  # a snippet of the best-matching turn
    r, _ = venv.run("kgmem", "--home", home, "--extractor", "foo", "facts")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert r.stderr.startswith("error: --extractor")

    _serve_docs_offline(venv, home)

    _, _, timings["models install"] = venv.ok("kgmem", "models", "install", timeout=600)
    venv.ok("kgmem", "models", "status")

    conv = json.loads(data.read_text())[CONVERSATION]
    file = tmp_path / "conversation.json"
    file.write_text(json.dumps([conv]))
    store = str(tmp_path / "store")
    out, _, timings["ingest"] = venv.ok("kgmem", "--home", store, "ingest", str(file),
                                        timeout=1200)
    group = str(conv["sample_id"])
    assert f"group {group}: 369 new episodes" in out, out
    out, _, _ = venv.ok("kgmem", "--home", store, "ingest", str(file))
    assert f"group {group}: 0 new episodes, 369 already stored" in out, out
    q = "What does Caroline do for a living?" if group != "conv-30" else "What is Jon's job?"
    _, err1, first = venv.ok("kgmem", "--home", store, "--group", group, "search", q)
    _, err2, second = venv.ok("kgmem", "--home", store, "--group", group, "search", q)
    timings["first search"], timings["second search"] = first, second
    assert "semantic search is off" not in err1 + err2
    assert first < 2 * second + 3, timings  # nothing left to build at query time
    out, _, _ = venv.ok("kgmem", "--home", store, "--json", "groups")
    rows = {r["group"]: r for r in json.loads(out)}
    assert rows[group]["episodes"] == 369 and rows[group]["lineages"] > 0
    print("fresh-venv timings (s):", json.dumps({k: round(v, 1) for k, v in timings.items()}))
