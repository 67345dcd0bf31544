"""Helpers for the resolver tests."""

from __future__ import annotations

from typing import Any

from kgmem.memory.facade import Memory
from kgmem.model import FactVersion


def said(m: Memory, *args: Any, **kw: Any) -> FactVersion:
    """A fact whose names were found in text (what extractors assert): the resolver's fuzzy
    rules apply to them, as they never do to the names a caller gives."""
    return m.assert_fact(*args, from_text=True, **kw)
