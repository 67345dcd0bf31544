"""Change feed timings (issue 18, target 50 ms): ``Memory.changes`` on both stores for a
``since`` just before the newest write batch (``assert_facts`` writes its batch as changes
sharing one transaction time), whole and in pages (``limit``/``after``), and on Neo4j three
transports of the same rows: records of columns (what ``Neo4jStore.changes_since`` does),
one record holding a list of lists, and one JSON string built by APOC.

    KGMEM_NEO4J_URI=bolt://127.0.0.1:.. python -m benchmarks.neo4j_changes \\
        --from-embedded DIR --group scale100000 --out benchmarks/results/2026-12-02/neo4j-changes

The Neo4j server must hold the same group (``benchmarks.neo4j_bulk`` from ``DIR``). Calls
alternate between variants (A B C A B C); answers are compared with ``Memory.changes``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.neo4j_bulk import uptime
from kgmem.memory.facade import Memory
from kgmem.model import Change
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.queries import CHANGE_RETURN, row_change
from kgmem.store.sqlite import EmbeddedStore

_MATCH = ("MATCH (c:KgmemChange) WHERE c.group_id = $g AND c.created_at > $t "
          "WITH c ORDER BY c.created_at, c.ins_seq ")
_ROW = CHANGE_RETURN.removeprefix("RETURN ")


def nested(store: Neo4jStore, g: str, since: Any) -> list[Change]:
    rows = store.cypher(_MATCH + f"RETURN collect([{_ROW}])", g=g, t=since)
    return [row_change(r) for r in rows[0][0]]


def apoc_json(store: Neo4jStore, g: str, since: Any) -> list[Change]:
    rows = store.cypher(_MATCH + f"RETURN apoc.convert.toJson(collect([{_ROW}]))", g=g, t=since)
    return [row_change(r) for r in json.loads(rows[0][0])]


def pages(m: Memory, g: str, since: Any, limit: int) -> tuple[list[Change], list[float]]:
    out: list[Change] = []
    times: list[float] = []
    after = None
    while True:
        t = time.perf_counter()
        page = m.changes(since, group=g, limit=limit, after=after)
        times.append(time.perf_counter() - t)
        out += page
        if len(page) < limit:
            return out, times
        after = page[-1].id


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-embedded", type=Path, required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--calls", type=int, default=7)
    ap.add_argument("--page", type=int, action="append", default=None)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/neo4j-changes"))
    args = ap.parse_args(argv)
    g, page_sizes = args.group, args.page or [100, 1000]
    store = Neo4jStore()
    mn, me = Memory(store=store, extractor=None), Memory(store=EmbeddedStore(args.from_embedded),
                                                         extractor=None)
    newest = store.cypher("MATCH (c:KgmemChange) WHERE c.group_id = $g RETURN max(c.created_at)",
                      g=g)[0][0].to_native()
    since = newest - timedelta(microseconds=1)
    truth = [c.id for c in me.changes(since, group=g)]
    res: dict[str, Any] = {"uptime_start": uptime(), "group": g, "since": since.isoformat(),
                           "changes": len(truth)}
    variants: dict[str, Callable[[], list[Change]]] = {
        "embedded": lambda: me.changes(since, group=g),
        "neo4j records (Memory.changes)": lambda: mn.changes(since, group=g),
        "neo4j one list of lists": lambda: nested(store, g, since),
        "neo4j one APOC JSON string": lambda: apoc_json(store, g, since),
    }
    for size in page_sizes:
        for name, m in (("embedded", me), ("neo4j", mn)):
            variants[f"{name} catch-up in pages of {size}"] = (
                lambda m=m, size=size: pages(m, g, since, size)[0])
    times: dict[str, list[float]] = {k: [] for k in variants}
    agree: dict[str, bool] = {}
    for _ in range(args.calls + 1):  # the first call of each warms up, not counted
        for name, fn in variants.items():
            t = time.perf_counter()
            got = fn()
            times[name].append(time.perf_counter() - t)
            agree[name] = [c.id for c in got] == truth and agree.get(name, True)
    res["whole_ms"] = {k: {"p50": round(statistics.median(v[1:]) * 1000, 2),
                           "min": round(min(v[1:]) * 1000, 2)} for k, v in times.items()}
    res["identical_to_embedded"] = agree
    for size in page_sizes:  # per page: every page of a few catch-ups
        for name, m in (("embedded", me), ("neo4j", mn)):
            per: list[float] = []
            for _ in range(3):
                per += pages(m, g, since, size)[1]
            res.setdefault("page_ms", {})[f"{name} limit {size}"] = {
                "p50": round(statistics.median(per) * 1000, 2),
                "p95": round(sorted(per)[int(0.95 * (len(per) - 1))] * 1000, 2),
                "pages": len(per)}
    res["uptime_end"] = uptime()
    print(json.dumps(res, indent=2))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"changes-{g}.json").write_text(json.dumps(res, indent=2))
    return res


if __name__ == "__main__":
    main()
