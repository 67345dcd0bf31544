"""As-of CPU per read on a store that ``benchmarks.ops_cpu --keep DIR`` loaded (one side of
an old/new comparison; run it in each checkout, alternating, new first and old first):

    (cd OLD && PYTHONPATH=. python -m benchmarks.asof_keep DIR/old --label old)
    (cd NEW && PYTHONPATH=. python -m benchmarks.asof_keep DIR/new --label new)

Longer blocks than ops_cpu's (300 untimed reads, then 5 blocks of 1,000 ``Memory.facts`` of a
random person at a random date, known now): ops_cpu's blocks of 300 reads in a fresh process
mostly time the process warming its caches at a million facts. Process CPU time per read.
"""

from __future__ import annotations

import argparse
import inspect
import random
import time
from datetime import timedelta
from typing import Any

from benchmarks.scale import BASE
from kgmem.embed import HashingEmbedder
from kgmem.memory import Memory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="KEEP/old or KEEP/new of benchmarks.ops_cpu --keep KEEP")
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    kw: dict[str, Any] = {"embedder": HashingEmbedder(384)}
    if "extractor" in inspect.signature(Memory).parameters:
        kw["extractor"] = None
    m = Memory(args.store + "/s", **kw)
    g, people = f"scale{args.facts}", max(10, args.facts // 10)
    now, rng = m.now(), random.Random(11)

    def read() -> None:
        m.facts(f"person{rng.randrange(people)}", known_at=now, group=g,
                valid_at=BASE + timedelta(days=rng.randrange(0, 9500)))

    for _ in range(300):
        read()
    blocks = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(1000):
            read()
        blocks.append((time.process_time() - t))  # seconds per 1,000 reads = ms per read
    m.close()
    print(f"{args.label} CPU ms per read, blocks of 1,000: "
          + " ".join(f"{b:.3f}" for b in blocks) + f"  min {min(blocks):.3f}")


if __name__ == "__main__":
    main()
