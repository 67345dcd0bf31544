"""Archives: the request's group exported as kgmem's JSONL archive, and imported from one
(kgmem.archive; docs/archive.md)."""

from __future__ import annotations

import io
from typing import Annotated

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field

from kgmem.archive import ArchiveError
from kgmem.archive.load import check_groups, parse_lines
from kgmem.archive.records import Header
from kgmem.errors import ForbiddenError

from ..deps import GroupDep, MemoryDep
from ..errors import errors

router = APIRouter(prefix="/archive", tags=["archive"])


class ArchiveOut(BaseModel):
    """One group's archive: ``jsonl`` is the file ``kgmem export`` writes."""

    group: str
    counts: dict[str, int] = Field(description="Records of each kind in the archive.")
    jsonl: str


class ArchiveIn(BaseModel):
    jsonl: str = Field(description="A kgmem archive (``kgmem export``, or ``jsonl`` of "
                       "``POST /v1/archive/export``) holding only the request's group.")


class ImportOut(BaseModel):
    """Per record kind, how many were written and how many were already there."""

    groups: list[str]
    written: dict[str, int]
    skipped: dict[str, int]


@router.post("/export", response_model=ArchiveOut, summary="Export the group",
             responses=errors())
def export(memory: MemoryDep, group: GroupDep) -> ArchiveOut:
    """Every episode, entity, fact version (both clocks, provenance), change, predicate
    declaration, merge and erasure record of the request's group, as a versioned JSONL
    archive. Erased content is not in it (only the erasure's audit record)."""
    buf = io.StringIO()
    counts = memory.export(buf, [group])
    return ArchiveOut(group=group, counts=counts, jsonl=buf.getvalue())


@router.post("/import", response_model=ImportOut, summary="Import an archive",
             responses=errors(409, 413))
def import_(body: Annotated[ArchiveIn, Body()], memory: MemoryDep, group: GroupDep
            ) -> ImportOut:
    """Read an archive of the request's group into the store; what is already there is
    skipped (importing twice is importing once). 403 for an archive naming another group,
    422 ``invalid_archive`` for a malformed or truncated one, 409 when the group already holds
    a different memory."""
    lines = body.jsonl.splitlines(True)
    recs = parse_lines(lines[:1])
    header = next(recs, None)
    if not isinstance(header, Header):
        raise ArchiveError("not a kgmem archive: the first line is not its header")
    others = [g for g in header.groups if g != group]
    if others:
        raise ForbiddenError(f"the archive holds group(s) {others} beside the request's group "
                             f"{group!r}: import each group with its own X-Group",
                             groups=others)
    for _ in check_groups(parse_lines(lines)):  # every record of the group, before writing
        pass
    report = memory.import_(lines)
    return ImportOut(**report.summary())  # type: ignore[arg-type]
