"""How much weight extracted facts get against the verbatim turns, measured on LoCoMo.

``python -m benchmarks.fact_weights --conversations 0-4 --weights 1,0.5,0.25,0 [--cache-dir D]``

With extraction on (the product default), facts are ranked in their own lists (keyword,
vector, graph, facts of time-matched episodes) and fused with the episode lists by reciprocal
rank; a fact then lifts the episode that states it (search's "source first"). This script
replays each conversation once with extraction on (or reuses a cached replay), then asks
every question once per weight of the fact lists, and prints the harness's metrics (turn
recall_any@10, session recall_any@5: docs/BENCHMARKS.md) for each weight, with the
extraction-off replay as the reference. Writes ``summary.json`` and per-question rankings
(``<weight>.jsonl.gz``) to ``--out``.

Dev conversations only (0-4) for choosing a weight; 5-9 are held out.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

from benchmarks.datasets.locomo import load_locomo
from benchmarks.kgmem_system import KgmemSystem
from benchmarks.locomo_baselines import parse_index_set, select_conversations
from benchmarks.runner import Ranking, score_ranking

FACT_LISTS = ("keyword_facts", "vector_facts", "graph_facts", "episode_facts")
METRICS = ("turn.recall_any@10", "session.recall_any@5", "turn.recall_all@10")


def rank_with(system: KgmemSystem, question: Any, weights: dict[str, float] | None) -> Ranking:
    """:meth:`KgmemSystem.rank` with RRF weights for the fact lists."""
    from kgmem.retrieve.search import SearchParams, run_search
    from kgmem.retrieve.sessions import rank_sessions

    asked, known = system.times(question)
    m = system.memory
    outcome = run_search(m, SearchParams(question.question, known_at=known, group=system.group,
                                         reference_time=asked, limit=system.limit,
                                         kinds=system.kinds, weights=weights))
    sessions_found = rank_sessions(m, outcome, system.group, limit=50)
    turns: list[str] = []
    for r in outcome.results:
        ids = [r.id] if r.kind == "episode" else list(r.episode_ids[:1])
        for eid in ids:
            tid = system.turn_of.get(eid)
            if tid is not None and tid not in turns:
                turns.append(tid)
    sessions: list[str] = []
    for s in sessions_found:
        sid = next((system._session_of[t] for e in s.episode_ids
                    if (t := system.turn_of.get(e)) in system._session_of), None)
        if sid is not None and sid not in sessions:
            sessions.append(sid)
    return Ranking(turn_ids=turns, session_ids=sessions, info={})


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", default="0-4")
    ap.add_argument("--weights", default="1,0.5,0.25,0")
    ap.add_argument("--lists", default=None,
                    help='more variants as JSON: {"name": {"graph_facts": 1, "vector_facts": 0.25}}')
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/fact_weights"))
    args = ap.parse_args(argv)
    ds = load_locomo(None, audit=True)
    ds = select_conversations(ds, parse_index_set(args.conversations))
    task = ds.to_retrieval_task()
    weights = [float(w) for w in args.weights.split(",") if w]
    variants: dict[str, dict[str, float] | None] = {
        f"w{w:g}": dict.fromkeys(FACT_LISTS, w) for w in weights}
    variants.update(json.loads(args.lists) if args.lists else {})
    on = KgmemSystem("kgmem-extract", extract=True, cache_dir=args.cache_dir)
    off = KgmemSystem("kgmem", extract=False, cache_dir=args.cache_dir)
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in [*variants, "off"]}
    for hid, questions in task.by_haystack().items():
        hay = task.haystacks[hid]
        on.index(hay)
        off.index(hay)
        for q in questions:
            for name, w in variants.items():
                vals, turns, sessions = score_ranking(q, rank_with(on, q, w),
                                                      hay.turn_to_session)
                records[name].append({"question_id": q.question_id, "metrics": vals,
                                      "ranked_turn_ids": (turns or [])[:20]})
            vals, turns, sessions = score_ranking(q, rank_with(off, q, None),
                                                  hay.turn_to_session)
            records["off"].append({"question_id": q.question_id, "metrics": vals,
                                   "ranked_turn_ids": (turns or [])[:20]})
        print(f"conversation {hid}: {len(questions)} questions", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"conversations": args.conversations, "fact_lists": FACT_LISTS}
    print(f"{'variant':10s} " + " ".join(f"{m:>22s}" for m in METRICS))
    for name, recs in records.items():
        row = {}
        for metric in METRICS:
            vals = [r["metrics"][metric] for r in recs if r["metrics"].get(metric) is not None]
            row[metric] = sum(vals) / len(vals) if vals else None
        row["n"] = len(recs)
        summary[name] = row
        print(f"{name:10s} " + " ".join(f"{100 * row[m]:22.1f}" for m in METRICS))
        with gzip.open(args.out / f"{name}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for r in recs:
                fh.write(json.dumps(r) + "\n")
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


if __name__ == "__main__":
    main()
