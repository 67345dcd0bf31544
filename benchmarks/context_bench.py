"""What reaches the model: ``python -m benchmarks context [--dataset locomo|zyphra] ...``.

Retrieval recall at k says whether the evidence is in a system's top k; an agent reads a
context block of a fixed token budget instead. This suite measures the block.

**Metric** (named ``evidence-in-context``): for every question with gold evidence turns
(LoCoMo: non-adversarial questions with usable evidence; Zyphra: every variant), at each
budget (default 200, 500, 1,000 tokens):

* ``any``: at least one gold evidence turn is in the block;
* ``all``: every gold evidence turn is in the block;
* ``answer``: where the gold answer is a short span (at most ``SHORT_ANSWER_WORDS`` words),
  its normalised text appears in the normalised block text (None otherwise).

A turn is *in the block* when the system put it there: for a baseline, a turn it packed;
for kgmem, an episode line of :class:`kgmem.retrieve.ContextBlock` (``block.episodes``), the
episode mapped back to its turn.

**Tokens**: one counter for every system, the one kgmem's budget uses
(:func:`kgmem.embed.tokens.count_tokens`, MiniLM WordPiece), on the exact text of the block.

Systems (``--systems``):

* ``kgmem-extract``: :meth:`kgmem.Memory.context` on a replay with offline extraction on (the
  product default; :class:`benchmarks.kgmem_system.KgmemSystem`, replays cached);
* ``recent``: the most recent turns that fit (what an agent without memory keeps);
* ``bm25``, ``minilm``: turns ranked by :class:`benchmarks.baselines.BM25System` /
  :class:`benchmarks.baselines.EmbeddingSystem` (all-MiniLM-L6-v2), packed greedily;
* ``fusion``: BM25 and MiniLM rankings fused by reciprocal rank fusion (k = 60), packed
  greedily.

Baseline blocks have no preamble: one line per turn, ``[8 May 2023] Caroline: text``;
greedy packing walks the ranking and keeps every turn that still fits.

Writes ``--out`` (default ``benchmarks/out/context/``): ``<dataset>/<system>.jsonl`` (one
line per question and budget), ``summary.json`` and ``report.md``; prints the tables.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from benchmarks.baselines import BM25System, EmbeddingSystem, load_kgmem_embedder
from benchmarks.report import markdown_table, write_markdown_report
from benchmarks.task import Haystack, Question, RetrievalTask, Turn

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "benchmarks" / "out" / "context"
DEFAULT_CACHE = REPO / "benchmarks" / "out" / "cache" / "kgmem-replays"
BUDGETS = (200, 500, 1000)
SYSTEMS = ("kgmem-extract", "recent", "bm25", "minilm", "fusion")
SHORT_ANSWER_WORDS = 6
RRF_K = 60
ADVERSARIAL = 5  # LoCoMo's category number of adversarial questions


def count_tokens(text: str) -> int:
    """The one token counter of this suite: kgmem's budget counter."""
    from kgmem.embed.tokens import count_tokens as kgmem_count

    return kgmem_count(text)


_NORM = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Lower case, every run of non-alphanumerics one space (for the answer-span check)."""
    return " " + _NORM.sub(" ", text.lower()).strip() + " "


def short_answer(answer: object) -> str | None:
    """The gold answer when it is a short span (at most SHORT_ANSWER_WORDS words), else None."""
    if answer is None:
        return None
    text = str(answer).strip()
    if not text or len(text.split()) > SHORT_ANSWER_WORDS or not normalise(text).strip():
        return None
    return text


def turn_line(t: Turn) -> str:
    """A baseline block's line for one turn: ``[8 May 2023] Caroline: text`` (dates as
    kgmem's compact blocks write them)."""
    from kgmem.retrieve.context import day

    when = day(t.timestamp) if t.timestamp else "?"
    return f"[{when}] {t.speaker}: {t.text}" if t.speaker else f"[{when}] {t.text}"


@dataclass(frozen=True)
class Block:
    text: str
    tokens: int
    turn_ids: tuple[str, ...]


