"""The Neo4j store, whole: the store (store.py) with its query fragments and row decoders
(queries.py), writes (write.py), schema and indexes (schema.py), search reads (search.py),
predicate declarations (predicates.py), erase (erase.py), integrity reads (check.py) and the
bulk copy of an embedded store (importer.py)."""

from .store import Neo4jStore, settings_from_env

__all__ = ["Neo4jStore", "settings_from_env"]
