"""The archive verbs of :class:`kgmem.Memory` (``export``, ``import_``, ``backup``), kept
beside the archive code they call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import InvalidInputError

if TYPE_CHECKING:
    from ..store.base import Store
    from .backup import BackupReport
    from .load import ImportReport


class ArchiveVerbs:
    store: Store

    def export(self, out: TextIO | str | Path, groups: Sequence[str] | None = None
               ) -> dict[str, int]:
        """Write a versioned JSONL archive of ``groups`` (default: every group) to ``out``
        (:mod:`kgmem.archive`), an open text file or a path (written whole or not at all:
        a failed export leaves an earlier archive there as it was); returns the count of
        records of each kind."""
        from .export import export_archive, export_file

        if isinstance(out, (str, Path)):
            return export_file(self.store, Path(out), groups)
        return export_archive(self.store, out, groups)

    def import_(self, lines: Iterable[str]) -> ImportReport:
        """Read an archive (an open file, or its lines) into this memory's store,
        idempotently (:func:`kgmem.archive.import_archive`)."""
        from .load import import_archive

        return import_archive(self.store, lines)

    def backup(self, target: str | Path) -> BackupReport:
        """Copy this (embedded, live) store into the new directory ``target``."""
        from .backup import backup

        path = getattr(self.store, "path", None)
        if path is None:
            raise InvalidInputError("backup copies an embedded store; back up Neo4j with "
                                    "neo4j-admin, or export it (Memory.export)",
                                    field="store")
        return backup(path, target)
