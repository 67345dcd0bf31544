"""End-to-end offline ingestion rate on all LoCoMo turns (extraction + indexing included).

    python -m benchmarks.ingest_locomo [--limit N] [--out benchmarks/out/ingest_locomo]

Each conversation goes into its own group; each turn is an episode whose reference time is
its session's date (+ turn index seconds). Prints turns/s, entity and fact counts, and 10
sample extracted facts; writes a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from kgmem.ingest.formats import read_episodes
from kgmem.ingest.pipeline import make_extractor
from kgmem.memory import Memory


def default_data() -> Path:
    import os

    base = os.environ.get("KGMEM_BENCH_DATA")
    root = Path(base) if base else Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "data"
    return root / "locomo" / "locomo10.json"


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--limit", type=int, default=None, help="first N turns only")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/ingest_locomo"))
    args = ap.parse_args(argv)
    console = Console()
    items = list(read_episodes(args.data, "locomo"))[: args.limit]
    m = Memory(Path(tempfile.mkdtemp(prefix="kgmem-locomo-")), extractor=make_extractor())
    m.extractor.extractor.extract("warm up the model", items[0]["reference_time"])  # load spaCy
    t0, c0 = time.perf_counter(), time.process_time()
    with Progress(console=console) as prog:
        task = prog.add_task(f"ingesting {len(items):,} LoCoMo turns", total=len(items))
        m.add_episodes(items, batch_size=args.batch, on_batch=lambda n: prog.advance(task, n))
        t_embed = time.perf_counter()
        indexed = m.index()  # embeddings + keyword/vector indexes for episodes, facts, entities
        embed_s = time.perf_counter() - t_embed
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    groups = sorted({i["group"] for i in items})
    facts = [f for g in groups for f in m.facts(group=g)]
    all_versions = sum(m.stats(g)["lineages"] for g in groups)
    entities = sum(m.stats(g)["entities"] for g in groups)
    rng = random.Random(3)
    sample = rng.sample(facts, min(10, len(facts)))
    result = {
        "turns": len(items), "seconds": secs, "turns_per_s": len(items) / secs,
        "cpu_seconds": cpu, "turns_per_cpu_s": len(items) / cpu,
        "entities": entities, "fact_lineages": all_versions, "facts_current": len(facts),
        "sample_facts": [f.describe() for f in sample],
        "indexed_items": indexed, "index_seconds": embed_s,
    }
    console.print(f"{len(items):,} turns in {secs:.1f} s = {result['turns_per_s']:.0f} turns/s; "
                  f"({len(items) / cpu:.0f} per CPU-second); {entities:,} entities, {all_versions:,} fact lineages")
    for f in sample:
        console.print(f"  {f.describe()}  [dim]{f.group}[/dim]")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ingest_locomo.json").write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
