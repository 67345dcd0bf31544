"""kgmem: bi-temporal knowledge-graph memory for AI agents.

The public API is re-exported here; everything else is internal.
"""

from .errors import (
    ClockError,
    ConflictError,
    InvalidInputError,
    InvalidIntervalError,
    InvalidTimeError,
    KgmemError,
    NotFoundError,
    StoreUnavailableError,
)
from .factory import open_memory
from .memory.aio import AsyncMemory
from .memory.facade import Memory
from .model import Change, Entity, Episode, Erasure, ExtractionState, FactVersion, Path, PathHop
from .settings import Settings
from .timeutil import Precision
from .version import __version__ as __version__
from .vocabulary import Cardinality, PredicateSpec, Vocabulary

__all__ = [
    "AsyncMemory",
    "Cardinality",
    "Change",
    "ClockError",
    "ConflictError",
    "Entity",
    "Episode",
    "Erasure",
    "ExtractionState",
    "FactVersion",
    "InvalidInputError",
    "InvalidIntervalError",
    "InvalidTimeError",
    "KgmemError",
    "Memory",
    "NotFoundError",
    "Path",
    "PathHop",
    "Precision",
    "PredicateSpec",
    "Settings",
    "StoreUnavailableError",
    "Vocabulary",
    "open_memory",
]
