"""Entity resolution: which stored entity a name in a group refers to.

The default :class:`ExactResolver` matches normalised names and aliases only. Resolvers only
use the store's entity/alias operations (``get_entity``, ``find_entities``, ``insert_entity``,
``add_alias``), so they work on every store.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal, Protocol

from .model import Entity
from .names import clean_name, normalize_name
from .store.base import WriteTx

Role = Literal["subject", "object", "speaker", "other"]


class Resolver(Protocol):
    def resolve(self, w: WriteTx, group: str, name: str, now: datetime,
                role: Role = "other", predicate: str | None = None) -> Entity: ...


class ExactResolver:
    """An id, else an exact normalised name or alias, else a new entity."""

    def resolve(self, w: WriteTx, group: str, name: str, now: datetime,
                role: Role = "other", predicate: str | None = None) -> Entity:
        name = clean_name(name, "entity name")
        by_id = w.get_entity(group, name)
        if by_id is not None:
            return by_id
        norm = normalize_name(name)
        found = w.find_entities(group, norm)
        if found:
            return found[0]
        ent = Entity(id=str(uuid.uuid4()), group=group, name=name, created_at=now)
        w.insert_entity(ent, norm)
        return ent
