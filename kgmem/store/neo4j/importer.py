"""Copy groups of an embedded (SQLite) store into Neo4j, in batches.

    from kgmem.store.sqlite import EmbeddedStore
    from kgmem.store.neo4j import Neo4jStore
    from kgmem.store.neo4j.importer import import_embedded

    import_embedded(EmbeddedStore("~/.kgmem/default"), Neo4jStore(), groups=["default"])

Everything is copied as it is (entities, aliases, episodes, mentions, lineages, every version
with both intervals, provenance, the change log, erasure records), so reads on Neo4j give the
same answers at every (valid_at, known_at). This is the fast path for big stores (and the
scale benchmark): ``UNWIND`` batches of plain ``CREATE``, many facts per transaction, instead
of replaying every assertion through the timeline rules.

The copy is not atomic: it commits batch by batch. The target groups must not exist in Neo4j
yet (checked first); after a failure, erase the group on Neo4j and run it again.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...entity_types import NEO4J_LABELS
from ...timeutil import from_micros, opt_from_micros
from ..base import episode_keyword_text
from ..fts_tokens import token_text
from ..sqlite import EmbeddedStore
from .schema import graphiti_source
from .store import Neo4jStore

BATCH = 5000

_CREATE = {
    "entities": "UNWIND $rows AS x CREATE (e:Entity) SET e = x",
    "aliases": "UNWIND $rows AS x CREATE (a:KgmemAlias) SET a = x",
    "episodes": "UNWIND $rows AS x CREATE (e:Episodic) SET e = x",
    "mentions": (
        "UNWIND $rows AS x MATCH (ep:Episodic {uuid: x.ep}) MATCH (e:Entity {uuid: x.e}) "
        "CREATE (ep)-[:MENTIONS {uuid: randomUUID(), group_id: ep.group_id, "
        "created_at: ep.created_at}]->(e)"
    ),
    "lineages": "UNWIND $rows AS x CREATE (l:KgmemLineage) SET l = x",
    "provenance": (
        "UNWIND $rows AS x MATCH (ep:Episodic {uuid: x.ep}) MATCH (l:KgmemLineage {fact_id: x.f}) "
        "CREATE (ep)-[:KGMEM_SUPPORTS {recorded_at: x.t}]->(l)"
    ),
    "versions": (
        "UNWIND $rows AS x MATCH (s:Entity {uuid: x.s}) MATCH (o:Entity {uuid: x.o}) "
        "CREATE (s)-[r:RELATES_TO]->(o) SET r = x.p"
    ),
    "changes": "UNWIND $rows AS x CREATE (c:KgmemChange) SET c = x",
    "effects": "UNWIND $rows AS x CREATE (e:KgmemEffect) SET e = x",
    "erasures": "UNWIND $rows AS x CREATE (e:KgmemErasure) SET e = x",
}


def _batches(cur: sqlite3.Cursor, size: int) -> Iterator[list[tuple[Any, ...]]]:
    while rows := cur.fetchmany(size):
        yield rows


@dataclass
class ExportState:
    """Offsets applied to the copied counters, and what the copy saw (for the clocks)."""

    seq_offset: int = 0  # lineage seq continues after the target's
    ins_offset: int = 0  # insertion order continues after the target's
    max_ins: int = 0
    last_tx: dict[str, datetime] = field(default_factory=dict)  # group -> newest change time


def embedded_groups(src: EmbeddedStore) -> list[str]:
    with src._lock:
        return [
            r[0]
            for r in src._conn.execute(
                "SELECT group_id FROM entities UNION SELECT group_id FROM episodes "
                "UNION SELECT group_id FROM erasures"
            )
        ]


PARTS = ("entities", "episodes", "facts", "changes")


def export_rows(
    src: EmbeddedStore, groups: list[str], state: ExportState, batch: int = BATCH,
    parts: Collection[str] = PARTS,
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Batches ``(kind, rows)`` of ``groups`` in the Neo4j vocabulary (kinds as in ``_CREATE``;
    parents before children). ``state`` gives the counter offsets and collects what is needed
    for :func:`finish_import`. ``parts`` (of ``PARTS``) selects what is exported (the bulk
    path writes them in parallel processes)."""
    copy = _Copy(src, batch)
    for g in groups:
        if "entities" in parts:
            yield from _entity_rows(copy, g)
        if "episodes" in parts:
            yield from _episode_rows(copy, g)
        if "facts" in parts:
            yield from _fact_rows(copy, g, state)
        if "changes" in parts:
            yield from _change_rows(copy, g, state)


