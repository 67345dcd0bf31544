"""Does a change to the ingest path leave what the store holds exactly as it was?

    python -m benchmarks ingest-same-output dump [--limit 2760] [--extract-workers W]
                                                 [--from-store DIR] --out A.jsonl
    python -m benchmarks ingest-same-output compare A.jsonl B.jsonl

``dump`` ingests the first ``--limit`` LoCoMo turns (conversations 0-4 for 2,760) exactly as
``python -m benchmarks ingest-locomo`` does (each turn an episode, offline extraction,
MiniLM on ONNX Runtime indexing overlapped with extraction), but with a deterministic clock
(one microsecond per call from a fixed instant), then writes every row of every table of the
embedded store as one JSON line: episodes, extraction states, entities, aliases, mentions,
fact lineages and versions (the extracted facts and their time windows), provenance,
changes and their effects, predicates, clocks, and the search data (FTS rows, fact and
entity texts, the episode time mentions and every stored vector, as the hex of its float32
bytes).

Random ids (uuid4) are replaced by labels given in insertion order of the tables that
create them, so two runs compare row for row. Core tables keep their insertion order; the
search tables, whose insertion order depends on when the background index pass ran, are
sorted (their autoincrement row ids and labels are dropped for the same reason). The HNSW
files are not dumped: they are built from ``search_vectors``.

To dump another commit's output, run this file from that commit's work tree, e.g.
``cd /work/wt/old-<sha> && PYTHONPATH=. python /path/to/ingest_same_output.py dump ...``.
``compare`` prints the first differing lines (and how many) and exits 1 if any differ
(vectors: within ``VEC_TOLERANCE``, see there; main against itself, 2,760 turns: 66 of
3,323 vectors not bit-identical, largest component difference 3e-8).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sqlite3
import sys
import tempfile
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")
# Vectors: MiniLM's float32 output for a text moves in the last bits with the shape of the
# batch it was embedded in, and which texts share a batch depends on when the background
# index pass ran; so main differs from itself run to run by a few ulps. A vector counts as
# the same when no component differs by more than this (|component| <= 1, unit vectors);
# the count of bit-identical vectors and the largest difference are printed.
VEC_TOLERANCE = 1e-6
# tables whose ids are minted (labelled in this order, rows in insertion order)
_ID_TABLES = [("episodes", "id"), ("entities", "id"), ("lineages", "fact_id"),
              ("versions", "id"), ("changes", "id"), ("predicates", "id"),
              ("erasures", "id")]
# tables whose row order depends on the background index pass: sorted, row ids dropped
_SORTED = {"search_queue": ["seq"], "search_fact_texts": ["id"],
           "search_entity_names": ["id"], "search_vectors": ["label"],
           "search_vec_deleted": ["seq", "label"], "search_episode_times": [],
           "search_ann_files": ["file", "max_label", "del_seq"],
           "aliases": [], "mentions": [], "provenance": [], "clocks": [],
           "change_effects": []}
_SKIP = {"search_meta"}


class CountingClock:
    """A deterministic clock: a fixed instant plus one microsecond per call."""

    def __init__(self) -> None:
        self._n = itertools.count()
        self._lock = threading.Lock()
        self._base = datetime(2030, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        with self._lock:
            return self._base + timedelta(microseconds=next(self._n))


def ingest(limit: int, data: Path | None = None, extract_workers: int = 1) -> Path:
    """Ingest the first ``limit`` LoCoMo turns as the ingest-locomo benchmark does; returns
    the store's folder. ``extract_workers > 1`` extracts in worker processes (a commit
    without that option is only run with 1)."""
    from benchmarks.ingest_locomo import default_data
    from kgmem.embed.cache import CachedEmbedder
    from kgmem.embed.onnx_minilm import OnnxMiniLM
    from kgmem.ingest.formats import read_episodes
    from kgmem.ingest.pipeline import make_extractor
    from kgmem.memory.facade import Memory

    items = list(read_episodes(data or default_data(), "locomo"))[:limit]
    inner = OnnxMiniLM(intra_op_threads=1, workers=2)
    path = Path(tempfile.mkdtemp(prefix="kgmem-same-output-"))
    pipeline = make_extractor()
    assert pipeline is not None
    if extract_workers > 1:
        pipeline.workers = extract_workers
    m = Memory(path, clock=CountingClock(), extractor=pipeline,
               embedder=CachedEmbedder(inner))
    m.add_episodes(items, batch_size=256, index=True)
    m.index()  # whatever the last background pass left queued
    getattr(pipeline, "close", lambda: None)()
    return path


def _db(path: Path) -> Path:
    found = sorted(p for p in path.rglob("*") if p.is_file() and _is_sqlite(p))
    if len(found) != 1:
        raise SystemExit(f"expected one SQLite file under {path}, found {found}")
    return found[0]


def _is_sqlite(p: Path) -> bool:
    with open(p, "rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def dump_rows(db: Path) -> list[str]:
    """Every row of every table, ids labelled, as JSON lines (see the module docstring)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    labels: dict[str, str] = {}

    def label(s: str) -> str:
        return labels.setdefault(s, f"id{len(labels)}")

    for table, col in _ID_TABLES:
        for (v,) in con.execute(f"SELECT {col} FROM {table} ORDER BY rowid"):  # noqa: S608
            label(v)

    def canon(v: Any) -> Any:
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, str):
            return _UUID.sub(lambda mt: label(mt.group(0)), v)
        return v

    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    out: list[str] = []
    for t in tables:
        if t in _SKIP or t.startswith("sqlite_") or re.search(r"_fts_(data|idx|docsize|config|content)$", t):
            continue
        cur = con.execute(f'SELECT * FROM "{t}"')  # noqa: S608
        cols = [d[0] for d in cur.description]
        drop = set(_SORTED.get(t, []))
        rows = [json.dumps([t] + [canon(v) for c, v in zip(cols, r, strict=True) if c not in drop],
                           ensure_ascii=False) for r in cur]
        if t in _SORTED or t.endswith("_fts"):
            rows.sort()
        out.append(json.dumps([t, "columns"] + [c for c in cols if c not in drop]))
        out += rows
    con.close()
    return out


