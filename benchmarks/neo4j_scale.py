"""Scale benchmark on Neo4j: load N facts, time as-of lookups, history and 3-hop paths, and
show (PROFILE) that the hot queries seek indexes.

    python -m benchmarks.neo4j_scale --facts 1000000 [--from-embedded DIR] [--keep]

The facts are benchmarks/scale.py's generator (people whose homes and employers change, plus a
social graph). The temporal state is computed once by the embedded store (the same timeline
rules; reuse an existing one with ``--from-embedded``) and copied to Neo4j with
:func:`kgmem.store.neo4j_import.import_embedded` (batched ``UNWIND ... CREATE``). Queries go
through ``Memory`` on :class:`kgmem.store.neo4j.Neo4jStore` like any user's. Writes
``benchmarks/out/scale/neo4j-scale-<N>.json``; the group is deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.scale import BASE, generate, pct, timed
from kgmem.memory import Memory
from kgmem.store.base import TimeFilter
from kgmem.store.embedded import EmbeddedStore
from kgmem.store.neo4j import VERSIONS_OF_ENTITY, Neo4jStore, _adjacent_query, _facts_query
from kgmem.store.neo4j_import import import_embedded

SCANS = {"AllNodesScan", "NodeByLabelScan", "DirectedAllRelationshipsScan",
         "UndirectedAllRelationshipsScan", "DirectedRelationshipTypeScan",
         "UndirectedRelationshipTypeScan"}


def drop_group(store: Neo4jStore, group: str) -> None:
    """Delete a (big) group in small committed batches (one transaction would not fit)."""
    with store.driver.session(database=store.database) as s:
        s.run("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g "
              "CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS", g=group).consume()
        for label in ("KgmemEffect", "KgmemChange", "KgmemLineage", "KgmemAlias", "Episodic",
                      "Entity", "KgmemErasure", "KgmemClock"):
            s.run(f"MATCH (n:{label}) WHERE n.group_id = $g "
                  "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 20000 ROWS", g=group).consume()


def profile(store: Neo4jStore, query: str, params: dict[str, Any]) -> dict[str, Any]:
    """Operators, index names, db hits and rows of one PROFILEd run."""
    with store.driver.session(database=store.database) as s:
        res = s.run("PROFILE " + query, params)
        res.consume()
        plan = res.consume().profile
    ops: list[dict[str, Any]] = []

    def walk(p: dict[str, Any], depth: int) -> None:
        op = p["operatorType"].split("@")[0]
        detail = p.get("args", {}).get("Details", "")
        ops.append({"depth": depth, "op": op, "detail": str(detail)[:160],
                    "db_hits": p.get("dbHits", 0), "rows": p.get("rows", 0)})
        for c in p.get("children", []):
            walk(c, depth + 1)

    walk(plan, 0)
    return {
        "operators": ops,
        "total_db_hits": sum(o["db_hits"] for o in ops),
        "index_seeks": sorted({f"{o['op']}: {o['detail'][:100]}" for o in ops
                               if "Index" in o["op"]}),
        "scans": sorted({o["op"] for o in ops if o["op"] in SCANS}),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--from-embedded", type=Path, default=None,
                    help="an embedded store already holding group scale<N> (benchmarks.scale)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--keep", action="store_true", help="keep the group in Neo4j afterwards")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale"))
    args = ap.parse_args(argv)
    console = Console()
    group = f"scale{args.facts}"
    rows, n_people = generate(args.facts)
    result: dict[str, Any] = {"store": "neo4j", "facts": args.facts, "people": n_people}

    if args.from_embedded is not None:
        src = EmbeddedStore(args.from_embedded)
        result["embedded_build_seconds"] = None
    else:
        path = Path(tempfile.mkdtemp(prefix="kgmem-neo4j-scale-"))
        emb = Memory(path)
        t0 = time.perf_counter()
        for i in range(0, len(rows), args.batch):
            emb.assert_facts(rows[i:i + args.batch], group=group, batch_size=args.batch)
        result["embedded_build_seconds"] = time.perf_counter() - t0
        src = emb.store  # type: ignore[assignment]
    console.print(f"embedded state: {src.counts(group)}")

    store = Neo4jStore()
    drop_group(store, group)
    t0 = time.perf_counter()
    counts = import_embedded(src, store, groups=[group], batch=args.batch)
    load_s = time.perf_counter() - t0
    result.update(load_seconds=load_s, imported=counts,
                  load_facts_per_s=args.facts / load_s,
                  load_items_per_s=sum(counts.values()) / load_s)
    console.print(f"imported {counts} in {load_s:.0f} s")

    m = Memory(store=store)
    now = m.now()
    rng = random.Random(11)

    def as_of() -> None:
        p = rng.randrange(n_people)
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(f"person{p}", valid_at=v, known_at=now, group=group)

    def hist() -> None:
        m.history(f"person{rng.randrange(n_people)}", group=group)

    def paths3() -> None:
        a, b = rng.sample(range(n_people), 2)
        m.paths(f"person{a}", f"person{b}", max_hops=3, group=group, limit=20)

    for fn in (as_of, hist, paths3):  # warm the page cache and the query plan cache
        timed(fn, 20)
    result["as_of_lookup"] = pct(timed(as_of, args.queries))
    result["history"] = pct(timed(hist, args.queries))
    result["paths_3hop_slice"] = pct(timed(paths3, max(50, args.queries // 3)))
    result["stats"] = m.stats(group)

    # PROFILE the exact queries the store sends
    person = m.entity("person1", group=group)["entity"]
    others = [m.entity(f"person{i}", group=group)["entity"].id for i in range(2, 12)]
    when = TimeFilter(valid_at=BASE + timedelta(days=4000), known_at=now)
    base = {"g": group, "k": when.known_at, "v": when.valid_at}
    result["profile"] = {
        "as_of_lookup (facts of a subject at V, K)": profile(
            store, _facts_query(True, False, False, when, False), {**base, "sid": person.id}),
        "paths hop (adjacent of 10 entities at V, K)": profile(
            store, _adjacent_query(when), {**base, "ids": [person.id, *others]}),
        "history (versions of an entity)": profile(
            store, VERSIONS_OF_ENTITY, {"g": group, "e": person.id}),
    }

    t = Table(title=f"scale: {args.facts:,} facts on neo4j")
    t.add_column("measure")
    t.add_column("p50 ms", justify="right")
    t.add_column("p95 ms", justify="right")
    for key in ("as_of_lookup", "history", "paths_3hop_slice"):
        t.add_row(key, f"{result[key]['p50_ms']:.2f}", f"{result[key]['p95_ms']:.2f}")
    console.print(t)
    for name, prof in result["profile"].items():
        console.print(f"[bold]{name}[/]: db hits {prof['total_db_hits']}, scans "
                      f"{prof['scans'] or 'none'}")
        for s in prof["index_seeks"]:
            console.print(f"   {s}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"neo4j-scale-{args.facts}.json").write_text(
        json.dumps(result, indent=2, default=str))
    if not args.keep:
        drop_group(store, group)
    store.close()
    return result


if __name__ == "__main__":
    main()
