"""Pydantic AI: :func:`kgmem_toolset`, the memory tools (remember, recall, correct, forget)
as a ``FunctionToolset`` (``pip install 'kgmem[pydantic-ai]'``; docs/integrations.md).

A kgmem error is raised to the agent as ``ModelRetry`` with its type and message, which is
how Pydantic AI tells a model to try the call again with other arguments (up to the
toolset's ``max_retries``). The synchronous tools run in Pydantic AI's worker threads, off
the event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import KgmemError, missing_extra
from ..memory.facade import Memory
from ..names import check_group
from .tools import TOOL_NAMES, MemoryTools

if TYPE_CHECKING:
    from ..memory.aio import AsyncMemory

try:
    from pydantic_ai import FunctionToolset, ModelRetry
except ImportError as _exc:
    raise missing_extra("kgmem.integrations.pydantic_ai", "pydantic-ai", "pydantic-ai-slim"
                        ) from _exc


def kgmem_toolset(memory: Memory | AsyncMemory | str | Path | None = None,
                  group: str = "default", speaker: str | None = None,
                  max_retries: int = 1) -> FunctionToolset[Any]:
    """remember, recall, correct and forget over ``memory`` in ``group``."""
    tools = MemoryTools(memory, check_group(group), speaker)

    def retrying(fn: Callable[..., str]) -> Callable[..., str]:
        @functools.wraps(fn)  # the schema is read from fn's signature and docstring
        def call(*args: Any, **kwargs: Any) -> str:
            try:
                return fn(*args, **kwargs)
            except KgmemError as exc:
                raise ModelRetry(f"{exc.type}: {exc.message}") from exc

        return call

    return FunctionToolset([retrying(getattr(tools, name)) for name in TOOL_NAMES],
                           max_retries=max_retries)