Rows = Iterator[tuple[str, list[dict[str, Any]]]]


class _Copy:
    """One SELECT of the embedded store read in batches, each row converted on the way."""

    def __init__(self, src: EmbeddedStore, batch: int) -> None:
        self.src, self.c, self.batch = src, src._conn, batch

    def __call__(
        self, kind: str, sql: str, params: tuple[Any, ...], conv: Callable[..., Any]
    ) -> Rows:
        with self.src._lock:
            cur = self.c.execute(sql, params)
            for rows in _batches(cur, self.batch):
                yield kind, [conv(r) for r in rows]


def _entity_rows(copy: _Copy, g: str) -> Rows:
    """Entities (with their aliases listed) and the alias rows."""
    src, c = copy.src, copy.c
    aliases: dict[str, list[str]] = defaultdict(list)
    with src._lock:
        for eid, alias in c.execute(
            "SELECT entity_id, alias FROM aliases WHERE group_id=? ORDER BY alias", (g,)
        ):
            aliases[eid].append(alias)
    yield from copy(
        "entities",
        "SELECT id, group_id, name, norm_name, summary, created_at, entity_type FROM entities "
        "WHERE group_id=?",
        (g,),
        lambda r, aliases=aliases: {
            "uuid": r[0],
            "group_id": r[1],
            "name": r[2],
            "norm_name": r[3],
            "summary": r[4],
            "created_at": from_micros(r[5]),
            "aliases": aliases.get(r[0], []),
            **({"entity_type": r[6]} if r[6] is not None else {}),
        },
    )
    yield from copy(
        "aliases",
        "SELECT group_id, norm_alias, entity_id, alias FROM aliases WHERE group_id=?",
        (g,),
        lambda r: {"group_id": r[0], "norm_alias": r[1], "entity_id": r[2], "alias": r[3]},
    )


def _episode_rows(copy: _Copy, g: str) -> Rows:
    """Episodes and the entities they mention."""
    yield from copy(
        "episodes",
        "SELECT id, group_id, content, source, source_description, speaker, "
        "reference_time, created_at, content_hash, extraction_status, extraction, trust "
        "FROM episodes WHERE group_id=?",
        (g,),
        lambda r: {
            k: v
            for k, v in {
                "uuid": r[0],
                "group_id": r[1],
                "content": r[2],
                "source": graphiti_source(r[3]),
                "kgmem_source": r[3],
                "source_description": r[4],
                "speaker": r[5],
                "valid_at": from_micros(r[6]),
                "created_at": from_micros(r[7]),
                "content_hash": r[8],
                "kgmem_tokens": token_text(episode_keyword_text(r[2], r[5])),
                "entity_edges": [],
                "name": f"{r[3]} {from_micros(r[6]).date().isoformat()}",
                "kgmem_extraction_status": r[9],
                "kgmem_extraction": r[10],
                "kgmem_trust": r[11],
            }.items()
            if v is not None
        },
    )
    yield from copy(
        "mentions",
        "SELECT m.episode_id, m.entity_id FROM mentions m JOIN episodes e "
        "ON e.id = m.episode_id WHERE e.group_id=?",
        (g,),
        lambda r: {"ep": r[0], "e": r[1]},
    )


