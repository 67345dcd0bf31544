"""Acknowledged writes survive kill -9 of the writing process (embedded store)."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from kgmem.memory.facade import Memory

CHILD = r"""
import sys
from kgmem.memory.facade import Memory
m = Memory(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    f = m.assert_fact(f"person{i % 50}", "LIVES_IN", f"city{i}", valid_at=f"20{10 + i % 15}-01-01")
    print(f.fact_id, flush=True)  # acknowledged only after the call returned
    i += 1
"""


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    rng = random.Random(1234)
    for round_ in range(3):
        store = tmp_path / f"s{round_}"
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(store)],
                                stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert proc.stdout is not None
        acked: list[str] = []
        assert proc.stdout.readline().strip() == "ready"  # imports can be slow on a busy box
        deadline = time.monotonic() + rng.uniform(1.5, 3.0)
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            acked.append(line.strip())
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
        acked += [x for x in rest.split("\n") if x.strip()]
        assert proc.returncode == -signal.SIGKILL
        assert len(acked) > 3, "the child should have acknowledged some writes"

        with sqlite3.connect(store / "kgmem.sqlite3") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        m = Memory(store)
        try:
            for fid in acked:
                versions = m.history(fid)
                assert versions, f"acknowledged fact {fid} lost"
            # consistency: every (subject, LIVES_IN) has non-overlapping current intervals
            for p in range(50):
                try:
                    cur = [v for v in m.history(f"person{p}") if v.expired_at is None]
                except Exception:
                    continue
                spans = sorted((v.valid_at, v.invalid_at) for v in cur)
                for (s1, e1), (s2, _e2) in zip(spans, spans[1:]):
                    assert e1 is not None and e1 <= s2
            # the store is writable after recovery
            m.assert_fact("after", "LIVES_IN", "crash")
        finally:
            m.close()