def pack(ranked: Sequence[str], lines: dict[str, str], costs: dict[str, int],
         budget: int, *, chronological: bool = False) -> Block:
    """Greedy packing: walk ``ranked`` and keep every turn whose line still fits; the block's
    tokens are counted on its text (and lines dropped from the end until it fits)."""
    kept: list[str] = []
    used = 0
    for tid in ranked:
        c = costs[tid]
        if used + c <= budget:
            kept.append(tid)
            used += c
        if used >= budget - 3:
            break
    order = sorted(kept, key=list(lines).index) if chronological else kept
    while True:
        text = "\n".join(lines[t] for t in order)
        tokens = count_tokens(text) if order else 0
        if tokens <= budget:
            return Block(text, tokens, tuple(order))
        order = order[:-1] if not chronological else order[1:]


class TurnPacker:
    """A baseline: a turn ranking packed into the budget."""

    def __init__(self, name: str, rank: Callable[[Question], list[str]] | None,
                 indexers: Sequence[Any] = ()) -> None:
        self.name = name
        self._rank = rank
        self._indexers = indexers
        self.lines: dict[str, str] = {}
        self.costs: dict[str, int] = {}

    def index(self, haystack: Haystack) -> None:
        self.lines = {t.turn_id: turn_line(t) for t in haystack.turns() if t.text.strip()}
        self.costs = {tid: count_tokens(ln) for tid, ln in self.lines.items()}

    def blocks(self, q: Question, budgets: Sequence[int]) -> dict[int, Block]:
        if self._rank is None:  # most recent turns, newest first, shown in order
            ranked = list(reversed(list(self.lines)))
            return {b: pack(ranked, self.lines, self.costs, b, chronological=True)
                    for b in budgets}
        ranked = [t for t in self._rank(q) if t in self.lines]
        return {b: pack(ranked, self.lines, self.costs, b) for b in budgets}


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    score: dict[str, float] = {}
    for r in rankings:
        for n, t in enumerate(r):
            score[t] = score.get(t, 0.0) + 1.0 / (k + n + 1)
    return sorted(score, key=lambda t: -score[t])


class KgmemBlocks:
    """kgmem's :meth:`Memory.context` on a replayed haystack."""

    def __init__(self, name: str, cache_dir: Path | None, store: str = "embedded") -> None:
        from benchmarks.kgmem_system import KgmemSystem

        self.name = name
        self.system = KgmemSystem(name, extract=name == "kgmem-extract", store=store,
                                  cache_dir=cache_dir if store == "embedded" else None)

    def index(self, haystack: Haystack) -> None:
        self.system.index(haystack)

    def blocks(self, q: Question, budgets: Sequence[int]) -> dict[int, Block]:
        out = {}
        for b in budgets:
            block = self.system.context(q, budget_tokens=b)
            turn_of = self.system.turn_of
            ids = tuple(t for ep in block.episodes if (t := turn_of.get(ep.id)) is not None)
            out[b] = Block(block.text, count_tokens(block.text) if block.text else 0, ids)
        return out

    def close(self) -> None:
        self.system.close()


def build_systems(names: Sequence[str], cache_dir: Path | None, store: str) -> list[Any]:
    systems: list[Any] = []
    bm25: BM25System | None = None
    mini: EmbeddingSystem | None = None
    if {"bm25", "fusion"} & set(names):
        bm25 = BM25System("turn")
    if {"minilm", "fusion"} & set(names):
        embed = load_kgmem_embedder(uncached=True)
        if embed is None:
            raise SystemExit("kgmem.embed is not importable: the MiniLM baselines need it")
        mini = EmbeddingSystem(embed, "turn", name="minilm-turns")

    def ranked(sys_: Any) -> Callable[[Question], list[str]]:
        return lambda q: list(sys_.rank(q, 10).turn_ids or [])

    indexed = [s for s in (bm25, mini) if s is not None]
    for n in names:
        if n in ("kgmem-extract", "kgmem"):
            systems.append(KgmemBlocks(n, cache_dir, store))
        elif n == "recent":
            systems.append(TurnPacker("recent", None))
        elif n == "bm25":
            systems.append(TurnPacker("bm25", ranked(bm25)))
        elif n == "minilm":
            systems.append(TurnPacker("minilm", ranked(mini)))
        elif n == "fusion":
            b, m = ranked(bm25), ranked(mini)
            systems.append(TurnPacker("fusion", lambda q: rrf([b(q), m(q)])))
        else:
            raise SystemExit(f"unknown system {n!r}; choose from {', '.join(SYSTEMS)}")
    return [*indexed, *systems]  # the shared rankers index first


