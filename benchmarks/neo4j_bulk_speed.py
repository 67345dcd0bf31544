"""Where the bulk load's CSV time goes (issue 18): the CSV step of ``kgmem neo4j import``
timed for code trees and worker counts in turn (A B A B), the files compared byte for byte.

    python -m benchmarks.neo4j_bulk_speed --from-embedded DIR --group scale100000 \\
        --tree old=/work/wt/old-01d5adc --tree new=. --rounds 2 \\
        --out benchmarks/results/2026-12-02/neo4j-bulk-speed

Each variant runs in a fresh process (``cwd`` = its tree, so that tree's kgmem is imported)
and writes the CSV of ``kgmem.store.neo4j.bulk`` (vectors copied from the embedded store)
into its own directory; ``workers`` (new trees only) splits the parts over processes.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.neo4j_bulk import uptime

CHILD = """
import sys, time, json
from pathlib import Path
from kgmem.store.sqlite import EmbeddedStore
from kgmem.store.neo4j import bulk
from kgmem.store.neo4j.importer import ExportState
src, group, out, workers = EmbeddedStore(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
t0 = time.perf_counter(); c0 = time.process_time()
if workers > 1:
    counts = bulk.write_csv_parallel(src, [group], out, ExportState(), True)
else:
    counts = bulk.write_csv(src, [group], out, ExportState(), bulk.EmbeddedVectors(src))
print(json.dumps({"seconds": time.perf_counter() - t0, "parent_cpu": time.process_time() - c0,
                  "counts": counts}))
"""


def run_variant(tree: Path, src: Path, group: str, out: Path, workers: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, str(src), group, str(out), str(workers)],
                       cwd=tree, capture_output=True, text=True, check=True)
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["process_seconds"] = time.perf_counter() - t0
    return res


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-embedded", type=Path, required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--tree", action="append", required=True, help="name=path")
    ap.add_argument("--workers", default="1,2", help="worker counts for trees but the first")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/kgmem-bulk-speed"))
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/neo4j-bulk-speed"))
    args = ap.parse_args(argv)
    trees = [t.split("=", 1) for t in args.tree]
    variants = [(trees[0][0], Path(trees[0][1]), 1)] + [
        (f"{n} w{w}", Path(p), int(w)) for n, p in trees[1:] for w in args.workers.split(",")]
    res: dict[str, Any] = {"uptime_start": uptime(), "runs": []}
    for rnd in range(args.rounds):
        for name, tree, workers in variants:
            out = args.scratch / name.replace(" ", "-")
            r = run_variant(tree.resolve(), args.from_embedded.resolve(), args.group, out, workers)
            r.update(variant=name, round=rnd, uptime=uptime())
            print(f"{name}: {r['seconds']:.1f} s ({r['uptime']})", flush=True)
            res["runs"].append(r)
    first = args.scratch / variants[0][0]
    res["identical_to_" + variants[0][0]] = {
        name: all(filecmp.cmp(first / f.name, args.scratch / name.replace(" ", "-") / f.name,
                              shallow=False) for f in first.glob("*.csv"))
        for name, _, _ in variants[1:]}
    facts = res["runs"][0]["counts"]["lineages"]
    res["median_seconds"] = {}
    for name, _, _ in variants:
        res["median_seconds"][name] = statistics.median(
            r["seconds"] for r in res["runs"] if r["variant"] == name)
    res["facts"] = facts
    res["facts_per_s"] = {k: facts / v for k, v in res["median_seconds"].items()}
    res["uptime_end"] = uptime()
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}, indent=2))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "csv.json").write_text(json.dumps(res, indent=2))
    return res


if __name__ == "__main__":
    main()
