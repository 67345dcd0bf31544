"""Copy a live embedded store (:mod:`kgmem.archive`): SQLite's online backup API reads one
consistent snapshot of the database while writers go on (they wait at most for one step of
the copy), into a new store directory. The search files beside the database (ANN indexes)
are derived from it and rebuilt by the copy's first search or ``kgmem index``."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConflictError, InvalidInputError, StoreUnavailableError

DB_NAME = "kgmem.sqlite3"
PAGES_PER_STEP = 1024  # 4 MiB at SQLite's default page size: writers wait at most one step


@dataclass(frozen=True)
class BackupReport:
    source: str
    target: str
    bytes: int


def backup(source: str | Path, target: str | Path) -> BackupReport:
    """Copy the embedded store in directory ``source`` to the new directory ``target``
    (which must not hold a store yet)."""
    src_db = Path(source).expanduser() / DB_NAME
    if not src_db.is_file():
        raise InvalidInputError(f"no kgmem store at {source}", field="source")
    out = Path(target).expanduser()
    dst_db = out / DB_NAME
    if dst_db.exists():
        raise ConflictError(f"{out} already holds a kgmem store: back up into a new directory",
                            target=str(out))
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / (DB_NAME + ".partial")
    tmp.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(f"file:{src_db}?mode=ro", uri=True)
        try:
            dst = sqlite3.connect(tmp)
            try:
                src.backup(dst, pages=PAGES_PER_STEP)
                dst.execute("PRAGMA journal_mode=WAL")
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.Error as exc:
        tmp.unlink(missing_ok=True)
        raise StoreUnavailableError(f"cannot back up {source}: {exc}") from exc
    tmp.replace(dst_db)  # the copy appears whole or not at all
    return BackupReport(str(src_db.parent), str(out), dst_db.stat().st_size)
