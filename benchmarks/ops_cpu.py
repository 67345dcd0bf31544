"""CPU time per read on the embedded store, old code against new in one run (A B A B ...).

    python -m benchmarks.ops_cpu --old /path/to/old/checkout [--facts 100000] [--rounds 2]
    python -m benchmarks.ops_cpu --old OLD --facts 1000000 --keep DIR   # load once per side
    python -m benchmarks.ops_cpu --side [--facts N]       # one side, this checkout (JSON)

Each side is a fresh process of that checkout (its own ``kgmem`` first on ``sys.path``, this
interpreter): it loads ``--facts`` facts of benchmarks/scale.py's generator (the same seed on
both sides, no extraction), then times three reads by process CPU time (``time.process_time``;
on a shared 2-core machine the wall clock of a millisecond read mostly measures the scheduler):
an as-of read (``Memory.facts`` of a person at a random date), a 3-hop slice path between two
random people (``Memory.paths``), and a search (``Memory.search``, hashing embedder, a random
"person N city M" question). Per read: the median of 5 rounds. Prints per side the median over
rounds and the ratio new/old; ``--out`` writes every run and the load at each.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

NEW = Path(__file__).resolve().parents[1]
OPS = ("as_of", "paths_3hop", "search")
PER_ROUND = {"as_of": 300, "paths_3hop": 40, "search": 40}


def side(facts: int, keep: str | None = None) -> dict[str, Any]:
    """Time the reads in this process's checkout. ``keep``: a directory for this side's store;
    loaded there once (a ``loaded.json`` marker, written last, says so) and reopened by later
    runs, so a million facts are written once per side rather than once per round."""
    from benchmarks.scale import BASE, generate
    from kgmem.embed import HashingEmbedder
    from kgmem.memory.facade import Memory

    rows, n_people = generate(facts)
    kw: dict[str, Any] = {"embedder": HashingEmbedder(384)}
    if "extractor" in inspect.signature(Memory).parameters:
        kw["extractor"] = None
    where = Path(keep) if keep else Path(tempfile.mkdtemp())
    marker = where / "loaded.json"
    reused = marker.is_file()
    m = Memory(where / "s", **kw)
    g = f"scale{facts}"
    t0 = time.process_time()
    if not reused:
        for i in range(0, len(rows), 5000):
            m.assert_facts(rows[i:i + 5000], group=g)
    load_cpu = time.process_time() - t0
    del rows
    now, rng = m.now(), random.Random(11)

    def as_of() -> None:
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(f"person{rng.randrange(n_people)}", valid_at=v, known_at=now, group=g)

    def paths_3hop() -> None:
        a, b = rng.sample(range(n_people), 2)
        m.paths(f"person{a}", f"person{b}", max_hops=3, group=g, limit=20)

    def search() -> None:
        m.search(f"where does person{rng.randrange(n_people)} live city{rng.randrange(300)}",
                 group=g, limit=10)

    fns = {"as_of": as_of, "paths_3hop": paths_3hop, "search": search}
    t0 = time.process_time()
    search()  # the first search builds the vector indexes: not a read
    index_cpu = time.process_time() - t0
    if keep and not reused:
        marker.write_text(json.dumps({"facts": facts, "load_cpu_s": load_cpu}), encoding="utf-8")
    out: dict[str, Any] = {"facts": facts, "load_cpu_s": round(load_cpu, 2),
                           "first_search_cpu_s": round(index_cpu, 2), "reused_store": reused}
    for name in OPS:
        fn, n = fns[name], PER_ROUND[name]
        for _ in range(n // 4):  # warm caches
            fn()
        rounds = []
        for _ in range(5):
            t = time.process_time()
            for _ in range(n):
                fn()
            rounds.append((time.process_time() - t) / n * 1000)
        out[name] = {"cpu_ms_rounds": [round(x, 4) for x in rounds],
                     "cpu_ms": round(statistics.median(rounds), 4)}
    m.close()
    return out


def run_side(checkout: Path, facts: int, keep: Path | None = None) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    # this file is loaded by its path (the other checkout may have no ops_cpu); kgmem and
    # benchmarks.scale come from the checkout measured (its cwd and PYTHONPATH)
    script = ("import importlib.util, json, kgmem; "
              f"spec = importlib.util.spec_from_file_location('ops_cpu', {str(Path(__file__).resolve())!r}); "
              "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); "
              f"r = mod.side({facts}, {str(keep) if keep else None!r}); r['kgmem'] = kgmem.__file__; print(json.dumps(r))")
    res = subprocess.run([sys.executable, "-c", script], cwd=checkout, env=env, check=True,
                         capture_output=True, text=True)
    data: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    data["load_avg_1min"] = os.getloadavg()[0]
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--side", action="store_true", help="measure this checkout once (JSON)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--keep", type=Path, help="keep each side's store under KEEP/old, KEEP/new "
                    "and reuse it in later rounds and runs (written once per side)")
    args = ap.parse_args(argv)
    if args.side or args.old is None:
        print(json.dumps(side(args.facts)))
        return 0
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for i in range(args.rounds):
        for name, checkout in (("old", args.old), ("new", NEW)):
            r = run_side(checkout, args.facts, args.keep / name if args.keep else None)
            runs[name].append(r)
            print(f"round {i + 1} {name}: " + ", ".join(
                f"{op} {r[op]['cpu_ms']:.3f} ms" for op in OPS) + f" (load {r['load_avg_1min']:.1f})",
                flush=True)
    table = {}
    for op in OPS:
        o = statistics.median(r[op]["cpu_ms"] for r in runs["old"])
        n = statistics.median(r[op]["cpu_ms"] for r in runs["new"])
        table[op] = {"old_cpu_ms": round(o, 4), "new_cpu_ms": round(n, 4),
                     "ratio_new_old": round(n / o, 3)}
        print(f"{op:12s} old {o:8.3f} ms  new {n:8.3f} ms  new/old {n / o:.3f}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"ops_cpu-{args.facts}.json").write_text(json.dumps(
            {"facts": args.facts, "old": str(args.old), "table": table, "runs": runs},
            indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
