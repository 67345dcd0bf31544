"""Scale benchmark on Neo4j: load N facts, time as-of lookups, history, 3-hop paths and search,
show (PROFILE) that the hot queries seek indexes, and ask the same as-of question through
graphiti-core's ``search()`` (benchmarks/graphiti_asof.py) in the same run.

    python -m benchmarks.neo4j_scale --facts 1000000 [--from-embedded DIR] [--keep]
    python -m benchmarks.neo4j_scale --facts 1000000 --skip-load --label pc256m   # reuse a kept group

The facts are benchmarks/scale.py's generator (people whose homes and employers change, plus a
social graph). The temporal state is computed once by the embedded store (the same timeline
rules; reuse an existing one with ``--from-embedded``) and copied to Neo4j with
:func:`kgmem.store.neo4j.importer.import_embedded` (batched ``UNWIND ... CREATE``). Queries go
through ``Memory`` on :class:`kgmem.store.neo4j.Neo4jStore` like any user's.

``--search N`` times ``kgmem.retrieve.search`` through the Neo4j backend (fulltext + vector
indexes + graph neighbourhood) after giving every entity and fact version a vector
(``--search-embedder``, default the 384-dim hashing embedder, as the embedded 1M search
benchmark; vectors are written in bulk and the vector indexes awaited before timing).

Writes ``benchmarks/out/scale/neo4j-scale-<N>[-<label>].json``; the group is deleted
afterwards unless ``--keep`` (or ``--skip-load``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import tempfile
import time
from datetime import datetime, timedelta
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.scale import BASE, generate, pct, timed
from kgmem.memory.facade import Memory
from kgmem.store.base import TimeFilter
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.importer import import_embedded
from kgmem.store.neo4j.queries import FIND_ENTITIES, adjacent_query, to_instant, facts_at_query
from kgmem.store.sqlite import EmbeddedStore

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


def plan_summary(prof: dict[str, Any], width: int = 90) -> list[str]:
    """The operator tree as text lines: operator, db hits, rows, details (for docs)."""
    return [f"{'  ' * o['depth']}{o['op']} (db hits {o['db_hits']}, rows {o['rows']}) "
            f"{o['detail'][:width]}".rstrip() for o in prof["operators"]]


def server_info(store: Neo4jStore) -> dict[str, Any]:
    """Version and memory settings of the server, store size when its home is known."""
    info: dict[str, Any] = {}
    with store.driver.session(database=store.database) as s:
        comp = s.run("CALL dbms.components() YIELD name, versions, edition "
                     "RETURN name, versions[0], edition").values()
        info["server"] = [" ".join(map(str, c)) for c in comp]
        rows = s.run("SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value",
                     names=["server.memory.pagecache.size", "server.memory.heap.max_size"]
                     ).values()
        info.update({k: v for k, v in rows})
    home = os.environ.get("KGMEM_NEO4J_HOME")
    if home and Path(home, "data").is_dir():
        out = subprocess.run(["du", "-sb", str(Path(home, "data", "databases", "neo4j"))],
                             capture_output=True, text=True, check=False).stdout.split()
        info["store_bytes"] = int(out[0]) if out else None
    info["driver"] = f"neo4j {metadata.version('neo4j')}"
    return info


# ---------------------------------------------------------------------------- search
def embed_all(store: Neo4jStore, group: str, embedder: Any, batch: int = 2000,
              console: Console | None = None) -> dict[str, float]:
    """Give every entity (``name_embedding``) and fact version (``fact_embedding``) of the
    group a vector, in bulk (one read of all ids, batched writes), then await the indexes."""
    t0 = time.perf_counter()
    done = {"entities": 0, "versions": 0}
    jobs = (
        ("entities", "MATCH (e:Entity) WHERE e.group_id = $g AND e.name_embedding IS NULL "
                     "RETURN e.uuid, e.name",
         "UNWIND $rows AS x MATCH (e:Entity {uuid: x.id}) "
         "CALL db.create.setNodeVectorProperty(e, 'name_embedding', x.v)"),
        ("versions", "MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g "
                     "AND r.fact_embedding IS NULL RETURN r.uuid, r.fact",
         "UNWIND $rows AS x MATCH ()-[r:RELATES_TO {uuid: x.id}]->() "
         "CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', x.v)"),
    )
    for kind, read, write in jobs:
        rows = store.cypher(read, g=group)
        for i in range(0, len(rows), batch):
            chunk = rows[i:i + batch]
            vecs = np.asarray(embedder.embed([r[1] or "" for r in chunk]), dtype=np.float32)
            payload = [{"id": r[0], "v": v} for r, v in zip(chunk, vecs.tolist(), strict=True)]
            with store.driver.session(database=store.database) as s:
                s.execute_write(lambda tx, q=write, p=payload: tx.run(q, rows=p).consume())
            done[kind] += len(chunk)
            if console is not None and (i // batch) % 50 == 0:
                console.print(f"  embedded {kind}: {done[kind]:,}/{len(rows):,} "
                              f"({time.perf_counter() - t0:.0f} s)")
    t1 = time.perf_counter()
    store.cypher("CALL db.awaitIndexes(7200)")
    return {**done, "write_seconds": t1 - t0, "await_index_seconds": time.perf_counter() - t1}


SEARCH_KINDS = ("lives", "works_at", "knows", "two_people", "employer")


def search_queries(rng: random.Random, n_people: int, n: int, with_kind: bool = False
                   ) -> list[Any]:
    """``n`` search questions (with ``with_kind``: ``(kind, question)`` pairs)."""
    n_org = max(5, n_people // 20)
    out: list[Any] = []
    for _ in range(n):
        p, q, o = rng.randrange(n_people), rng.randrange(n_people), rng.randrange(n_org)
        texts = [f"where does person{p} live", f"who works at org{o}",
                 f"who does person{p} know", f"person{p} and person{q}", f"person{p} employer"]
        i = rng.randrange(len(texts))  # = rng.choice(texts): the same questions as before
        out.append((SEARCH_KINDS[i], texts[i]) if with_kind else texts[i])
    return out


def _times(k: datetime, v: datetime | None) -> dict[str, Any]:
    """The time parameters the store's queries take: the instants and their naive forms
    (``k_l``, ``v_l``: facts written with naive LocalDateTime values, as neo4j_1m.py passes
    them; without them the queries fail with ParameterMissing)."""
    return {"k": k, "v": v, "k_l": k.replace(tzinfo=None),
            "v_l": None if v is None else v.replace(tzinfo=None)}


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--from-embedded", type=Path, default=None,
                    help="an embedded store already holding group scale<N> (benchmarks.scale)")
    ap.add_argument("--skip-load", action="store_true",
                    help="the group is already in Neo4j (an earlier --keep run): only measure")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--graphiti", type=int, default=200,
                    help="as-of questions for the graphiti-core comparison (0: skip)")
    ap.add_argument("--search", type=int, default=0,
                    help="search queries to time (0: skip; embeds every fact version first)")
    ap.add_argument("--search-embedder", default="hashing", choices=["hashing", "minilm"])
    ap.add_argument("--graphiti-cosine", type=int, default=0,
                    help="with --search: questions for a second graphiti comparison that adds "
                         "graphiti's (brute-force) cosine edge search over the fact vectors")
    ap.add_argument("--label", default="", help="suffix of the JSON file (e.g. the cache size)")
    ap.add_argument("--keep", action="store_true", help="keep the group in Neo4j afterwards")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale"))
    args = ap.parse_args(argv)
    console = Console()
    group = f"scale{args.facts}"
    rows, n_people = generate(args.facts)
    if args.skip_load:
        rows = []  # only n_people is needed
    result: dict[str, Any] = {"store": "neo4j", "facts": args.facts, "people": n_people,
                              "label": args.label, "loadavg_start": os.getloadavg()}
    store = Neo4jStore()
    result["server"] = server_info(store)
    console.print(f"server: {result['server']}")

    if not args.skip_load:
        if args.from_embedded is not None:
            src = EmbeddedStore(args.from_embedded)
            result["embedded_build_seconds"] = None
        else:
            path = Path(tempfile.mkdtemp(prefix="kgmem-neo4j-scale-"))
            emb = Memory(path, extractor=None)
            t0 = time.perf_counter()
            for i in range(0, len(rows), args.batch):
                emb.assert_facts(rows[i:i + args.batch], group=group, batch_size=args.batch)
            result["embedded_build_seconds"] = time.perf_counter() - t0
            src = emb.store  # type: ignore[assignment]
        console.print(f"embedded state: {src.counts(group)}")
        drop_group(store, group)
        t0 = time.perf_counter()
        counts = import_embedded(src, store, groups=[group], batch=args.batch)
        load_s = time.perf_counter() - t0
        result.update(load_seconds=load_s, imported=counts,
                      load_facts_per_s=args.facts / load_s,
                      load_items_per_s=sum(counts.values()) / load_s)
        console.print(f"imported {counts} in {load_s:.0f} s")
        store.cypher("CALL db.awaitIndexes(7200)")
        result["server"] = server_info(store)  # store size after the load

    m = Memory(store=store, extractor=None)
    now = m.now()
    rng = random.Random(11)
    # the people in the store (all of them, unless it holds a partial copy of the generator)
    people = sorted(r[0] for r in store.cypher(
        "MATCH (e:Entity) WHERE e.group_id = $g AND e.name STARTS WITH 'person' RETURN e.name",
        g=group))
    result["people_in_store"] = len(people)

    def as_of() -> None:
        v = BASE + timedelta(days=rng.randrange(0, 9500))
        m.facts(rng.choice(people), valid_at=v, known_at=now, group=group)

    def hist() -> None:
        m.history(rng.choice(people), group=group)

    def paths3() -> None:
        a, b = rng.sample(people, 2)
        m.paths(a, b, max_hops=3, group=group, limit=20)

    for fn in (as_of, hist, paths3):  # warm the page cache and the query plan cache
        timed(fn, 20)
    result["as_of_lookup"] = pct(timed(as_of, args.queries))
    result["history"] = pct(timed(hist, args.queries))
    result["paths_3hop_slice"] = pct(timed(paths3, max(50, args.queries // 3)))
    result["stats"] = m.stats(group)
    result["facts_in_store"] = result["stats"]["lineages"]  # < --facts for a partial copy

    # The server's own time for the store's as-of query (result available + consumed, as
    # reported by Neo4j), to tell database time from client/Bolt/CPU-contention time.
    ids = [r[0] for r in store.cypher(
        "UNWIND $names AS n MATCH (e:Entity {group_id: $g, norm_name: n}) RETURN e.uuid",
        g=group, names=[p.lower() for p in rng.sample(people, min(200, len(people)))])]
    server_ms: list[float] = []
    with store.driver.session(database=store.database) as sess:
        for i, sid in enumerate(ids):
            when_i = TimeFilter(valid_at=BASE + timedelta(days=rng.randrange(0, 9500)),
                                known_at=now)
            summary = sess.run(facts_at_query(True, False, False, when_i, False),
                               {**_times(now, when_i.valid_at), "g": group, "sid": sid}
                               ).consume()
            if i >= 10:  # warm-up
                server_ms.append(float((summary.result_available_after or 0)
                                       + (summary.result_consumed_after or 0)))
    a = np.asarray(server_ms or [0.0])
    result["as_of_query_server_ms"] = {"p50_ms": float(np.percentile(a, 50)),
                                       "p95_ms": float(np.percentile(a, 95)), "n": len(server_ms)}

    # The same query from the client: one round trip (store.facts by subject id), and an
    # empty round trip, to show what Memory.facts' four sequential round trips cost here.
    def store_as_of() -> None:
        w = TimeFilter(valid_at=BASE + timedelta(days=rng.randrange(0, 9500)), known_at=now)
        store.facts(group, w, subject_id=rng.choice(ids))

    timed(store_as_of, 20)
    result["as_of_store_facts"] = pct(timed(store_as_of, args.queries))
    result["round_trip_return_1"] = pct(timed(lambda: store.cypher("RETURN 1"), args.queries))

    # PROFILE the exact queries the store sends
    person = m.entity("person1", group=group)["entity"]
    others = [m.entity(f"person{i}", group=group)["entity"].id for i in range(2, 12)]
    when = TimeFilter(valid_at=BASE + timedelta(days=4000), known_at=now)
    base = {"g": group, **_times(when.known_at, when.valid_at)}
    result["profile"] = {
        "entity lookup (by name)": profile(store, FIND_ENTITIES, {"g": group, "n": "person1"}),
        "as_of_lookup (facts of a subject at V, K)": profile(
            store, facts_at_query(True, False, False, when, False), {**base, "sid": person.id}),
        "paths hop (adjacent of 11 entities at V, K)": profile(
            store, adjacent_query(when), {**base, "ids": [person.id, *others]}),
    }

    print_table: Any = None
    if args.graphiti:
        from benchmarks.graphiti_asof import compare, make_questions, print_table
        from kgmem.embed import get_default_embedder

        os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
        span = store.cypher("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g "
                        "RETURN min(r.created_at), max(r.created_at)", g=group)[0]
        qs = make_questions(m, group, people, args.graphiti,
                            random.Random(23), (BASE, BASE + timedelta(days=9500)),
                            (to_instant(span[0]), to_instant(span[1])))
        result["graphiti_asof"] = asyncio.run(compare(m, store, group, qs,
                                                      get_default_embedder(), warmup=3))
        result["graphiti_asof"]["graphiti_core"] = metadata.version("graphiti-core")

    if args.search:
        from kgmem.retrieve import search

        if args.search_embedder == "hashing":
            from kgmem.embed import HashingEmbedder

            emb_s: Any = HashingEmbedder(384)
        else:
            from kgmem.embed import get_default_embedder

            emb_s = get_default_embedder()
        result["search_index"] = embed_all(store, group, emb_s, console=console)
        qs_s = search_queries(random.Random(31), n_people, args.search + 10)
        it = iter(qs_s)

        def one_search() -> None:
            search(m, next(it), known_at=now, group=group, limit=10,
                   kinds=("facts", "entities"), embedder=emb_s, auto_index=False)

        timed(one_search, 10)
        result["search"] = {**pct(timed(one_search, args.search)), "embedder": emb_s.name,
                            "kinds": ["facts", "entities"], "limit": 10}
        if args.graphiti_cosine and print_table is not None:
            qs_c = make_questions(m, group, people, args.graphiti_cosine, random.Random(29),
                                  (BASE, BASE + timedelta(days=9500)), None)
            result["graphiti_asof_cosine"] = asyncio.run(
                compare(m, store, group, qs_c, emb_s, cosine=True, warmup=3))
    result["loadavg_end"] = os.getloadavg()

    t = Table(title=f"scale: {args.facts:,} facts on neo4j "
                    f"(page cache {result['server'].get('server.memory.pagecache.size')})")
    t.add_column("measure")
    t.add_column("p50 ms", justify="right")
    t.add_column("p95 ms", justify="right")
    for key in ("as_of_lookup", "as_of_store_facts", "as_of_query_server_ms",
                "round_trip_return_1", "history", "paths_3hop_slice", "search"):
        if key in result:
            t.add_row(key, f"{result[key]['p50_ms']:.2f}", f"{result[key]['p95_ms']:.2f}")
    console.print(t)
    for name, prof in result["profile"].items():
        console.print(f"[bold]{name}[/]: db hits {prof['total_db_hits']}, scans "
                      f"{prof['scans'] or 'none'}")
        for line in plan_summary(prof):
            console.print(f"   {line}", markup=False, highlight=False)
    if "graphiti_asof" in result:
        print_table(result["graphiti_asof"], f"as-of question on {args.facts:,} facts: kgmem vs "
                    f"graphiti-core {result['graphiti_asof']['graphiti_core']} search()", console)
    if "graphiti_asof_cosine" in result:
        print_table(result["graphiti_asof_cosine"], "the same with graphiti's cosine edge search "
                    "added (bm25 + bfs + cosine)", console)
    console.print(f"load average: start {result['loadavg_start']}, end {result['loadavg_end']}")
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = f"-{args.label}" if args.label else ""
    (args.out / f"neo4j-scale-{args.facts}{suffix}.json").write_text(
        json.dumps(result, indent=2, default=str))
    if not args.keep and not args.skip_load:
        drop_group(store, group)
    store.close()
    return result


if __name__ == "__main__":
    main()
