"""Instruction-like content (kgmem.trust.instruction_flags): detection on the poisoning suite
and false positives on real chat (issue 16).

Metric 1: the share of the poisoning texts (benchmarks/datasets/poisoning.py, 55 texts of
four shapes) that get at least one flag. Metric 2: the false-positive rate, the share of
LoCoMo turns that get a flag, on a fixed sample of 200 turns of the **dev** conversations 0-4
(seeded; 40 per conversation) and on every turn of 0-4. Held-out conversations 5-9 are never
read. Prints a table and writes every flagged turn and the sample's per-turn outputs to
``benchmarks/out/trust_flags/latest.json``:

    KGMEM_BENCH_DATA=/work/shared/benchmarks/data python -m benchmarks.trust_flags
"""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

from kgmem.trust import instruction_flags

from .datasets.locomo import load_locomo
from .datasets.poisoning import BENIGN, POISONING

DEV = range(5)


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--out", default="benchmarks/out/trust_flags/latest.json")
    args = ap.parse_args(argv)

    ds = load_locomo()
    turns = [t for c in ds.conversations if c.conv_index in DEV for t in c.turns]
    rng = random.Random(args.seed)
    per_conv = args.sample // len(DEV)
    sample = [t for c in ds.conversations if c.conv_index in DEV
              for t in rng.sample(c.turns, per_conv)]
    sample_rows = [{"dia_id": t.dia_id, "speaker": t.speaker, "text": t.text,
                    "flags": instruction_flags(t.text)} for t in sample]
    all_flagged = [{"dia_id": t.dia_id, "text": t.text, "flags": instruction_flags(t.text)}
                   for t in turns if instruction_flags(t.text)]
    detected = [(k, t, instruction_flags(t)) for k, t in POISONING]
    benign = [(t, instruction_flags(t)) for t in BENIGN]
    result: dict[str, object] = {
        "poisoning_detected": sum(bool(f) for _, _, f in detected),
        "poisoning_total": len(detected),
        "benign_flagged": sum(bool(f) for _, f in benign),
        "benign_total": len(benign),
        "sample_flagged": sum(bool(r["flags"]) for r in sample_rows),
        "sample_total": len(sample_rows),
        "dev_flagged": len(all_flagged),
        "dev_total": len(turns),
        "seed": args.seed,
        "conversations": list(DEV),
        "flagged_dev_turns": all_flagged,
        "poisoning": [{"shape": k, "text": t, "flags": f} for k, t, f in detected],
        "sample": sample_rows,
    }
    print("| set | flagged | of | rate |\n|---|---|---|---|")
    for name, a, b in (("poisoning suite (detection)", "poisoning_detected", "poisoning_total"),
                       ("hand-written ordinary imperatives", "benign_flagged", "benign_total"),
                       (f"LoCoMo dev sample (seed {args.seed})", "sample_flagged",
                        "sample_total"),
                       ("LoCoMo dev, every turn of 0-4", "dev_flagged", "dev_total")):
        n, d = int(result[a]), int(result[b])  # type: ignore[call-overload]
        print(f"| {name} | {n} | {d} | {n / d:.3f} |")
    for row in all_flagged:
        print(f"  flagged {row['dia_id']}: {row['flags']} {row['text'][:100]!r}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    print(f"load {os.getloadavg()[0]:.1f}; wrote {out}")
    return result


if __name__ == "__main__":
    main()
