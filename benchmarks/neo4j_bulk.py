"""Bulk-load an embedded store's groups into a *stopped, dedicated* Neo4j with neo4j-admin.

    KGMEM_NEO4J_HOME=/work/neo4j-me KGMEM_NEO4J_BOLT_PORT=7690 KGMEM_NEO4J_HTTP_PORT=7480 \\
      python -m benchmarks.neo4j_bulk --from-embedded DIR --group scale1000000 --overwrite

For big benchmark stores only. :func:`kgmem.store.neo4j.importer.import_embedded` copies over Bolt
in transactions (4.3k items/s on an idle machine, ~130/s with the disk and CPU shared by five
benchmarks); ``neo4j-admin database import full`` writes the store files directly. The rows are
the same (:func:`kgmem.store.neo4j.importer.export_rows`, the vocabulary of the Bolt path), written
as CSV; then the server is started, kgmem's schema is created and populated (constraints, range,
fulltext and vector indexes) and the counters and clocks are written
(:func:`kgmem.store.neo4j.importer.finish_import`).

**It replaces the whole ``neo4j`` database of that server** (``--overwrite`` is required, and the
home must be given explicitly): never point it at a shared server. Groups with episodes are
refused (their mentions/provenance rows need the Bolt path).

``--embed hashing`` (or ``minilm``) also writes the search vectors as ``float[]`` columns: every
entity's ``name_embedding`` and every fact version's ``fact_embedding`` (the properties and
vector indexes of :mod:`kgmem.store.neo4j.schema`, the vectors ``index_pending`` /
``db.create.set*VectorProperty`` would write: the embedder's float32 values). Writing 1.23M
vectors through Cypher ran at ~150-200/s on this machine; here they cost CSV time, and the
vector indexes are populated when the server starts (timed per index: ``index_online_seconds``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.importer import ExportState, export_rows, finish_import
from kgmem.store.neo4j.schema import ensure_schema
from kgmem.store.sqlite import EmbeddedStore

REPO = Path(__file__).resolve().parents[1]
ARRAY_DELIMITER = ";"

# kind -> (node label or relationship type, header: (property, neo4j-admin type or ""))
_S, _DT, _L, _B, _SA = "", "datetime", "long", "boolean", "string[]"
NODES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "entities": ("Entity", [("uuid", "ID(Entity)"), ("group_id", _S), ("name", _S),
                            ("norm_name", _S), ("summary", _S), ("created_at", _DT),
                            ("aliases", _SA)]),
    "aliases": ("KgmemAlias", [("group_id", _S), ("norm_alias", _S), ("entity_id", _S),
                               ("alias", _S)]),
    "lineages": ("KgmemLineage", [("fact_id", _S), ("group_id", _S), ("subject_id", _S),
                                  ("predicate", _S), ("object_id", _S), ("valid_at", _DT),
                                  ("valid_precision", _S), ("stated_invalid_at", _DT),
                                  ("invalid_precision", _S), ("believed", _B), ("seq", _L),
                                  ("fact_text", _S)]),
    "changes": ("KgmemChange", [("id", _S), ("group_id", _S), ("kind", _S), ("created_at", _DT),
                                ("reason", _S), ("undoes", _S), ("undone_by", _S),
                                ("fact_ids", _SA), ("ins_seq", _L)]),
    "effects": ("KgmemEffect", [("change_id", _S), ("group_id", _S), ("ord", _L),
                                ("fact_id", _S), ("before", _S), ("after", _S)]),
    "erasures": ("KgmemErasure", [("id", _S), ("group_id", _S), ("kind", _S),
                                  ("created_at", _DT), ("counts", _S)]),
}
VERSION_PROPS: list[tuple[str, str]] = [
    ("uuid", _S), ("fact_id", _S), ("group_id", _S), ("name", _S), ("fact", _S),
    ("valid_at", _DT), ("valid_precision", _S), ("invalid_at", _DT), ("invalid_precision", _S),
    ("stated_invalid_at", _DT), ("created_at", _DT), ("expired_at", _DT), ("change_id", _S),
    ("reason", _S), ("caused_by", _S), ("ins_seq", _L), ("episodes", _SA),
]
UNSUPPORTED = {"episodes", "mentions", "provenance"}


def _field(v: Any) -> str:
    """One CSV field: None = empty (no property), strings always quoted ("" stays "")."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, list):
        if not v:
            return ""
        items = [str(x) for x in v]
        if any(ARRAY_DELIMITER in x for x in items):
            raise ValueError(f"array item contains {ARRAY_DELIMITER!r}: {items}")
        v = ARRAY_DELIMITER.join(items)
    return '"' + str(v).replace('"', '""') + '"'


