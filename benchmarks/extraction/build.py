"""Regenerate ``utterances.jsonl`` from the hand-written split sources.

    python -m benchmarks.extraction.build
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "utterances.jsonl"


def build() -> list[dict]:
    rows: list[dict] = []
    for split in ("test", "dev"):
        try:
            mod = importlib.import_module(f"benchmarks.extraction.split_{split}")
        except ModuleNotFoundError:
            continue
        for i, item in enumerate(mod.ITEMS):
            rows.append(item.to_json(split, i))
    return rows


def main() -> None:
    rows = build()
    with OUT.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["split"]] = counts.get(row["split"], 0) + 1
    print(f"wrote {len(rows)} utterances to {OUT} {counts}")


if __name__ == "__main__":
    main()
