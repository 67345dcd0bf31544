"""Query cost beside plain retrievers: ``python -m benchmarks query-speed [--conversations 0]``.

For the LoCoMo questions of the chosen conversations (non-adversarial, with evidence), in
alternating rounds (A B A B ...: every system once per round, so a load change on the machine
hits all of them alike), the wall-clock p50 and the CPU time per question (process time, so
other processes on a shared machine do not count) of:

* ``kgmem search+sessions``: the harness's LoCoMo query (one search and kgmem's session
  ranking, :func:`benchmarks.kgmem_api.search_with_sessions`);
* ``kgmem context@500``: :meth:`kgmem.Memory.context` at 500 tokens;
* ``minilm-turns`` and ``bm25-turns``: the plain turn retrievers of
  :mod:`benchmarks.baselines` (the query embedded with the same offline MiniLM).

kgmem replays come from the harness's cache (``--cache-dir``); kgmem embeds every query with
the model (its embedding cache bypassed), as the MiniLM retriever does. Prints a table with the ratios
to the MiniLM retriever and the load average; writes ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.baselines import BM25System, EmbeddingSystem, load_kgmem_embedder
from benchmarks.context_bench import DEFAULT_CACHE, questions_of
from benchmarks.task import Question

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "query_speed.json"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks query-speed")
    ap.add_argument("--conversations", default="0")
    ap.add_argument("--rounds", type=int, default=4, help="A B A B rounds")
    ap.add_argument("--questions", type=int, default=100, help="per conversation, at most")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    from benchmarks.datasets.locomo import load_locomo
    from benchmarks.kgmem_api import search_with_sessions
    from benchmarks.kgmem_system import KgmemSystem
    from benchmarks.locomo_baselines import parse_index_set, select_conversations
    from kgmem.embed import get_default_embedder

    ds = select_conversations(load_locomo(None, audit=True),
                              parse_index_set(args.conversations))
    task = ds.to_retrieval_task()
    embed = load_kgmem_embedder(uncached=True)
    if embed is None:
        raise SystemExit("kgmem.embed is not importable here")
    samples: dict[str, list[tuple[float, float]]] = {}
    kg = KgmemSystem("kgmem-extract", extract=True, cache_dir=args.cache_dir)
    bm25 = BM25System("turn")
    mini = EmbeddingSystem(embed, "turn", name="minilm-turns")
    try:
        for hid, hay in task.haystacks.items():
            qs = [q for q in questions_of(task) if q.haystack_id == hid][: args.questions]
            for s in (kg, bm25, mini):
                s.index(hay)
            # kgmem embeds each query with the model itself, as the MiniLM retriever does
            # (its embedding cache would answer repeated questions for free)
            kg.memory.embedder = getattr(get_default_embedder(), "inner", None) or \
                get_default_embedder()

            def kg_search(q: Question) -> Any:
                asked, known = kg.times(q)
                return search_with_sessions(kg.memory, q.question, known_at=known,
                                            reference_time=asked, group=kg.group, limit=100,
                                            kinds=kg.kinds, session_limit=50)

            systems: dict[str, Callable[[Question], Any]] = {
                "kgmem search+sessions": kg_search,
                "kgmem context@500": lambda q: kg.context(q, budget_tokens=500),
                "minilm-turns": lambda q: mini.rank(q, 10),
                "bm25-turns": lambda q: bm25.rank(q, 10),
            }
            for fn in systems.values():  # warm caches and lazy loads
                fn(qs[0])
            for _ in range(args.rounds):
                for name, fn in systems.items():
                    for q in qs:
                        w, c = time.perf_counter(), time.process_time()
                        fn(q)
                        samples.setdefault(name, []).append(
                            (time.perf_counter() - w, time.process_time() - c))
    finally:
        kg.close()
    rows = {n: {"p50_ms": 1000 * statistics.median(w for w, _ in v),
                "cpu_ms_per_question": 1000 * statistics.fmean(c for _, c in v), "n": len(v)}
            for n, v in samples.items()}
    base = rows["minilm-turns"]
    table = Table(title=f"LoCoMo query cost, conversations {args.conversations}, "
                        f"{args.rounds} alternating rounds; load average "
                        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for h in ("system", "p50 ms", "CPU ms/question", "p50 / MiniLM", "CPU / MiniLM"):
        table.add_column(h, justify="left" if h == "system" else "right")
    for n, r in rows.items():
        table.add_row(n, f"{r['p50_ms']:.1f}", f"{r['cpu_ms_per_question']:.1f}",
                      f"{r['p50_ms'] / base['p50_ms']:.1f}x",
                      f"{r['cpu_ms_per_question'] / base['cpu_ms_per_question']:.1f}x")
    Console(width=150).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "rounds": args.rounds,
                                    "conversations": args.conversations,
                                    "loadavg": os.getloadavg()}, indent=1) + "\n",
                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
