"""Extraction workers die with their parent (issue 32): ``kgmem ingest --workers 2`` killed
with -9 used to leave its workers running forever (re-parented to init, ~450 MB). A parent
process starts an :class:`~kgmem.ingest.parallel.ExtractorPool` (what ``--workers`` runs), is
killed with SIGKILL, and every process it started must be gone within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process tree from /proc (Linux)")

PARENT = textwrap.dedent("""
    import sys, time
    from slow_extractor import Slow
    from kgmem.ingest.parallel import ExtractorPool

    if __name__ == "__main__":  # spawned workers import this file again
        pool = ExtractorPool(Slow(), workers=2)
        futures = [pool.submit([("a", 1)]) for _ in range(4)]
        futures[0].result()  # the workers are up
        print("ready", flush=True)
        time.sleep(600)
""")

EXTRACTOR = textwrap.dedent("""
    import time

    class Slow:
        def extract_many(self, items):
            time.sleep(0.2)
            return [[] for _ in items]
""")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (only its reaper is missing)


@pytest.mark.timeout(120)
def test_kill_9_of_the_parent_leaves_no_worker(tmp_path: Path) -> None:
    (tmp_path / "slow_extractor.py").write_text(EXTRACTOR)
    (tmp_path / "parent.py").write_text(PARENT)
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).parents[2]),
                                          os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")], env=env,
                              stdout=subprocess.PIPE, text=True)
    kids: list[int] = []
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "ready"
        kids = _children(parent.pid)
        assert len(kids) >= 2  # two workers (and multiprocessing's resource tracker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.2)
        left = [k for k in kids if _alive(k)]
        assert left == [], f"still running after the parent's kill -9: {left}"
    finally:
        if parent.poll() is None:
            parent.kill()
        for k in kids + _children(parent.pid):  # nothing left behind, even when it fails
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