def _fact_rows(copy: _Copy, g: str, state: ExportState) -> Rows:
    """Lineages, their source episodes, and every version (on the relationships)."""
    src, c, batch = copy.src, copy.c, copy.batch
    yield from copy(
        "lineages",
        "SELECT fact_id, group_id, subject_id, predicate, object_id, valid_at, "
        "valid_precision, stated_invalid_at, invalid_precision, believed, seq, fact_text "
        "FROM lineages WHERE group_id=?",
        (g,),
        lambda r: {
            k: v
            for k, v in {
                "fact_id": r[0],
                "group_id": r[1],
                "subject_id": r[2],
                "predicate": r[3],
                "object_id": r[4],
                "valid_at": opt_from_micros(r[5]),
                "valid_precision": r[6],
                "stated_invalid_at": opt_from_micros(r[7]),
                "invalid_precision": r[8],
                "believed": bool(r[9]),
                "seq": state.seq_offset + r[10],
                "fact_text": r[11],
            }.items()
            if v is not None
        },
    )
    prov: dict[str, list[tuple[str, int]]] = defaultdict(list)
    with src._lock:
        for fid, eid, t in c.execute(
            "SELECT p.fact_id, p.episode_id, p.recorded_at FROM provenance p JOIN lineages l "
            "ON l.fact_id = p.fact_id WHERE l.group_id=? ORDER BY p.episode_id",
            (g,),
        ):
            prov[fid].append((eid, t))
    rows = [{"f": f, "ep": e, "t": from_micros(t)} for f, eps in prov.items() for e, t in eps]
    for i in range(0, len(rows), batch):
        yield "provenance", rows[i : i + batch]

    ids = {f: [e for e, _ in eps] for f, eps in prov.items()}  # graphiti's mirror (episodes)

    def version(r: tuple[Any, ...], prov: dict[str, list[str]] = ids) -> dict[str, Any]:
        state.max_ins = max(state.max_ins, r[17])
        p = {
            "uuid": r[0],
            "fact_id": r[1],
            "group_id": r[2],
            "name": r[5],
            "fact": r[6],
            "valid_at": opt_from_micros(r[7]),
            "valid_precision": r[8],
            "invalid_at": opt_from_micros(r[9]),
            "invalid_precision": r[10],
            "stated_invalid_at": opt_from_micros(r[11]),
            "created_at": from_micros(r[12]),
            "expired_at": opt_from_micros(r[13]),
            "change_id": r[14],
            "reason": r[15],
            "caused_by": r[16],
            "ins_seq": state.ins_offset + r[17],
            "episodes": prov.get(r[1], []),
        }
        return {"s": r[3], "o": r[4], "p": {k: v for k, v in p.items() if v is not None}}

    yield from copy(
        "versions",
        "SELECT id, fact_id, group_id, subject_id, object_id, predicate, fact_text, "
        "valid_at, valid_precision, invalid_at, invalid_precision, stated_invalid_at, "
        "created_at, expired_at, change_id, reason, caused_by, rowid FROM versions "
        "WHERE group_id=?",
        (g,),
        version,
    )


def _change_rows(copy: _Copy, g: str, state: ExportState) -> Rows:
    """Changes, their effects, and the erasures' audit records."""
    def change(r: tuple[Any, ...]) -> dict[str, Any]:
        state.max_ins = max(state.max_ins, r[8])
        t = from_micros(r[3])
        if r[1] not in state.last_tx or t > state.last_tx[r[1]]:
            state.last_tx[r[1]] = t
        d = {
            "id": r[0],
            "group_id": r[1],
            "kind": r[2],
            "created_at": t,
            "reason": r[4],
            "undoes": r[5],
            "undone_by": r[6],
            "fact_ids": json.loads(r[7]),
            "ins_seq": state.ins_offset + r[8],
        }
        return {k: v for k, v in d.items() if v is not None}

    yield from copy(
        "changes",
        "SELECT id, group_id, kind, created_at, reason, undoes, undone_by, fact_ids, rowid "
        "FROM changes WHERE group_id=?",
        (g,),
        change,
    )
    yield from copy(
        "effects",
        "SELECT e.change_id, c.group_id, e.rowid, e.fact_id, e.before, e.after "
        "FROM change_effects e JOIN changes c ON c.id = e.change_id WHERE c.group_id=?",
        (g,),
        lambda r: {
            k: v
            for k, v in {
                "change_id": r[0],
                "group_id": r[1],
                "ord": r[2],
                "fact_id": r[3],
                "before": r[4],
                "after": r[5],
            }.items()
            if v is not None
        },
    )
    yield from copy(
        "erasures",
        "SELECT id, group_id, kind, created_at, counts FROM erasures WHERE group_id=?",
        (g,),
        lambda r: {
            "id": r[0],
            "group_id": r[1],
            "kind": r[2],
            "created_at": from_micros(r[3]),
            "counts": r[4],
        },
    )