def _vector_field(v: Any) -> str:
    """A float32 vector as a neo4j-admin ``float[]`` field (zeros written as ``0``: the hashing
    embedder's vectors are sparse). ``repr`` of a float32 widened to a double parses back to the
    same float32."""
    parts = ["0"] * len(v)
    for i in np.flatnonzero(v):
        parts[i] = repr(float(v[i]))
    return ARRAY_DELIMITER.join(parts)


def _vectors(embedder: Any, texts: list[str | None]) -> list[str]:
    """CSV fields of the texts' vectors; a missing text gets no vector (empty field), as
    ``index_pending`` skips it."""
    idx = [i for i, t in enumerate(texts) if t is not None]
    out = [""] * len(texts)
    if idx:
        vecs = np.asarray(embedder.embed([texts[i] for i in idx]), dtype=np.float32)
        for i, v in zip(idx, vecs, strict=True):
            out[i] = _vector_field(v)
    return out


def _header(cols: list[tuple[str, str]]) -> str:
    return ",".join(f"{p}:{t}" if t else p for p, t in cols)


def write_csv(src: EmbeddedStore, groups: list[str], out: Path, state: ExportState,
              batch: int = 20000, embedder: Any = None) -> dict[str, int]:
    """The groups' rows as neo4j-admin CSV files in ``out``; returns counts per kind. With an
    ``embedder``, entities get a ``name_embedding`` and versions a ``fact_embedding`` column."""
    files: dict[str, Any] = {}
    counts: dict[str, int] = {}
    vec_col = {"entities": ("name", "name_embedding"), "versions": ("fact", "fact_embedding")}

    def sink(kind: str) -> Any:
        if kind not in files:
            f = (out / f"{kind}.csv").open("w", encoding="utf-8", newline="")
            extra = (f",{vec_col[kind][1]}:float[]" if embedder is not None and kind in vec_col
                     else "")
            if kind == "versions":
                f.write(":START_ID(Entity),:END_ID(Entity)," + _header(VERSION_PROPS) + extra
                        + "\n")
            else:
                f.write(_header(NODES[kind][1]) + extra + "\n")
            files[kind] = f
        return files[kind]

    try:
        for kind, rows in export_rows(src, groups, state, batch):
            if kind in UNSUPPORTED:
                raise ValueError(f"the bulk path copies fact-only groups; {kind} found "
                                 "(use kgmem.store.neo4j.importer.import_embedded)")
            f = sink(kind)
            if kind == "versions":
                lines = [",".join([_field(r["s"]), _field(r["o"]),
                                   *(_field(r["p"].get(p)) for p, _ in VERSION_PROPS)])
                         for r in rows]
            else:
                cols = NODES[kind][1]
                lines = [",".join(_field(r.get(p)) for p, _ in cols) for r in rows]
            if embedder is not None and kind in vec_col:
                text = vec_col[kind][0]
                vecs = _vectors(embedder, [(r["p"] if kind == "versions" else r).get(text)
                                           for r in rows])
                lines = [f"{line},{v}" for line, v in zip(lines, vecs, strict=True)]
            f.write("\n".join(lines) + "\n")
            counts[kind] = counts.get(kind, 0) + len(rows)
    finally:
        for f in files.values():
            f.close()
    return counts


