"""The embedded (SQLite) store, whole: the store (store.py) with its row decoders (rows.py),
connections (conns.py), erase (erase.py), integrity reads (check.py), search tables and their
SQL reads (search.py), search reads for kgmem.retrieve (reads.py), the vector indexes and ANN
files (vectors.py) and the indexing of what its triggers queued (indexing.py)."""

from .store import EmbeddedStore

__all__ = ["EmbeddedStore"]
