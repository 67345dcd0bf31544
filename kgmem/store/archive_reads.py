"""What an archive (:mod:`kgmem.archive`) reads of a store beyond the :class:`Store`
protocol: the rows that no other read shows as they are stored (entities' lookup keys,
episodes' content hashes, raw alias rows with their keys, mentions, lineage states, change
effects, every version of every predicate declaration). Each store answers them in its own
module (``kgmem/store/sqlite/archive.py``, ``kgmem/store/neo4j/archive.py``) through
``store.archive_reads()``."""

from __future__ import annotations

from typing import Protocol

from .base import ChangeEffect, Declaration, LineageState


class ArchiveReads(Protocol):
    def entity_keys(self, group: str) -> dict[str, str]:
        """entity id -> the normalised name it is looked up by."""
        ...

    def episode_hashes(self, group: str) -> dict[str, str]:
        """episode id -> content hash (what makes a re-added episode a duplicate)."""
        ...

    def alias_rows(self, group: str) -> list[tuple[str, str, str]]:
        """(entity id, alias, lookup key) of every alias row, the resolver's internal ones
        (merges, splits, fuzzy keys) included, sorted."""
        ...

    def mention_rows(self, group: str) -> list[tuple[str, str]]:
        """(episode id, entity id), sorted."""
        ...

    def lineages(self, group: str) -> list[LineageState]:
        """Every lineage's stated belief, by seq."""
        ...

    def effects(self, group: str) -> dict[str, list[ChangeEffect]]:
        """change id -> how it moved each lineage, in the order written."""
        ...

    def declaration_versions(self, group: str) -> list[Declaration]:
        """Every version of every predicate declaration, oldest first."""
        ...
