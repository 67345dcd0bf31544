"""Changes: what was learnt or revised since a time, and undo."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from kgmem.model import Change
from kgmem.timeutil import TIME_PATTERN

from ..deps import AsOfDep, GroupDep, MemoryDep, PageDep, known_by, page_of
from ..errors import errors
from ..schemas import TIME_DOC, ChangePage

router = APIRouter(prefix="/changes", tags=["changes"])


@router.get("", response_model=ChangePage, summary="Changes since a time",
            responses=errors(404))
def list_changes(
    memory: MemoryDep,
    group: GroupDep,
    page: PageDep,
    at: AsOfDep,
    since: Annotated[str, Query(max_length=64, pattern=TIME_PATTERN,
                                description="Only changes strictly after "
                                "this transaction time. " + TIME_DOC)] = "1970-01-01",
    after: Annotated[str | None, Query(min_length=1, max_length=128,
                                       description="Only changes after this "
                                       "change id (the last item of the previous page, same "
                                       "`since`): a cursor that neither skips nor repeats "
                                       "changes sharing a transaction time. An id that is "
                                       "not a change of the group: 404 not_found.")] = None,
) -> dict:
    """Changes recorded after ``since`` (oldest first, ties in insertion order); ``known_at``
    caps them at what was recorded by then. Read on with ``after`` (or ``offset``)."""
    end = page.offset + page.limit + 1
    items = known_by(memory.changes(since, group=group, limit=end, after=after), at)
    window = items[page.offset: end]
    return page_of(window, page, len(window) > page.limit)


@router.post("/{change_id}/undo", response_model=Change, summary="Undo a change",
             responses=errors(404, 409))
def undo(
    change_id: Annotated[str, Path(min_length=1, max_length=128)],
    memory: MemoryDep,
    group: GroupDep,
) -> Change:
    """Reverse one change as a new change. 409 when a later change depends on it, when it
    was already undone, or for an erase."""
    return memory.undo(change_id, group=group)
