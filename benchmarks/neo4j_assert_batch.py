"""Wall time per fact of one ``Memory.assert_facts`` batch on Neo4j, by batch size, old code
against new in one run (A B A B ...).

    KGMEM_NEO4J_URI=bolt://127.0.0.1:7700 python -m benchmarks.neo4j_assert_batch \\
        --old /path/to/old/checkout [--sizes 250 1000 4000] [--rounds 2] [--out DIR]

Each measurement is a fresh process of that checkout (its own ``kgmem`` first on
``sys.path``): one batch of benchmarks/scale.py's facts (people, homes, employers, a social
graph; hashing embedder, no extraction) into a new group, timed, then the group erased. A
write whose cost per fact grows with the batch (each read of the transaction carrying every
lineage written so far) shows as ms/fact rising with the size; a linear one stays flat.
Prints the median ms/fact per size and side and the ratio new/old; ``--out`` writes the runs.
``--driver python`` hides the driver's Rust extension (packing every parameter in Python, as
without ``neo4j-rust-ext``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

NEW = Path(__file__).resolve().parents[1]

_SIDE = """
import json, os, sys, time, uuid
if os.environ.get("KGMEM_BENCH_DRIVER") == "python":
    sys.modules["neo4j._rust"] = None  # the driver's pure-Python packstream (no Rust extension)
from benchmarks.scale import generate
from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.store.neo4j import Neo4jStore
n = int(sys.argv[1])
m = Memory(store=Neo4jStore(uri=sys.argv[2]), embedder=HashingEmbedder(384), extractor=None)
rows, _ = generate(max(n, 10))
group = "bench-batch-" + uuid.uuid4().hex[:10]
t = time.perf_counter()
m.assert_facts(rows[:n], group=group)
wall = time.perf_counter() - t
m.erase(group=group, whole_group=True)
print(json.dumps({"facts": n, "wall_s": wall}))
"""


def run_side(checkout: Path, n: int, uri: str, driver: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout), KGMEM_BENCH_DRIVER=driver)
    res = subprocess.run([sys.executable, "-c", _SIDE, str(n), uri], cwd=checkout, env=env,
                         check=True, capture_output=True, text=True)
    data: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return float(data["wall_s"]) / n * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[250, 1000, 4000])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--uri", default=os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"))
    ap.add_argument("--driver", choices=("rust", "python"), default="rust",
                    help="python: the driver without its Rust extension (neo4j-rust-ext)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    runs: dict[str, dict[int, list[float]]] = {"old": {}, "new": {}}
    for r in range(args.rounds):
        for n in args.sizes:
            for name, checkout in (("old", args.old), ("new", NEW)):
                ms = run_side(checkout, n, args.uri, args.driver)
                runs[name].setdefault(n, []).append(ms)
                print(f"round {r + 1} {name} {n:>6,} facts: {ms:6.2f} ms/fact "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    table = []
    print(f"{'facts':>7} {'old ms/fact':>12} {'new ms/fact':>12} {'new/old':>8}")
    for n in args.sizes:
        o, w = statistics.median(runs["old"][n]), statistics.median(runs["new"][n])
        table.append({"facts": n, "old_ms_per_fact": round(o, 3), "new_ms_per_fact": round(w, 3),
                      "ratio_new_old": round(w / o, 3)})
        print(f"{n:>7,} {o:12.2f} {w:12.2f} {w / o:8.2f}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"neo4j_assert_batch-{args.driver}.json").write_text(json.dumps(
            {"old": str(args.old), "driver": args.driver, "table": table,
             "runs": {k: {str(n): v for n, v in d.items()} for k, d in runs.items()}},
            indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
