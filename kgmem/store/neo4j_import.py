"""Copy groups of an embedded (SQLite) store into Neo4j, in batches.

    from kgmem.store.embedded import EmbeddedStore
    from kgmem.store.neo4j import Neo4jStore
    from kgmem.store.neo4j_import import import_embedded

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
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from ..timeutil import from_micros, opt_from_micros
from .embedded import EmbeddedStore
from .neo4j import Neo4jStore

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
        "CREATE (ep)-[:KGMEM_SUPPORTS]->(l)"
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


def import_embedded(
    src: EmbeddedStore,
    dst: Neo4jStore,
    groups: list[str] | None = None,
    batch: int = BATCH,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, int]:
    """Copy ``groups`` (default: all) from ``src`` to ``dst``; returns counts per kind."""
    c = src._conn
    with src._lock:
        if groups is None:
            groups = [
                r[0]
                for r in c.execute(
                    "SELECT group_id FROM entities UNION SELECT group_id FROM episodes "
                    "UNION SELECT group_id FROM erasures"
                )
            ]
        meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
    existing = dst._q(
        "UNWIND $gs AS g CALL (g) { MATCH (n:Entity|Episodic|KgmemErasure) WHERE n.group_id = g "
        "RETURN n LIMIT 1 } RETURN DISTINCT g",
        gs=groups,
    )
    if existing:
        raise ValueError(f"groups already exist in Neo4j: {sorted(r[0] for r in existing)}")
    # Counters: lineage seq and insertion order continue after what Neo4j already holds.
    with dst.write() as w:
        ins_offset = int(w._meta.get("ins") or 0)
        seq_now = int(w._meta.get("seq") or 0)
    counts: dict[str, int] = defaultdict(int)

    def send(kind: str, rows: list[dict[str, Any]]) -> None:
        with dst.write() as w:
            w._run(_CREATE[kind], rows=rows)
        counts[kind] += len(rows)
        if progress is not None:
            progress(kind, len(rows))

    def copy(kind: str, sql: str, params: tuple[Any, ...], conv: Callable[..., Any]) -> None:
        with src._lock:
            cur = src._conn.execute(sql, params)
            for rows in _batches(cur, batch):
                send(kind, [conv(r) for r in rows])

    max_ins = 0
    last_tx: datetime | None = None
    for g in groups:
        aliases: dict[str, list[str]] = defaultdict(list)
        with src._lock:
            for eid, alias in c.execute(
                "SELECT entity_id, alias FROM aliases WHERE group_id=? ORDER BY alias", (g,)
            ):
                aliases[eid].append(alias)
        copy(
            "entities",
            "SELECT id, group_id, name, norm_name, summary, created_at FROM entities "
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
            },
        )
        copy(
            "aliases",
            "SELECT group_id, norm_alias, entity_id, alias FROM aliases WHERE group_id=?",
            (g,),
            lambda r: {"group_id": r[0], "norm_alias": r[1], "entity_id": r[2], "alias": r[3]},
        )
        copy(
            "episodes",
            "SELECT id, group_id, content, source, source_description, speaker, "
            "reference_time, created_at, content_hash FROM episodes WHERE group_id=?",
            (g,),
            lambda r: {
                k: v
                for k, v in {
                    "uuid": r[0],
                    "group_id": r[1],
                    "content": r[2],
                    "source": r[3],
                    "source_description": r[4],
                    "speaker": r[5],
                    "valid_at": from_micros(r[6]),
                    "created_at": from_micros(r[7]),
                    "content_hash": r[8],
                    "entity_edges": [],
                    "name": f"{r[3]} {from_micros(r[6]).date().isoformat()}",
                }.items()
                if v is not None
            },
        )
        copy(
            "mentions",
            "SELECT m.episode_id, m.entity_id FROM mentions m JOIN episodes e "
            "ON e.id = m.episode_id WHERE e.group_id=?",
            (g,),
            lambda r: {"ep": r[0], "e": r[1]},
        )
        copy(
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
                    "seq": seq_now + r[10],
                    "fact_text": r[11],
                }.items()
                if v is not None
            },
        )
        prov: dict[str, list[str]] = defaultdict(list)
        with src._lock:
            for fid, eid in c.execute(
                "SELECT p.fact_id, p.episode_id FROM provenance p JOIN lineages l "
                "ON l.fact_id = p.fact_id WHERE l.group_id=? ORDER BY p.episode_id",
                (g,),
            ):
                prov[fid].append(eid)
        rows = [{"f": f, "ep": e} for f, eps in prov.items() for e in eps]
        for i in range(0, len(rows), batch):
            send("provenance", rows[i : i + batch])

        def version(r: tuple[Any, ...], prov: dict[str, list[str]] = prov) -> dict[str, Any]:
            nonlocal max_ins
            max_ins = max(max_ins, r[17])
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
                "ins_seq": ins_offset + r[17],
                "episodes": prov.get(r[1], []),
            }
            return {"s": r[3], "o": r[4], "p": {k: v for k, v in p.items() if v is not None}}

        copy(
            "versions",
            "SELECT id, fact_id, group_id, subject_id, object_id, predicate, fact_text, "
            "valid_at, valid_precision, invalid_at, invalid_precision, stated_invalid_at, "
            "created_at, expired_at, change_id, reason, caused_by, rowid FROM versions "
            "WHERE group_id=?",
            (g,),
            version,
        )

        def change(r: tuple[Any, ...]) -> dict[str, Any]:
            nonlocal max_ins, last_tx
            max_ins = max(max_ins, r[8])
            t = from_micros(r[3])
            last_tx = t if last_tx is None or t > last_tx else last_tx
            d = {
                "id": r[0],
                "group_id": r[1],
                "kind": r[2],
                "created_at": t,
                "reason": r[4],
                "undoes": r[5],
                "undone_by": r[6],
                "fact_ids": json.loads(r[7]),
                "ins_seq": ins_offset + r[8],
            }
            return {k: v for k, v in d.items() if v is not None}

        copy(
            "changes",
            "SELECT id, group_id, kind, created_at, reason, undoes, undone_by, fact_ids, rowid "
            "FROM changes WHERE group_id=?",
            (g,),
            change,
        )
        copy(
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
        copy(
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
    src_last = meta.get("last_tx_time")
    clock = from_micros(int(src_last)) if src_last is not None else last_tx
    src_seq = int(meta.get("seq", 0))
    with dst.write() as w:
        w._meta["seq"] = seq_now + src_seq
        w._meta["ins"] = ins_offset + max_ins
        w._dirty.update({"seq", "ins"})
        if clock is not None:
            w._run(
                "UNWIND $gs AS g MERGE (c:KgmemClock {group_id: g}) "
                "SET c.last_tx_time = CASE WHEN c.last_tx_time IS NULL OR c.last_tx_time < $t "
                "THEN $t ELSE c.last_tx_time END",
                gs=groups,
                t=clock,
            )
    return dict(counts)
