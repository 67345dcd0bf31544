"""Initial bulk load of an embedded store's fact groups into a *stopped, dedicated* Neo4j with
``neo4j-admin database import full`` (``kgmem neo4j-import``), vectors included.

Two steps, because the server must be stopped for the first and running for the second:

1. :func:`write_and_import` (server stopped): the groups' rows in the Neo4j vocabulary of
   :func:`kgmem.store.neo4j.importer.export_rows` (the Bolt copy's), written as CSV, with every
   entity's ``name_embedding`` and every fact version's ``fact_embedding`` **copied from the
   embedded store's search vectors** (already computed by its ``index_pending``: nothing is
   embedded again), then ``neo4j-admin database import full`` writes the store files directly.
   **It replaces the server's whole ``neo4j`` database.**
2. :func:`finish` (server started): kgmem's constraints and indexes (range, fulltext, vector)
   are created and populated, empty lists filled in, the lineage counters and each group's
   transaction clock written (:func:`~kgmem.store.neo4j.importer.finish_import`).

The Bolt copy (:func:`kgmem.store.neo4j.importer.import_embedded`) is the path for groups with
episodes, for a server that holds other data, and for small stores. Groups with episodes are
refused here (their mention and provenance rows need the Bolt path).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Collection
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ...lifeline import lifeline, watch_parent
from ...settings import Settings
from ..sqlite import EmbeddedStore
from .importer import PARTS, ExportState, export_rows, finish_import, label_entity_types
from .schema import EMBEDDING_DIM, ensure_schema
from .store import Neo4jStore

ARRAY_DELIMITER = ";"
STATE_FILE = "kgmem-import.json"

# kind -> (node label, header: (property, neo4j-admin type or ""))
_S, _DT, _L, _B, _SA = "", "datetime", "long", "boolean", "string[]"
NODES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "entities": ("Entity", [("uuid", "ID(Entity)"), ("group_id", _S), ("name", _S),
                            ("norm_name", _S), ("summary", _S), ("created_at", _DT),
                            ("aliases", _SA), ("entity_type", _S)]),
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
VECTOR_COLUMN = {"entities": "name_embedding", "versions": "fact_embedding"}

Progress = Callable[[str, int], None]  # (kind, rows written)


def field(v: object) -> str:
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


def _quoted(v: Any) -> str:
    if type(v) is not str:
        return field(v)
    return '"' + (v.replace('"', '""') if '"' in v else v) + '"'


def _instant(v: Any) -> str:
    return v.isoformat() if type(v) is datetime else field(v)


def _long(v: Any) -> str:
    return str(v) if type(v) is int else field(v)


# per declared column type, what :func:`field` writes, without its chain of type tests
_BY_TYPE: dict[str, Callable[[Any], str]] = {_S: _quoted, _DT: _instant, _L: _long}


def _converters(cols: list[tuple[str, str]]) -> list[tuple[str, Callable[[Any], str]]]:
    return [(p, _BY_TYPE.get(t, field)) for p, t in cols]


def _lines(rows: list[dict[str, Any]], cols: list[tuple[str, Callable[[Any], str]]]
           ) -> list[str]:
    return [",".join(["" if (v := r.get(p)) is None else conv(v) for p, conv in cols])
            for r in rows]


def vector_field(blob: bytes) -> str:
    """A stored float32 vector as a neo4j-admin ``float[]`` field. Zeros are written ``0``
    (hashing vectors are sparse); ``repr`` of a float32 widened to a double parses back to the
    same float32."""
    v = np.frombuffer(blob, dtype=np.float32)
    parts = ["0"] * len(v)
    for i in np.flatnonzero(v):
        parts[i] = repr(float(v[i]))
    return ARRAY_DELIMITER.join(parts)


class EmbeddedVectors:
    """The embedded store's search vectors of entity names and fact texts (what its
    ``index_pending`` computed), looked up per batch of rows."""

    def __init__(self, src: EmbeddedStore) -> None:
        self.src = src
        with src._lock:
            rows = dict(src._conn.execute("SELECT key, value FROM search_meta").fetchall())
        self.model = rows.get("model")
        dim = int(rows.get("dim") or 0)
        if self.model is None:
            raise ValueError("the embedded store has no search vectors: run `kgmem index` on it "
                             "first (or load without vectors)")
        if dim != EMBEDDING_DIM:
            raise ValueError(f"the embedded store's vectors are {dim}-dim ({self.model}); the "
                             f"Neo4j vector indexes hold {EMBEDDING_DIM}")

    def _lookup(self, sql: str, keys: list[str]) -> dict[tuple[str, str], bytes]:
        out: dict[tuple[str, str], bytes] = {}
        with self.src._lock:
            for i in range(0, len(keys), 900):
                part = keys[i:i + 900]
                q = sql.format(",".join("?" * len(part)))
                for a, b, vec in self.src._conn.execute(q, part):
                    out[(a, b)] = vec
        return out

    def entities(self, rows: list[dict[str, Any]]) -> list[str]:
        found = self._lookup(
            "SELECT n.entity_id, n.name, v.vec FROM search_entity_names n CROSS JOIN search_vectors v "
            "ON v.kind = 'entity' AND v.item = CAST(n.id AS TEXT) WHERE n.entity_id IN ({})",
            list({r["uuid"] for r in rows}))
        return [_vec(found.get((r["uuid"], r.get("name") or ""))) for r in rows]

    def versions(self, rows: list[dict[str, Any]]) -> list[str]:
        found = self._lookup(
            "SELECT t.fact_id, t.text, v.vec FROM search_fact_texts t CROSS JOIN search_vectors v "
            "ON v.kind = 'fact' AND v.item = CAST(t.id AS TEXT) WHERE t.fact_id IN ({})",
            list({r["p"]["fact_id"] for r in rows}))
        return [_vec(found.get((r["p"]["fact_id"], r["p"].get("fact") or ""))) for r in rows]


_FORMATTED: dict[bytes, str] = {}


def _vec(blob: bytes | None) -> str:
    """A missing vector is an empty field (no property: ``index_pending`` embeds it later)."""
    if blob is None:
        return ""
    text = _FORMATTED.get(blob)
    if text is None:
        if len(_FORMATTED) > 4096:
            _FORMATTED.clear()
        text = _FORMATTED[blob] = vector_field(blob)
    return text


_VERSION_CONV = _converters(VERSION_PROPS)
_NODE_CONV = {kind: _converters(cols) for kind, (_label, cols) in NODES.items()}


def _header(cols: list[tuple[str, str]]) -> str:
    return ",".join(f"{p}:{t}" if t else p for p, t in cols)


def write_csv(src: EmbeddedStore, groups: list[str], out: Path, state: ExportState,
              vectors: EmbeddedVectors | None, batch: int = 20000,
              progress: Progress | None = None, parts: Collection[str] = PARTS
              ) -> dict[str, int]:
    """The groups' rows (``parts`` of them) as neo4j-admin CSV files in ``out``; returns
    counts per kind."""
    files: dict[str, Any] = {}
    counts: dict[str, int] = {}

    def sink(kind: str) -> Any:
        if kind not in files:
            f = (out / f"{kind}.csv").open("w", encoding="utf-8", newline="")
            extra = (f",{VECTOR_COLUMN[kind]}:float[]"
                     if vectors is not None and kind in VECTOR_COLUMN else "")
            if kind == "versions":
                f.write(":START_ID(Entity),:END_ID(Entity)," + _header(VERSION_PROPS) + extra
                        + "\n")
            else:
                f.write(_header(NODES[kind][1]) + extra + "\n")
            files[kind] = f
        return files[kind]

    try:
        for kind, rows in export_rows(src, groups, state, batch, parts):
            if kind in UNSUPPORTED:
                raise ValueError(f"the bulk path copies fact-only groups; {kind} found "
                                 "(use kgmem.store.neo4j.importer.import_embedded)")
            f = sink(kind)
            if kind == "versions":
                lines = [f"{_quoted(r['s'])},{_quoted(r['o'])},{line}" for r, line in
                         zip(rows, _lines([r["p"] for r in rows], _VERSION_CONV), strict=True)]
            else:
                lines = _lines(rows, _NODE_CONV[kind])
            if vectors is not None and kind in VECTOR_COLUMN:
                vecs = vectors.entities(rows) if kind == "entities" else vectors.versions(rows)
                lines = [f"{line},{v}" for line, v in zip(lines, vecs, strict=True)]
            f.write("\n".join(lines) + "\n")
            counts[kind] = counts.get(kind, 0) + len(rows)
            if progress is not None:
                progress(kind, len(rows))
    finally:
        for f in files.values():
            f.close()
    return counts


# what each worker process writes: the fact part (lineages, versions with their vectors) is
# about as big as the rest
WORKER_PARTS = (("facts",), ("entities", "episodes", "changes"))


def default_csv_workers() -> int:
    """Two CSV processes (``WORKER_PARTS``) on a machine with two cores or more, else one: at
    1M facts on a quiet 2-core machine the CSV took 79 s instead of 175 s (docs/neo4j.md,
    "Bulk loading"); the files are the same either way."""
    return min(len(WORKER_PARTS), os.cpu_count() or 1)


def _csv_worker(path: str, groups: list[str], out: str, parts: tuple[str, ...],
                with_vectors: bool, queue: Any, parent: Any = None) -> None:
    """One worker process of :func:`write_csv_parallel`: its own connection to the store;
    it exits when the parent is gone (:mod:`kgmem.lifeline`)."""
    watch_parent(parent)
    try:
        src = EmbeddedStore(path)
        state = ExportState()
        vectors = EmbeddedVectors(src) if with_vectors else None
        counts = write_csv(src, groups, Path(out), state, vectors, parts=parts,
                           progress=lambda kind, n: queue.put(("progress", kind, n)))
        queue.put(("done", counts, state.max_ins,
                   {g: t.isoformat() for g, t in state.last_tx.items()}))
    except BaseException as exc:  # reported by the parent
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def write_csv_parallel(src: EmbeddedStore, groups: list[str], out: Path, state: ExportState,
                       with_vectors: bool, progress: Progress | None = None
                       ) -> dict[str, int]:
    """:func:`write_csv` split over ``WORKER_PARTS`` in as many processes (each file is
    written by one of them); ``state`` gets what they saw."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    reader, _writer = lifeline(ctx)  # kept open (in this frame) while the workers run
    procs = [ctx.Process(target=_csv_worker, args=(str(src.path), groups, str(out), parts,
                                                   with_vectors, queue, reader), daemon=True)
             for parts in WORKER_PARTS]
    for p in procs:
        p.start()
    counts: dict[str, int] = {}
    done, errors = 0, []
    try:
        while done < len(procs):
            msg = queue.get()
            if msg[0] == "progress":
                if progress is not None:
                    progress(msg[1], msg[2])
                continue
            done += 1
            if msg[0] == "error":
                errors.append(msg[1])
                continue
            counts.update(msg[1])
            state.max_ins = max(state.max_ins, msg[2])
            for g, t in msg[3].items():
                at = datetime.fromisoformat(t)
                if g not in state.last_tx or at > state.last_tx[g]:
                    state.last_tx[g] = at
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    if errors:
        raise RuntimeError("CSV worker failed: " + "; ".join(errors))
    return counts


