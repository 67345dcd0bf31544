"""Search latency on a big Neo4j store, broken down by query kind and by backend step.

    KGMEM_NEO4J_URI=bolt://127.0.0.1:7690 \\
      python -m benchmarks.neo4j_search_scale --group scale1000000 --queries 300 --out DIR

Times ``kgmem.retrieve.search(m, q, known_at=now, kinds=("facts", "entities"), limit=10,
auto_index=False)`` (what ``benchmarks.neo4j_scale --search`` times) on a store whose entities
and fact versions already carry vectors (``benchmarks.neo4j_bulk``, which copies the embedded
store's, or ``neo4j_scale --search``), with the questions of ``neo4j_scale.search_queries`` (five kinds:
"where does personP live", "who works at orgO", "who does personP know", "personP and personQ",
"personP employer").

Every search is traced: time per backend method (fulltext, vector, graph, name match,
hydration), per Bolt round trip (client time, and the server's own ``result_available_after +
result_consumed_after``), the query embedding, and the rest (Python: fusion, scoring). The
table shows where the time goes on average and in the slowest 5%. The slowest queries are
re-run once to tell an inherent cost from a stall (GC, the other jobs on the machine).

``--k-sweep`` also times the bare vector index queries for k = 10, 40, 120, 480 (server time):
each query searches every Lucene segment of the index with k candidates.

Writes ``search-<label>.json`` (summary + per-query breakdown and the result ids, to compare
two backends for identical results) into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.neo4j_scale import search_queries, server_info
from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import search
from kgmem.retrieve.backend import get_backend
from kgmem.store.neo4j import Neo4jStore

# backend methods search() calls for kinds ("facts", "entities")
TRACED = ("match_entities", "graph_facts", "keyword_facts", "vector_facts", "keyword_entities",
          "vector_entities", "entities_by_ids", "facts_from_episodes")


def pcts(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs or [0.0])
    return {"p50_ms": round(float(np.percentile(a, 50)), 2),
            "p95_ms": round(float(np.percentile(a, 95)), 2),
            "mean_ms": round(float(a.mean()), 2), "max_ms": round(float(a.max()), 2),
            "n": len(xs)}


class Tracer:
    """Wraps the backend's methods, the store's round trips and the embedder (instance
    attributes: nothing global changes) and records one trace per search."""

    def __init__(self, store: Neo4jStore, backend: Any, embedder: Any) -> None:
        self.trace: dict[str, Any] = {}
        self._method: list[str] = []
        for name in TRACED:
            setattr(backend, name, self._wrap(name, getattr(backend, name)))
        for name in ("embed", "embed_one"):
            setattr(embedder, name, self._wrap_embed(getattr(embedder, name)))

        def traced_q(query: str, **params: Any) -> list[list[Any]]:
            t0 = time.perf_counter()
            res = store._session().run(query, params)
            rows = res.values()
            summary = res.consume()
            ms = 1000 * (time.perf_counter() - t0)
            server = float((summary.result_available_after or 0)
                           + (summary.result_consumed_after or 0))
            where = self._method[-1] if self._method else "other"
            self.trace["trips"].append({"method": where, "client_ms": round(ms, 2),
                                        "server_ms": server, "rows": len(rows)})
            return rows

        store.cypher = traced_q  # type: ignore[method-assign]

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            self._method.append(name)
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.trace["methods"][name] += 1000 * (time.perf_counter() - t0)
                self._method.pop()
        return run

    def _wrap_embed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.trace["embed_ms"] += 1000 * (time.perf_counter() - t0)
        return run

    def start(self) -> None:
        self.trace = {"methods": defaultdict(float), "trips": [], "embed_ms": 0.0}


def one(m: Memory, tracer: Tracer, text: str, now: Any, group: str, emb: Any
        ) -> tuple[float, dict[str, Any], list[str]]:
    tracer.start()
    t0 = time.perf_counter()
    res = search(m, text, known_at=now, group=group, limit=10, kinds=("facts", "entities"),
                 embedder=emb, auto_index=False)
    ms = 1000 * (time.perf_counter() - t0)
    tr = tracer.trace
    trips = tr["trips"]
    methods = {k: round(v, 2) for k, v in tr["methods"].items()}
    in_methods = sum(methods.values())
    detail = {
        "total_ms": round(ms, 2), "methods_ms": methods, "embed_ms": round(tr["embed_ms"], 2),
        "python_ms": round(ms - in_methods - tr["embed_ms"], 2),
        "round_trips": len(trips),
        "trip_client_ms": round(sum(t["client_ms"] for t in trips), 2),
        "trip_server_ms": round(sum(t["server_ms"] for t in trips), 2),
        "rows": sum(t["rows"] for t in trips),
        "trips": trips,
    }
    return ms, detail, [f"{r.kind}:{r.id}" for r in res]


def breakdown(details: list[dict[str, Any]]) -> dict[str, float]:
    """Mean ms per query of each part (backend methods, embedding, Python rest) and of the
    round trips (client vs server time)."""
    n = max(1, len(details))
    out: dict[str, float] = defaultdict(float)
    for d in details:
        for k, v in d["methods_ms"].items():
            out[k] += v / n
        out["embed"] += d["embed_ms"] / n
        out["python (fusion, scoring)"] += d["python_ms"] / n
        out["= round trips, client"] += d["trip_client_ms"] / n
        out["= round trips, server"] += d["trip_server_ms"] / n
        out["= round trips, count"] += d["round_trips"] / n
        out["= rows fetched"] += d["rows"] / n
        out["= total"] += d["total_ms"] / n
    return {k: round(v, 2) for k, v in out.items()}


def k_sweep(store: Neo4jStore, emb: Any, n_people: int, ks: tuple[int, ...] = (10, 40, 120, 480),
            n: int = 30) -> dict[str, Any]:
    """Server time of the bare vector index queries for several k (each index query searches
    every Lucene segment of the index with k candidates)."""
    rng = random.Random(5)
    texts = [f"who works at org{rng.randrange(max(5, n_people // 20))}" for _ in range(n)] + [
        f"where does person{rng.randrange(n_people)} live" for _ in range(n)]
    vecs = [[float(x) for x in v] for v in emb.embed(texts)]
    out: dict[str, Any] = {"loadavg": os.getloadavg()}
    with store.driver.session(database=store.database) as s:
        for index, kind in (("kgmem_fact_embedding", "Relationships"),
                            ("kgmem_entity_name_embedding", "Nodes")):
            for k in ks:
                server = []
                for q in vecs:
                    summary = s.run(f"CALL db.index.vector.query{kind}($i, $k, $q) YIELD score "
                                    "RETURN count(*)", i=index, k=k, q=q).consume()
                    server.append(float((summary.result_available_after or 0)
                                        + (summary.result_consumed_after or 0)))
                out[f"{index} k={k}"] = {"server_p50_ms": float(np.percentile(server, 50)),
                                         "server_p95_ms": float(np.percentile(server, 95))}
    out["loadavg_end"] = os.getloadavg()
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", default="scale1000000")
    ap.add_argument("--people", type=int, default=None,
                    help="people of the generator (default: counted in the store)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--rerun-slowest", type=int, default=10)
    ap.add_argument("--seed", type=int, default=31, help="31: neo4j_scale --search's questions")
    ap.add_argument("--label", default="run")
    ap.add_argument("--k-sweep", action="store_true",
                    help="also time the bare vector index queries for k = 10, 40, 120, 480")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale"))
    args = ap.parse_args(argv)
    console = Console()
    store = Neo4jStore()
    m = Memory(store=store, extractor=None)
    emb = HashingEmbedder(384)
    group = args.group
    res: dict[str, Any] = {"group": group, "label": args.label,
                           "loadavg_start": os.getloadavg(), "server": server_info(store),
                           "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    res["vectors"] = {
        "entities": store.cypher("MATCH (e:Entity) WHERE e.group_id = $g AND e.name_embedding IS "
                             "NOT NULL RETURN count(*)", g=group)[0][0],
        "versions": store.cypher("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g AND "
                             "r.fact_embedding IS NOT NULL RETURN count(*)", g=group)[0][0]}
    n_people = args.people or store.cypher(
        "MATCH (e:Entity) WHERE e.group_id = $g AND e.name STARTS WITH 'person' "
        "RETURN count(*)", g=group)[0][0]
    res["people"] = n_people
    console.print(f"{group}: {n_people} people, vectors {res['vectors']}")
    now = m.now()
    tracer = Tracer(store, get_backend(m, emb), emb)
    qs = search_queries(random.Random(args.seed), n_people, args.warmup + args.queries,
                        with_kind=True)
    for _kind, text in qs[:args.warmup]:
        one(m, tracer, text, now, group, emb)
    rows = []
    for kind, text in qs[args.warmup:]:
        ms, detail, ids = one(m, tracer, text, now, group, emb)
        rows.append({"kind": kind, "query": text, **detail, "result": ids})
    res["loadavg_after_queries"] = os.getloadavg()
    lat = [r["total_ms"] for r in rows]
    res["search"] = pcts(lat)
    kinds = sorted({r["kind"] for r in rows})
    res["by_kind"] = {k: pcts([r["total_ms"] for r in rows if r["kind"] == k]) for k in kinds}
    cut = float(np.percentile(np.asarray(lat), 95))
    slow = [r for r in rows if r["total_ms"] >= cut]
    res["breakdown_all"] = breakdown(rows)
    res["breakdown_slowest_5pct"] = breakdown(slow)
    res["slowest_kinds"] = {k: sum(r["kind"] == k for r in slow) for k in kinds}
    # re-run the slowest queries once: inherent cost or a stall?
    again = []
    for r in sorted(rows, key=lambda r: -r["total_ms"])[:args.rerun_slowest]:
        ms, detail, _ids = one(m, tracer, r["query"], now, group, emb)
        again.append({"query": r["query"], "first_ms": r["total_ms"], "again_ms": round(ms, 2),
                      "again_methods_ms": detail["methods_ms"]})
    res["slowest_rerun"] = again
    if args.k_sweep:
        res["vector_k_sweep"] = k_sweep(store, emb, n_people)
    res["loadavg_end"] = os.getloadavg()

    t = Table(title=f"search on {group} ({args.queries} queries, label {args.label})")
    for c in ("kind", "n", "p50 ms", "p95 ms", "mean ms", "max ms"):
        t.add_column(c, justify="right" if c != "kind" else "left")
    for k, p in [("all", res["search"]), *res["by_kind"].items()]:
        t.add_row(k, str(p["n"]), f"{p['p50_ms']:.1f}", f"{p['p95_ms']:.1f}",
                  f"{p['mean_ms']:.1f}", f"{p['max_ms']:.1f}")
    console.print(t)
    b = Table(title="mean ms per query: all queries vs the slowest 5%")
    b.add_column("part")
    b.add_column("all", justify="right")
    b.add_column("slowest 5%", justify="right")
    for k in res["breakdown_all"]:
        b.add_row(k, f"{res['breakdown_all'][k]:.1f}",
                  f"{res['breakdown_slowest_5pct'].get(k, 0.0):.1f}")
    console.print(b)
    console.print(f"slowest 5% by kind: {res['slowest_kinds']}")
    for a in again:
        console.print(f"  {a['query']!r}: {a['first_ms']:.0f} ms, again {a['again_ms']:.0f} ms",
                      markup=False, highlight=False)
    for name, p in res.get("vector_k_sweep", {}).items():
        if name.startswith("kgmem_"):
            console.print(f"  {name}: server p50 {p['server_p50_ms']:.0f} ms, "
                          f"p95 {p['server_p95_ms']:.0f} ms")
    console.print(f"load average: start {res['loadavg_start']}, "
                  f"after the queries {res['loadavg_after_queries']}")
    res["queries"] = rows
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"search-{args.label}.json"
    # the summary readable, one line per query (the traces make the file big)
    summary = json.dumps({k: v for k, v in res.items() if k != "queries"}, indent=1, default=str)
    path.write_text(summary[:-2] + ',\n "queries": [\n'
                    + ",\n".join(json.dumps(r, default=str) for r in rows) + "\n ]\n}\n")
    console.print(f"wrote {path}")
    store.close()
    return res


if __name__ == "__main__":
    main()
