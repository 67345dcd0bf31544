"""Extraction throughput on short chat utterances (the evaluation texts, repeated).

    python -m benchmarks.extraction.throughput [--repeat 5] [--batch-size 256] [--n-process 1]

Prints utterances/s of wall-clock time and per CPU-second of this process (the latter does not
move with other load on a shared machine), for the spaCy pipeline alone and for
``OfflineExtractor.extract_many`` (pipeline + rules + time resolution).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .evaluate import load


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--n-process", type=int, default=1)
    args = ap.parse_args(argv)
    from kgmem.ingest.offline import OfflineExtractor

    rows = load("all")
    items = [{"text": r["text"], "reference_time": r["reference_time"], "speaker": r["speaker"]}
             for r in rows] * args.repeat
    ex = OfflineExtractor(batch_size=args.batch_size)
    ex.extract_many(items[:64])
    texts = [i["text"] for i in items]
    w, c = time.perf_counter(), time.process_time()
    for _ in ex.nlp.pipe(texts, batch_size=args.batch_size):
        pass
    pw, pc = time.perf_counter() - w, time.process_time() - c
    w, c = time.perf_counter(), time.process_time()
    ex.extract_many(items, n_process=args.n_process)
    ew, ec = time.perf_counter() - w, time.process_time() - c
    n = len(items)
    out = {
        "utterances": n, "batch_size": args.batch_size, "n_process": args.n_process,
        "load_average": os.getloadavg()[0],
        "spacy_pipe_per_s": round(n / pw, 1), "spacy_pipe_per_cpu_s": round(n / pc, 1),
        "extract_many_per_s": round(n / ew, 1),
        "extract_many_per_cpu_s": round(n / ec, 1) if args.n_process == 1 else None,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
