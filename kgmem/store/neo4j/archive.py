"""Neo4j's reads for :mod:`kgmem.archive` (:class:`~kgmem.store.base.ArchiveReads`),
parameterised Cypher over the store's auto-commit reads."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..base import ChangeEffect, Declaration, LineageState
from .predicates import _RETURN as _DECL_RETURN
from .predicates import declarations
from .queries import LINEAGE_RETURN, row_lineage, to_instant

Query = Callable[..., list[list[Any]]]


class Neo4jArchiveReads:
    def __init__(self, q: Query) -> None:
        self.q = q

    def entity_keys(self, group: str) -> dict[str, str]:
        return {r[0]: r[1] for r in self.q(
            "MATCH (e:Entity {group_id: $g}) RETURN e.uuid, e.norm_name", g=group)}

    def episode_hashes(self, group: str) -> dict[str, str]:
        return {r[0]: r[1] for r in self.q(
            "MATCH (e:Episodic {group_id: $g}) RETURN e.uuid, e.content_hash", g=group)}

    def alias_rows(self, group: str) -> list[tuple[str, str, str]]:
        return [(r[0], r[1], r[2]) for r in self.q(
            "MATCH (a:KgmemAlias {group_id: $g}) RETURN a.entity_id, a.alias, a.norm_alias "
            "ORDER BY a.entity_id, a.norm_alias, a.alias", g=group)]

    def mention_rows(self, group: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.q(
            "MATCH (ep:Episodic {group_id: $g})-[:MENTIONS]->(e:Entity) "
            "RETURN DISTINCT ep.uuid, e.uuid ORDER BY ep.uuid, e.uuid", g=group)]

    def provenance_rows(self, group: str) -> list[tuple[str, str, datetime]]:
        return [(r[0], r[1], to_instant(r[2])) for r in self.q(
            "MATCH (ep:Episodic)-[sp:KGMEM_SUPPORTS]->(l:KgmemLineage {group_id: $g}) "
            "RETURN l.fact_id, ep.uuid, sp.recorded_at ORDER BY l.fact_id, ep.uuid", g=group)]

    def lineages(self, group: str) -> list[LineageState]:
        return [row_lineage(r) for r in self.q(
            "MATCH (l:KgmemLineage {group_id: $g}) " + LINEAGE_RETURN + " ORDER BY l.seq",
            g=group)]

    def effects(self, group: str) -> dict[str, list[ChangeEffect]]:
        out: dict[str, list[ChangeEffect]] = defaultdict(list)
        for cid, fid, before, after in self.q(
                "MATCH (e:KgmemEffect {group_id: $g}) RETURN e.change_id, e.fact_id, e.before, "
                "e.after ORDER BY e.change_id, e.ord", g=group):
            out[cid].append(ChangeEffect.from_stored(fid, before, after))
        return dict(out)

    def declaration_versions(self, group: str) -> list[Declaration]:
        return declarations(self.q(
            "MATCH (d:KgmemPredicate {group_id: $g}) " + _DECL_RETURN
            + " ORDER BY d.created_at, d.id", g=group))
