"""Run the offline extractor over every LoCoMo turn (real, unlabelled chat) for throughput
and a random sample of extracted facts to judge precision by hand.

    python -m benchmarks.extraction.locomo_sample [--sample 60] [--seed 0] [--n-process 1]

Reads ``$KGMEM_DATA_DIR`` or ``/work/shared/benchmarks/data/locomo/locomo10.json``. Each turn's
reference time is its session's date (naive, read as UTC); the speaker is the turn's speaker.
Writes ``benchmarks/out/extraction/locomo_facts.jsonl`` (all facts) and
``locomo_sample.jsonl`` (the sample) and prints counts, throughput and the sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent.parent / "out" / "extraction"
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.I)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}


def _path() -> Path:
    base = os.environ.get("KGMEM_DATA_DIR")
    if base:
        return Path(base) / "locomo" / "locomo10.json"
    return Path("/work/shared/benchmarks/data/locomo/locomo10.json")


def _date(text: str) -> datetime:
    m = _DATE.search(text)
    if not m:
        raise ValueError(f"bad LoCoMo date {text!r}")
    h, mi, ap, d, mon, y = m.groups()
    hour = int(h) % 12 + (12 if ap.lower() == "pm" else 0)
    return datetime(int(y), _MONTHS[mon.lower()], int(d), hour, int(mi), tzinfo=timezone.utc)


def load_turns() -> list[dict]:
    data = json.loads(_path().read_text(encoding="utf-8"))
    turns = []
    for ci, conv in enumerate(data):
        c = conv["conversation"]
        for key, value in c.items():
            if not (key.startswith("session_") and isinstance(value, list)):
                continue
            when = c.get(f"{key}_date_time")
            if not when:
                continue
            ref = _date(when)
            for t in value:
                turns.append({"conv": ci, "id": t.get("dia_id"), "speaker": t["speaker"],
                              "text": t.get("text") or "", "reference_time": ref})
    return turns


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-process", type=int, default=1)
    args = ap.parse_args(argv)

    from kgmem.ingest.offline import OfflineExtractor

    turns = load_turns()
    ex = OfflineExtractor()
    ex.extract_many(turns[:20])  # load and warm up
    t0, c0 = time.perf_counter(), time.process_time()
    results = ex.extract_many(turns, n_process=args.n_process)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0

    facts = []
    for turn, fs in zip(turns, results):
        for f in fs:
            facts.append({"turn": turn["id"], "conv": turn["conv"], "text": turn["text"],
                          "speaker": turn["speaker"], **f.to_dict()})
    by_pred = Counter(f["predicate"] for f in facts)
    by_kind = Counter(f["kind"] for f in facts)
    with_fact = sum(1 for fs in results if fs)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with (OUT_DIR / "locomo_facts.jsonl").open("w", encoding="utf-8") as fh:
        for f in facts:
            fh.write(json.dumps(f, default=str) + "\n")
    rng = random.Random(args.seed)
    sample = rng.sample(facts, min(args.sample, len(facts)))
    with (OUT_DIR / "locomo_sample.jsonl").open("w", encoding="utf-8") as fh:
        for f in sample:
            fh.write(json.dumps(f, default=str) + "\n")

    print(f"turns={len(turns)} facts={len(facts)} turns-with-facts={with_fact} "
          f"({with_fact / len(turns):.0%})")
    print(f"throughput: {len(turns) / wall:.0f} turns/s wall, {len(turns) / cpu:.0f} turns/cpu-s "
          f"(n_process={args.n_process})")
    print("by predicate:", dict(by_pred.most_common()))
    print("by kind:", dict(by_kind))
    print(f"--- random sample of {len(sample)} facts (seed {args.seed}) ---")
    for i, f in enumerate(sample):
        d = f.get("valid_at") or f.get("invalid_at") or ""
        print(f"[{i:02d}] {f['subject']} | {f['predicate']} | {f['object']} | {f['kind']} "
              f"{d[:10]}  <- {f['text'][:140]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
