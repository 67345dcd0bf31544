"""The same as-of question through kgmem and through graphiti-core's ``search()``.

    python -m benchmarks.graphiti_asof --group scale1000000 --questions 200   # a loaded group
    (benchmarks.neo4j_scale runs it in the same run on the 1M-fact group)

Question: "which facts had subject P at valid time V, as known at K?". kgmem answers with
``Memory.facts(P, valid_at=V, known_at=K)`` (facts with subject P, and facts of symmetric
predicates such as KNOWS with P on either side); graphiti-core 0.31 with ``Graphiti.search_()``:
P's name as the query, BM25 + BFS from P (depth 1), RRF, date filters, and its edges kept when P
is their source or, for a symmetric predicate, their target (graphiti has no symmetric
predicates, so this scope is applied to its results). Date filters:

* ``bitemporal``: ``valid_at``/``invalid_at`` *and* ``created_at``/``expired_at`` filters, i.e.
  kgmem's visibility rule spelt in graphiti's ``SearchFilters``;
* ``valid_time``: only ``valid_at``/``invalid_at`` (how graphiti is used on its own graphs,
  where it edits an edge's ``invalid_at`` in place instead of writing a new version).

Graphiti needs model clients even when a search calls none: :class:`KgmemEmbedder` adapts
kgmem's offline embedder to graphiti's ``EmbedderClient`` (used by ``--cosine``, which adds
graphiti's cosine search: a brute-force ``vector.similarity.cosine`` over every edge of the
group, so only for small groups whose facts carry ``fact_embedding``),
:class:`PassThroughCrossEncoder` keeps the given order and :class:`NoLLM` refuses every call.
Nothing touches the network.

Answers are compared as sets of version uuids (graphiti's edge uuid is kgmem's version id) and
as sets of ``(predicate, object)``; every disagreement is classified.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from graphiti_core import Graphiti
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_config import (
    EdgeReranker,
    EdgeSearchConfig,
    EdgeSearchMethod,
    SearchConfig,
)
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters
from rich.console import Console
from rich.table import Table

from benchmarks.graphiti_clients import NoLLM, PassThroughCrossEncoder
from kgmem.interop.graphiti_pipeline import KgmemEmbedder
from kgmem.memory.facade import Memory
from kgmem.store.neo4j import Neo4jStore

MODES = ("bitemporal", "valid_time")


# ------------------------------------------------------------------------ the question
@dataclass(frozen=True)
class Question:
    subject: str  # entity name (kgmem lookup, graphiti query text)
    subject_id: str
    valid_at: datetime
    known_at: datetime


def graphiti_filter(q: Question, mode: str) -> SearchFilters:
    """kgmem's visibility rule in graphiti's SearchFilters (OR of AND-lists)."""
    le, gt = ComparisonOperator.less_than_equal, ComparisonOperator.greater_than
    null = ComparisonOperator.is_null
    f = SearchFilters(
        valid_at=[[DateFilter(date=q.valid_at, comparison_operator=le)],
                  [DateFilter(comparison_operator=null)]],
        invalid_at=[[DateFilter(date=q.valid_at, comparison_operator=gt)],
                    [DateFilter(comparison_operator=null)]],
    )
    if mode == "bitemporal":
        f.created_at = [[DateFilter(date=q.known_at, comparison_operator=le)]]
        f.expired_at = [[DateFilter(comparison_operator=null)],
                        [DateFilter(date=q.known_at, comparison_operator=gt)]]
    elif mode != "valid_time":
        raise ValueError(f"mode must be one of {MODES}")
    return f


def search_config(limit: int, cosine: bool = False) -> SearchConfig:
    methods = [EdgeSearchMethod.bm25, EdgeSearchMethod.bfs]
    if cosine:
        methods.append(EdgeSearchMethod.cosine_similarity)
    return SearchConfig(
        edge_config=EdgeSearchConfig(search_methods=methods, reranker=EdgeReranker.rrf,
                                     bfs_max_depth=1),
        limit=limit,
    )


def make_questions(m: Memory, group: str, names: Sequence[str], n: int, rng: random.Random,
                   valid_range: tuple[datetime, datetime],
                   known_range: tuple[datetime, datetime] | None) -> list[Question]:
    """``n`` questions on random subjects; half of them ask at a past ``known_at`` drawn
    from ``known_range`` (when given), the rest at the store's now."""
    now = m.now()
    out: list[Question] = []
    v0, v1 = valid_range
    for i in range(n):
        name = rng.choice(list(names))
        ent = m.entity(name, group=group)["entity"]
        v = v0 + (v1 - v0) * rng.random()
        k = now
        if known_range is not None and i % 2 == 1:
            k = known_range[0] + (known_range[1] - known_range[0]) * rng.random()
        out.append(Question(name, ent.id, v, k))
    return out


