"""The LLM extractor beside the offline one, on the same dev sets, with its cost per turn.

    python -m benchmarks.extraction.llm_compare [--sets realchat,documents] [--sessions N]
        [--fake] [--per-turn] [--no-offline] [--out DIR]

The LLM endpoint is any OpenAI-compatible server from the ``KGMEM_LLM_*`` settings
(``KGMEM_LLM_BASE_URL``, ``_MODEL``, ``_API_KEY``, ``_CHUNK_TOKENS``...; docs/llm.md), or with
``--fake`` a local fake server that answers ``{"facts": []}`` and bills the prompt it receives
(one token per word or punctuation mark: ``tests/llm/fakeserver.py``): cost only, for the
tokens-per-turn figure without a model. ``--per-turn`` also runs the extractor with one turn
per request (``chunk_tokens=0``), the old request shape, in the same run.

Sets (the ones the offline rules are scored on):

* ``realchat``: the hand-labelled LoCoMo dev sessions (``benchmarks/extraction/realchat.py``:
  recall of required facts, precision over distinct extracted facts); ``--sessions N`` keeps
  the first N sessions (by conversation and session number) for a slow endpoint;
* ``documents``: the document dev set (``benchmarks/extraction/documents.py``);
* ``notes``: the agent-notes dev cases and the negative set (``benchmarks/extraction/notes.py``:
  the first-look cases are not run); a negative case's facts are false memories.

Printed per extractor: required facts right / labelled, recall, precision; for the LLM: turns,
sittings, requests (HTTP attempts) and requests per sitting, prompt and completion tokens per
turn, seconds per turn, cost when ``KGMEM_LLM_PRICES`` prices the model, and the load average.
Writes ``report.json`` and the per-fact outputs of each run under
``benchmarks/out/extraction/llm_compare/``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.extraction import realchat

OUT = Path(__file__).resolve().parents[1] / "out" / "extraction" / "llm_compare"


@contextmanager
def endpoint(fake: bool, cache_dir: Path | None = None, **overrides: Any) -> Iterator[Any]:
    """An LLM extractor: from the settings, or pointed at the counting fake server."""
    from kgmem.ingest.llm import LLMExtractor

    if not fake:
        ex = LLMExtractor.from_settings(**overrides)
        try:
            yield ex
        finally:
            ex.close()
        return
    from tests.llm.fakeserver import FakeOpenAI, counting

    server = FakeOpenAI()
    server.route_path("/v1/chat/completions", counting())
    ex = LLMExtractor(server.base_url, "fake-counting", cache=False, concurrency=1,
                      **overrides)
    try:
        yield ex
    finally:
        ex.close()
        server.close()


def llm_cost(stats: dict[str, Any], turns: int, sittings: int, seconds: float
             ) -> dict[str, Any]:
    def per(n: float, d: int) -> float | None:
        return round(n / d, 2) if d else None

    return {"turns": turns, "sittings": sittings, "chunks": stats.get("chunks"),
            "requests": stats["requests"], "calls": stats["calls"],
            "requests_per_sitting": per(stats["requests"], sittings),
            "prompt_tokens_per_turn": per(stats["prompt_tokens"], turns),
            "completion_tokens_per_turn": per(stats["completion_tokens"], turns),
            "seconds_per_turn": per(seconds, turns), "cost_usd": stats["cost_usd"],
            "failed_episodes": stats["failed_episodes"], "dropped_facts": stats["dropped_facts"],
            "unquoted_times": stats.get("unquoted_times"), "cache_hits": stats["cache_hits"]}


def run_realchat(extractor: Any, items: dict[tuple[int, int], list[dict[str, Any]]],
                 labels: list[dict[str, Any]]) -> dict[str, Any]:
    stats = getattr(extractor, "stats", None)
    if stats is not None:
        stats.reset()
    extracted, wall, _cpu = realchat.extract_sessions(extractor, items)
    result = realchat.score(labels, items, extracted)
    s = result["summary"]
    turns = sum(len(v) for v in items.values())
    out: dict[str, Any] = {
        "right": s["required"]["correct"], "required": s["required"]["labels"],
        "recall": s["required"]["recall"], "precision": s["precision"]["precision"],
        "extracted": s["precision"]["extracted"], "seconds": round(wall, 2),
        "labels": result["labels"], "facts": result["facts"]}
    if stats is not None:
        out["llm"] = llm_cost(stats.to_dict(), turns, len(items), wall)
    return out


def run_documents(extractor: Any) -> dict[str, Any]:
    from benchmarks.extraction import documents
    from benchmarks.extraction.document_labels import DOCS

    docs = [d for d in DOCS if d.round == "dev"]
    stats = getattr(extractor, "stats", None)
    if stats is not None:
        stats.reset()
    t0 = time.perf_counter()
    res = documents.score(docs, extractor)
    wall = time.perf_counter() - t0
    out: dict[str, Any] = {"right": res["right"], "required": res["required"],
                           "recall": round(res["right"] / res["required"], 4)
                           if res["required"] else None,
                           "precision": None if res["precision"] is None
                           else round(res["precision"], 4),
                           "extracted": res["extracted"], "seconds": round(wall, 2),
                           "labels": res["labels"], "facts": res["facts"]}
    if stats is not None:
        out["llm"] = llm_cost(stats.to_dict(), len(docs), len(docs), wall)
    return out


def run_notes(extractor: Any) -> dict[str, Any]:
    """The notes dev cases and the negative set (``benchmarks/extraction/notes.py``); the
    first-look cases stay unseen."""
    from benchmarks.extraction import notes
    from benchmarks.extraction.notes_labels import NEGATIVE, NOTES

    cases = tuple(c for c in NOTES if c.split == "dev") + NEGATIVE
    stats = getattr(extractor, "stats", None)
    if stats is not None:
        stats.reset()
    t0 = time.perf_counter()
    res = notes.score_cases(cases, notes.run_cases(extractor, cases))
    wall = time.perf_counter() - t0
    kept = [t for g, t in res["summary"].items() if g != "negative"]
    neg = res["summary"].get("negative", {})
    right = sum(t.get("found", 0) for t in kept)
    required = sum(t.get("required", 0) for t in kept)
    facts = sum(t.get("facts", 0) for t in kept)
    out: dict[str, Any] = {
        "right": right, "required": required,
        "recall": round(right / required, 4) if required else None,
        "precision": round(sum(t.get("right", 0) for t in kept) / facts, 4) if facts else None,
        "extracted": facts, "seconds": round(wall, 2),
        "negative_clean": f"{neg.get('clean', 0)}/{neg.get('cases', 0)}",
        "false_memories": neg.get("facts", 0) - neg.get("right", 0),
        "labels": [r for r in res["rows"] if "found" in r],
        "facts": [r for r in res["rows"] if "right" in r]}
    if stats is not None:
        turns = sum(len(c.turns) for c in cases)
        out["llm"] = llm_cost(stats.to_dict(), turns, len(cases), wall)
    return out


def _f(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def print_rows(title: str, rows: dict[str, dict[str, Any]]) -> None:
    print(title)
    head = (f"  {'extractor':16} {'right':>9} {'recall':>7} {'precision':>9} {'facts':>6} "
            f"{'req/sitting':>11} {'prompt tok/turn':>15} {'compl tok/turn':>14} "
            f"{'s/turn':>7} {'cost $':>8}")
    print(head)
    for name, r in rows.items():
        c = r.get("llm") or {}
        cost = c.get("cost_usd")
        print(f"  {name:16} {r['right']:>4}/{r['required']:<4} {_f(r['recall']):>7} "
              f"{_f(r['precision']):>9} {r['extracted']:>6} "
              f"{_f(c.get('requests_per_sitting')):>11} "
              f"{_f(c.get('prompt_tokens_per_turn')):>15} "
              f"{_f(c.get('completion_tokens_per_turn')):>14} "
              f"{_f(c.get('seconds_per_turn')):>7} "
              f"{'-' if cost is None else f'{cost:.4f}':>8}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="realchat,documents,notes")
    ap.add_argument("--sessions", type=int, default=None,
                    help="score only the first N real-chat sessions (a slow endpoint)")
    ap.add_argument("--fake", action="store_true",
                    help="the counting fake server instead of KGMEM_LLM_* (cost only)")
    ap.add_argument("--per-turn", action="store_true",
                    help="also run with one turn per request (chunk_tokens=0)")
    ap.add_argument("--no-offline", action="store_true", help="skip the offline extractor")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from kgmem.errors import KgmemError
    from kgmem.ingest import OfflineExtractor

    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    report: dict[str, Any] = {"fake": args.fake, "load_average": os.getloadavg()[0],
                              "model": "fake-counting" if args.fake
                              else os.environ.get("KGMEM_LLM_MODEL"), "sets": {}}
    offline = None if args.no_offline else OfflineExtractor()
    shapes = [("llm", {})] + ([("llm per turn", {"chunk_tokens": 0})] if args.per_turn else [])
    for name in sets:
        rows: dict[str, dict[str, Any]] = {}
        if name == "realchat":
            labels = realchat.load_labels()
            items = realchat.session_items(labels)
            keys = sorted(items)[:args.sessions] if args.sessions else sorted(items)
            items = {k: items[k] for k in keys}
            labels = [lab for lab in labels if (lab["conv"], lab["session"]) in items]
            if offline is not None:
                rows["offline"] = run_realchat(offline, items, labels)
            for label, kw in shapes:
                try:
                    with endpoint(args.fake, **kw) as ex:
                        rows[label] = run_realchat(ex, items, labels)
                except KgmemError as exc:
                    print(f"{label}: {exc}", file=sys.stderr)
                    return 2
            title = f"real-chat dev set: {len(items)} sessions, {sum(map(len, items.values()))} turns"
        elif name == "notes":
            if offline is not None:
                rows["offline"] = run_notes(offline)
            for label, kw in shapes:
                with endpoint(args.fake, **kw) as ex:
                    rows[label] = run_notes(ex)
            title = "notes dev cases (and the negative set: false memories)"
        elif name == "documents":
            if offline is not None:
                rows["offline"] = run_documents(offline)
            for label, kw in shapes:
                with endpoint(args.fake, **kw) as ex:
                    rows[label] = run_documents(ex)
            title = "document dev set"
        else:
            raise SystemExit(f"unknown set {name!r} (realchat, documents, notes)")
        print_rows(title + (" (fake server: no facts, cost only)" if args.fake else ""), rows)
        for label, r in rows.items():
            if "false_memories" in r:
                print(f"  {label}: negative set {r['negative_clean']} cases clean, "
                      f"{r['false_memories']} false memories")
        out = args.out / name
        out.mkdir(parents=True, exist_ok=True)
        for label, r in rows.items():
            slug = label.replace(" ", "_")
            for part in ("labels", "facts"):
                with (out / f"{slug}.{part}.jsonl").open("w", encoding="utf-8") as fh:
                    for row in r.pop(part):
                        fh.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
        report["sets"][name] = rows
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"load average {report['load_average']:.1f}; wrote {args.out}/report.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
