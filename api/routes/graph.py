"""Graph reasoning: how are two entities connected?"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from ..deps import AsOfDep, GroupDep, MemoryDep
from ..errors import errors
from ..schemas import MAX_NAME, PathList

router = APIRouter(tags=["graph"])


@router.get("/paths", response_model=PathList, summary="Paths between two entities",
            responses=errors(404))
def paths(
    memory: MemoryDep,
    group: GroupDep,
    at: AsOfDep,
    a: Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="Entity name/id.")],
    b: Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="Entity name/id.")],
    max_hops: Annotated[int, Query(ge=1, le=6)] = 3,
    mode: Annotated[Literal["slice", "sequenced"], Query(
        description="slice: every hop visible at (valid_at, known_at); sequenced: hops known "
        "at known_at whose valid intervals share an instant (returned per path).")] = "slice",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> PathList:
    """Paths of at most ``max_hops`` facts between ``a`` and ``b``, shortest first; each hop
    names its fact version (with provenance)."""
    found = memory.paths(a, b, max_hops=max_hops, valid_at=at.valid_at, known_at=at.known_at,
                         mode=mode, group=group, limit=limit)
    return PathList(items=found)
