"""Predicate declarations on Neo4j: ``(:KgmemPredicate {id, group_id, name, cardinality,
symmetric, description, source, created_at, change_id, expired_at, expired_by})``, one node
per version (kgmem.store.base.Declaration), and ``(:KgmemMeta {key: 'vocabulary'})``, renewed
with every write of one so that readers can cache a group's declarations."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Protocol

from ...timeutil import opt_from_micros
from ..base import Declaration
from ..visibility import known_cypher

_RETURN = (  # times as epoch microseconds (see neo4j.micros_of)
    "RETURN d.id, d.group_id, d.name, d.cardinality, d.symmetric, d.description, d.source, "
    "d.created_at.epochSeconds * 1000000 + d.created_at.microsecond, d.change_id, "
    "d.expired_at.epochSeconds * 1000000 + d.expired_at.microsecond, d.expired_by"
)
CURRENT = ("MATCH (d:KgmemPredicate {group_id: $g}) WHERE d.expired_at IS NULL "
           + _RETURN + " ORDER BY d.name")
# the visibility rule of kgmem.timeline on the transaction interval
KNOWN_AT = (f"MATCH (d:KgmemPredicate {{group_id: $g}}) WHERE {known_cypher('d')} "
            + _RETURN + " ORDER BY d.name")
EVERY_GROUP = ("MATCH (d:KgmemPredicate) WHERE d.expired_at IS NULL " + _RETURN
               + " ORDER BY d.group_id, d.name")
STAMP = "MATCH (m:KgmemMeta {key: 'vocabulary'}) RETURN m.value"


def declarations(rows: list[list[Any]]) -> list[Declaration]:
    return [Declaration.from_row(r, opt_from_micros) for r in rows]


class _Tx(Protocol):
    meta: dict[str, Any]
    dirty: set[str]

    def run(self, query: str, **params: object) -> list[list[Any]]: ...
    def renew_vocabulary_stamp(self: _Tx) -> None: ...


class DeclarationWrites:
    """The declaration half of the Neo4j write transaction (mixed into its ``Neo4jWriteTx``,
    which holds the ``vocabulary`` stamp in ``meta`` with the other counters)."""

    def vocabulary_stamp(self: _Tx) -> str | None:
        value = self.meta.get("vocabulary")
        return None if value is None else str(value)

    def renew_vocabulary_stamp(self: _Tx) -> None:
        self.meta["vocabulary"] = uuid.uuid4().hex
        self.dirty.add("vocabulary")

    def declarations(self: _Tx, group: str) -> list[Declaration]:
        return declarations(self.run(CURRENT, g=group))

    def insert_declaration(self: _Tx, d: Declaration) -> None:
        self.run(
            "CREATE (:KgmemPredicate {id: $id, group_id: $g, name: $name, cardinality: $card, "
            "symmetric: $sym, description: $desc, source: $source, created_at: $t, "
            "change_id: $change, expired_at: $exp, expired_by: $by})",
            id=d.id, g=d.group, name=d.name, card=d.cardinality.value, sym=d.symmetric,
            desc=d.description, source=d.source, t=d.created_at, change=d.change_id,
            exp=d.expired_at, by=d.expired_by,
        )
        self.renew_vocabulary_stamp()

    def expire_declaration(self: _Tx, declaration_id: str, at: datetime, by: str | None) -> None:
        self.run(
            "MATCH (d:KgmemPredicate {id: $id}) WHERE d.expired_at IS NULL "
            "SET d.expired_at = $at, d.expired_by = $by",
            id=declaration_id, at=at, by=by,
        )
        self.renew_vocabulary_stamp()

    def declarations_of_change(
        self: _Tx, group: str, change_id: str
    ) -> tuple[list[Declaration], list[Declaration]]:
        made = self.run("MATCH (d:KgmemPredicate {change_id: $c}) WHERE d.group_id = $g "
                         + _RETURN + " ORDER BY d.name", c=change_id, g=group)
        ended = self.run("MATCH (d:KgmemPredicate {expired_by: $c}) WHERE d.group_id = $g "
                          + _RETURN + " ORDER BY d.name", c=change_id, g=group)
        return declarations(made), declarations(ended)
