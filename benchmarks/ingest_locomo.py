"""End-to-end offline ingestion rate on all LoCoMo turns (extraction + indexing included).

    python -m benchmarks ingest-locomo [--limit N] [--threads T] [--sequential]
                                       [--extract-workers W]
                                       [--out benchmarks/out/ingest_locomo]

Each conversation goes into its own group; each turn is an episode whose reference time is
its session's date (+ turn index seconds). The embedder is MiniLM on ONNX Runtime behind a
fresh in-memory cache (cold: every text is embedded), whatever ``KGMEM_EMBED_CACHE`` says.
By default ``add_episodes(index=True)`` embeds each batch in a background thread while the
parser extracts (``--sequential``: extract everything, then ``index()``, as before).

Prints turns per wall second AND per CPU-second of this process (the machine is shared: the
wall rate depends on the other jobs, the CPU rate much less; with ``--extract-workers`` the
worker processes' CPU is counted too), the load average before and
after, entity and fact counts, and 10 sample extracted facts; writes a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console

from kgmem.embed.cache import CachedEmbedder
from kgmem.embed.onnx_minilm import OnnxMiniLM
from kgmem.ingest.formats import read_episodes
from kgmem.ingest.pipeline import make_extractor
from kgmem.memory.facade import Memory

from .datasets._common import default_data_dir


def default_data() -> Path:
    return default_data_dir() / "locomo" / "locomo10.json"


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--limit", type=int, default=None, help="first N turns only")
    ap.add_argument("--batch", type=int, default=256, help="episodes per add_episodes batch")
    ap.add_argument("--threads", type=int, default=None,
                    help="ONNX Runtime intra-op threads (default: 1 when overlapped with "
                         "extraction, else KGMEM_EMBED_THREADS or 2)")
    ap.add_argument("--workers", type=int, default=None,
                    help="embedding batches run at once (default: 2 when overlapped, else 1)")
    ap.add_argument("--no-spin", action="store_true",
                    help="ONNX Runtime threads sleep when idle instead of spinning")
    ap.add_argument("--sequential", action="store_true",
                    help="extract all turns first, then embed/index (no overlap)")
    ap.add_argument("--extract-workers", type=int, default=1,
                    help="extraction runs in this many worker processes (1: in-process)")
    ap.add_argument("--seed", type=int, default=3, help="seed of the 10 sample facts")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/ingest_locomo"))
    args = ap.parse_args(argv)
    console = Console()
    items = list(read_episodes(args.data, "locomo"))[: args.limit]
    threads = args.threads or (None if args.sequential else 1)
    workers = args.workers or (1 if args.sequential else 2)
    inner = OnnxMiniLM(intra_op_threads=threads, spin=not args.no_spin, workers=workers)
    pipeline = make_extractor()
    assert pipeline is not None
    pipeline.workers = args.extract_workers
    m = Memory(Path(tempfile.mkdtemp(prefix="kgmem-locomo-")), extractor=pipeline,
               embedder=CachedEmbedder(inner))
    # load the models and the lazily imported libraries outside the timed part (spaCy
    # pipeline, ONNX session, dateparser, the resolver's MinHash): the rate is the steady rate
    # of a process that is already up, as a server or a long import is; the one-time start is
    # printed apart
    w0, wc0 = time.perf_counter(), time.process_time()
    m.extractor.extractor.extract("warm up the model", items[0]["reference_time"])
    inner.embed(["warm up the model"])
    m.add_episodes([{"content": "Last Tuesday I adopted a dog named Rex and moved to Denver, "
                                "two weeks after my 30th birthday.",
                     "reference_time": items[0]["reference_time"], "speaker": "Warm Up",
                     "group": "warm-up"}], index=True)
    if pipeline.workers > 1:  # start the worker processes and load their models too
        text = "Last Tuesday I adopted a dog named Rex and moved to Denver. " * 100
        pipeline.extract([(text, items[0]["reference_time"], "Warm Up")]
                         * (4 * pipeline.workers * pipeline.batch_chars // len(text)))
    import datasketch  # noqa: F401  # the resolver's typo keys import it on first need
    import dateparser  # noqa: F401  # so do rare time expressions

    warm_s, warm_cpu = time.perf_counter() - w0, time.process_time() - wc0
    console.print(f"start (models, libraries, one warm-up episode in its own group): "
                  f"{warm_s:.1f} s wall, {warm_cpu:.1f} CPU-s")
    load_before = os.getloadavg()
    console.print(f"ingesting {len(items):,} LoCoMo turns "
                  f"({'sequential' if args.sequential else 'overlapped'}, ONNX threads "
                  f"{inner.intra_op_threads} x {inner.workers} concurrent batches, "
                  f"load average {load_before[0]:.2f})")
    t0, c0 = time.perf_counter(), time.process_time() + _workers_cpu(pipeline)
    if args.sequential:
        m.add_episodes(items, batch_size=args.batch)
        t_ex = time.perf_counter()
        indexed = m.index()  # embeddings + keyword/vector indexes for episodes, facts, entities
        index_s = time.perf_counter() - t_ex
    else:
        m.add_episodes(items, batch_size=args.batch, index=True)
        indexed, index_s = None, None
    secs = time.perf_counter() - t0
    cpu = time.process_time() + _workers_cpu(pipeline) - c0
    pipeline.close()
    load_after = os.getloadavg()
    groups = sorted({i["group"] for i in items})
    facts = [f for g in groups for f in m.facts(group=g)]
    stats = [m.stats(g) for g in groups]
    lineages = sum(s["lineages"] for s in stats)
    entities = sum(s["entities"] for s in stats)
    sample = random.Random(args.seed).sample(facts, min(10, len(facts)))
    result = {
        "turns": len(items), "mode": "sequential" if args.sequential else "overlapped",
        "onnx_threads": inner.intra_op_threads, "onnx_spin": inner.spin,
        "embed_workers": inner.workers, "extract_workers": pipeline.workers,
        "cpu_count": os.cpu_count(),
        "seconds": secs, "turns_per_s": len(items) / secs,
        "cpu_seconds": cpu, "turns_per_cpu_s": len(items) / cpu,
        "load_before": load_before, "load_after": load_after,
        "entities": entities, "fact_lineages": lineages, "facts_current": len(facts),
        "sample_facts": [f"{f.describe()}  ({f.group})" for f in sample],
        "indexed_items": indexed, "index_seconds": index_s,
        "start_seconds": warm_s, "start_cpu_seconds": warm_cpu,
    }
    console.print(f"{len(items):,} turns in {secs:.1f} s wall = {result['turns_per_s']:.0f} turns/s; "
                  f"{cpu:.1f} CPU-s = {result['turns_per_cpu_s']:.0f} turns per CPU-second; "
                  f"load average {load_before[0]:.2f} -> {load_after[0]:.2f}")
    console.print(f"{entities:,} entities, {lineages:,} fact lineages ({len(facts):,} current facts)")
    for line in result["sample_facts"]:
        console.print(f"  {line}", highlight=False, soft_wrap=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ingest_locomo.json").write_text(json.dumps(result, indent=2))
    return result


def _workers_cpu(pipeline: object) -> float:
    """CPU-seconds (user + system) the extraction worker processes have used so far."""
    total = 0
    for pid in getattr(pipeline, "worker_pids", lambda: [])():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
