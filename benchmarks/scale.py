"""Scale benchmark: load N facts (default 1,000,000) and time as-of reads and paths.

    python -m benchmarks.scale --facts 1000000 [--store embedded|neo4j] [--out DIR]

Prints a table and writes ``scale.json`` with load rate and p50/p95 latencies of:
point as-of lookup (facts of one subject as of a random date, random known_at), history of one
entity, and 3-hop slice paths between random entities. Timings vary 10-20% on shared machines.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from kgmem.memory.facade import Memory

BASE = datetime(2000, 1, 1, tzinfo=timezone.utc)


def generate(n_facts: int, seed: int = 7) -> tuple[list[dict[str, Any]], int]:
    """People with homes and employers that change over time, plus a social graph."""
    rng = random.Random(seed)
    n_people = max(10, n_facts // 10)
    n_places, n_orgs = max(5, n_people // 20), max(5, n_people // 20)
    rows: list[dict[str, Any]] = []
    while len(rows) < n_facts:
        p = rng.randrange(n_people)
        r = rng.random()
        day = BASE + timedelta(days=rng.randrange(0, 9000))
        if r < 0.3:
            rows.append({"subject": f"person{p}", "predicate": "LIVES_IN",
                         "object": f"place{rng.randrange(n_places)}", "valid_at": day})
        elif r < 0.55:
            rows.append({"subject": f"person{p}", "predicate": "WORKS_AT",
                         "object": f"org{rng.randrange(n_orgs)}", "valid_at": day})
        else:
            rows.append({"subject": f"person{p}", "predicate": "KNOWS",
                         "object": f"person{rng.randrange(n_people)}", "valid_at": day})
    return rows, n_people


def pct(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs) * 1000
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95)),
            "n": len(xs)}


def timed(fn: Any, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def open_store(kind: str, path: Path) -> Memory:
    if kind == "neo4j":
        from kgmem.settings import Settings
        from kgmem.store.neo4j import Neo4jStore

        s = Settings()
        return Memory(store=Neo4jStore(uri=s.neo4j_uri, user=s.neo4j_user,
                                       password=s.neo4j_password, database=s.neo4j_database),
                      extractor=None)
    return Memory(path, extractor=None)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--store", default="embedded", choices=["embedded", "neo4j"])
    ap.add_argument("--path", type=Path, default=None, help="store dir (default: a temp dir)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale"))
    args = ap.parse_args(argv)
    console = Console()
    path = args.path or Path(tempfile.mkdtemp(prefix="kgmem-scale-"))
    rows, n_people = generate(args.facts)
    group = f"scale{args.facts}"
    m = open_store(args.store, path)
    t0 = time.perf_counter()
    with Progress(console=console) as prog:
        task = prog.add_task(f"loading {args.facts:,} facts ({args.store})", total=len(rows))
        for i in range(0, len(rows), args.batch):
            m.assert_facts(rows[i:i + args.batch], group=group, batch_size=args.batch)
            prog.advance(task, min(args.batch, len(rows) - i))
    load_s = time.perf_counter() - t0
    rng = random.Random(11)
    now = m.now()

    def as_of() -> None:
        p = rng.randrange(n_people)
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(f"person{p}", valid_at=v, known_at=now, group=group)

    def hist() -> None:
        m.history(f"person{rng.randrange(n_people)}", group=group)

    def paths3() -> None:
        a, b = rng.sample(range(n_people), 2)
        m.paths(f"person{a}", f"person{b}", max_hops=3, group=group, limit=20)

    for fn in (as_of, hist, paths3):  # warm caches
        timed(fn, 20)
    result = {
        "store": args.store, "facts": args.facts, "people": n_people,
        "load_seconds": load_s, "load_facts_per_s": args.facts / load_s,
        "as_of_lookup": pct(timed(as_of, args.queries)),
        "history": pct(timed(hist, args.queries)),
        "paths_3hop_slice": pct(timed(paths3, max(50, args.queries // 3))),
        "stats": m.stats(group),
        "db_bytes": sum(f.stat().st_size for f in path.glob("*")) if args.store == "embedded"
        else None,
    }
    t = Table(title=f"scale: {args.facts:,} facts on {args.store}")
    t.add_column("measure")
    t.add_column("p50 ms", justify="right")
    t.add_column("p95 ms", justify="right")
    for key in ("as_of_lookup", "history", "paths_3hop_slice"):
        t.add_row(key, f"{result[key]['p50_ms']:.2f}", f"{result[key]['p95_ms']:.2f}")
    console.print(t)
    console.print(f"load: {result['load_facts_per_s']:,.0f} facts/s "
                  f"({load_s:.0f} s); stats {result['stats']}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"scale-{args.store}-{args.facts}.json").write_text(
        json.dumps(result, indent=2, default=str))
    return result


if __name__ == "__main__":
    main()