def finish_import(
    src: EmbeddedStore, dst: Neo4jStore, groups: list[str], state: ExportState
) -> None:
    """After the rows: the counters continue after the copied ones and each group's
    transaction clock comes along (else its newest change time), so later writes on Neo4j
    never go before the copied history."""
    with src._lock:
        src_seq = int(
            (src._conn.execute("SELECT value FROM meta WHERE key='seq'").fetchone() or [0])[0]
        )
    clocks = []
    for g in groups:
        t = src.last_tx_time(g) or state.last_tx.get(g)
        if t is not None:
            clocks.append([g, t])
    with dst.write() as w:
        w.meta["seq"] = state.seq_offset + src_seq
        w.meta["ins"] = state.ins_offset + state.max_ins
        w.dirty.update({"seq", "ins"})
        w.run(
            "UNWIND $clocks AS c MERGE (k:KgmemClock {group_id: c[0]}) "
            "SET k.last_tx_time = CASE WHEN k.last_tx_time IS NULL OR k.last_tx_time < c[1] "
            "THEN c[1] ELSE k.last_tx_time END, k.backlog = randomUUID()",
            clocks=clocks,
        )


def import_embedded(
    src: EmbeddedStore,
    dst: Neo4jStore,
    groups: list[str] | None = None,
    batch: int = BATCH,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, int]:
    """Copy ``groups`` (default: all) from ``src`` to ``dst``; returns counts per kind."""
    if groups is None:
        groups = embedded_groups(src)
    existing = dst.cypher(
        "UNWIND $gs AS g CALL (g) { MATCH (n:Entity|Episodic|KgmemErasure) WHERE n.group_id = g "
        "RETURN n LIMIT 1 } RETURN DISTINCT g",
        gs=groups,
    )
    if existing:
        raise ValueError(f"groups already exist in Neo4j: {sorted(r[0] for r in existing)}")
    # Counters: lineage seq and insertion order continue after what Neo4j already holds.
    with dst.write() as w:
        state = ExportState(
            seq_offset=int(w.meta.get("seq") or 0), ins_offset=int(w.meta.get("ins") or 0)
        )
    counts: dict[str, int] = defaultdict(int)
    for kind, rows in export_rows(src, groups, state, batch):
        with dst.write() as w:
            w.run(_CREATE[kind], rows=rows)
        counts[kind] += len(rows)
        if progress is not None:
            progress(kind, len(rows))
    finish_import(src, dst, groups, state)
    link_episode_edges(dst, groups)
    label_entity_types(dst, groups)
    return dict(counts)


def label_entity_types(dst: Neo4jStore, groups: list[str]) -> None:
    """Each imported entity's type as its label too (``:Person``...; fixed label names)."""
    with dst.driver.session(database=dst.database) as s:
        for etype, label in NEO4J_LABELS.items():
            s.run(f"MATCH (e:Entity) WHERE e.group_id IN $gs AND e.entity_type = $t SET e:{label}",
                  gs=groups, t=etype).consume()


def link_episode_edges(dst: Neo4jStore, groups: list[str]) -> None:
    """Each episode's ``entity_edges``: the versions of the facts it supports (graphiti-core's
    ``remove_episode`` finds an episode's facts there)."""
    with dst.driver.session(database=dst.database) as s:
        s.run(
            "UNWIND $gs AS g MATCH (ep:Episodic) WHERE ep.group_id = g "
            "CALL (ep) { MATCH (ep)-[:KGMEM_SUPPORTS]->(l:KgmemLineage) "
            "MATCH ()-[r:RELATES_TO {fact_id: l.fact_id}]->() WITH collect(r.uuid) AS ids "
            "SET ep.entity_edges = ids } IN TRANSACTIONS OF 2000 ROWS",
            gs=groups,
        ).consume()
