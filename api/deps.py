"""``Annotated`` dependencies shared by the routes: the Memory, the group, as-of times, paging.

Routes declare what they need (``memory: MemoryDep, group: GroupDep, at: AsOfDep``) and
only translate HTTP to one Memory call.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Header, Query, Request, Security
from fastapi.security import APIKeyHeader, HTTPBearer
from starlette.datastructures import State

from kgmem.factory import open_memory
from kgmem.memory.facade import Memory
from kgmem.settings import Settings
from kgmem.timeline import expiry_known_at, in_interval, recorded_by
from kgmem.timeutil import TIME_PATTERN, parse_instant

from .schemas import MAX_OFFSET, MAX_PAGE, TIME_DOC

GROUP_PATTERN = r"^[A-Za-z0-9_\-.:]{1,128}$"

_open_lock = threading.Lock()


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_memory(request: Request) -> Memory:
    """The app's Memory (opened on first use when the app was not given one)."""
    return app_memory(request.app.state)


def app_memory(state: State) -> Memory:
    """The Memory of an app's ``state`` (routes and the retention thread share it)."""
    mem = getattr(state, "memory", None)
    if mem is None:
        with _open_lock:
            mem = getattr(state, "memory", None)
            if mem is None:
                mem = open_memory(state.settings)
                state.memory = mem
                state.owns_memory = True
    return mem


SettingsDep = Annotated[Settings, Depends(get_settings)]
MemoryDep = Annotated[Memory, Depends(get_memory)]


# Declared for the OpenAPI document only: enforcement happens in GuardMiddleware, before
# routing, so that unauthenticated requests never reach a route or the store.
_bearer = HTTPBearer(auto_error=False, description="API key as a bearer token.")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="API key.")


def _documented_auth(
    _b: Annotated[object, Security(_bearer)], _k: Annotated[object, Security(_api_key)]
) -> None:
    return None


AUTH = [Depends(_documented_auth)]


def get_group(
    x_group: Annotated[
        str,
        Header(
            alias="X-Group",
            pattern=GROUP_PATTERN,
            description="The group (tenant) every operation of the request is scoped to.",
        ),
    ] = "default",
) -> str:
    return x_group


GroupDep = Annotated[str, Depends(get_group)]


@dataclass(frozen=True)
class AsOf:
    """The (valid_at, known_at) a read is evaluated at; ``None`` means the store's now."""

    valid_at: datetime | None
    known_at: datetime | None


_V_DOC = "Valid time to read at (default: now). " + TIME_DOC
_K_DOC = "Transaction time to read at: what the memory knew then (default: now). " + TIME_DOC


def get_as_of(
    valid_at: Annotated[str | None, Query(max_length=64, pattern=TIME_PATTERN,
                                          description=_V_DOC)] = None,
    known_at: Annotated[str | None, Query(max_length=64, pattern=TIME_PATTERN,
                                          description=_K_DOC)] = None,
    x_valid_at: Annotated[
        str | None,
        Header(alias="X-Valid-At", max_length=64,
               description="Default valid_at for every read of this request (the query "
               "parameter wins)."),
    ] = None,
    x_known_at: Annotated[
        str | None,
        Header(alias="X-Known-At", max_length=64,
               description="Default known_at for every read of this request (the query "
               "parameter wins)."),
    ] = None,
) -> AsOf:
    v = valid_at if valid_at is not None else x_valid_at
    k = known_at if known_at is not None else x_known_at
    return AsOf(
        valid_at=None if v is None else parse_instant(v, "valid_at"),
        known_at=None if k is None else parse_instant(k, "known_at"),
    )


AsOfDep = Annotated[AsOf, Depends(get_as_of)]


@dataclass(frozen=True)
class PageParams:
    limit: int
    offset: int


def get_page(
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE,
                                description="Page size (clamped to the server's max_list).")]
    = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Items to skip.")] = 0,
) -> PageParams:
    return PageParams(limit=min(limit, max(1, settings.max_list)), offset=offset)


PageDep = Annotated[PageParams, Depends(get_page)]


def page_of(items: list, page: PageParams, fetched_extra: bool) -> dict:  # type: ignore[type-arg]
    """Envelope for a page; ``fetched_extra``: one more item than the page exists."""
    return {
        "items": items[: page.limit],
        "limit": page.limit,
        "offset": page.offset,
        "next_offset": page.offset + page.limit if fetched_extra else None,
    }


def known_by(items: list, at: AsOf) -> list:  # type: ignore[type-arg]
    """Records (entities, episodes, changes) already recorded at ``known_at``."""
    known = at.known_at
    if known is None:
        return items
    return [x for x in items if recorded_by(x.created_at, known)]


def as_of_history(versions: list, at: AsOf) -> list:  # type: ignore[type-arg]
    """A version history as it was recorded at ``known_at`` (later expiries not yet known),
    restricted to versions whose valid interval contains ``valid_at`` when given."""
    out = []
    for v in versions:
        if at.known_at is not None:
            if not recorded_by(v.created_at, at.known_at):
                continue
            expiry = expiry_known_at(v.expired_at, at.known_at)
            if expiry != v.expired_at:  # expired later: not known yet
                v = v.model_copy(update={"expired_at": expiry})
        if at.valid_at is not None and not in_interval(at.valid_at, v.valid_at, v.invalid_at):
            continue
        out.append(v)
    return out
