"""Crash suite (issue 13 point 3): ``kgmem ingest`` of LoCoMo conversation 0 (its first five
sessions, 92 turns) killed with SIGKILL at 10 random moments (fixed seed, printed)
and re-run, on both stores: every re-run ends with exactly the clean run's facts (subject,
predicate, object, both valid-time bounds) and ``kgmem check`` is clean, right after the kill
and after the re-run. On 1953ce8 the killed runs lost facts for good.

The runs are ``kgmem ingest`` (the CLI's own code) in processes forked from the test after
spaCy is loaded, so a run costs its extraction and writes only; ``benchmarks/crash_ingest.py``
runs the whole conversation in fresh ``python -m kgmem.cli.main`` processes.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from benchmarks.crash_ingest import conversation_file, run_trials
from benchmarks.datasets._common import default_data_dir
from tests.conftest import neo4j_store_or_skip

SEED = 20261201
KILLS = 10
SESSIONS = 5


class ForkedRun:
    """``kgmem <args>`` (kgmem.cli.main.app) in a forked child."""

    def __init__(self, args: list[str]) -> None:
        self.pid = os.fork()
        if self.pid == 0:  # the child: run the command, never return into pytest
            code = 1
            try:
                code = self.run_here(args)
            finally:
                os._exit(code)

    @staticmethod
    def run_here(args: list[str]) -> int:
        from kgmem.cli.main import app

        try:
            app(args=args, standalone_mode=False)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 1
        return 0

    def kill(self) -> bool:
        pid, _ = os.waitpid(self.pid, os.WNOHANG)
        if pid:
            return False
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return True

    def wait(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


@pytest.fixture(scope="module")
def locomo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = default_data_dir()
    if not (d / "locomo" / "locomo10.json").is_file():
        pytest.skip(f"locomo10.json not found under {d} (set KGMEM_BENCH_DATA)")
    # one ingest here imports and loads everything (spaCy, the resolver's and the time
    # parser's modules) once; every forked run inherits it
    warm = tmp_path_factory.mktemp("warm")
    conversation_file(warm / "c.json", "warm", 1, d)
    assert ForkedRun.run_here(["--home", str(warm / "h"), "--json", "ingest",
                               str(warm / "c.json")]) == 0
    return d


@pytest.mark.slow
@pytest.mark.parametrize("store", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_killed_ingest_re_run_has_exactly_the_clean_runs_facts(
        store: str, locomo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if store == "neo4j":
        neo4j_store_or_skip()
    lines: list[str] = []
    result = run_trials(store, KILLS, SEED,
                        lambda p, g: conversation_file(p, g, SESSIONS, locomo_dir),
                        ForkedRun, tmp_path, batch_size=8, window=(0.0, 0.8),
                        log=lines.append)
    with capsys.disabled():
        print("\n" + "\n".join(lines))  # the kill moments, whatever the outcome
    # the clean run must have facts to lose (5 on c5c1eed's extractor, more since)
    assert result["clean_facts"] >= 5 and result["clean_check"]
    trials = result["trials"]
    assert len(trials) == KILLS
    assert sum(t["killed"] and t["episodes_when_killed"] > 0 for t in trials) >= KILLS // 2, (
        "most kills should land mid-ingest")
    for t in trials:
        assert t["check_after_kill"], t
        assert t["equal_to_clean"], t
        assert t["check_after_rerun"], t
