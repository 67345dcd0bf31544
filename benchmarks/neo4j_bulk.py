"""Bulk-load an embedded store's groups into a *stopped, dedicated* Neo4j and time each phase.

    KGMEM_NEO4J_HOME=/work/neo4j-me KGMEM_NEO4J_BOLT_PORT=7690 KGMEM_NEO4J_HTTP_PORT=7480 \\
      python -m benchmarks.neo4j_bulk --from-embedded DIR --group scale1000000 --overwrite

The load is ``kgmem neo4j import`` + ``kgmem neo4j finish-import`` (kgmem.store.neo4j.bulk:
CSV with the embedded store's search vectors copied, ``neo4j-admin database import full``,
then kgmem's schema and indexes populated, counters and clocks written), with the server
stopped and started around the import by scripts/neo4j.sh. **It replaces the whole ``neo4j``
database of that server** (``--overwrite`` is required, and the home must be given
explicitly): never point it at a shared server. The vectors are the ones the embedded store's
``index_pending`` computed (run it with the embedder you want first); nothing is embedded
again. ``--reuse-import`` skips the first step when ``kgmem neo4j import`` already ran into
``--csv-dir`` (its figures are read from there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.bulk import STATE_FILE, finish, write_and_import
from kgmem.store.sqlite import EmbeddedStore

REPO = Path(__file__).resolve().parents[1]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def script(cmd: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["bash", str(REPO / "scripts" / "neo4j.sh"), cmd], check=True)
    return time.perf_counter() - t0


def bulk_load(src: EmbeddedStore, groups: list[str], home: Path, console: Console,
              csv_dir: Path | None = None, reuse_import: bool = False,
              csv_workers: int | None = None,
              admin_options: list[str] | None = None) -> dict[str, Any]:
    """Stop the server, CSV + neo4j-admin import (or the figures of an earlier ``kgmem neo4j
    import`` into ``csv_dir``), start it, populate the indexes; every phase timed."""
    out = csv_dir or home / "import" / "kgmem"
    res: dict[str, Any] = {"uptime_start": uptime()}
    facts = sum(src.counts(g)["lineages"] for g in groups)
    if reuse_import:
        res.update(json.loads((out / STATE_FILE).read_text()))
        res["reused_import"] = str(out)
        res["stop_seconds"] = script("stop")
    else:
        total = 0
        for g in groups:
            c = src.counts(g)
            total += c["entities"] + c["lineages"] + c["versions"] + 2 * c["changes"]
        res["stop_seconds"] = script("stop")
        with Progress(console=console) as prog:
            task = prog.add_task("CSV rows (vectors copied)", total=total)
            res.update(write_and_import(src, groups, home, out,
                                        progress=lambda kind, n: prog.advance(task, n),
                                        workers=csv_workers, admin_options=admin_options))
        res["uptime_after_import"] = uptime()
    res["csv_and_import_seconds"] = res["csv_seconds"] + res["admin_import_seconds"]
    res["start_seconds"] = script("start")
    t1 = time.perf_counter()
    dst = Neo4jStore(ensure_indexes=False)
    try:
        res.update(finish(src, dst, out,
                          report=lambda line: console.print(f"  {line}", highlight=False)))
        res["store_counts"] = {g: dst.counts(g) for g in groups}
    finally:
        dst.close()
    res["finish_total_seconds"] = time.perf_counter() - t1
    items = sum(res["counts"].values())
    res["facts"] = facts
    res["facts_per_s_csv_and_import"] = facts / res["csv_and_import_seconds"]
    res["items_per_s_csv_and_import"] = items / res["csv_and_import_seconds"]
    res["facts_per_s_until_indexes_online"] = facts / (
        res["csv_and_import_seconds"] + res["start_seconds"] + res["finish_total_seconds"])
    res["uptime_end"] = uptime()
    return res


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-embedded", type=Path, required=True)
    ap.add_argument("--group", action="append", required=True)
    ap.add_argument("--overwrite", action="store_true",
                    help="required: the server's whole 'neo4j' database is replaced")
    ap.add_argument("--csv-dir", type=Path, default=None)
    ap.add_argument("--reuse-import", action="store_true")
    ap.add_argument("--csv-workers", type=int, default=None,
                    help="processes writing the CSV (default: kgmem.store.neo4j.bulk."
                         "default_csv_workers, 2 on 2+ cores)")
    ap.add_argument("--admin-option", action="append", default=[],
                    help="passed to neo4j-admin database import (repeatable), e.g. --threads=2")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale/neo4j-bulk.json"))
    args = ap.parse_args(argv)
    home_env = os.environ.get("KGMEM_NEO4J_HOME")
    if not args.overwrite or not home_env:
        raise SystemExit("refusing: set KGMEM_NEO4J_HOME to a dedicated server's home and pass "
                         "--overwrite (its whole 'neo4j' database is replaced)")
    home = Path(home_env).resolve()
    if home == (REPO / ".neo4j").resolve() or not (home / "lib").is_dir():
        raise SystemExit(f"refusing: {home} is not a dedicated server home with lib/")
    res = bulk_load(EmbeddedStore(args.from_embedded), args.group, home, Console(),
                    args.csv_dir, args.reuse_import, args.csv_workers, args.admin_option)
    print(json.dumps(res, indent=2, default=str))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2, default=str))
    return res


if __name__ == "__main__":
    main()