def score(q: Question, block: Block) -> dict[str, Any]:
    gold = set(q.gold_turn_ids)
    have = gold & set(block.turn_ids)
    ans = short_answer(q.answer)
    return {
        "any": bool(have), "all": have == gold,
        "answer": None if ans is None else normalise(ans) in normalise(block.text),
        "tokens": block.tokens, "gold": sorted(gold), "found": sorted(have),
        "turns_in_block": len(block.turn_ids),
    }


def questions_of(task: RetrievalTask) -> list[Question]:
    """Non-adversarial questions with gold evidence turns."""
    return [q for q in task.questions if q.gold_turn_ids
            and q.extra.get("category_number") != ADVERSARIAL]


def run(task: RetrievalTask, systems: list[Any], budgets: Sequence[int], out: Path,
        progress: bool = True) -> dict[str, list[dict[str, Any]]]:
    """Every system's blocks for every question; per-question records by system name."""
    qs = questions_of(task)
    by_h: dict[str, list[Question]] = {}
    for q in qs:
        by_h.setdefault(q.haystack_id, []).append(q)
    records: dict[str, list[dict[str, Any]]] = {
        s.name: [] for s in systems if hasattr(s, "blocks")}
    cols = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn())
    with Progress(*cols, disable=not progress) as bar:
        job = bar.add_task(f"{task.name}: haystacks", total=len(by_h))
        for hid, hqs in by_h.items():
            hay = task.haystacks[hid]
            for s in systems:
                bar.update(job, description=f"{task.name} {hid}: index {s.name}")
                s.index(hay)
            for s in systems:
                if not hasattr(s, "blocks"):
                    continue
                bar.update(job, description=f"{task.name} {hid}: {s.name}")
                for q in hqs:
                    t0 = time.perf_counter()
                    blocks = s.blocks(q, budgets)
                    dt = (time.perf_counter() - t0) / len(budgets)
                    for b, block in blocks.items():
                        assert block.tokens <= b, (s.name, q.question_id, b, block.tokens)
                        records[s.name].append({
                            "question_id": q.question_id, "haystack_id": hid,
                            "category": q.category, "question": q.question,
                            "gold_answer": None if q.answer is None else str(q.answer),
                            "budget": b, "latency_s": round(dt, 5), **score(q, block),
                        })
            bar.advance(job)
    out.mkdir(parents=True, exist_ok=True)
    for name, recs in records.items():
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
    return records


def summarise(records: dict[str, list[dict[str, Any]]], budgets: Sequence[int]
              ) -> dict[str, Any]:
    """{system: {budget: {"overall": {...}, "by_category": {cat: {...}}}}} (fractions)."""

    def agg(rs: list[dict[str, Any]]) -> dict[str, Any]:
        ans = [r["answer"] for r in rs if r["answer"] is not None]
        return {"n": len(rs), "any": _mean([r["any"] for r in rs]),
                "all": _mean([r["all"] for r in rs]),
                "answer": _mean(ans), "n_answer": len(ans),
                "tokens_mean": _mean([r["tokens"] for r in rs])}

    out: dict[str, Any] = {}
    for name, recs in records.items():
        out[name] = {}
        for b in budgets:
            rs = [r for r in recs if r["budget"] == b]
            cats = sorted({r["category"] for r in rs})
            out[name][str(b)] = {"overall": agg(rs), "by_category": {
                c: agg([r for r in rs if r["category"] == c]) for c in cats}}
    return out


