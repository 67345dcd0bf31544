"""An embedding cache that wraps any :class:`~kgmem.embed.base.Embedder`.

``CachedEmbedder(inner)`` keeps vectors in an in-memory LRU; ``CachedEmbedder(inner,
path)`` keeps them in a SQLite file (WAL mode, safe for several processes and threads).
Entries are keyed by ``(inner.name, sha256(text))``, so embedders of different vector
spaces never share entries, and a text is embedded once however often it is seen.
Within one ``embed`` call duplicate texts are embedded once, and all misses go to the
inner embedder in a single batched call.

One cache file may serve many stores and groups (the default one does, see
:func:`kgmem.embed.get_default_embedder`): an erase forgets the erased texts in it
(:meth:`CachedEmbedder.forget`, :func:`forget_in_file`), whatever model embedded them, and
leaves no copy behind (``secure_delete``, WAL truncated). Another store that still holds the
same text loses nothing but a cache hit: its vectors live in its own files.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgmem.errors import InvalidInputError

from .base import Embedder, check_texts
from .errors import EmbeddingError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    key   TEXT NOT NULL,
    dim   INTEGER NOT NULL,
    vec   BLOB NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID
"""
_SQL_CHUNK = 500  # stay below SQLite's host-parameter limit
log = logging.getLogger(__name__)


def text_key(text: str) -> str:
    """sha256 hex of the UTF-8 text (lone surrogates passed through, never an error)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class CachedEmbedder:
    """``CachedEmbedder(inner, path=None, *, max_entries=100_000)``.

    ``path=None``: in-memory LRU of at most ``max_entries`` vectors.
    ``path=<file>``: persistent SQLite cache (unbounded; delete the file to reset).
    ``hits`` / ``misses`` count texts served from / not found in the cache.
    """

    def __init__(
        self,
        inner: Embedder,
        path: str | Path | None = None,
        *,
        max_entries: int = 100_000,
    ) -> None:
        if max_entries < 1:
            raise InvalidInputError("max_entries must be >= 1")
        self.inner = inner
        self.path = Path(path) if path is not None else None
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._lock = threading.RLock()
        self._lru: OrderedDict[str, np.ndarray] = OrderedDict()
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA secure_delete=ON")  # a forgotten vector leaves no bytes
            db.execute(_SCHEMA)
            db.commit()
            self._db = db

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    # -- storage ------------------------------------------------------------------------
    def _get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if self._db is None:
            for k in keys:
                v = self._lru.get(k)
                if v is not None:
                    self._lru.move_to_end(k)
                    found[k] = v
            return found
        for i in range(0, len(keys), _SQL_CHUNK):
            part = keys[i : i + _SQL_CHUNK]
            rows = self._db.execute(
                f"SELECT key, dim, vec FROM embeddings WHERE model = ? AND key IN "
                f"({','.join('?' * len(part))})",
                [self.name, *part],
            ).fetchall()
            for k, dim, blob in rows:
                v = np.frombuffer(blob, dtype=np.float32)
                if v.shape == (dim,):
                    found[k] = v
        return found

    def _put_many(self, items: dict[str, np.ndarray]) -> None:
        if self._db is None:
            for k, v in items.items():
                self._lru[k] = v
                self._lru.move_to_end(k)
            while len(self._lru) > self.max_entries:
                self._lru.popitem(last=False)
            return
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, key, dim, vec) VALUES (?, ?, ?, ?)",
                [(self.name, k, int(v.shape[0]), v.tobytes()) for k, v in items.items()],
            )

    # -- Embedder -----------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [text_key(t) for t in items]
        first: dict[str, int] = {}
        for i, k in enumerate(keys):
            first.setdefault(k, i)
        with self._lock:
            found = self._get_many(list(first))
        missing = [k for k in first if k not in found]
        new: dict[str, np.ndarray] = {}
        if missing:
            # computed outside the lock: a long batch (the background indexer's) must not
            # keep a search's one query waiting; two threads computing the same text store
            # the same vector
            fresh = np.asarray(
                self.inner.embed([items[first[k]] for k in missing]), dtype=np.float32
            )
            for j, k in enumerate(missing):
                v = np.array(fresh[j])
                v.setflags(write=False)
                new[k] = v
            found.update(new)
        with self._lock:
            if new:
                self._put_many(new)
            lengths = {v.shape[0] for v in found.values()}
            if len(lengths) > 1:
                raise EmbeddingError(
                    f"cached vectors for {self.name!r} have different lengths {sorted(lengths)}:"
                    " the model changed under the same name; call clear() on the cache",
                    path=str(self.path) if self.path else None,
                )
            missing_set = set(missing)
            n_missing = sum(1 for k in keys if k in missing_set)
            self.misses += n_missing
            self.hits += len(keys) - n_missing
            return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def embed_one(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise InvalidInputError(f"text is {type(text).__name__}, expected str")
        return self.embed([text])[0]

    # -- housekeeping -------------------------------------------------------------------
    def __len__(self) -> int:
        with self._lock:
            if self._db is None:
                return len(self._lru)
            return self._db.execute(
                "SELECT COUNT(*) FROM embeddings WHERE model = ?", [self.name]
            ).fetchone()[0]

    def clear(self) -> None:
        """Forget this embedder's cached vectors (other models' entries are kept)."""
        with self._lock:
            self._lru.clear()
            if self._db is not None:
                with self._db:
                    self._db.execute("DELETE FROM embeddings WHERE model = ?", [self.name])

    def forget(self, texts: Sequence[str]) -> int:
        """Drop ``texts`` from the cache for every model (an erase: neither the hash nor the
        vector of an erased text may stay); returns how many entries went."""
        keys = sorted({text_key(t) for t in texts})
        with self._lock:
            n = sum(self._lru.pop(k, None) is not None for k in keys)
            if self._db is not None:
                n += _forget_keys(self._db, keys)
            return n

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
                self.path = None

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory"
        return f"CachedEmbedder({self.inner!r}, {where})"



def _forget_keys(db: sqlite3.Connection, keys: Sequence[str]) -> int:
    """Delete ``keys`` (all models) with zeroed pages, then truncate the WAL that still holds
    their old pages. Writes nothing when none of them is cached."""
    present: list[str] = []
    for i in range(0, len(keys), _SQL_CHUNK):
        part = list(keys[i : i + _SQL_CHUNK])
        present += [r[0] for r in db.execute(
            f"SELECT DISTINCT key FROM embeddings WHERE key IN ({','.join('?' * len(part))})",
            part)]
    if not present:
        return 0
    n = 0
    db.execute("PRAGMA secure_delete=ON")
    with db:
        for i in range(0, len(present), _SQL_CHUNK):
            part = present[i : i + _SQL_CHUNK]
            n += db.execute(
                f"DELETE FROM embeddings WHERE key IN ({','.join('?' * len(part))})", part
            ).rowcount
    busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    if busy:
        log.warning("embedding cache: other processes kept the WAL busy; the forgotten "
                    "entries leave it at its next checkpoint")
    return n


def forget_in_file(path: str | Path, texts: Sequence[str]) -> int:
    """:meth:`CachedEmbedder.forget` on a cache file no embedder of this process has open
    (e.g. the default cache, filled by another process). A missing file holds nothing."""
    p = Path(path)
    if not p.is_file():
        return 0
    db = sqlite3.connect(str(p), timeout=5.0)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(_SCHEMA)
        return _forget_keys(db, sorted({text_key(t) for t in texts}))
    finally:
        db.close()