def graphiti_client(store: Neo4jStore, embedder: Any) -> tuple[Graphiti, Neo4jDriver]:
    s_uri, s_db = store.uri, store.database
    user = os.environ.get("KGMEM_NEO4J_USER", "neo4j")
    password = os.environ.get("KGMEM_NEO4J_PASSWORD") or ""
    driver = Neo4jDriver(s_uri, user, password, s_db)
    g = Graphiti(graph_driver=driver, llm_client=NoLLM(), embedder=KgmemEmbedder(embedder),
                 cross_encoder=PassThroughCrossEncoder())
    return g, driver


def _classify(kg: dict[str, Any], gr: dict[str, EntityEdge], q: Question,
              limit: int) -> list[str]:
    """Why graphiti's answer differs from kgmem's (one tag per differing version)."""
    tags: list[str] = []
    for uid in gr.keys() - kg.keys():
        e = gr[uid]
        if e.expired_at is not None and e.expired_at <= q.known_at:
            tags.append("graphiti+ superseded version (expired_at <= known_at)")
        elif e.created_at > q.known_at:
            tags.append("graphiti+ version not yet known at known_at")
        else:
            tags.append("graphiti+ other")
    for uid in kg.keys() - gr.keys():
        tags.append("graphiti- truncated by limit" if len(gr) >= limit else "graphiti- other")
    return tags


async def compare(m: Memory, store: Neo4jStore, group: str, questions: Sequence[Question],
                  embedder: Any, modes: Sequence[str] = MODES, limit: int = 50,
                  cosine: bool = False, warmup: int = 10) -> dict[str, Any]:
    """Answer every question both ways; latency percentiles, ratio and agreement per mode."""
    # graphiti's queries name properties kgmem does not write (e.g. reference_time): the
    # server's per-query notices would flood the log
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    g, driver = graphiti_client(store, embedder)
    try:
        if driver._init_task is not None:  # graphiti builds its indexes on first use
            await driver._init_task
        cfg = search_config(limit, cosine)

        def kgmem_answer(q: Question) -> dict[str, Any]:
            return {v.id: v for v in m.facts(q.subject, valid_at=q.valid_at,
                                              known_at=q.known_at, group=group)}

        def in_scope(e: EntityEdge, q: Question) -> bool:
            # kgmem answers symmetric predicates (KNOWS, MARRIED_TO...) from either side;
            # graphiti has no such notion, so its candidates get the same scope
            return e.source_node_uuid == q.subject_id or (
                e.target_node_uuid == q.subject_id and m.predicate(e.name, group).symmetric)

        async def graphiti_answer(q: Question, mode: str) -> dict[str, EntityEdge]:
            res = await g.search_(q.subject, config=cfg, group_ids=[group],
                                  search_filter=graphiti_filter(q, mode),
                                  bfs_origin_node_uuids=[q.subject_id])
            return {e.uuid: e for e in res.edges if in_scope(e, q)}

        for q in questions[:warmup]:  # plan caches, page cache
            kgmem_answer(q)
            for mode in modes:
                await graphiti_answer(q, mode)
        kg_lat: list[float] = []
        kg_ans: list[dict[str, Any]] = []
        for q in questions:
            t = time.perf_counter()
            kg_ans.append(kgmem_answer(q))
            kg_lat.append(time.perf_counter() - t)
        out: dict[str, Any] = {
            "questions": len(questions), "limit": limit, "cosine": cosine,
            "graphiti_methods": [x.value for x in cfg.edge_config.search_methods]
            if cfg.edge_config else [],
            "kgmem": _pct(kg_lat),
            "kgmem_answer_sizes": _pct_plain([len(a) for a in kg_ans]),
        }
        for mode in modes:
            lat: list[float] = []
            same_versions = same_answers = 0
            why: Counter[str] = Counter()
            examples: list[dict[str, Any]] = []
            for q, kg in zip(questions, kg_ans, strict=True):
                t = time.perf_counter()
                gr = await graphiti_answer(q, mode)
                lat.append(time.perf_counter() - t)
                if gr.keys() == kg.keys():
                    same_versions += 1
                else:
                    tags = _classify(kg, gr, q, 2 * limit)
                    why.update(set(tags))
                    if len(examples) < 3:
                        examples.append({
                            "subject": q.subject, "valid_at": q.valid_at.isoformat(),
                            "known_at": q.known_at.isoformat(),
                            "kgmem": sorted(f"{v.subject} {v.predicate} {v.object}"
                                            for v in kg.values()),
                            "graphiti": sorted(f"{e.name} {e.fact}" for e in gr.values()),
                            "why": sorted(set(tags)),
                        })
                kg_pairs = {(v.predicate, v.object_id) for v in kg.values()}
                gr_pairs = {(e.name, e.target_node_uuid) for e in gr.values()}
                same_answers += kg_pairs == gr_pairs
            n = max(len(questions), 1)
            p = _pct(lat)
            out[mode] = {
                "graphiti": p,
                "ratio_p50_graphiti_over_kgmem": p["p50_ms"] / max(out["kgmem"]["p50_ms"], 1e-9),
                "agree_versions": same_versions / n,
                "agree_answers": same_answers / n,
                "disagreements": dict(why),
                "examples": examples,
            }
        return out
    finally:
        await driver.close()


