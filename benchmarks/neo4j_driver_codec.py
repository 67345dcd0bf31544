"""The Neo4j driver with and without its Rust extension (neo4j-rust-ext), same server, same
data: ``Memory.changes(since)`` returning one batch of 5,000 changes, each side a fresh
process, alternated.

    KGMEM_NEO4J_URI=bolt://127.0.0.1:7700 python -m benchmarks.neo4j_driver_codec \\
        [--runs 4] [--calls 15] [--out DIR]

Writes a fresh group (200 changes, then one ``assert_facts`` batch of 5,000 sharing one
transaction time), then per run and side times ``--calls`` reads of the batch after one
untimed read, and prints p50 and min per run; the group is erased at the end. "python" hides
the extension (``sys.modules["neo4j._rust"] = None``: the driver's pure-Python packstream).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

_READ = """
import json, os, statistics, sys, time
if sys.argv[1] == "python":
    sys.modules["neo4j._rust"] = None
from kgmem.memory.facade import Memory
from kgmem.store.neo4j import Neo4jStore
from kgmem.embed import HashingEmbedder
m = Memory(store=Neo4jStore(uri=sys.argv[2]), embedder=HashingEmbedder(384), extractor=None)
group, since, calls = sys.argv[3], sys.argv[4], int(sys.argv[5])
m.changes(since=since, group=group)
ts = []
for _ in range(calls):
    t = time.perf_counter()
    n = len(m.changes(since=since, group=group))
    ts.append(time.perf_counter() - t)
print(json.dumps({"changes": n, "p50_ms": statistics.median(ts) * 1000, "min_ms": min(ts) * 1000}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--uri", default=os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from benchmarks.scale import generate
    from kgmem.embed import HashingEmbedder
    from kgmem.memory.facade import Memory
    from kgmem.store.neo4j import Neo4jStore

    m = Memory(store=Neo4jStore(uri=args.uri), embedder=HashingEmbedder(384), extractor=None)
    group = "bench-codec-" + uuid.uuid4().hex[:10]
    rows, _ = generate(5200)
    m.assert_facts(rows[:200], group=group)
    since = m.now().isoformat()
    m.assert_facts(rows[200:5200], group=group)
    runs: dict[str, list[dict[str, Any]]] = {"python": [], "rust": []}
    try:
        for i in range(args.runs):
            for side in ("python", "rust") if i % 2 == 0 else ("rust", "python"):
                out = subprocess.run([sys.executable, "-c", _READ, side, args.uri, group, since,
                                      str(args.calls)], check=True, capture_output=True,
                                     text=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                runs[side].append(r)
                print(f"run {i + 1} {side:6s}: {r['changes']:,} changes, p50 {r['p50_ms']:.1f} "
                      f"ms, min {r['min_ms']:.1f} ms (load {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        m.erase(group=group, whole_group=True)
    for side, rs in runs.items():
        print(f"{side:6s}: median of the runs' p50 "
              f"{statistics.median(r['p50_ms'] for r in rs):.1f} ms")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "neo4j_driver_codec.json").write_text(json.dumps(runs, indent=2) + "\n",
                                                         encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