def _java() -> str:
    jh = os.environ.get("KGMEM_NEO4J_JAVA_HOME") or os.environ.get("JAVA_HOME")
    if jh and Path(jh, "bin", "java").exists():
        return str(Path(jh, "bin", "java"))
    found = shutil.which("java")
    if not found:
        raise RuntimeError("no java found (a JDK 17/21)")
    return found


def admin_import(home: Path, out: Path, kinds: Iterator[str] | list[str]) -> float:
    """``neo4j-admin database import full neo4j --overwrite-destination`` (server stopped)."""
    args = [_java(), "-cp", f"{home}/lib/*", f"-Dbasedir={home}",
            "org.neo4j.server.startup.Neo4jAdminCommand", "database", "import", "full", "neo4j",
            "--overwrite-destination=true", "--multiline-fields=true",
            f"--array-delimiter={ARRAY_DELIMITER}", f"--report-file={out / 'import.report'}"]
    for kind in kinds:
        if kind == "versions":
            args.append(f"--relationships=RELATES_TO={out / 'versions.csv'}")
        else:
            args.append(f"--nodes={NODES[kind][0]}={out / (kind + '.csv')}")
    env = {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}
    env.pop("JAVA_OPTS", None)
    env.pop("HEAP_SIZE", None)
    t0 = time.perf_counter()
    subprocess.run(args, cwd=home, env=env, check=True)
    return time.perf_counter() - t0


def fill_empty_lists(dst: Neo4jStore, groups: list[str]) -> None:
    """neo4j-admin stores an empty array field as no property; the Bolt path writes
    ``episodes: []`` on every version, which graphiti's ``EntityEdge`` requires."""
    with dst.driver.session(database=dst.database) as s:
        s.run("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id IN $gs AND r.episodes IS NULL "
              "CALL (r) { SET r.episodes = [] } IN TRANSACTIONS OF 50000 ROWS",
              gs=groups).consume()


def create_schema(dst: Neo4jStore, timeout_s: int = 7200, every_s: float = 15
                  ) -> dict[str, float]:
    """Create kgmem's constraints and indexes (``ensure_schema``, in a thread) and wait for all
    of them to be ONLINE, printing the population progress; returns the seconds until each
    index (by name) was seen ONLINE (polled every ``every_s``)."""
    done: list[BaseException | None] = []

    def run() -> None:
        try:
            with dst.driver.session(database=dst.database) as s:
                ensure_schema(s, await_seconds=timeout_s)
            done.append(None)
        except BaseException as exc:  # reported by the caller
            done.append(exc)

    t0 = time.perf_counter()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    online: dict[str, float] = {}
    while True:
        worker.join(timeout=every_s)
        rows = dst._q("SHOW INDEXES YIELD name, state, populationPercent "
                      "RETURN name, state, populationPercent")
        now = time.perf_counter() - t0
        for name, state, _pct in rows:
            if state == "ONLINE" and name not in online:
                online[name] = round(now, 1)
        if done:
            if done[0] is not None:
                raise done[0]
            return online
        print(f"  {now:.0f} s, load {os.getloadavg()[0]:.1f}: "
              + (", ".join(f"{n} {p:.1f}%" for n, st, p in rows if st != "ONLINE")
                 or "creating"), flush=True)


