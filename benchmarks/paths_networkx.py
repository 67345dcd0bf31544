"""kgmem's own path search beside the same search written with networkx, in one run.

    python -m benchmarks.paths_networkx [--facts 100000] [--queries 150] [--out DIR]

Both read the same time-sliced view (the store's ``adjacent`` at valid/known time, explored
from both ends exactly as :func:`kgmem.reason.paths.find_paths` does); they differ only in how
the simple paths of at most 3 hops are enumerated: kgmem's depth-first search, shortest length
first, pruned by the distance to the target and stopped at ``limit``, or networkx's
``all_simple_edge_paths`` over a ``MultiGraph`` of the same edges, sorted into kgmem's order and
cut at ``limit``. The pairs alternate (kgmem first on even queries, networkx first on odd) so
load drifts hit both alike. Each pair's two answers are compared (the same paths, in the same
order). Pairs (``--pairs``): a person and where a random walk of ``--hops`` steps from them ends
(default; most pairs have paths), or two random people. Prints p50/p95 per implementation and
their ratio and writes ``paths-networkx-<facts>-<pairs>.json`` with the per-query timings.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.scale import generate
from kgmem.memory.facade import Memory
from kgmem.model import FactVersion, PathHop
from kgmem.model import Path as GraphPath
from kgmem.reason.paths import Adjacent, _expand, find_paths
from kgmem.store.base import TimeFilter


def find_paths_networkx(
    adjacent: Adjacent, a: str, b: str, max_hops: int, limit: int = 50
) -> list[GraphPath]:
    """Slice-mode :func:`find_paths` with the enumeration done by networkx."""
    if a == b or max_hops < 1 or limit < 1:
        return []
    edges: dict[str, FactVersion] = {}
    _expand(adjacent, a, (max_hops + 1) // 2, edges)
    _expand(adjacent, b, max_hops // 2, edges)
    g: nx.MultiGraph = nx.MultiGraph()
    names: dict[str, str] = {}
    rank: dict[str, int] = {}
    for n, v in enumerate(sorted(edges.values(), key=lambda v: (v.fact, v.id))):
        names[v.subject_id] = v.subject
        names[v.object_id] = v.object
        rank[v.id] = n
        if v.subject_id != v.object_id:
            g.add_edge(v.subject_id, v.object_id, key=v.id)
    if a not in g or b not in g:
        return []
    found = list(nx.all_simple_edge_paths(g, a, b, cutoff=max_hops))
    # kgmem's order: shortest first, then depth-first over edges in (fact, id) order
    found.sort(key=lambda p: (len(p), [rank[k] for _, _, k in p]))
    out = []
    for p in found[:limit]:
        nodes = [a] + [t for _, t, _ in p]
        hops = []
        for s, t, k in p:
            v = edges[k]
            hops.append(PathHop(source=names.get(s, s), target=names.get(t, t), fact=v,
                                forward=v.subject_id == s))
        out.append(GraphPath(entities=[names.get(n, n) for n in nodes], hops=hops))
    return out


def _signature(paths: Sequence[GraphPath]) -> list[list[str]]:
    return [[h.fact.id for h in p.hops] for p in paths]


def _pct(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs) * 1000
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95)),
            "n": len(xs)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--pairs", choices=("random", "connected"), default="connected",
                    help="random people, or a person and where a random walk of --hops "
                    "steps from them ends (so most pairs have paths)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/paths-networkx"))
    args = ap.parse_args(argv)
    console = Console()
    rows, n_people = generate(args.facts)
    group = f"paths{args.facts}"
    m = Memory(Path(tempfile.mkdtemp(prefix="kgmem-paths-")))
    for i in range(0, len(rows), 5000):
        m.assert_facts(rows[i:i + 5000], group=group, batch_size=5000)
    now = m.now()
    when = TimeFilter(valid_at=now, known_at=now)

    def adjacent(ids: Sequence[str]) -> list[FactVersion]:
        return m.store.adjacent(group, ids, when)

    rng = random.Random(11)
    pairs = []
    while len(pairs) < args.queries + 10:
        x, y = rng.sample(range(n_people), 2)
        a = m.writes.lookup_entity(group, f"person{x}").id
        b = m.writes.lookup_entity(group, f"person{y}").id
        if args.pairs == "connected":  # b: where a random walk of ``hops`` steps from a ends
            b = a
            for _ in range(args.hops):
                around = [e for v in adjacent([b]) for e in (v.subject_id, v.object_id)
                          if e != b]
                b = rng.choice(around) if around else b
            if b == a:
                continue
        pairs.append((a, b))
    impls = {
        "kgmem": lambda a, b: find_paths(adjacent, a, b, args.hops, "slice", args.limit),
        "networkx": lambda a, b: find_paths_networkx(adjacent, a, b, args.hops, args.limit),
    }
    for a, b in pairs[:10]:  # warm the store's caches
        for fn in impls.values():
            fn(a, b)
    times: dict[str, list[float]] = {k: [] for k in impls}
    same = 0
    n_paths = []
    for q, (a, b) in enumerate(pairs[10:]):
        order = list(impls) if q % 2 == 0 else list(reversed(impls))
        got = {}
        for name in order:
            t = time.perf_counter()
            got[name] = impls[name](a, b)
            times[name].append(time.perf_counter() - t)
        same += _signature(got["kgmem"]) == _signature(got["networkx"])
        n_paths.append(len(got["kgmem"]))
    result = {
        "facts": args.facts, "people": n_people, "hops": args.hops, "limit": args.limit,
        "pairs": args.pairs,
        "load_avg": os.getloadavg(), "same_answers": same, "queries": args.queries,
        "median_paths": float(np.median(n_paths)),
        **{name: _pct(ts) for name, ts in times.items()},
        "ratio_p50_networkx_over_kgmem": float(np.median(times["networkx"])
                                               / np.median(times["kgmem"])),
        "per_query_s": times,
    }
    t = Table(title=f"{args.hops}-hop slice paths, {args.facts:,} facts, limit {args.limit}")
    for col in ("implementation", "p50 ms", "p95 ms"):
        t.add_column(col, justify="right" if col != "implementation" else "left")
    for name in impls:
        t.add_row(name, f"{result[name]['p50_ms']:.2f}", f"{result[name]['p95_ms']:.2f}")
    console.print(t)
    console.print(f"networkx/kgmem p50 ratio {result['ratio_p50_networkx_over_kgmem']:.2f}; "
                  f"same answers {same}/{args.queries}; median paths {result['median_paths']}; "
                  f"load {result['load_avg']}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"paths-networkx-{args.facts}-{args.pairs}.json").write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
