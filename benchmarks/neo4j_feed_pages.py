"""Change-feed pages inside one 5,000-change batch on Neo4j (issue 18): main's cursor query
(two index seeks, ``kgmem.store.visibility.AFTER_CHANGE_*_CYPHER``) against the single
condition with OR it replaced, on the same server and data, alternating A B A B.

    KGMEM_NEO4J_URI=bolt://127.0.0.1:7700 python -m benchmarks.neo4j_feed_pages [--batch 5000]
        [--rounds 3] [--out DIR]

Writes a fresh group (200 earlier changes, then one ``assert_facts`` batch of ``--batch``
changes sharing one transaction time), reads the batch in pages of 100 and 1,000 with each
query (the feeds must be equal), then the whole batch in one call; prints medians, writes
``feed_pages.json`` with every round, and erases the group.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from kgmem.memory.facade import Memory
from kgmem.model import Change
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.queries import CHANGE_RETURN, row_change

_ROW = CHANGE_RETURN.removeprefix("RETURN ")
# the cursor query before the split (one condition with OR: each page sorted the batch's rest)
OR_FORM = ("MATCH (a:KgmemChange {id: $after}) WHERE a.group_id = $g "
           "MATCH (c:KgmemChange) WHERE c.group_id = $g AND c.created_at > $t AND "
           "(c.created_at > a.created_at OR (c.created_at = a.created_at AND c.ins_seq > a.ins_seq)) "
           f"WITH c ORDER BY c.created_at, c.ins_seq LIMIT $limit RETURN collect([{_ROW}])")

Page = Callable[[str | None, int], list[Change]]


def catch_up(page: Page, limit: int) -> tuple[float, list[float], list[str]]:
    """Total seconds, per-page seconds and the ids read, page after page to the end."""
    ids: list[str] = []
    times: list[float] = []
    after = None
    start = time.perf_counter()
    while True:
        t = time.perf_counter()
        got = page(after, limit)
        times.append(time.perf_counter() - t)
        ids += [c.id for c in got]
        if len(got) < limit:
            return time.perf_counter() - start, times, ids
        after = got[-1].id


def main() -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/neo4j_feed_pages"))
    args = ap.parse_args()
    store = Neo4jStore(os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"))
    m = Memory(store=store, extractor=None)
    g = "feedpages-" + uuid.uuid4().hex[:8]
    try:
        m.assert_facts([{"subject": f"p{i}", "predicate": "LIKES", "object": f"x{i % 50}"}
                        for i in range(200)], group=g)
        t = time.perf_counter()
        m.assert_facts([{"subject": f"q{i}", "predicate": "LIKES", "object": f"y{i % 50}"}
                        for i in range(args.batch)], group=g, batch_size=args.batch)
        write_s = time.perf_counter() - t
        since = m.changes("1970-01-01T00:00:00Z", group=g)[-1].created_at - timedelta(microseconds=1)
        store.cypher("CALL db.awaitIndexes(300)")

        def main_page(after: str | None, limit: int) -> list[Change]:
            return m.changes(since, group=g, limit=limit, after=after)

        def or_page(after: str | None, limit: int) -> list[Change]:
            if after is None:
                return main_page(None, limit)
            return [row_change(r) for r in store.cypher(OR_FORM, g=g, t=since, after=after,
                                                 limit=limit)[0][0]]

        result: dict[str, Any] = {"batch": args.batch, "write_s": write_s,
                                  "load_before": os.getloadavg()[0], "pages": {}}
        for limit in (100, 1000):
            runs: dict[str, list[dict[str, float]]] = {"or_form": [], "main": []}
            feeds = {}
            for _ in range(args.rounds):
                for name, fn in (("or_form", or_page), ("main", main_page)):
                    total, times, ids = catch_up(fn, limit)
                    feeds[name] = ids
                    runs[name].append({"catch_up_ms": total * 1e3,
                                       "page_p50_ms": statistics.median(times) * 1e3})
            if feeds["or_form"] != feeds["main"] or len(feeds["main"]) != args.batch:
                raise SystemExit(f"the two queries read different feeds at limit {limit}")
            row = {name: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                   for name, rs in runs.items()}
            result["pages"][str(limit)] = {"rounds": runs, "median": row}
            print(f"pages of {limit}: catch-up {row['or_form']['catch_up_ms']:.0f} -> "
                  f"{row['main']['catch_up_ms']:.0f} ms "
                  f"({row['or_form']['catch_up_ms'] / row['main']['catch_up_ms']:.2f}x), "
                  f"page p50 {row['or_form']['page_p50_ms']:.1f} -> {row['main']['page_p50_ms']:.1f} ms")
        whole = []
        for _ in range(7):
            t = time.perf_counter()
            m.changes(since, group=g)
            whole.append((time.perf_counter() - t) * 1e3)
        result["whole_batch_ms"] = whole
        result["load_after"] = os.getloadavg()[0]
        print(f"the whole batch in one call: p50 {statistics.median(whole):.0f} ms, min "
              f"{min(whole):.0f} ms; load {result['load_before']:.1f} -> {result['load_after']:.1f}")
    finally:
        m.erase(whole_group=True, group=g)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "feed_pages.json").write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
