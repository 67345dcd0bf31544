"""The issue-18 table: one million facts, the embedded store and Neo4j in one run.

    KGMEM_NEO4J_HOME=H KGMEM_NEO4J_BOLT_PORT=.. KGMEM_NEO4J_HTTP_PORT=.. KGMEM_NEO4J_HEAP=4g \\
    KGMEM_NEO4J_PAGECACHE=5g KGMEM_NEO4J_URI=bolt://127.0.0.1:.. \\
      python -m benchmarks.neo4j_1m --from-embedded DIR --bulk-home H \\
          --out benchmarks/results/2026-12-02/neo4j-1m

``DIR`` is an embedded store holding group ``scale1000000`` (``python -m benchmarks scale
--facts 1000000 --path DIR``) whose search vectors were computed (``index_pending`` with the
hashing embedder). Unless ``--skip-load``, the Neo4j server at ``H`` (dedicated: its database
is replaced) is loaded with the bulk path of ``kgmem neo4j import`` (kgmem.store.neo4j.bulk:
CSV with the embedded store's vectors copied, ``neo4j-admin database import``, then the
indexes populated), each phase timed.

Then, on the same questions, one question at a time in turn (embedded, Neo4j, Neo4j step by
step): as-of lookup (``Memory.facts(person, valid_at=V, known_at=now)``), the entity profile,
history, 3-hop slice paths, changes since (``Memory.changes`` and ``changed_versions`` for a
``since`` that returns 10-1,000 records), and search (facts + entities, hashing vectors). The
"step by step" column is the same Neo4j store without its one-round-trip reads
(:class:`kgmem.store.named_reads.StepByStep`): the before/after of the round trips in one run.
PROFILE summaries of the as-of and path queries, the server's memory settings and use, and the
load average go in ``result.json``; ``README.md`` holds the table, ``latency.png`` the plot.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.neo4j_bulk import bulk_load, uptime
from benchmarks.neo4j_scale import plan_summary, profile, search_queries, server_info
from benchmarks.scale import BASE
from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import search, warm
from kgmem.store.base import TimeFilter
from kgmem.store.named_reads import StepByStep
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.named import facts_query, neighbourhood_query
from kgmem.store.sqlite import EmbeddedStore

STORES = ("embedded", "neo4j", "neo4j_step_by_step")


def pcts(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs) * 1000
    return {"p50_ms": round(float(np.percentile(a, 50)), 3),
            "p95_ms": round(float(np.percentile(a, 95)), 3), "n": len(xs)}


def memory_use(store: Neo4jStore) -> dict[str, Any]:
    """The server's heap in use (JMX) and its page cache figures, where the server tells."""
    out: dict[str, Any] = {}
    try:
        rows = store.cypher("CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
                        "RETURN attributes.HeapMemoryUsage.value.properties")
        if rows:
            heap = rows[0][0]
            out["heap_used_bytes"] = heap.get("used")
            out["heap_committed_bytes"] = heap.get("committed")
            out["heap_max_bytes"] = heap.get("max")
    except Exception as exc:  # noqa: BLE001 - a figure the edition may not expose
        out["heap_error"] = str(exc)[:200]
    try:
        rows = store.cypher("CALL dbms.queryJmx('org.neo4j:*') YIELD name, attributes "
                        "WHERE name CONTAINS 'Page cache' RETURN name, attributes")
        out["page_cache_jmx"] = {r[0]: {k: v.get("value") for k, v in r[1].items()}
                                 for r in rows}
    except Exception as exc:  # noqa: BLE001
        out["page_cache_error"] = str(exc)[:200]
    return out


