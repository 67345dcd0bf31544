"""Where do the embedded and the Neo4j store rank differently? ``python -m benchmarks.store_parity``

Replays LoCoMo conversations (default: conversation 0, the dev set) into both stores the way
``python -m benchmarks locomo`` does (:class:`benchmarks.kgmem_system.KgmemSystem`), asks every
usable question on both, and records what each search backend call returned. Episodes are
compared by their LoCoMo turn id (episode ids differ between stores), facts by text.

Prints, per backend component (``keyword_episodes``, ``vector_episodes``,
``episode_neighbours``, ...), over the calls both stores made for the same question:

* ``same list``: fraction of calls whose results are identical in order;
* ``same set``: identical as sets (only the order differs);
* ``top-10 overlap``: mean |A10 & B10| / max(|A10|, |B10|);
* ``jaccard``: mean Jaccard of the whole lists;

and the final turn recall_any@10 of each store, plus the questions where they disagree.
``--show N`` prints the first N differing keyword lists side by side.
"""

from __future__ import annotations

import argparse
import functools
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.datasets.locomo import load_locomo
from benchmarks.kgmem_system import KgmemSystem
from benchmarks.locomo_baselines import parse_index_set, select_conversations

COMPONENTS = (
    "keyword_episodes", "vector_episodes", "episode_neighbours", "keyword_facts",
    "vector_facts", "graph_facts", "keyword_entities", "vector_entities", "match_entities",
    "episodes_in_window", "episodes_mentioning_window",
)


def _normalise(name: str, out: Any, turn_of: dict[str, str]) -> list[Any]:
    """A backend result as a store-independent list (turn ids, fact texts, entity ids)."""
    def ep(i: str | None) -> str | None:
        return None if i is None else turn_of.get(i, "?" + i[:8])

    if name in ("keyword_episodes", "vector_episodes", "episodes_in_window",
                "episodes_mentioning_window"):
        return [ep(x[0]) for x in out]
    if name == "episode_neighbours":
        return sorted((ep(k), ep(v[0]), ep(v[1])) for k, v in out.items())
    if name in ("keyword_facts", "vector_facts"):
        return [v.fact for v, _ in out]
    if name == "graph_facts":
        return [v.fact for v in out]
    if name == "match_entities":
        return sorted(out)
    return [x[0] for x in out]  # entities: ids differ between stores; lengths still compare


class Recorder:
    """Wraps a backend's component methods and keeps their normalised outputs."""

    def __init__(self, backend: Any, turn_of: dict[str, str]) -> None:
        self.calls: list[tuple[str, list[Any], list[Any]]] = []
        for name in COMPONENTS:
            fn = getattr(backend, name)
            setattr(backend, name, self._wrap(name, fn, turn_of))

    def _wrap(self, name: str, fn: Callable[..., Any], turn_of: dict[str, str]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*a: Any, **kw: Any) -> Any:
            out = fn(*a, **kw)
            raw = [x[1] for x in out] if name in ("keyword_episodes", "vector_episodes") else []
            self.calls.append((name, _normalise(name, out, turn_of), raw))
            return out

        return inner

    def take(self) -> list[tuple[str, list[Any], list[Any]]]:
        out, self.calls = self.calls, []
        return out


def run_store(store: str, haystack: Any, questions: Sequence[Any], k: int = 10) -> dict[str, Any]:
    from kgmem.retrieve.backend import get_backend

    system = KgmemSystem(store=store)
    try:
        system.index(haystack)
        rec = Recorder(get_backend(system.memory), system.turn_of)
        per_q: dict[str, Any] = {}
        for q in questions:
            ranking = system.rank(q, k)
            per_q[q.question_id] = {"turns": ranking.turn_ids, "calls": rec.take()}
        return per_q
    finally:
        system.close()


def compare(a: dict[str, Any], b: dict[str, Any], questions: Sequence[Any], show: int,
            names: tuple[str, str]) -> None:
    stats: dict[str, list[tuple[bool, bool, float, float]]] = defaultdict(list)
    shown = 0
    for q in questions:
        ca, cb = a[q.question_id]["calls"], b[q.question_id]["calls"]
        by_a: dict[str, list[Any]] = defaultdict(list)
        by_b: dict[str, list[Any]] = defaultdict(list)
        for n, lst, raw in ca:
            by_a[n].append((lst, raw))
        for n, lst, raw in cb:
            by_b[n].append((lst, raw))
        for n in set(by_a) | set(by_b):
            for (la, ra), (lb, rb) in zip(by_a[n], by_b[n]):
                sa, sb = set(map(repr, la)), set(map(repr, lb))
                top_a, top_b = set(map(repr, la[:10])), set(map(repr, lb[:10]))
                top = len(top_a & top_b) / max(len(top_a), len(top_b)) if top_a or top_b else 1.0
                jac = len(sa & sb) / len(sa | sb) if sa | sb else 1.0
                stats[n].append((la == lb, sa == sb, top, jac))
                if n == "keyword_episodes" and la != lb and shown < show:
                    shown += 1
                    print(f"\n{q.question_id} {q.question!r} gold={list(q.gold_turn_ids)}")
                    for i in range(max(len(la), len(lb))):
                        x = f"{la[i]} {ra[i]:.3f}" if i < len(la) else ""
                        y = f"{lb[i]} {rb[i]:.3f}" if i < len(lb) else ""
                        print(f"  {i:3d} {x:24s} {y:24s}{'' if x.split()[:1] == y.split()[:1] else '  *'}")
    print(f"\ncomponent (calls)              same list  same set  top-10 overlap  jaccard"
          f"   [{names[0]} vs {names[1]}]")
    for n in COMPONENTS:
        v = stats.get(n)
        if not v:
            continue
        m = len(v)
        print(f"{n:22s} ({m:4d})  {sum(x[0] for x in v) / m:8.1%}  {sum(x[1] for x in v) / m:8.1%}"
              f"  {sum(x[2] for x in v) / m:14.1%}  {sum(x[3] for x in v) / m:7.1%}")

    def hit(turns: list[str], q: Any) -> bool:
        return bool(set(turns[:10]) & set(q.gold_turn_ids))

    ha = [hit(a[q.question_id]["turns"], q) for q in questions]
    hb = [hit(b[q.question_id]["turns"], q) for q in questions]
    n = len(questions)
    print(f"\nturn recall_any@10: {names[0]} {sum(ha) / n:.1%}, {names[1]} {sum(hb) / n:.1%} "
          f"(n={n}); only {names[0]}: {sum(x and not y for x, y in zip(ha, hb))}, only "
          f"{names[1]}: {sum(y and not x for x, y in zip(ha, hb))}; identical top-10 turns: "
          f"{sum(a[q.question_id]['turns'][:10] == b[q.question_id]['turns'][:10] for q in questions) / n:.1%}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conversations", default="0", help="default 0 (the dev set)")
    ap.add_argument("--show", type=int, default=0, help="print N differing keyword lists")
    args = ap.parse_args(argv)
    ds = select_conversations(load_locomo(None, audit=True),
                              parse_index_set(args.conversations))
    task = ds.to_retrieval_task(corrected=False)
    for hid, questions in task.by_haystack().items():
        hay = task.haystacks[hid]
        emb = run_store("embedded", hay, questions)
        neo = run_store("neo4j", hay, questions)
        print(f"== conversation {hid}: {len(questions)} questions")
        compare(emb, neo, questions, args.show, ("embedded", "neo4j"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
