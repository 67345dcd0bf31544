"""Are two runs' rankings the same, question by question?

    python -m benchmarks.same_rankings OLD.jsonl[.gz] NEW.jsonl[.gz] [--out DIR] [--label L]

Reads the per-question outputs of two LoCoMo runs (``<system>.jsonl`` of a run folder) and
compares each question's ranked turns and ranked sessions (the whole lists the run kept).
Prints the number of questions with identical rankings; with ``--out`` writes
``<label>.rankings.jsonl`` (per question: identical or not, both top 10 turns, digests of both
rankings) and ``<label>.summary.json``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any


def read_run(path: Path) -> dict[str, dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        rows = [json.loads(line) for line in f if line.strip()]
    return {r["question_id"]: r for r in rows}


def _digest(r: dict[str, Any]) -> str:
    both = json.dumps([r.get("ranked_turn_ids"), r.get("ranked_session_ids")])
    return hashlib.sha256(both.encode()).hexdigest()[:16]


def compare(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]
            ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows = []
    for qid in sorted(set(old) | set(new), key=lambda q: (q.split("_qa")[0], int(q.split("qa")[-1]))):
        a, b = old.get(qid), new.get(qid)
        same = a is not None and b is not None and _digest(a) == _digest(b)
        rows.append({
            "question_id": qid, "identical": same,
            "conversation": (a or b or {}).get("haystack_id"),
            "old_top10_turns": (a or {}).get("ranked_turn_ids", [])[:10],
            "new_top10_turns": (b or {}).get("ranked_turn_ids", [])[:10],
            "old_rankings_sha256": _digest(a) if a else None,
            "new_rankings_sha256": _digest(b) if b else None,
        })
    differing = Counter(str(r["conversation"]) for r in rows if not r["identical"])
    summary = {"questions": len(rows), "in_both": len(set(old) & set(new)),
               "identical_turn_and_session_rankings": sum(r["identical"] for r in rows),
               "differing_by_conversation": dict(sorted(differing.items()))}
    return rows, summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--label", default="compare")
    args = ap.parse_args(argv)
    rows, summary = compare(read_run(args.old), read_run(args.new))
    print(json.dumps(summary))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / f"{args.label}.rankings.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        (args.out / f"{args.label}.summary.json").write_text(
            json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0 if summary["identical_turn_and_session_rankings"] == summary["questions"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