def _pct(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs or [0.0]) * 1000
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95)),
            "n": len(xs)}


def _pct_plain(xs: list[int]) -> dict[str, float]:
    a = np.asarray(xs or [0])
    return {"p50": float(np.percentile(a, 50)), "max": float(a.max())}


def print_table(res: dict[str, Any], title: str, console: Console | None = None) -> None:
    console = console or Console()
    t = Table(title=title)
    for col in ("system / mode", "p50 ms", "p95 ms", "graphiti/kgmem p50", "same versions",
                "same answers"):
        t.add_column(col, justify="left" if col == "system / mode" else "right")
    k = res["kgmem"]
    t.add_row("kgmem facts(valid_at, known_at)", f"{k['p50_ms']:.2f}", f"{k['p95_ms']:.2f}",
              "1.00", "-", "-")
    for mode in MODES:
        if mode not in res:
            continue
        r = res[mode]
        t.add_row(f"graphiti search_() [{mode}]", f"{r['graphiti']['p50_ms']:.2f}",
                  f"{r['graphiti']['p95_ms']:.2f}",
                  f"{r['ratio_p50_graphiti_over_kgmem']:.1f}x", f"{r['agree_versions']:.1%}",
                  f"{r['agree_answers']:.1%}")
    console.print(t)
    for mode in MODES:
        if mode in res and res[mode]["disagreements"]:
            console.print(f"  {mode} disagreements: {res[mode]['disagreements']}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from benchmarks.scale import BASE
    from kgmem.embed import get_default_embedder

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--group", required=True, help="a group of the scale generator (personN)")
    ap.add_argument("--people", type=int, required=True)
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--cosine", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale"))
    args = ap.parse_args(argv)
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    store = Neo4jStore()
    m = Memory(store=store, extractor=None)
    rng = random.Random(23)
    names = [f"person{i}" for i in range(args.people)]
    qs = make_questions(m, args.group, names, args.questions, rng,
                        (BASE, BASE.replace(year=BASE.year + 26)), None)
    res = asyncio.run(compare(m, store, args.group, qs, get_default_embedder(),
                              limit=args.limit, cosine=args.cosine))
    print_table(res, f"as-of question: kgmem vs graphiti-core search() on {args.group}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"graphiti-asof-{args.group}.json").write_text(json.dumps(res, indent=2))
    store.close()
    return res


if __name__ == "__main__":
    main()