def script(cmd: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["bash", str(REPO / "scripts" / "neo4j.sh"), cmd], check=True)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-embedded", type=Path, required=True)
    ap.add_argument("--group", action="append", required=True)
    ap.add_argument("--overwrite", action="store_true",
                    help="required: the server's whole 'neo4j' database is replaced")
    ap.add_argument("--csv-dir", type=Path, default=None)
    ap.add_argument("--csv-only", action="store_true", help="write the CSVs (to --csv-dir), stop")
    ap.add_argument("--reuse-csv", action="store_true",
                    help="load the CSVs an earlier --csv-only run left in --csv-dir")
    ap.add_argument("--embed", choices=["hashing", "minilm"], default=None,
                    help="also write name_embedding / fact_embedding vectors (hashing: the "
                         "384-dim hashing embedder of the search benchmarks)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/scale/neo4j-bulk.json"))
    args = ap.parse_args(argv)
    home_env = os.environ.get("KGMEM_NEO4J_HOME")
    if not args.overwrite or not home_env:
        raise SystemExit("refusing: set KGMEM_NEO4J_HOME to a dedicated server's home and pass "
                         "--overwrite (its whole 'neo4j' database is replaced)")
    home = Path(home_env).resolve()
    if home == (REPO / ".neo4j").resolve() or not (home / "lib").is_dir():
        raise SystemExit(f"refusing: {home} is not a dedicated server home with lib/")
    src = EmbeddedStore(args.from_embedded)
    out = args.csv_dir or Path(tempfile.mkdtemp(prefix="kgmem-bulk-"))
    out.mkdir(parents=True, exist_ok=True)
    embedder: Any = None
    if args.embed == "hashing":
        from kgmem.embed import HashingEmbedder

        embedder = HashingEmbedder(384)
    elif args.embed == "minilm":
        from kgmem.embed import get_default_embedder

        embedder = get_default_embedder()
    res: dict[str, Any] = {"groups": args.group, "loadavg_start": os.getloadavg(),
                           "embedder": embedder.name if embedder is not None else None}
    state = ExportState()
    t0 = time.perf_counter()
    saved = out / "export.json"
    if args.reuse_csv and saved.is_file():  # CSVs written by an earlier --csv-only run
        d = json.loads(saved.read_text())
        if d.get("embedder") != res["embedder"]:
            raise SystemExit(f"--reuse-csv: the CSVs have vectors of {d.get('embedder')}, "
                             f"not {res['embedder']}")
        res["counts"], res["csv_seconds"] = d["counts"], d["csv_seconds"]
        state.max_ins = d["max_ins"]
        state.last_tx = {g: datetime.fromisoformat(t) for g, t in d["last_tx"].items()}
    else:
        res["counts"] = write_csv(src, args.group, out, state, embedder=embedder)
        res["csv_seconds"] = time.perf_counter() - t0
        saved.write_text(json.dumps({
            "counts": res["counts"], "csv_seconds": res["csv_seconds"],
            "embedder": res["embedder"],
            "max_ins": state.max_ins,
            "last_tx": {g: t.isoformat() for g, t in state.last_tx.items()}}))
    res["csv_bytes"] = sum(p.stat().st_size for p in out.glob("*.csv"))
    print(f"csv: {res['counts']} in {res['csv_seconds']:.0f} s", flush=True)
    if args.csv_only:
        return res
    res["stop_seconds"] = script("stop")
    res["admin_import_seconds"] = admin_import(home, out, list(res["counts"]))
    print(f"neo4j-admin import: {res['admin_import_seconds']:.0f} s", flush=True)
    res["start_seconds"] = script("start")
    t1 = time.perf_counter()
    dst = Neo4jStore(ensure_indexes=False)
    res["index_online_seconds"] = create_schema(dst)  # kgmem's constraints and indexes
    res["schema_and_index_population_seconds"] = time.perf_counter() - t1
    res["loadavg_after_index_population"] = os.getloadavg()
    finish_import(src, dst, args.group, state)
    t2 = time.perf_counter()
    fill_empty_lists(dst, args.group)
    res["fill_empty_lists_seconds"] = time.perf_counter() - t2
    res["total_seconds"] = time.perf_counter() - t0
    res["items"] = sum(res["counts"].values())
    res["items_per_s"] = res["items"] / res["total_seconds"]
    res["loadavg_end"] = os.getloadavg()
    res["store_counts"] = {g: dst.counts(g) for g in args.group}
    dst.close()
    print(json.dumps(res, indent=2, default=str))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2, default=str))
    if args.csv_dir is None:
        shutil.rmtree(out, ignore_errors=True)
    return res


if __name__ == "__main__":
    main()
