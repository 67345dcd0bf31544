"""Old code against new on kept 1M-fact stores: benchmarks/asof_cpu.py run alternately as
A B, B A, A B ... (ABBA: neither side always goes first), the per-pair ratio B/A of each run's
median (and minimum) CPU per read, with a bootstrap 95% interval of the median ratio.

    python -m benchmarks.asof_ab --a OLD:KEEP/old --b NEW:KEEP/new [--pairs 31] \\
        [--op as_of|paths_3hop] [--warm 300] [--block 1000] [--out DIR]
    python -m benchmarks.asof_ab --a OLD:KEEP/old --b OLD:KEEP/old   # the noise floor

Each side is ``CHECKOUT:STORE``: asof_cpu.py (this checkout's file, by its path) runs with that
checkout's ``kgmem`` first on ``sys.path`` against a store benchmarks.ops_cpu ``--keep``
loaded. The first pair (cold page cache) is dropped. A ratio whose interval holds 1, like the
same code's against itself, is within noise.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent / "asof_cpu.py"


def run(side: str, op: str, warm: int, block: int) -> tuple[float, float]:
    checkout, store = side.split(":", 1)
    env = dict(os.environ, PYTHONPATH=checkout)
    out = subprocess.run([sys.executable, str(SCRIPT), "--facts", "1000000", "--store", store,
                          "--op", op, "--warm", str(warm), "--block", str(block)],
                         cwd=checkout, env=env, check=True, capture_output=True, text=True).stdout
    last = out.strip().splitlines()[-1]
    med = re.search(r"median ([0-9.]+)", last)
    low = re.search(r"min ([0-9.]+)", last)
    assert med and low, last
    return float(med.group(1)), float(low.group(1))


def interval(logs: list[float], rng: random.Random) -> tuple[float, float]:
    boot = sorted(statistics.median(rng.choices(logs, k=len(logs))) for _ in range(4000))
    return math.exp(boot[100]), math.exp(boot[3899])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--a", required=True, help="CHECKOUT:STORE (the baseline)")
    ap.add_argument("--b", required=True, help="CHECKOUT:STORE")
    ap.add_argument("--pairs", type=int, default=31)
    ap.add_argument("--op", choices=("as_of", "paths_3hop"), default="as_of")
    ap.add_argument("--warm", type=int, default=300)
    ap.add_argument("--block", type=int, default=1000)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    pairs: list[dict[str, Any]] = []
    for i in range(args.pairs):
        order = ("a", "b") if i % 2 == 0 else ("b", "a")
        got = {k: run(getattr(args, k), args.op, args.warm, args.block) for k in order}
        pairs.append({"order": "".join(order), "a": got["a"], "b": got["b"]})
        print(f"pair {i + 1:>2} ({' then '.join(order)}): A {got['a'][0]:.3f} B {got['b'][0]:.3f} "
              f"ms (load {os.getloadavg()[0]:.1f})", flush=True)
    kept, rng = pairs[1:], random.Random(5)
    result: dict[str, Any] = {"a": args.a, "b": args.b, "op": args.op, "warm": args.warm,
                              "block": args.block, "pairs": pairs}
    for k, label in ((0, "medians"), (1, "mins")):
        logs = [math.log(p["b"][k] / p["a"][k]) for p in kept]
        lo, hi = interval(logs, rng)
        ratio = math.exp(statistics.median(logs))
        result[f"ratio_b_a_{label}"] = {"median": round(ratio, 3), "ci95": [round(lo, 3),
                                        round(hi, 3)], "b_faster": sum(x < 0 for x in logs)}
        print(f"B/A of the runs' {label}: median {ratio:.3f}, 95% interval [{lo:.3f}, {hi:.3f}], "
              f"B faster in {sum(x < 0 for x in logs)}/{len(logs)} pairs")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"asof_ab-{args.op}.json").write_text(json.dumps(result, indent=2) + "\n",
                                                          encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
