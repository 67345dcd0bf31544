"""The FastAPI application: a thin HTTP layer over :class:`kgmem.Memory`.

``create_app(settings, memory)`` builds the app (tests pass their own Memory);
``run(host, port, settings)`` serves it with uvicorn (``kgmem serve``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi_offline import FastAPIOffline

from kgmem.jobs.consolidate_schedule import ConsolidationScheduler
from kgmem.jobs.index_schedule import BackgroundIndexer
from kgmem.jobs.retention_schedule import RetentionScheduler, parse_groups
from kgmem.memory.facade import Memory
from kgmem.settings import Settings

from .deps import AUTH, app_memory
from .errors import errors, install_error_handlers
from .middleware import GuardMiddleware, parse_api_keys
from .routes import (
    archive,
    changes,
    entities,
    episodes,
    facts,
    graph,
    health,
    pages,
    predicates,
    retrieval,
)

API_VERSION = "v1"

DESCRIPTION = """
Bi-temporal knowledge-graph memory over HTTP.

* Every read is evaluated at a **valid time** (`valid_at`: when it was true in the world) and a
  **transaction time** (`known_at`: what the memory knew then); both default to now. The
  headers `X-Valid-At` / `X-Known-At` set them for every read of a request; query parameters
  win.
* Every call is scoped to one **group** (tenant) given by `X-Group` (default `default`):
  nothing crosses groups.
* When API keys are configured (`KGMEM_API_KEYS`), send `Authorization: Bearer <key>` or
  `X-API-Key: <key>`; `/health` stays open.
* Every error has the body `{"error": {"type", "message", "details"}}`.
"""

TAGS = [
    {"name": "episodes", "description": "Raw content stored verbatim; extraction runs on add."},
    {"name": "facts", "description": "Bi-temporal facts: assert, read as of, revise."},
    {"name": "entities", "description": "Entities and what the memory holds about them."},
    {"name": "predicates", "description": "The group's predicate vocabulary, stored: "
     "cardinality and symmetry."},
    {"name": "changes", "description": "The change log and undo."},
    {"name": "graph", "description": "Paths between entities."},
    {"name": "retrieval", "description": "Search and prompt context."},
    {"name": "archive", "description": "Export and import a group (versioned JSONL)."},
    {"name": "health", "description": "Probes."},
]


def create_app(settings: Settings | None = None, memory: Memory | None = None) -> FastAPI:
    """Build the API. With ``memory`` the app uses (and never closes) that Memory; otherwise
    it opens one from ``settings`` on first use and closes it at shutdown."""
    settings = settings or Settings()
    keys = parse_api_keys(settings.api_keys)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.retention = _retention(app, settings)
        app.state.consolidation = _consolidation(app, settings)
        app.state.indexer = _indexer(app, settings)
        jobs = [j for j in (app.state.retention, app.state.consolidation, app.state.indexer)
                if j is not None]
        for job in jobs:
            job.start()
        yield
        for job in jobs:  # before the Memory they write to is closed
            await asyncio.to_thread(job.stop)
        if getattr(app.state, "owns_memory", False) and app.state.memory is not None:
            app.state.memory.close()
            app.state.memory = None

    # /docs and /redoc serve Swagger UI and ReDoc from the fastapi-offline package, not a CDN
    app = FastAPIOffline(
        title="kgmem",
        version="0.1.0",
        summary="Temporal knowledge-graph memory for AI agents",
        description=DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
        responses=errors(500),
    )
    app.state.settings = settings
    app.state.memory = memory
    app.state.owns_memory = False
    install_error_handlers(app)

    v1 = APIRouter(
        prefix=f"/{API_VERSION}",
        dependencies=AUTH,
        responses=errors(401, 403, 422, 503),
    )
    for module in (episodes, facts, entities, pages, predicates, changes, graph, retrieval,
                   archive):
        v1.include_router(module.router)
    app.include_router(health.router)
    app.include_router(v1)
    app.add_middleware(
        GuardMiddleware, keys=keys, max_request_bytes=settings.max_request_bytes
    )
    return app


def _retention(app: FastAPI, settings: Settings) -> RetentionScheduler | None:
    """The scheduled retention of ``KGMEM_RETENTION_POLICY`` (None when unset)."""
    if settings.retention_policy is None:
        return None
    return RetentionScheduler(lambda: app_memory(app.state), settings.retention_policy,
                              settings.retention_interval,
                              parse_groups(settings.retention_groups))


def _consolidation(app: FastAPI, settings: Settings) -> ConsolidationScheduler | None:
    """Entity summaries kept current every ``KGMEM_CONSOLIDATE_INTERVAL`` s (None when unset)."""
    if settings.consolidate_interval is None:
        return None
    return ConsolidationScheduler(lambda: app_memory(app.state), settings.consolidate_interval,
                                  parse_groups(settings.consolidate_groups))


def _indexer(app: FastAPI, settings: Settings) -> BackgroundIndexer | None:
    """Embeds what writes queued, outside the requests (None when KGMEM_INDEX_INTERVAL=0)."""
    if not settings.index_interval:
        return None
    return BackgroundIndexer(lambda: app_memory(app.state), settings.index_interval)


def run(host: str = "127.0.0.1", port: int = 8000, settings: Settings | None = None,
        log_level: str = "info") -> None:
    """Serve the API with uvicorn (blocking); kgmem's own log lines (scheduled retention)
    go where uvicorn's go."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["kgmem"] = {"handlers": ["default"], "level": log_level.upper(),
                                      "propagate": False}
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level,
                log_config=log_config)