def _vector_gap(x: str | None, y: str | None) -> float | None:
    """The largest component difference of two search_vectors rows that differ only in
    the vector, else None."""
    import numpy as np

    if x is None or y is None or not x.startswith('["search_vectors"'):
        return None
    rx, ry = json.loads(x), json.loads(y)
    if rx[:-1] != ry[:-1] or len(rx[-1]) != len(ry[-1]):
        return None
    va = np.frombuffer(bytes.fromhex(rx[-1]), dtype=np.float32)
    vb = np.frombuffer(bytes.fromhex(ry[-1]), dtype=np.float32)
    return float(np.max(np.abs(va - vb)))


def compare(a: Path, b: Path, show: int = 10) -> int:
    la, lb = a.read_text().splitlines(), b.read_text().splitlines()
    diffs, near, gap = [], 0, 0.0
    for i, (x, y) in enumerate(itertools.zip_longest(la, lb)):
        if x == y:
            continue
        g = _vector_gap(x, y)
        if g is not None and g <= VEC_TOLERANCE:
            near, gap = near + 1, max(gap, g)
            continue
        diffs.append((i, x, y))
    vecs = sum(1 for x in la if x.startswith('["search_vectors", "'))
    print(f"{a}: {len(la):,} rows; {b}: {len(lb):,} rows; {len(diffs):,} differ; "
          f"vectors: {vecs - near:,} of {vecs:,} bit-identical, {near:,} within "
          f"{VEC_TOLERANCE:g} (largest component difference {gap:.2e})")
    for i, x, y in diffs[:show]:
        print(f"line {i}:\n  A {str(x)[:300]}\n  B {str(y)[:300]}")
    return 1 if diffs else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--limit", type=int, default=2760)
    d.add_argument("--data", type=Path, default=None)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--extract-workers", type=int, default=1)
    d.add_argument("--from-store", type=Path, default=None,
                   help="dump this store folder (one already ingested) instead of ingesting")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "compare":
        return compare(args.a, args.b)
    store = args.from_store or ingest(args.limit, args.data, args.extract_workers)
    rows = dump_rows(_db(store))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(rows) + "\n")
    print(f"{len(rows):,} rows of {store} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
