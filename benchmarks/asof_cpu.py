"""CPU time of one as-of read (``Memory.facts`` of a person at a random date), embedded store;
``--op paths_3hop``: of one 3-hop path search between two random people (``Memory.paths``, as
benchmarks.ops_cpu times it).

    python -m benchmarks.asof_cpu [--facts 100000] [--op as_of|paths_3hop]
    PYTHONPATH=<old checkout> python -m benchmarks.asof_cpu   # the same on other code (cwd there)
    (cd OLD && PYTHONPATH=OLD python NEW/benchmarks/asof_cpu.py --store KEEP/old --warm 300 --block 1000)
        # a store benchmarks.ops_cpu --keep KEEP loaded (a million facts: load once per side);
        # this file by its path, the code measured from OLD; the same with NEW and KEEP/new

Process CPU time (``time.process_time``) instead of wall time: on a shared 2-core machine the
wall clock of a sub-millisecond read mostly measures the scheduler. Prints the per-read CPU time
of 5 rounds of ``--block`` reads (400) after ``--warm`` untimed ones (200) and their median.
At a million facts, ops_cpu's blocks of 300 reads in a just-opened 6 GB store mostly time cache
warming: ``--store`` with ``--warm 300 --block 1000`` measures the read itself.
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
from typing import Any

from benchmarks.scale import BASE, generate
from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--store", type=Path, help="a side of benchmarks.ops_cpu --keep KEEP "
                    "(KEEP/old or KEEP/new), already holding --facts facts: read, not loaded")
    ap.add_argument("--warm", type=int, default=200, help="untimed reads first")
    ap.add_argument("--block", type=int, default=400, help="reads per timed round")
    ap.add_argument("--op", choices=("as_of", "paths_3hop"), default="as_of")
    args = ap.parse_args(argv)
    # no extraction (older code has no extractor argument and extracts nothing by default)
    kw: dict[str, Any] = ({"extractor": None}
                          if "extractor" in inspect.signature(Memory).parameters else {})
    g = f"scale{args.facts}"
    if args.store is not None:
        kw["embedder"] = HashingEmbedder(384)  # as ops_cpu opened it
        m = Memory(args.store / "s", **kw)
        n_people = max(10, args.facts // 10)  # benchmarks.scale.generate's people
    else:
        rows, n_people = generate(args.facts)
        m = Memory(Path(tempfile.mkdtemp()) / "s", **kw)
        for i in range(0, len(rows), 5000):
            m.assert_facts(rows[i:i + 5000], group=g)
    now, rng = m.now(), random.Random(11)

    def as_of() -> None:
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(f"person{rng.randrange(n_people)}", valid_at=v, known_at=now, group=g)

    def paths_3hop() -> None:
        a, b = rng.sample(range(n_people), 2)
        m.paths(f"person{a}", f"person{b}", max_hops=3, group=g, limit=20)

    read = as_of if args.op == "as_of" else paths_3hop

    for _ in range(args.warm):  # warm caches
        read()
    rounds = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(args.block):
            read()
        rounds.append((time.process_time() - t) / args.block * 1000)
    m.close()
    med = statistics.median(rounds)
    what = "as-of read" if args.op == "as_of" else "3-hop paths call"
    print(f"CPU ms per {what} ({args.facts:,} facts, 5 x {args.block}):",
          [round(x, 3) for x in rounds], f"median {med:.3f}, min {min(rounds):.3f}")
    return med


if __name__ == "__main__":
    main()