def _java() -> str:
    jh = Settings().neo4j_java_home or os.environ.get("JAVA_HOME")
    if jh and Path(jh, "bin", "java").exists():
        return str(Path(jh, "bin", "java"))
    found = shutil.which("java")
    if not found:
        raise RuntimeError("no java found (a JDK 17/21)")
    return found


def admin_import(home: Path, out: Path, kinds: list[str],
                 options: list[str] | None = None) -> float:
    """``neo4j-admin database import full neo4j --overwrite-destination`` (server stopped);
    returns its seconds."""
    args = [_java(), "-cp", f"{home}/lib/*", f"-Dbasedir={home}",
            "org.neo4j.server.startup.Neo4jAdminCommand", "database", "import", "full", "neo4j",
            "--overwrite-destination=true", "--multiline-fields=true",
            f"--array-delimiter={ARRAY_DELIMITER}", f"--report-file={out / 'import.report'}",
            *(options or [])]
    for kind in kinds:
        if kind == "versions":
            args.append(f"--relationships=RELATES_TO={out / 'versions.csv'}")
        else:
            args.append(f"--nodes={NODES[kind][0]}={out / (kind + '.csv')}")
    env = {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}
    env.pop("JAVA_OPTS", None)
    env.pop("HEAP_SIZE", None)
    t0 = time.perf_counter()
    subprocess.run(args, cwd=home, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def dedicated_home(home: Path) -> Path:
    home = home.expanduser().resolve()
    if not (home / "lib").is_dir() or not (home / "conf").is_dir():
        raise ValueError(f"{home} is not a Neo4j home (no lib/ and conf/)")
    return home


def write_and_import(src: EmbeddedStore, groups: list[str], home: Path,
                     csv_dir: Path | None = None, with_vectors: bool = True,
                     progress: Progress | None = None, workers: int | None = None,
                     admin_options: list[str] | None = None) -> dict[str, Any]:
    """Step 1 (the server at ``home`` stopped): CSV + ``neo4j-admin database import``. The
    figures and what :func:`finish` needs are kept in ``csv_dir/kgmem-import.json``."""
    home = dedicated_home(home)
    out = csv_dir or home / "import" / "kgmem"
    out.mkdir(parents=True, exist_ok=True)
    vectors = EmbeddedVectors(src) if with_vectors else None
    state = ExportState()
    workers = default_csv_workers() if workers is None else workers
    t0 = time.perf_counter()
    if workers > 1:
        counts = write_csv_parallel(src, groups, out, state, with_vectors, progress)
    else:
        counts = write_csv(src, groups, out, state, vectors, progress=progress)
    res: dict[str, Any] = {"groups": groups, "counts": counts, "csv_workers": workers,
                           "vectors": None if vectors is None else vectors.model,
                           "csv_seconds": time.perf_counter() - t0,
                           "csv_bytes": sum(p.stat().st_size for p in out.glob("*.csv"))}
    res["admin_options"] = admin_options or []
    res["admin_import_seconds"] = admin_import(home, out, list(counts), admin_options)
    res["max_ins"] = state.max_ins
    res["last_tx"] = {g: t.isoformat() for g, t in state.last_tx.items()}
    (out / STATE_FILE).write_text(json.dumps(res, indent=2))
    return res


def finish(src: EmbeddedStore, dst: Neo4jStore, csv_dir: Path,
           every_s: float = 10, report: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Step 2 (the server started on the imported database): schema and indexes populated
    (``report`` gets a line on each poll), empty lists filled in, counters and clocks."""
    saved = json.loads((csv_dir / STATE_FILE).read_text())
    groups = saved["groups"]
    state = ExportState(max_ins=int(saved["max_ins"]),
                        last_tx={g: datetime.fromisoformat(t) for g, t in saved["last_tx"].items()})
    t0 = time.perf_counter()
    online = create_schema(dst, every_s=every_s, report=report)
    t1 = time.perf_counter()
    finish_import(src, dst, groups, state)
    with dst.driver.session(database=dst.database) as s:
        # neo4j-admin stores an empty array as no property; the Bolt path writes
        # ``episodes: []`` on every version, which graphiti's EntityEdge requires
        s.run("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id IN $gs AND r.episodes IS NULL "
              "CALL (r) { SET r.episodes = [] } IN TRANSACTIONS OF 50000 ROWS",
              gs=groups).consume()
    label_entity_types(dst, groups)
    return {"index_online_seconds": online, "schema_and_index_population_seconds": t1 - t0,
            "finish_seconds": time.perf_counter() - t1}


def create_schema(dst: Neo4jStore, timeout_s: int = 7200, every_s: float = 10,
                  report: Callable[[str], None] | None = None) -> dict[str, float]:
    """kgmem's constraints and indexes (``ensure_schema``, in a thread) awaited ONLINE; the
    seconds until each index (by name) was seen ONLINE."""
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
        rows = dst.cypher("SHOW INDEXES YIELD name, state, populationPercent "
                      "RETURN name, state, populationPercent")
        now = time.perf_counter() - t0
        for name, st, _pct in rows:
            if st == "ONLINE" and name not in online:
                online[name] = round(now, 1)
        if done:
            if done[0] is not None:
                raise done[0]
            return online
        if report is not None:
            report(f"{now:.0f} s: " + (", ".join(f"{n} {p:.0f}%" for n, st, p in rows
                                                 if st != "ONLINE") or "creating"))
