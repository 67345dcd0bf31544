"""Liveness and readiness probes (unversioned)."""

from __future__ import annotations

from fastapi import APIRouter

from kgmem.errors import KgmemError, StoreUnavailableError

from ..deps import MemoryDep
from ..errors import errors
from ..schemas import Health, Ready

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health, summary="Liveness")
def health() -> Health:
    """The process is up (never touches the store; no API key needed)."""
    return Health()


@router.get("/ready", response_model=Ready, summary="Readiness", responses=errors(401, 503))
def ready(memory: MemoryDep) -> Ready:
    """The store can serve: the embedded store answers a read; Neo4j takes a write (rolled
    back), and after an outage only once its warm-up ran (503 ``store_unavailable`` until
    then)."""
    try:
        memory.store.ready()
    except KgmemError:
        raise
    except Exception as exc:  # a driver error of any kind means "not ready"
        raise StoreUnavailableError(f"store not reachable: {type(exc).__name__}") from None
    return Ready(store=type(memory.store).__name__)
