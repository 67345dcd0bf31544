"""Context blocks over documents, notes, email and chat: ``python -m benchmarks context-docs``.

A long ``source="text"`` episode (a biography, meeting notes, an email) has to give the block
the passage that answers the question, not its first lines, and not nothing because the whole
does not fit. The set (``benchmarks/datasets/context_docs.json``, hand-written for this suite)
holds a few documents, notes, an email, chat turns (one changing a plan) and distractors;
each question names its evidence sentence (verbatim in one item) and a short answer.

Metric, per budget (default 200, 500, 1,000 tokens):

* ``evidence``: the evidence sentence is in the block (normalised text: JSON's ``\n`` read
  as a space, lower case, every run of non-alphanumerics one space), whole;
* ``answer``: the short answer is in the block (normalised);
* ``item``: the item holding the evidence has a line in the block (kgmem: an episode line).

Systems: kgmem's :meth:`kgmem.Memory.context` (offline extraction on, the product default;
documents stored with ``source="text"``, chat with ``source="message"``), and BM25 over whole
items packed greedily (``[date] speaker: text`` lines, the context suite's baseline form), to
show what a retriever that keeps items whole gives at these budgets. One token counter for
both (:func:`kgmem.embed.tokens.count_tokens`). Writes ``--out`` (per-question JSONL and
``summary.json``) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.baselines import BM25Index, tokenize
from benchmarks.context_bench import BUDGETS, count_tokens, normalise, pack

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "benchmarks" / "datasets" / "context_docs.json"
DEFAULT_OUT = REPO / "benchmarks" / "out" / "context_docs"


def load(path: Path = DATA) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    texts = {i["id"]: i["content"] for i in data["items"]}
    for q in data["questions"]:
        holders = [k for k, t in texts.items() if q["evidence"] in t]
        if len(holders) != 1:
            raise ValueError(f"evidence of {q['q']!r} must be in exactly one item: {holders}")
        q["item"] = holders[0]
    return data


def _line(item: dict[str, Any]) -> str:
    from kgmem.retrieve.context import day

    when = day(datetime.fromisoformat(item["reference_time"].replace("Z", "+00:00")))
    who = f"{item['speaker']}: " if item.get("speaker") else ""
    return f"[{when}] {who}{item['content']}"


def _score(q: dict[str, Any], text: str, items: Sequence[str]) -> dict[str, Any]:
    # kgmem quotes stored text as JSON strings: a line break inside it reads as "\n"
    norm = normalise(text.replace("\\n", " "))
    return {"evidence": normalise(q["evidence"]) in norm,
            "answer": normalise(q["answer"]) in norm,
            "item": q["item"] in items}


def run(data: dict[str, Any], budgets: Sequence[int]) -> dict[str, list[dict[str, Any]]]:
    from kgmem.memory.facade import Memory

    out: dict[str, list[dict[str, Any]]] = {"kgmem": [], "bm25-items": []}
    items = data["items"]
    lines = {i["id"]: _line(i) for i in items}
    costs = {k: count_tokens(v) for k, v in lines.items()}
    bm25 = BM25Index([tokenize(i["content"]) for i in items])
    with tempfile.TemporaryDirectory() as tmp:
        m = Memory(Path(tmp) / "store")
        try:
            ep_item: dict[str, str] = {}
            for i in items:
                ep = m.add_episode(i["content"], i["reference_time"], source=i["source"],
                                   speaker=i.get("speaker"), source_description=i["id"])
                ep_item[ep.id] = i["id"]
            for q in data["questions"]:
                scores = bm25.scores(tokenize(q["q"]))
                ranked = [items[n]["id"] for n in sorted(range(len(items)),
                                                         key=lambda n: -scores[n])]
                for b in budgets:
                    block = m.context(q["q"], budget_tokens=b)
                    shown = [ep_item[e.id] for e in block.episodes if e.id in ep_item]
                    out["kgmem"].append({"question": q["q"], "budget": b, "tokens": block.tokens,
                                         **_score(q, block.text, shown)})
                    base = pack(ranked, lines, costs, b)
                    out["bm25-items"].append({"question": q["q"], "budget": b,
                                              "tokens": base.tokens,
                                              **_score(q, base.text, base.turn_ids)})
        finally:
            m.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks context-docs",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    data = load(args.data)
    records = run(data, budgets)
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {}
    table = Table(title=f"Context over documents, notes, email and chat "
                        f"(n={len(data['questions'])} questions)", title_justify="left")
    for h in ("system", "budget", "evidence %", "answer %", "item %", "tokens"):
        table.add_column(h, justify="left" if h == "system" else "right")
    for name, recs in records.items():
        with (args.out / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        for b in budgets:
            rs = [r for r in recs if r["budget"] == b]
            row = {k: 100 * sum(r[k] for r in rs) / len(rs) for k in ("evidence", "answer", "item")}
            row["tokens"] = sum(r["tokens"] for r in rs) / len(rs)
            summary.setdefault(name, {})[str(b)] = row
            table.add_row(name, str(b), f"{row['evidence']:.1f}", f"{row['answer']:.1f}",
                          f"{row['item']:.1f}", f"{row['tokens']:.0f}")
    (args.out / "summary.json").write_text(json.dumps(
        {"metric": "evidence sentence in the block", "budgets": budgets,
         "summary": summary}, indent=1) + "\n", encoding="utf-8")
    Console(width=120).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
