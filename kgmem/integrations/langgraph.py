"""LangGraph and LangChain: :class:`KgmemStore`, a LangGraph ``BaseStore`` over a kgmem
memory, and :func:`kgmem_tools`, the memory tools as LangChain tools
(``pip install 'kgmem[langgraph]'``; docs/integrations.md).

``KgmemStore`` keeps LangGraph's document model and adds kgmem's clocks to it:

* a namespace is a group: ``("users", "u1")`` is group ``users:u1`` (labels of letters,
  digits, ``_``, ``-``, ``.``);
* ``put`` stores the value as an episode of that group (source ``langgraph-store``; its text,
  the value's ``content`` / ``text`` / ``memory`` / ``data`` string or else its JSON, is what
  extraction reads and search ranks; ``index=False`` stores it without extraction). A second
  ``put`` of a key is a new version, the old one kept; ``delete`` is a version too (a
  tombstone), so what a key held is still readable as of a date. Puts at one instant (an
  injected clock that did not move) keep their order; but the same text put again at the
  instant of its earlier put is that episode (kgmem's idempotent ingest), not a new version;
* ``search`` ranks with kgmem's hybrid search (keywords, vectors when installed, the facts
  extracted from the items, times named in the query); ``filter`` matches value fields
  (``{"kind": "note"}``, ``$eq`` ``$ne`` ``$gt`` ``$gte`` ``$lt`` ``$lte``) and takes
  ``valid_at`` / ``known_at``: the items (and their versions) as they stood then;
* ``get`` and ``list_namespaces`` as LangGraph's own stores answer them.

Each call reads the namespace's item episodes once: cost grows with the items of one
namespace, which suits an agent's memory, not a document corpus (TTLs are not supported).
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError, KgmemError, missing_extra
from ..memory.facade import Memory
from ..model import Episode
from ..names import check_group
from ..timeline import episode_visible
from ..timeutil import parse_instant
from .tools import MemoryTools, memory_of, stored_by

try:
    import anyio.to_thread
    from langchain_core.tools import BaseTool, StructuredTool, ToolException
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as _exc:
    raise missing_extra("kgmem.integrations.langgraph", "langgraph", "langgraph") from _exc

if TYPE_CHECKING:
    from ..memory.aio import AsyncMemory

SOURCE = "langgraph-store"
TEXT_FIELDS = ("content", "text", "memory", "data")
_LABEL = re.compile(r"^[A-Za-z0-9_.-]+$")
_OPS = {"$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b,
        "$gt": lambda a, b: a is not None and a > b, "$gte": lambda a, b: a is not None and a >= b,
        "$lt": lambda a, b: a is not None and a < b, "$lte": lambda a, b: a is not None and a <= b}


def namespace_group(namespace: tuple[str, ...]) -> str:
    """The group a namespace is stored in (labels joined by ``:``)."""
    if not namespace or not all(isinstance(x, str) and _LABEL.match(x) for x in namespace):
        raise InvalidInputError(
            f"namespace {namespace!r}: each label must be letters, digits, '_', '-', '.' "
            "(the namespace is a kgmem group)", field="namespace")
    return check_group(":".join(namespace))


def group_namespace(group: str) -> tuple[str, ...]:
    return tuple(group.split(":"))


@dataclass(frozen=True)
class _Version:
    key: str
    value: dict[str, Any] | None  # None: deleted
    episode: Episode
    order: int = 0  # the put's own order among puts at the same transaction time


_order_lock = threading.Lock()
_last_order = 0


def _put_order() -> int:
    """Strictly increasing within a process, wall-clock nanoseconds across processes: orders
    puts that share a transaction time (an injected clock that did not move between them),
    and makes a value put again a new episode, not a duplicate of its first put."""
    global _last_order
    with _order_lock:
        _last_order = max(time.time_ns(), _last_order + 1)
        return _last_order


def _text(value: Mapping[str, Any]) -> str:
    for f in TEXT_FIELDS:
        if isinstance(value.get(f), str) and value[f].strip():
            return str(value[f])
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _matches(value: dict[str, Any], flt: Mapping[str, Any]) -> bool:
    for k, want in flt.items():
        have = value.get(k)
        if isinstance(want, dict) and want and all(op in _OPS for op in want):
            try:
                if not all(_OPS[op](have, arg) for op, arg in want.items()):
                    return False
            except TypeError:
                return False
        elif isinstance(want, dict):
            if not isinstance(have, dict) or not _matches(have, want):
                return False
        elif have != want:
            return False
    return True


class KgmemStore(BaseStore):
    """A LangGraph store over ``memory`` (see the module); ``extract``: run kgmem's fact
    extraction on the items put (the memory's extractor)."""

    def __init__(self, memory: Memory | AsyncMemory | str | Path | None = None, *,
                 extract: bool = True) -> None:
        self.memory = memory_of(memory)
        self.extract = extract

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        todo = list(ops)
        return await anyio.to_thread.run_sync(self.batch, todo)

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            cur = self._current(namespace_group(op.namespace))
            return self._item(op.namespace, cur[op.key]) if op.key in cur else None
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InvalidInputError(f"unknown store operation {type(op).__name__}")

    # ------------------------------------------------------------------ versions
    def _versions(self, group: str) -> dict[str, list[_Version]]:
        """Every version of every item of the group, oldest first."""
        out: dict[str, list[_Version]] = {}
        for ep in stored_by(self.memory, group, SOURCE):
            try:
                doc = json.loads(ep.source_description)
            except ValueError:
                continue
            out.setdefault(doc["key"], []).append(
                _Version(doc["key"], doc["value"], ep, int(doc.get("put", 0))))
        for vs in out.values():
            vs.sort(key=lambda v: (v.episode.created_at, v.episode.reference_time, v.order))
        return out

    def _current(self, group: str, valid_at: datetime | None = None,
                 known_at: datetime | None = None) -> dict[str, list[_Version]]:
        """key -> its versions up to the one standing at (valid_at, known_at), that one
        last; deleted keys left out."""
        out = {}
        for key, vs in self._versions(group).items():
            seen = [x for x in vs if episode_visible(
                created_at=x.episode.created_at, reference_time=x.episode.reference_time,
                known_at=known_at, ref_max=valid_at)]
            if seen and seen[-1].value is not None:
                out[key] = seen
        return out

    @staticmethod
    def _item(ns: tuple[str, ...], vs: list[_Version]) -> Item:
        assert vs[-1].value is not None
        return Item(value=vs[-1].value, key=vs[-1].key, namespace=ns,
                    created_at=vs[0].episode.created_at,
                    updated_at=vs[-1].episode.created_at)

    # ------------------------------------------------------------------ put
    def _put(self, op: PutOp) -> None:
        group = namespace_group(op.namespace)
        if not isinstance(op.key, str) or not op.key:
            raise InvalidInputError("key must be a non-empty string", field="key")
        if op.value is None:
            if op.key not in self._current(group):
                return
            text, value, extract = f"(deleted {op.key})", None, False
        else:
            if not isinstance(op.value, Mapping):
                raise InvalidInputError(f"value must be a dict (LangGraph's item value), not "
                                        f"{type(op.value).__name__}", field="value")
            value = dict(op.value)
            text, extract = _text(value), self.extract and op.index is not False
        doc = json.dumps({"key": op.key, "value": value, "put": _put_order()},
                         ensure_ascii=False, default=str)
        self.memory.add_episode(text, self.memory.now(), source=SOURCE, group=group,
                                source_description=doc, extract=extract)

    # ------------------------------------------------------------------ search
    def _search(self, op: SearchOp) -> list[SearchItem]:
        flt = dict(op.filter or {})
        valid = flt.pop("valid_at", None)
        known = flt.pop("known_at", None)
        v = None if valid is None else parse_instant(valid, "valid_at")
        k = None if known is None else parse_instant(known, "known_at")
        prefix = tuple(op.namespace_prefix)
        groups = [g for g in self.memory.groups() if group_namespace(g)[:len(prefix)] == prefix]
        found: list[SearchItem] = []
        for g in groups:
            ns = group_namespace(g)
            cur = {key: vs for key, vs in self._current(g, v, k).items()
                   if _matches(vs[-1].value or {}, flt)}
            if not op.query:
                found += [SearchItem(ns, key, vs[-1].value or {}, vs[0].episode.created_at,
                                     vs[-1].episode.created_at) for key, vs in cur.items()]
                continue
            by_episode = {vs[-1].episode.id: key for key, vs in cur.items()}
            hits = self.memory.search(op.query, valid_at=v, known_at=k, group=g,
                                      limit=max(10, 3 * (op.offset + op.limit)),
                                      kinds=("episodes", "facts"))
            scored: dict[str, float] = {}
            for h in hits:
                for ep_id in ([h.id] if h.kind == "episode" else h.episode_ids):
                    key = by_episode.get(ep_id)
                    if key is not None:
                        scored[key] = max(scored.get(key, 0.0), h.score)
            found += [SearchItem(ns, key, cur[key][-1].value or {},
                                 cur[key][0].episode.created_at, cur[key][-1].episode.created_at,
                                 score=s) for key, s in scored.items()]
        if op.query:
            found.sort(key=lambda i: -(i.score or 0.0))
        else:
            found.sort(key=lambda i: i.updated_at, reverse=True)
        return found[op.offset:op.offset + op.limit]

    # ------------------------------------------------------------------ namespaces
    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        out = set()
        for g in self.memory.groups():
            ns = group_namespace(g)
            if all(_matches_condition(c.match_type, tuple(c.path), ns)
                   for c in op.match_conditions or ()):
                out.add(ns[:op.max_depth] if op.max_depth is not None else ns)
        return sorted(out)[op.offset:op.offset + op.limit]


def _matches_condition(kind: str, path: tuple[str, ...], ns: tuple[str, ...]) -> bool:
    if len(ns) < len(path):
        return False
    pairs = zip(ns, path) if kind == "prefix" else zip(reversed(ns), reversed(path))
    return all(p == "*" or a == p for a, p in pairs)


def kgmem_tools(memory: Memory | AsyncMemory | str | Path | None = None,
                group: str = "default", speaker: str | None = None) -> list[BaseTool]:
    """remember, recall, correct and forget as LangChain tools over ``memory`` in ``group``
    (errors reach the model as tool messages, as ``handle_tool_error=True`` does)."""
    tools = MemoryTools(memory, check_group(group), speaker)

    def wrap(fn: Any) -> Any:
        @functools.wraps(fn)  # the schema is read from fn's signature and docstring
        def call(*args: Any, **kwargs: Any) -> str:
            try:
                return str(fn(*args, **kwargs))
            except KgmemError as exc:
                raise ToolException(f"{exc.type}: {exc.message}") from exc

        return call

    return [StructuredTool.from_function(wrap(getattr(tools, name)), name=name,
                                         description=getattr(tools, name).__doc__,
                                         handle_tool_error=True)
            for name in ("remember", "recall", "correct", "forget")]
