"""Ingestion: offline extraction of facts and temporal expressions from text.

* :func:`resolve_time` / :func:`find_time_expressions` (``temporal``): time expressions
  resolved against an episode's reference time, with their precision.
* :class:`OfflineExtractor` / :class:`ExtractedFact` (``extract``): rule-based extraction over
  a spaCy parse (no network, no LLM), predicates from ``kgmem.vocabulary``.

Imports are lazy so that ``import kgmem.ingest`` does not load spaCy or dateparser.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ANY_OBJECT",
    "ExtractedFact",
    "OfflineExtractor",
    "ResolvedTime",
    "find_time_expressions",
    "resolve_speaker",
    "resolve_time",
]

_LAZY = {
    "ANY_OBJECT": "facts",
    "ExtractedFact": "facts",
    "OfflineExtractor": "offline",
    "resolve_speaker": "facts",
    "ResolvedTime": "temporal",
    "find_time_expressions": "temporal",
    "resolve_time": "temporal",
}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'kgmem.ingest' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value
