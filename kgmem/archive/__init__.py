"""Export, import and backup of a memory (docs/archive.md).

* :func:`export_archive` writes a versioned JSONL archive of groups: episodes, entities (with
  every alias row, the resolver's merge and split records included), every lineage with every
  fact version (both clocks, provenance), the change log with each change's effects (so undo
  works after an import), every version of every predicate declaration, erasure audit records,
  entity summaries and each group's transaction clock. What was erased is not in the store,
  so it is not in the archive: only the erasure's audit record is.
* :func:`import_archive` reads one into any store, record by record, skipping what is
  already there (importing twice is importing once; an interrupted import is finished by
  running it again).
* :func:`backup` copies a live embedded store with SQLite's online backup API.
"""

from .backup import backup
from .export import export_archive
from .load import ImportReport, import_archive
from .records import FORMAT, VERSION, ArchiveError

__all__ = ["FORMAT", "VERSION", "ArchiveError", "ImportReport", "backup", "export_archive",
           "import_archive"]
