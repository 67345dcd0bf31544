"""Short fact ids: the tables print the first 8 characters of a fact id, and every verb that
takes a fact id accepts such a prefix (at least 6 characters) when it names exactly one of the
group's facts; a prefix several facts share is refused with the candidates."""

from __future__ import annotations

import re
from typing import Protocol

from ..errors import InvalidInputError

MIN_PREFIX = 6
FULL_LENGTH = 36  # a uuid4 as kgmem writes them
_PREFIX = re.compile(r"^[0-9a-fA-F-]+$")


class _PrefixReads(Protocol):
    def fact_ids_starting(self, group: str, prefix: str, limit: int = 2) -> list[str]: ...


def resolve_fact_id(store: _PrefixReads, group: str, fact_id: str) -> str:
    """The full id ``fact_id`` abbreviates, or ``fact_id`` itself (a full id, an id of
    another shape, or a prefix nothing matches: the caller's lookup then says not found)."""
    if (not isinstance(fact_id, str) or not MIN_PREFIX <= len(fact_id) < FULL_LENGTH
            or not _PREFIX.match(fact_id)):
        return fact_id
    found = store.fact_ids_starting(group, fact_id.lower(), 3)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        shown = ", ".join(found[:2]) + (", ..." if len(found) > 2 else "")
        raise InvalidInputError(
            f"fact id {fact_id!r} is ambiguous in group {group!r}: it starts {shown}; "
            "give more characters", field="fact_id", fact_id=fact_id)
    return fact_id