def interleaved(fns: dict[str, Callable[[Any], Any]], items: list[Any]
                ) -> tuple[dict[str, list[float]], dict[str, list[Any]]]:
    """Each item asked of every store in turn (the order rotating), so that load changes hit
    all columns alike; returns times and answers per store."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    answers: dict[str, list[Any]] = {k: [] for k in fns}
    names = list(fns)
    for i, item in enumerate(items):
        for k in names[i % len(names):] + names[:i % len(names)]:
            t = time.perf_counter()
            got = fns[k](item)
            times[k].append(time.perf_counter() - t)
            answers[k].append(got)
    return times, answers


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-embedded", type=Path, required=True)
    ap.add_argument("--group", default="scale1000000")
    ap.add_argument("--bulk-home", type=Path, default=None)
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--reuse-import", action="store_true",
                    help="`kgmem neo4j import` already ran into BULK_HOME/import/kgmem")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/2026-12-02/neo4j-1m"))
    args = ap.parse_args(argv)
    console = Console()
    g = args.group
    res: dict[str, Any] = {"uptime_start": uptime(), "group": g,
                           "command": "python -m benchmarks.neo4j_1m "
                           + " ".join(sys.argv[1:] if argv is None else argv)}
    src = EmbeddedStore(args.from_embedded)
    if not args.skip_load:
        if args.bulk_home is None:
            raise SystemExit("--bulk-home (a dedicated server home) or --skip-load")
        res["load"] = bulk_load(src, [g], args.bulk_home, console,
                                reuse_import=args.reuse_import)
        console.print({k: v for k, v in res["load"].items() if "per_s" in k or "seconds" in k})
        save(res, args.out)
    store = Neo4jStore()
    res["server"] = server_info(store)
    me = Memory(store=src, extractor=None)
    mn = Memory(store=store, extractor=None)
    ms = Memory(store=StepByStep(store), extractor=None)  # type: ignore[arg-type]
    mems = {"embedded": me, "neo4j": mn, "neo4j_step_by_step": ms}
    res["stats"] = {k: m.stats(g) for k, m in mems.items() if k != "neo4j_step_by_step"}
    now = mn.now()
    rng = random.Random(11)
    n_people = 100_000
    people = [f"person{rng.randrange(n_people)}" for _ in range(args.queries + 20)]
    vs = [BASE + timedelta(days=rng.randrange(0, 9500)) for _ in people]
    pairs = [(f"person{rng.randrange(n_people)}", f"person{rng.randrange(n_people)}")
             for _ in range(args.queries // 2 + 10)]
    # since: a client catching up with the last one to three write batches (a batch of
    # assert_facts shares one transaction time: 5,000 changes each in this store), i.e. the
    # 2nd to 4th newest distinct change time
    with src._lock:
        times_c = [r[0] for r in src._conn.execute(
            "SELECT DISTINCT created_at FROM changes WHERE group_id=? ORDER BY created_at DESC "
            "LIMIT 4", (g,))]
    from kgmem.timeutil import from_micros

    sinces = [from_micros(times_c[rng.randrange(1, len(times_c))])
              for _ in range(args.queries // 2 + 10)]

    def ids(vs_: list[Any]) -> list[str]:
        return sorted(v.id for v in vs_)

    reads: dict[str, tuple[list[Any], Callable[[Memory, Any], Any]]] = {
        "as_of_lookup": (list(zip(people, vs, strict=True)),
                         lambda m, x: ids(m.facts(x[0], valid_at=x[1], known_at=now, group=g))),
        "entity_profile": (list(zip(people, vs, strict=True)), lambda m, x: (lambda d: (
            ids(d["facts"]), ids(d["incoming"])))(m.entity(x[0], valid_at=x[1], known_at=now,
                                                             group=g))),
        "history": (people, lambda m, x: ids(m.history(x, group=g))),
        "paths_3hop_slice": (pairs, lambda m, x: [[h.fact.id for h in p.hops] for p in m.paths(
            x[0], x[1], max_hops=3, group=g, limit=20)]),
        "changes_since": (sinces, lambda m, x: [c.id for c in m.changes(x, group=g)]),
        "changed_versions_since": (sinces, lambda m, x: ids(m.changed_versions(x, group=g))),
    }
    res["latency"], res["agree"] = {}, {}
    for name, (items, fn) in reads.items():
        # every question asked once of every store first: the page cache holds what the
        # questions touch, and what a read builds once (an entity's summary history, which
        # Memory.entity brings up to date) is built before any store is timed
        timed = items[10:]
        for x in items:
            for m in mems.values():
                fn(m, x)
        t, answers = interleaved(
            {k: (lambda x, m=m, fn=fn: fn(m, x)) for k, m in mems.items()}, timed)
        res["latency"][name] = {k: pcts(v) for k, v in t.items()}
        res["latency"][name]["mean_answer_size"] = float(np.mean(
            [len(a) if isinstance(a, list) else len(a[0]) + len(a[1])
             for a in answers["neo4j"]]))
        res["agree"][name] = {
            "neo4j_vs_embedded": sum(a == b for a, b in zip(answers["neo4j"],
                                                            answers["embedded"])) / len(timed),
            "neo4j_vs_step_by_step": sum(a == b for a, b in zip(
                answers["neo4j"], answers["neo4j_step_by_step"])) / len(timed)}
        console.print(name, res["latency"][name], res["agree"][name])
        save(res, args.out)  # what is measured so far survives a stop

    # search: facts + entities, the hashing vectors both stores were loaded with
    emb = HashingEmbedder(384)
    t0 = time.perf_counter()
    warm(me, g, embedder=emb)  # the embedded store's ANN indexes (built or loaded once)
    res["search_embedded_warm_seconds"] = time.perf_counter() - t0
    qs = search_queries(random.Random(31), n_people, args.searches + 5)

    def one(m: Memory, q: str) -> list[str]:
        return [r.id for r in search(m, q, known_at=now, group=g, limit=10,
                                     kinds=("facts", "entities"), embedder=emb,
                                     auto_index=False)]

    for q in qs[:5]:
        one(me, q)
        one(mn, q)
    t, answers = interleaved({"embedded": lambda q: one(me, q), "neo4j": lambda q: one(mn, q)},
                             qs[5:])
    res["latency"]["search"] = {k: pcts(v) for k, v in t.items()}
    res["agree"]["search"] = {"neo4j_vs_embedded_top10_same": sum(
        a == b for a, b in zip(answers["neo4j"], answers["embedded"])) / len(qs[5:])}

    # PROFILE the queries Memory sends for an as-of lookup and a 3-hop path
    when = TimeFilter(valid_at=BASE + timedelta(days=4000), known_at=now)
    key = {"sx_name": "person1", "sx_norm": "person1", "sx_first": False}
    hit = mn.writes.predicates.cached(g)
    mirror = sorted(p.name for p in (hit[1] if hit else {}).values() if p.symmetric)
    q_asof = facts_query(True, False, False, False, False, False, False, bool(mirror))
    base = {"g": g, "k": when.known_at, "v": when.valid_at, "k_l": None, "v_l": None}
    for p in ("k", "v"):
        base[f"{p}_l"] = base[p].replace(tzinfo=None)
    pk = {"ax_name": "person1", "ax_norm": "person1", "ax_first": False,
          "bx_name": "person2", "bx_norm": "person2", "bx_first": False}
    res["profile"] = {
        "as_of_lookup (one query: name lookup + stamp + facts)": profile(
            store, q_asof, {**base, **key, "mirror": mirror}),
        "paths_3hop (one query: both lookups + 2 hops from a, 1 from b)": profile(
            store, neighbourhood_query(2, 1, False, False), {**base, **pk}),
    }
    for name, prof in res["profile"].items():
        prof["summary"] = plan_summary(prof)
        console.print(f"[bold]{name}[/]: db hits {prof['total_db_hits']}")
        for line in prof["summary"]:
            console.print(f"   {line}", markup=False, highlight=False)
    res["memory"] = memory_use(store)
    res["server"] = server_info(store)
    res["uptime_end"] = uptime()
    save(res, args.out)
    write_readme(res, args.out)
    plot(res, args.out)
    table = Table(title=f"{res['stats']['neo4j']['lineages']:,} facts, embedded vs Neo4j")
    for col in ("read", *STORES):
        table.add_column(col, justify="right")
    for name, per in res["latency"].items():
        table.add_row(name, *(f"{per[k]['p50_ms']:.2f} / {per[k]['p95_ms']:.2f}"
                              if k in per else "-" for k in STORES))
    console.print(table)
    store.close()
    return res


def save(res: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(res, indent=2, default=str))


TARGETS = {"as_of_lookup": 5.0, "paths_3hop_slice": 50.0, "changes_since": 50.0,
           "changed_versions_since": 50.0}


def write_readme(res: dict[str, Any], out: Path) -> None:
    lines = ["# 1M facts: embedded and Neo4j in one run (issue 18)", "",
             f"Command: `{res['command']}`. Load at start: `{res['uptime_start']}`; "
             f"at end: `{res['uptime_end']}`.", "",
             "p50 / p95 ms. *step by step* is the same Neo4j store without its one-round-trip "
             "reads (before/after in one run); *ratio* = step by step p50 / Neo4j p50.", "",
             "| read | embedded | Neo4j | Neo4j step by step | ratio | target (Neo4j p50) |",
             "|---|---|---|---|---|---|"]
    for name, per in res["latency"].items():
        per = {k: v for k, v in per.items() if isinstance(v, dict)}
        cells = [f"{per[k]['p50_ms']:.2f} / {per[k]['p95_ms']:.2f}" if k in per else "-"
                 for k in STORES]
        ratio = (f"{per['neo4j_step_by_step']['p50_ms'] / per['neo4j']['p50_ms']:.2f}x"
                 if "neo4j_step_by_step" in per else "-")
        target = TARGETS.get(name)
        verdict = "-" if target is None else (
            f"≤ {target:g}: {'met' if per['neo4j']['p50_ms'] <= target else 'MISSED'}")
        lines.append(f"| {name} | {' | '.join(cells)} | {ratio} | {verdict} |")
    lines += ["", "Answers agree (share of questions with identical answers): "
              + "; ".join(f"{k}: " + ", ".join(f"{a} {v:.0%}" for a, v in d.items())
                          for k, d in res["agree"].items()), ""]
    if "load" in res:
        ld = res["load"]
        lines += ["## Load (kgmem neo4j import: CSV with the embedded vectors copied + "
                  "neo4j-admin import, then indexes populated)", "",
                  "| phase | seconds |", "|---|---|",
                  f"| CSV (vectors copied from the embedded store) | {ld['csv_seconds']:.0f} |",
                  f"| neo4j-admin database import | {ld['admin_import_seconds']:.0f} |",
                  f"| server start | {ld['start_seconds']:.0f} |",
                  f"| indexes created and populated | "
                  f"{ld['schema_and_index_population_seconds']:.0f} |",
                  f"| counters, clocks, empty lists, labels | {ld['finish_seconds']:.0f} |", "",
                  f"Rate: **{ld['facts_per_s_csv_and_import']:,.0f} facts/s** "
                  f"({ld['items_per_s_csv_and_import']:,.0f} items/s) for CSV + import; "
                  f"{ld['facts_per_s_until_indexes_online']:,.0f} facts/s until every index is "
                  f"online. Items: {ld['counts']}. Load: `{ld['uptime_start']}` -> "
                  f"`{ld['uptime_end']}`.", ""]
    srv = res["server"]
    lines += ["## Server", "", f"{srv.get('server')}; heap max "
              f"{srv.get('server.memory.heap.max_size')}, page cache "
              f"{srv.get('server.memory.pagecache.size')}; store "
              f"{(srv.get('store_bytes') or 0) / 1e9:.2f} GB; memory in use: "
              f"`{json.dumps({k: v for k, v in res['memory'].items() if 'heap' in k})}`", "",
              "## PROFILE", ""]
    for name, prof in res["profile"].items():
        lines += [f"**{name}**: {prof['total_db_hits']} db hits, scans: "
                  f"{prof['scans'] or 'none'}", "", "```", *prof["summary"], "```", ""]
    (out / "README.md").write_text("\n".join(lines))


def plot(res: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(res["latency"])
    fig, ax = plt.subplots(figsize=(10, 4.5))
    w = 0.27
    for i, k in enumerate(STORES):
        p50 = [res["latency"][n].get(k, {}).get("p50_ms", np.nan) for n in names]
        p95 = [res["latency"][n].get(k, {}).get("p95_ms", np.nan) for n in names]
        xs = np.arange(len(names)) + (i - 1) * w
        ax.bar(xs, p50, w, label=f"{k} p50")
        ax.scatter(xs, p95, marker="_", s=200, color="black", zorder=3,
                   label="p95" if i == 0 else None)
    for n, t in TARGETS.items():
        if n in names:
            j = names.index(n)
            ax.hlines(t, j - 0.45, j + 0.45, colors="red", linestyles="dashed",
                      label="target" if n == "as_of_lookup" else "_nolegend_")
    ax.set_yscale("log")
    ax.set_ylabel("ms (log)")
    ax.set_xticks(np.arange(len(names)), names, rotation=20)
    ax.set_title(f"{res['stats']['neo4j']['lineages']:,} facts: embedded vs Neo4j "
                 f"(load: {res['uptime_start'].split('load average:')[-1].strip()})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "latency.png", dpi=110)


if __name__ == "__main__":
    main()
