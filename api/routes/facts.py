"""Facts: assert, read as of (valid_at, known_at), and revise (invalidate/retract/correct)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from kgmem.errors import NotFoundError
from kgmem.model import Change, FactVersion
from kgmem.timeutil import TIME_PATTERN

from ..deps import AsOfDep, GroupDep, MemoryDep, PageDep, as_of_history, page_of
from ..errors import errors
from ..schemas import (
    MAX_NAME,
    TIME_DOC,
    CorrectIn,
    FactIn,
    FactPage,
    InvalidateIn,
    RetractIn,
    VersionList,
)

router = APIRouter(prefix="/facts", tags=["facts"])

FactId = Annotated[str, Path(min_length=1, max_length=128, description="Fact (lineage) id.")]


@router.post("", status_code=201, response_model=FactVersion, summary="Assert a fact",
             responses=errors(404, 409, 413))
def assert_fact(body: FactIn, memory: MemoryDep, group: GroupDep) -> FactVersion:
    """Assert subject-predicate-object with an optional valid interval. On a functional
    predicate (LIVES_IN, ...) the previous value's interval is closed where this one starts.
    Asserting an identical believed fact returns the existing one."""
    return memory.assert_fact(
        body.subject, body.predicate, body.object,
        valid_at=body.valid_at, invalid_at=body.invalid_at, group=group,
        episode=body.episode, fact=body.fact, reason=body.reason,
        valid_precision=body.valid_precision, invalid_precision=body.invalid_precision,
        subject_type=body.subject_type, object_type=body.object_type,
    )


@router.get("", response_model=FactPage, summary="List facts as of (valid_at, known_at)")
def list_facts(
    memory: MemoryDep,
    group: GroupDep,
    at: AsOfDep,
    page: PageDep,
    subject: Annotated[str | None, Query(max_length=MAX_NAME,
                                         description="Subject name or id.")] = None,
    predicate: Annotated[str | None, Query(max_length=128)] = None,
    object: Annotated[str | None, Query(max_length=MAX_NAME,
                                        description="Object name or id.")] = None,
    valid_to: Annotated[str | None, Query(
        max_length=64, pattern=TIME_PATTERN,
        description="With it, match facts valid at any time in "
        "[valid_at, valid_to). " + TIME_DOC)] = None,
    known_to: Annotated[str | None, Query(
        max_length=64, pattern=TIME_PATTERN,
        description="With it, match versions believed at any time in "
        "[known_at, known_to). " + TIME_DOC)] = None,
) -> dict:
    """Fact versions visible at (valid_at, known_at), or overlapping the ranges when
    ``valid_to``/``known_to`` are given. An unknown subject/object yields an empty list."""
    items = memory.facts(
        subject, predicate, object, valid_at=at.valid_at, known_at=at.known_at, group=group,
        valid_to=valid_to, known_to=known_to, limit=page.offset + page.limit + 1,
    )
    window = items[page.offset:]
    return page_of(window, page, len(window) > page.limit)


@router.get("/{fact_id}", response_model=FactVersion, summary="One fact as of (V, K)",
            responses=errors(404))
def get_fact(fact_id: FactId, memory: MemoryDep, group: GroupDep, at: AsOfDep) -> FactVersion:
    """The version of the fact visible at (valid_at, known_at); 404 when the fact does not
    exist in this group or has no version visible then."""
    v = memory.fact(fact_id, valid_at=at.valid_at, known_at=at.known_at, group=group)
    if v is None:
        raise NotFoundError(
            f"fact {fact_id!r} has no version visible at the requested valid_at/known_at",
            fact_id=fact_id, visible=False,
        )
    return v


@router.get("/{fact_id}/history", response_model=VersionList, summary="Every version of a fact",
            responses=errors(404))
def fact_history(fact_id: FactId, memory: MemoryDep, group: GroupDep,
                 at: AsOfDep) -> VersionList:
    """All versions of the lineage (valid and transaction intervals, reason, provenance).
    With ``known_at``: the history as recorded then; with ``valid_at``: only versions whose
    valid interval contains it."""
    versions = memory.history(fact_id, group=group)
    if not versions or any(v.fact_id != fact_id for v in versions):
        raise NotFoundError(f"no fact {fact_id!r} in group {group!r}", fact_id=fact_id)
    return VersionList(items=as_of_history(versions, at))


@router.post("/{fact_id}/invalidate", response_model=Change, summary="It stopped being true",
             responses=errors(404, 409, 413))
def invalidate(fact_id: FactId, body: InvalidateIn, memory: MemoryDep,
               group: GroupDep) -> Change:
    """End the fact's valid interval at ``at`` (a new version; the past is kept)."""
    return memory.invalidate(fact_id, body.at, reason=body.reason, group=group)


@router.post("/{fact_id}/retract", response_model=Change, summary="It was never true",
             responses=errors(404, 409, 413))
def retract(fact_id: FactId, memory: MemoryDep, group: GroupDep,
            body: RetractIn | None = None) -> Change:
    """Stop believing the fact from now on; what was believed before stays visible at
    earlier known_at."""
    return memory.retract(fact_id, reason=body.reason if body else None, group=group)


@router.post("/{fact_id}/correct", response_model=Change, summary="Correct object or interval",
             responses=errors(404, 409, 413))
def correct(fact_id: FactId, body: CorrectIn, memory: MemoryDep, group: GroupDep) -> Change:
    """A new version of the same lineage with another object and/or valid interval."""
    return memory.correct(fact_id, object=body.object, valid_at=body.valid_at,
                          invalid_at=body.invalid_at, reason=body.reason, group=group)