def _mean(xs: Sequence[float | bool]) -> float | None:
    return sum(float(x) for x in xs) / len(xs) if xs else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def tables(summary: dict[str, Any], budgets: Sequence[int], title: str
           ) -> list[tuple[str, list[str], list[list[str]]]]:
    """Per budget: systems x (any, all, answer, per-category any)."""
    out = []
    for b in budgets:
        first = next(iter(summary.values()))[str(b)]
        cats = list(first["by_category"])
        headers = ["system", "any %", "all %", "answer %", "tokens"] + [
            f"{c} (n={first['by_category'][c]['n']}) any %" for c in cats]
        rows = []
        for name, per in summary.items():
            s = per[str(b)]
            o = s["overall"]
            rows.append([name, _pct(o["any"]), _pct(o["all"]), _pct(o["answer"]),
                         f"{o['tokens_mean']:.0f}"]
                        + [_pct(s["by_category"].get(c, {}).get("any")) for c in cats])
        out.append((f"{title}, evidence-in-context at {b} tokens (n={first['overall']['n']})",
                    headers, rows))
    return out


def load_task(dataset: str, args: argparse.Namespace) -> RetrievalTask:
    if dataset == "locomo":
        from benchmarks.datasets.locomo import load_locomo
        from benchmarks.locomo_baselines import parse_index_set, select_conversations

        ds = load_locomo(args.data, audit=True)
        if args.conversations:
            ds = select_conversations(ds, parse_index_set(args.conversations))
        return ds.to_retrieval_task(corrected=False)
    import dataclasses

    from benchmarks.datasets.zyphra import load_zyphra

    zs = load_zyphra(None)
    if args.logs:
        keep = {int(x) for x in args.logs.split(",") if x.strip()}
        zs = dataclasses.replace(zs, logs={k: v for k, v in zs.logs.items() if k in keep},
                                 questions=[q for q in zs.questions if q.log_id in keep])
    return zs.to_retrieval_task()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks context",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="locomo", help="locomo, zyphra or locomo,zyphra")
    ap.add_argument("--conversations", default="0-4",
                    help="LoCoMo conversations (dev 0-4, held-out 5-9)")
    ap.add_argument("--logs", default=None, help="Zyphra log ids (default: all)")
    ap.add_argument("--data", type=Path, default=None, help="path to locomo10.json")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--store", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    t0 = time.time()
    summaries: dict[str, Any] = {}
    sections: list[tuple[str, str]] = []
    for dataset in [d.strip() for d in args.dataset.split(",") if d.strip()]:
        task = load_task(dataset, args)
        systems = build_systems(names, None if args.no_cache else args.cache_dir, args.store)
        try:
            recs = run(task, systems, budgets, args.out / dataset, not args.no_progress)
        finally:
            for s in systems:
                getattr(s, "close", lambda: None)()
        summaries[dataset] = summarise(recs, budgets)
        label = dataset + (f" conversations {args.conversations}" if dataset == "locomo"
                           else f" logs {args.logs or 'all'}")
        for title, h, rows in tables(summaries[dataset], budgets, label):
            t = Table(title=title, title_justify="left")
            for i, c in enumerate(h):
                t.add_column(c, justify="left" if i == 0 else "right")
            for r in rows:
                t.add_row(*r)
            console.print(t)
            sections.append((title, markdown_table(h, rows)))
    meta = {"argv": list(argv) if argv is not None else None, "budgets": budgets,
            "systems": names, "store": args.store, "conversations": args.conversations,
            "logs": args.logs, "token_counter": "kgmem.embed.tokens.count_tokens",
            "elapsed_s": round(time.time() - t0, 1),
            "finished": datetime.now().astimezone().isoformat(timespec="seconds")}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(
        {"meta": meta, "metric": "evidence-in-context", "summaries": summaries},
        indent=1) + "\n", encoding="utf-8")
    sections.insert(0, ("Setup", "```json\n" + json.dumps(meta, indent=1) + "\n```"))
    write_markdown_report(args.out / "report.md", "Context blocks: evidence-in-context",
                          sections)
    console.print(f"wrote {args.out}/ (summary.json, report.md, per-question JSONL)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
