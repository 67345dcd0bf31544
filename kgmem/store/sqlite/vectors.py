"""Vector indexes for the embedded store: one per (kind, group), rebuilt from SQLite.

The vectors live in the store's ``search_vectors`` table (float32 blobs, the source of truth:
they are written in the same durable SQLite transactions as everything else). An index here is
a cache over them:

* below :data:`HNSW_MIN` vectors an exact in-memory matrix (:class:`FlatIndex`), rebuilt from
  SQLite on first use (fast at that size, nothing on disk);
* from :data:`HNSW_MIN` on an HNSW graph (:class:`HnswIndex`, hnswlib, inner product over unit
  vectors) persisted in ``<store>/search/`` with the highest label and deletion sequence it
  contains, recorded in ``search_ann_files`` *after* the file is complete. On load the index
  catches up with SQLite: vectors with a higher label are added, vectors deleted since are
  removed. A crash at any point therefore loses nothing: at worst the file is older and the
  catch-up is longer.

Deletion (erase) scrubs the vector from the HNSW data (overwritten with zeros, then marked
deleted) and re-saves the file at once, so an erased text's embedding does not survive in the
persisted index either.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .search import SearchTables

log = logging.getLogger(__name__)

HNSW_MIN = 4096  # below this many vectors an exact matrix is as fast and needs no file
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 100
HNSW_EF_SEARCH = 96
SAVE_GROWTH = 0.25  # re-save a persisted index once it grew by this fraction...
SAVE_MAX_AGE_S = 600.0  # ...or unsaved additions are this old
_BATCH = 50_000


def blob_to_vec(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


class FlatIndex:
    """Exact inner-product search over an in-memory matrix."""

    kind = "flat"

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._mat = np.zeros((0, dim), dtype=np.float32)
        self._labels = np.zeros((0,), dtype=np.int64)
        self._n = 0
        self._pos: dict[int, int] = {}

    def __len__(self) -> int:
        return self._n

    def add(self, labels: np.ndarray, vecs: np.ndarray) -> None:
        new = [i for i, lab in enumerate(labels.tolist()) if lab not in self._pos]
        if not new:
            return
        labels, vecs = labels[new], vecs[new]
        need = self._n + len(labels)
        if need > len(self._labels):
            cap = max(need, 2 * len(self._labels), 64)
            mat = np.zeros((cap, self.dim), dtype=np.float32)
            mat[: self._n] = self._mat[: self._n]
            lab = np.zeros((cap,), dtype=np.int64)
            lab[: self._n] = self._labels[: self._n]
            self._mat, self._labels = mat, lab
        self._mat[self._n : need] = vecs
        self._labels[self._n : need] = labels
        for i, lab_ in enumerate(labels.tolist()):
            self._pos[int(lab_)] = self._n + i
        self._n = need

    def remove(self, labels: list[int]) -> int:
        gone = 0
        for lab in labels:
            i = self._pos.pop(int(lab), None)
            if i is None:
                continue
            last = self._n - 1
            if i != last:  # move the last row into the hole
                self._mat[i] = self._mat[last]
                moved = int(self._labels[last])
                self._labels[i] = moved
                self._pos[moved] = i
            self._mat[last] = 0.0
            self._n -= 1
            gone += 1
        return gone

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self._n == 0 or k <= 0:
            return []
        sims = self._mat[: self._n] @ q.astype(np.float32)
        k = min(k, self._n)
        idx = np.argpartition(-sims, k - 1)[:k] if k < self._n else np.arange(self._n)
        idx = idx[np.argsort(-sims[idx], kind="stable")]
        return [(int(self._labels[i]), float(sims[i])) for i in idx]

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        return self._labels[: self._n].copy(), self._mat[: self._n].copy()


class HnswIndex:
    """Approximate inner-product search (hnswlib) with scrubbing deletes."""

    kind = "hnsw"

    def __init__(self, dim: int, capacity: int = 1024, index: Any = None) -> None:
        import hnswlib

        self.dim = dim
        if index is None:
            index = hnswlib.Index(space="ip", dim=dim)
            index.init_index(
                max_elements=max(capacity, 1024), ef_construction=HNSW_EF_CONSTRUCTION, M=HNSW_M
            )
        self._index = index
        self._index.set_ef(HNSW_EF_SEARCH)
        self._live = int(index.get_current_count())

    @classmethod
    def load(cls, path: Path, dim: int, deleted: int = 0) -> HnswIndex:
        import hnswlib

        index = hnswlib.Index(space="ip", dim=dim)
        index.load_index(str(path))
        out = cls(dim, index=index)
        out._live = int(index.get_current_count()) - deleted
        return out

    def __len__(self) -> int:
        return self._live

    def add(self, labels: np.ndarray, vecs: np.ndarray) -> None:
        if len(labels) == 0:
            return
        need = int(self._index.get_current_count()) + len(labels)
        cap = int(self._index.get_max_elements())
        if need > cap:
            self._index.resize_index(max(need, int(cap * 1.5)))
        self._index.add_items(vecs, labels.astype(np.uint64), num_threads=-1)
        self._live += len(labels)

    def remove(self, labels: list[int]) -> int:
        gone = 0
        zero = np.zeros((1, self.dim), dtype=np.float32)
        for lab in labels:
            try:
                self._index.get_items([int(lab)])  # raises if absent or already deleted
            except RuntimeError:
                continue
            try:
                # overwrite the stored vector first so the erased embedding is not kept
                self._index.add_items(zero, np.array([lab], dtype=np.uint64))
                self._index.mark_deleted(int(lab))
            except RuntimeError:
                continue  # not in this index (never added or already deleted)
            gone += 1
        self._live -= gone
        return gone

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self._live <= 0 or k <= 0:
            return []
        k = min(k, self._live)
        self._index.set_ef(max(HNSW_EF_SEARCH, 2 * k))
        try:
            labels, dists = self._index.knn_query(q.astype(np.float32), k=k)
        except RuntimeError:  # fewer reachable than k (many deletions): ask for fewer
            labels, dists = self._index.knn_query(q.astype(np.float32), k=max(1, k // 2))
        return [(int(lab), 1.0 - float(d)) for lab, d in zip(labels[0], dists[0])]

    def save(self, path: Path) -> None:
        self._index.save_index(str(path))

    @property
    def deleted_count(self) -> int:
        return int(self._index.get_current_count()) - self._live


@dataclass
class _Entry:
    index: FlatIndex | HnswIndex
    max_label: int = 0
    del_seq: int = 0
    file: str | None = None
    saved_count: int = 0
    saved_at: float = field(default_factory=time.monotonic)
    unsaved: int = 0


def _group_key(group: str) -> str:
    return hashlib.sha1(group.encode()).hexdigest()[:16]


class VectorIndexes:
    """The loaded indexes of one embedded store for one embedding model."""

    def __init__(self, view: SearchTables, model: str, dim: int) -> None:
        self.view = view
        self.model = model
        self.dim = dim
        self.dir = Path(view.path) / "search"
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.RLock()
        ref = weakref.ref(self)
        atexit.register(_flush_at_exit, ref)

    # ------------------------------------------------------------------ public
    def search(self, kind: str, group: str, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        """``(label, cosine)`` of the ``k`` nearest vectors of (kind, group)."""
        with self._lock:
            entry = self._sync(kind, group)
            return entry.index.search(q, k)

    def sync(self, kind: str, group: str) -> None:
        with self._lock:
            self._sync(kind, group)

    def scrub_persisted(self) -> int:
        """Apply pending deletions to every persisted index file (privacy after an erase)."""
        n = 0
        with self._lock:
            for kind, group, _file, del_seq in self.view.search_ann_files():
                if self.view.search_deleted_after(kind, group, int(del_seq)):
                    self._sync(kind, group)
                    n += 1
        return n

    def flush(self) -> None:
        """Persist every HNSW index that has unsaved additions."""
        with self._lock:
            for (kind, group), e in list(self._entries.items()):
                if isinstance(e.index, HnswIndex) and e.unsaved:
                    self._save(kind, group, e)

    def stats(self) -> dict[str, dict[str, str | int | None]]:
        with self._lock:
            return {
                f"{k}:{g}": {"type": e.index.kind, "size": len(e.index), "file": e.file}
                for (k, g), e in self._entries.items()
            }

    # ------------------------------------------------------------------ internals
    def _sync(self, kind: str, group: str) -> _Entry:
        key = (kind, group)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._load(kind, group)
            self._entries[key] = entry
        # additions since the entry's high-water mark
        added = 0
        while True:
            rows = self.view.search_vectors_after(kind, group, entry.max_label, _BATCH)
            if not rows:
                break
            labels = np.array([r[0] for r in rows], dtype=np.int64)
            vecs = np.stack([blob_to_vec(r[1]) for r in rows]).astype(np.float32)
            if vecs.shape[1] != self.dim:
                from ...errors import InvalidInputError

                raise InvalidInputError(
                    f"stored vectors have dimension {vecs.shape[1]}, the embedder {self.model!r} "
                    f"has {self.dim}; run kgmem.retrieve.reindex(memory)"
                )
            if isinstance(entry.index, FlatIndex) and len(entry.index) + len(rows) >= HNSW_MIN:
                entry.index = self._to_hnsw(entry.index, len(rows))
                entry.unsaved = len(entry.index)
            entry.index.add(labels, vecs)
            entry.max_label = int(labels[-1])
            entry.unsaved += len(rows)
            added += len(rows)
        # deletions since the entry's deletion mark
        dels = self.view.search_deleted_after(kind, group, entry.del_seq)
        removed = 0
        if dels:
            removed = entry.index.remove([int(lab) for _, lab in dels])
            entry.del_seq = int(dels[-1][0])
        if isinstance(entry.index, HnswIndex) and len(entry.index) == 0:
            entry.index = FlatIndex(self.dim)  # everything erased: no file left behind
        if isinstance(entry.index, HnswIndex):
            due = (
                entry.file is None
                or dels  # privacy: an erased vector must leave the file now
                or entry.unsaved >= max(1000, SAVE_GROWTH * max(entry.saved_count, 1))
                or (entry.unsaved and time.monotonic() - entry.saved_at > SAVE_MAX_AGE_S)
            )
            if due and (entry.unsaved or dels or entry.file is None):
                self._save(kind, group, entry)
        elif entry.file is not None:  # shrank below the HNSW size: no file any more
            self._drop_file(kind, group, entry)
        if added or removed:
            log.debug("vector index %s/%s: +%d -%d", kind, group, added, removed)
        return entry

    def _to_hnsw(self, flat: FlatIndex, extra: int) -> HnswIndex:
        labels, mat = flat.items()
        h = HnswIndex(self.dim, capacity=int((len(labels) + extra) * 1.3))
        h.add(labels, mat)
        return h

    def _load(self, kind: str, group: str) -> _Entry:
        rec = self.view.search_ann_file(kind, group)
        if rec is not None:
            file, model, dim, max_label, del_seq, count = rec
            path = self.dir / file
            if model == self.model and int(dim) == self.dim and path.exists():
                try:
                    idx = HnswIndex.load(path, self.dim)
                    idx._live = int(count)
                    return _Entry(
                        index=idx,
                        max_label=int(max_label),
                        del_seq=int(del_seq),
                        file=file,
                        saved_count=int(count),
                    )
                except Exception as exc:  # a damaged cache is rebuilt from SQLite
                    log.warning("rebuilding vector index %s: %s", path, exc)
            self.view.search_set_ann_file(kind, group, None)
        # build from SQLite: everything deleted so far is simply absent
        n = self.view.search_vector_count(kind, group)
        del_seq = self.view.search_max_deleted_seq()
        index: FlatIndex | HnswIndex
        index = HnswIndex(self.dim, capacity=int(n * 1.3)) if n >= HNSW_MIN else FlatIndex(self.dim)
        return _Entry(index=index, max_label=0, del_seq=del_seq)

    def _save(self, kind: str, group: str, entry: _Entry) -> None:
        assert isinstance(entry.index, HnswIndex)
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"{kind}-{_group_key(group)}-{uuid.uuid4().hex[:12]}.hnsw"
        tmp = self.dir / (name + ".tmp")
        entry.index.save(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, self.dir / name)
        _fsync_dir(self.dir)
        self.view.search_set_ann_file(
            kind,
            group,
            name,
            self.model,
            self.dim,
            entry.max_label,
            entry.del_seq,
            len(entry.index),
        )
        old = entry.file
        entry.file = name
        entry.saved_count = len(entry.index)
        entry.saved_at = time.monotonic()
        entry.unsaved = 0
        if old and old != name:
            try:
                (self.dir / old).unlink()
            except FileNotFoundError:
                pass

    def _drop_file(self, kind: str, group: str, entry: _Entry) -> None:
        self.view.search_set_ann_file(kind, group, None)
        if entry.file:
            try:
                (self.dir / entry.file).unlink()
            except FileNotFoundError:
                pass
        entry.file = None

    def cleanup_orphans(self, min_age_s: float = 3600.0) -> int:
        """Remove index files no record points to (left by a crash mid-save)."""
        if not self.dir.exists():
            return 0
        keep = {r[2] for r in self.view.search_ann_files()}
        n = 0
        now = time.time()
        for p in self.dir.iterdir():
            if p.name in keep or not p.name.endswith((".hnsw", ".tmp")):
                continue
            if now - p.stat().st_mtime >= min_age_s:
                p.unlink(missing_ok=True)
                n += 1
        return n


def scrub_ann_files(view: SearchTables) -> int:
    """After an erase: rewrite every persisted index file that still holds a deleted vector,
    also when no search backend of this process has it loaded (an erase from the CLI), and
    remove the files a crash left behind. Returns how many indexes were rewritten."""
    tables = {r[0] for r in view._sq(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='search_ann_files'")}
    if not tables:
        return 0  # search never used on this store: no index file
    model, dim = view.search_meta_get("model"), view.search_meta_get("dim")
    if model is None or dim is None:
        return 0
    indexes = VectorIndexes(view, model, int(dim))
    n = indexes.scrub_persisted()
    indexes.cleanup_orphans(min_age_s=60.0)
    return n


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _flush_at_exit(ref: weakref.ReferenceType[VectorIndexes]) -> None:
    obj = ref()
    if obj is None:
        return
    try:
        obj.flush()
    except Exception:  # best effort: the SQLite rows are the truth anyway
        pass
