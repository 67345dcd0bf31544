"""CPU cost of entity summaries (kgmem.memory.summaries) on the embedded store: one entity with N facts
(a functional LIVES_IN moving every 10th fact, multi-valued LIKES otherwise, every 3rd fact
from an episode), each written in its own transaction.

    python -m benchmarks.summary_cost [--facts 100 300 1000] [--out DIR]

Per N: the CPU time (``time.process_time``) of the first profile read, which builds the whole
summary history (one version per instant its facts changed); then, alternated five times
(A B A B), the profile's fact reads alone (the baseline: what ``Memory.entity`` cost before
summaries) and a profile read after one more fact (the catch-up of one instant). Medians, and
the ratio of the catch-up read to the baseline read in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from kgmem.memory.facade import Memory
from kgmem.store.base import TimeFilter


class _Clock:
    def __init__(self) -> None:
        self.t = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


def _fill(m: Memory, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        ep = (m.add_episode(f"Alice mentioned thing {i} at tea.", f"2020-01-01T00:{i % 60:02d}:00Z",
                            speaker="Alice") if i % 3 == 0 else None)
        pred, obj = ("LIVES_IN", f"City{i}") if i % 10 == 0 else ("LIKES", f"thing{i}")
        m.assert_fact("Alice", pred, obj, valid_at=f"{2000 + i % 25}",
                      episode=ep.id if ep else None)


def _cpu(f: Any) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


def run(n: int) -> dict[str, Any]:
    m = Memory(Path(tempfile.mkdtemp()) / "s", clock=_Clock(), extractor=None)
    _fill(m, n)
    first = _cpu(lambda: m.entity("Alice"))
    alice = m.entity("Alice")["entity"].id
    versions = len(m.summary_history("Alice").versions)

    def baseline() -> None:
        when = TimeFilter(valid_at=m.now(), known_at=m.now())
        m.store.facts("default", when, subject_id=alice)
        m.store.facts("default", when, object_id=alice)

    base, catch = [], []
    for r in range(5):
        base.append(_cpu(baseline))
        _fill(m, 1, start=n + r)
        catch.append(_cpu(lambda: m.entity("Alice")))
    size = sum(len(t) for (t,) in m.store._conn.execute(  # type: ignore[attr-defined]
        "SELECT text FROM entity_summaries"))
    m.close()
    b, c = statistics.median(base), statistics.median(catch)
    return {"facts": n, "summary_versions": versions, "summary_text_bytes": size,
            "first_profile_cpu_s": round(first, 4), "baseline_read_cpu_ms": round(b * 1e3, 3),
            "profile_after_one_fact_cpu_ms": round(c * 1e3, 3),
            "ratio_catch_up_to_baseline": round(c / b, 1) if b else None}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = [run(n) for n in args.facts]
    cols = list(rows[0])
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary_cost.json").write_text(json.dumps(rows, indent=2) + "\n")
    return rows


if __name__ == "__main__":
    main()
