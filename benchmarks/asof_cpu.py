"""CPU time of one as-of read (``Memory.facts`` of a person at a random date), embedded store.

    python -m benchmarks.asof_cpu [--facts 100000]
    PYTHONPATH=<old checkout> python -m benchmarks.asof_cpu   # the same on other code (cwd there)

Process CPU time (``time.process_time``) instead of wall time: on a shared 2-core machine the
wall clock of a sub-millisecond read mostly measures the scheduler. Prints the per-read CPU time
of 5 rounds of 400 reads and their median.
"""

from __future__ import annotations

import argparse
import inspect
import random
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from benchmarks.scale import BASE, generate
from kgmem.memory import Memory


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, default=100_000)
    args = ap.parse_args(argv)
    rows, n_people = generate(args.facts)
    # no extraction (older code has no extractor argument and extracts nothing by default)
    kw = {"extractor": None} if "extractor" in inspect.signature(Memory).parameters else {}
    m = Memory(Path(tempfile.mkdtemp()) / "s", **kw)
    g = f"scale{args.facts}"
    for i in range(0, len(rows), 5000):
        m.assert_facts(rows[i:i + 5000], group=g)
    now, rng = m.now(), random.Random(11)

    def read() -> None:
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(f"person{rng.randrange(n_people)}", valid_at=v, known_at=now, group=g)

    for _ in range(200):  # warm caches
        read()
    rounds = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(400):
            read()
        rounds.append((time.process_time() - t) / 400 * 1000)
    med = statistics.median(rounds)
    print(f"CPU ms per as-of read ({args.facts:,} facts, 5 x 400):",
          [round(x, 3) for x in rounds], f"median {med:.3f}")
    return med


if __name__ == "__main__":
    main()
