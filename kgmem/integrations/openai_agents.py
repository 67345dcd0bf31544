"""The OpenAI Agents SDK: :class:`KgmemSession`, an SDK ``Session`` whose conversation items
are kgmem episodes, and :func:`kgmem_function_tools`, the memory tools as function tools
(``pip install 'kgmem[openai-agents]'``; docs/integrations.md).

``KgmemSession(session_id, memory, group=...)`` stores each item the runner adds as an
episode of ``group`` (source ``agents-session``, the item itself kept beside its text): the
user's messages are read by kgmem's extraction (facts about the user accumulate in the group,
across sessions), the assistant's and tool items are stored without extraction. ``get_items``
gives the session's items back in order, exactly as added; ``pop_item`` and ``clear_session``
erase the episodes (kgmem's physical erase: the facts only they supported go too). Every
method runs the synchronous memory in a worker thread.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import KgmemError, missing_extra
from ..memory.facade import Memory
from ..model import Episode
from ..names import check_group
from .tools import TOOL_NAMES, MemoryTools, memory_of, stored_by

try:
    import anyio.to_thread
    from agents import FunctionTool, function_tool
    from agents.items import TResponseInputItem
except ImportError as _exc:
    raise missing_extra("kgmem.integrations.openai_agents", "openai-agents",
                        "openai-agents") from _exc

if TYPE_CHECKING:
    from ..memory.aio import AsyncMemory

SOURCE = "agents-session"


def item_text(item: Any) -> str:
    """The words of a conversation item (a message's text parts; other items as JSON)."""
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        text = " ".join(p for p in parts if isinstance(p, str))
        if text.strip():
            return text
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)


class KgmemSession:
    """An Agents SDK session over ``memory`` (see the module). ``user``: the name the
    user's messages are said by (what facts about the user are filed under); ``extract``:
    run extraction on the user's messages."""

    session_settings = None

    def __init__(self, session_id: str, memory: Memory | AsyncMemory | str | Path | None = None,
                 group: str = "default", user: str = "user", extract: bool = True) -> None:
        self.session_id = session_id
        self.memory = memory_of(memory)
        self.group = check_group(group)
        self.user = user
        self.extract = extract

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    # the session's episodes, oldest first
    def _episodes(self) -> list[tuple[Episode, Any]]:
        out = []
        for ep in stored_by(self.memory, self.group, SOURCE):
            try:
                doc = json.loads(ep.source_description)
            except ValueError:
                continue
            if doc.get("session") == self.session_id:
                out.append((ep, doc["item"]))
        out.sort(key=lambda x: (x[0].reference_time, x[0].created_at))
        return out

    def _add(self, items: list[Any]) -> None:
        now = self.memory.now()
        had = self._episodes()
        if had:  # after the session's last item, also when the clock has not moved since
            now = max(now, had[-1][0].reference_time + timedelta(microseconds=1))
        rows = []
        for i, item in enumerate(items):
            role = item.get("role") if isinstance(item, dict) else None
            rows.append({
                "content": item_text(item), "source": SOURCE,
                # distinct, ordered reference times: the items' order, and never taken for
                # a duplicate of an earlier identical message
                "reference_time": now + timedelta(microseconds=i),
                "speaker": self.user if role == "user" else (role or "tool"),
                "source_description": json.dumps({"session": self.session_id, "item": item},
                                                 ensure_ascii=False, default=str),
                "extract": self.extract and role == "user",
            })
        if rows:
            self.memory.add_episodes(rows, group=self.group)

    def _erase(self, episodes: list[Episode]) -> None:
        for ep in episodes:
            self.memory.erase(episode=ep.id, group=self.group)

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        got = [item for _, item in await self._run(self._episodes)]
        return got[-limit:] if limit is not None and limit > 0 else (
            [] if limit is not None else got)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await self._run(self._add, list(items))

    async def pop_item(self) -> TResponseInputItem | None:
        eps = await self._run(self._episodes)
        if not eps:
            return None
        await self._run(self._erase, [eps[-1][0]])
        return eps[-1][1]  # type: ignore[no-any-return]

    async def clear_session(self) -> None:
        eps = await self._run(self._episodes)
        await self._run(self._erase, [ep for ep, _ in eps])


def kgmem_function_tools(memory: Memory | AsyncMemory | str | Path | None = None,
                         group: str = "default", speaker: str | None = None
                         ) -> list[FunctionTool]:
    """remember, recall, correct and forget as Agents SDK function tools over ``memory`` in
    ``group``; a kgmem error is returned to the model as ``error: <type>: <message>``."""
    tools = MemoryTools(memory, check_group(group), speaker)

    def told(error_context: Any, exc: Exception) -> str:
        if isinstance(exc, KgmemError):
            return f"error: {exc.type}: {exc.message}"
        return f"error: {type(exc).__name__}: {exc}"

    def off_the_loop(fn: Callable[..., str]) -> Callable[..., Any]:
        @functools.wraps(fn)  # the schema is read from fn's signature and docstring
        async def call(*args: Any, **kwargs: Any) -> str:
            return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

        return call

    return [function_tool(off_the_loop(getattr(tools, name)), name_override=name,
                          failure_error_function=told) for name in TOOL_NAMES]
