"""Entity summaries on the Neo4j store (:mod:`kgmem.memory.summaries`).

The current text is the Entity node's ``summary`` property, where graphiti-core keeps its own
summaries (and its ``node_name_and_summary`` fulltext index reads it); every version is a
``(:KgmemSummary {group_id, entity_id, seq, text, created_at, expired_at, episodes})`` node,
the build mark a ``(:KgmemSummaryMark {group_id, entity_id, through, links})`` node
(both indexed on (group_id, entity_id): kgmem.store.neo4j.schema). Erase
deletes an entity's summary nodes with it, and the histories of every entity whose summaries
quote an erased episode (kgmem/memory/erase.py; :meth:`SummaryWrites.summary_entities_citing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base import SummaryHistory, SummaryVersion, current_text
from .queries import to_datetime, to_instant

LABELS = ("KgmemSummary", "KgmemSummaryMark")
_READ = (
    "OPTIONAL MATCH (s:KgmemSummary {group_id: $g, entity_id: $id}) "
    "WITH s ORDER BY s.seq WITH [x IN collect(s) | [x.text, x.created_at, x.expired_at, "
    "x.episodes]] AS versions "
    "OPTIONAL MATCH (m:KgmemSummaryMark {group_id: $g, entity_id: $id}) "
    "RETURN versions, m.through, m.links"
)


def _history(rows: list[list[Any]]) -> SummaryHistory:
    if not rows:
        return SummaryHistory()
    versions, through, links = rows[0]
    vs = tuple(SummaryVersion(v[0], to_instant(v[1]), to_datetime(v[2]), tuple(v[3] or ())) for v in versions)
    if through is None:
        return SummaryHistory(vs)
    return SummaryHistory(vs, to_instant(through), int(links))


class SummaryReads:
    """Mixed into the Neo4j store."""

    def cypher(self, query: str, **params: object) -> list[list[Any]]:
        raise NotImplementedError  # provided by the store

    def summary_history(self, group: str, entity_id: str) -> SummaryHistory:
        return _history(self.cypher(_READ, g=group, id=entity_id))

    def summarized_entities(self, group: str) -> list[str]:
        """The entities of ``group`` with a stored summary history."""
        return [r[0] for r in self.cypher("MATCH (m:KgmemSummaryMark {group_id: $g}) "
                                      "RETURN m.entity_id ORDER BY m.entity_id", g=group)]


class SummaryWrites:
    """Mixed into the Neo4j write transaction (``self.run``: a parameterised query in it)."""

    def run(self, query: str, **params: object) -> list[list[Any]]:
        raise NotImplementedError  # provided by the write transaction

    def put_summary_history(self, group: str, entity_id: str, h: SummaryHistory,
                            keep: int = 0) -> None:
        """Replace the entity's summary versions from the ``keep``-th on (those before are
        stored as they are) and its mark; ``Entity.summary`` becomes the current text, unless
        it holds a summary kgmem did not write (graphiti-core's). Nothing is written for an
        entity that is gone (erased meanwhile)."""
        if not self.run("MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g RETURN 1",
                         id=entity_id, g=group):
            return
        before = _history(self.run(_READ, g=group, id=entity_id))
        self.run("MATCH (s:KgmemSummary {group_id: $g, entity_id: $id}) WHERE s.seq >= $keep "
                  "DELETE s", g=group, id=entity_id, keep=keep)
        self.run("MATCH (m:KgmemSummaryMark {group_id: $g, entity_id: $id}) DELETE m",
                  g=group, id=entity_id)
        self.run(
            "UNWIND $vs AS v CREATE (s:KgmemSummary) SET s = v, s.group_id = $g, "
            "s.entity_id = $id",
            g=group, id=entity_id,
            vs=[{"seq": i, "text": v.text, "created_at": v.created_at,
                 "expired_at": v.expired_at, "episodes": list(v.episodes)}
                for i, v in enumerate(h.versions) if i >= keep])
        if h.through is not None:
            self.run("CREATE (:KgmemSummaryMark {group_id: $g, entity_id: $id, "
                      "through: $through, links: $links})",
                      g=group, id=entity_id, through=h.through, links=h.links)
        # graphiti-core's own summary of a shared node stays: only an empty one, or the one
        # kgmem wrote last, is replaced
        self.run("MATCH (e:Entity {uuid: $id}) WHERE e.group_id = $g "
                  "AND coalesce(e.summary, '') IN ['', $before] SET e.summary = $text",
                  id=entity_id, g=group, text=current_text(h), before=current_text(before))

    def summary_entities_citing(self, group: str, episode_ids: Sequence[str]) -> list[str]:
        if not episode_ids:
            return []
        rows = self.run(
            "MATCH (s:KgmemSummary) WHERE s.group_id = $g AND s.entity_id IS NOT NULL "
            "AND any(x IN s.episodes WHERE x IN $ids) RETURN DISTINCT s.entity_id",
            g=group, ids=list(episode_ids))
        return sorted(r[0] for r in rows)

    def drop_summary_histories(self, group: str, entity_ids: Sequence[str]) -> None:
        """Delete the entities' summary versions and marks (rebuilt on the next read)."""
        for label in LABELS:  # one of the constants above, never user input
            self.run(f"UNWIND $ids AS id MATCH (s:{label} {{group_id: $g, entity_id: id}}) "
                      "DELETE s", ids=list(entity_ids), g=group)
