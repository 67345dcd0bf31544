"""Neo4j store: Memory's hot reads in one round trip each, names resolved inside the query
(:mod:`kgmem.store.named_reads` says what is returned and who decides).

Each query starts with one lookup per name (:func:`_lookup`): the entity with that id, the
entities with that normalised name or alias (``FIND_ENTITIES``' rows, in its order), and the
store's pick; then the read itself runs from the picked node (an ``Argument`` + ``Expand``,
no second seek), and everything comes back as one row: the lookups, the vocabulary stamp and
the versions as lists.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from ..base import TimeFilter
from ..named_reads import Candidates, NamedRead, NameKey
from ..visibility import version_cypher
from .queries import V_RETURN, CypherReads, micros_of, row_entity, row_versions, v_prov

_COLS = V_RETURN.removeprefix("RETURN ")


def _row(when: TimeFilter | None) -> str:
    """A version as row_versions decodes it, with the provenance known under ``when``."""
    return f"[{_COLS}{v_prov(when)}]"


ROW = _row(None)  # every link (history: as now)
ROW_NOPROV = f"[{_COLS}, null]"
_ORDER = "ORDER BY s.uuid, r.name, r.valid_at IS NOT NULL, r.valid_at, r.created_at, r.uuid"
# a placeholder instant: a query depends on its filter's shape only (the values are parameters)
_T = datetime(2000, 1, 1, tzinfo=timezone.utc)
STAMP = "CALL () { OPTIONAL MATCH (m:KgmemMeta {key: 'vocabulary'}) RETURN m.value AS stamp } "


def _ent(v: str) -> str:
    return (f"[{v}.uuid, {v}.group_id, {v}.name, {v}.summary, {micros_of(v + '.created_at')}, "
            f"{v}.aliases, {v}.entity_type]")


def _lookup(x: str) -> str:
    """Binds ``x`` (the pick), ``x_id`` and ``x_names`` from ``$x_name``, ``$x_norm``,
    ``$x_first`` (a :class:`NameKey`): ``get_entity`` and ``FIND_ENTITIES`` in one go."""
    return (
        f"CALL () {{ OPTIONAL MATCH (e:Entity {{uuid: ${x}_name}}) WHERE e.group_id = $g "
        f"RETURN e AS {x}_id }} "
        f"CALL () {{ CALL () {{ MATCH (e:Entity {{group_id: $g, norm_name: ${x}_norm}}) RETURN e "
        f"UNION MATCH (al:KgmemAlias {{group_id: $g, norm_alias: ${x}_norm}}) "
        "MATCH (e:Entity {uuid: al.entity_id}) RETURN e } "
        f"WITH e ORDER BY e.created_at, e.uuid RETURN collect(e) AS {x}_names }} "
        f"WITH *, CASE WHEN ${x}_first THEN coalesce({x}_id, {x}_names[0]) "
        f"ELSE coalesce({x}_names[0], {x}_id) END AS {x} "
    )


def _lookup_return(x: str) -> str:
    return (f"CASE WHEN {x}_id IS NULL THEN null ELSE {_ent(x + '_id')} END, "
            f"[e IN {x}_names | {_ent('e')}], {x}.uuid")


def _key_params(x: str, key: NameKey) -> dict[str, Any]:
    return {f"{x}_name": key.name, f"{x}_norm": key.norm, f"{x}_first": key.id_first}


def _candidates(row: Sequence[Any], i: int) -> Candidates:
    by_id, by_name, used = row[i], row[i + 1], row[i + 2]
    return Candidates(by_id=None if by_id is None else row_entity(by_id),
                      by_name=[row_entity(e) for e in by_name or []], used=used)


@lru_cache(maxsize=256)
def facts_query(subject: bool, predicate: bool, obj: bool, known_range: bool,
                valid_range: bool, any_valid: bool, limit: bool, mirror: bool) -> str:
    """``store.facts`` from the picks of the subject (``sx``) and/or object (``ox``)."""
    when = TimeFilter(valid_at=_T, known_at=_T, valid_to=_T if valid_range else None,
                      known_to=_T if known_range else None, any_valid=any_valid)
    cond, _ = version_cypher(when)
    where = ["r.group_id = $g", *(["r.name = $p"] if predicate else []), cond]
    if mirror:  # symmetric predicates answer from either side (as facts_at_query)
        a = "(sx)" if subject else "(:Entity)"
        b = "(ox)" if obj else "(:Entity)"
        forward = "startNode(r) = sx" if subject else "endNode(r) = ox"
        match = (f"MATCH {a}-[r:RELATES_TO]-{b} WHERE {' AND '.join(where)} "
                 f"AND ({forward} OR r.name IN $mirror) "
                 "WITH DISTINCT r WITH startNode(r) AS s, r, endNode(r) AS o ")
    else:
        s = "(sx)" if subject else "(s:Entity)"
        o = "(ox)" if obj else "(o:Entity)"
        match = (f"MATCH {s}-[r:RELATES_TO]->{o} WHERE {' AND '.join(where)} "
                 f"WITH {'sx AS s' if subject else 's'}, r, {'ox AS o' if obj else 'o'} ")
    roles = [x for x, on in (("sx", subject), ("ox", obj)) if on]
    head = "".join(_lookup(x) for x in roles)
    body = (f"CALL ({', '.join(roles)}) {{ {match}{_ORDER}{' LIMIT $limit' if limit else ''} "
            f"RETURN collect({_row(when)}) AS rows }} ")
    out = ", ".join(_lookup_return(x) for x in roles)
    return head + STAMP + body + f"RETURN {out}, stamp, rows"


def facts_named(store: CypherReads, group: str, when: TimeFilter, subject: NameKey | None,
                predicate: str | None, obj: NameKey | None, limit: int | None,
                mirror: Collection[str]) -> NamedRead:
    query = facts_query(subject is not None, predicate is not None, obj is not None,
                        when.known_to is not None, when.valid_to is not None, when.any_valid,
                        limit is not None, bool(mirror))
    _, params = version_cypher(when)
    params["g"] = group
    if mirror:
        params["mirror"] = sorted(mirror)
    if predicate is not None:
        params["p"] = predicate
    if limit is not None:
        params["limit"] = limit
    roles = []
    if subject is not None:
        params.update(_key_params("sx", subject))
        roles.append("subject")
    if obj is not None:
        params.update(_key_params("ox", obj))
        roles.append("object")
    row = store.cypher(query, **params)[0]
    names = {role: _candidates(row, 3 * i) for i, role in enumerate(roles)}
    return NamedRead(names=names, stamp=row[-2], versions=row_versions(row[-1]))


@lru_cache(maxsize=64)
def entity_query(known_range: bool, valid_range: bool) -> str:
    when = TimeFilter(valid_at=_T, known_at=_T, valid_to=_T if valid_range else None,
                      known_to=_T if known_range else None)
    cond, _ = version_cypher(when)
    return (
        _lookup("ex")
        + "CALL (ex) { MATCH (ex)-[r:RELATES_TO]->(o:Entity) "
        f"WHERE r.group_id = $g AND {cond} WITH ex AS s, r, o {_ORDER} "
        f"RETURN collect({_row(when)}) AS outgoing }} "
        "CALL (ex) { MATCH (s:Entity)-[r:RELATES_TO]->(ex) "
        f"WHERE r.group_id = $g AND {cond} WITH s, r, ex AS o {_ORDER} "
        f"RETURN collect({_row(when)}) AS incoming }} "
        f"RETURN {_lookup_return('ex')}, null, outgoing, incoming"
    )


def entity_named(store: CypherReads, group: str, key: NameKey, when: TimeFilter) -> NamedRead:
    _, params = version_cypher(when)
    row = store.cypher(entity_query(when.known_to is not None, when.valid_to is not None),
                   g=group, **params, **_key_params("ex", key))[0]
    return NamedRead(names={"entity": _candidates(row, 0)}, stamp=None,
                     versions=row_versions(row[4]), incoming=row_versions(row[5]))


HISTORY = (
    "CALL () { CALL () { MATCH (s:Entity)-[r:RELATES_TO {fact_id: $f}]->(o:Entity) RETURN s, r, o "
    "UNION MATCH (s:Entity)-[r:RELATES_TO {uuid: $f}]->(o:Entity) WHERE r.fact_id IS NULL "
    "RETURN s, r, o } WITH s, r, o WHERE r.group_id = $g "
    f"ORDER BY r.created_at, r.ins_seq, r.uuid RETURN collect({ROW}) AS lineage }} "
    + _lookup("ex")
    + "CALL (ex) { CALL (ex) { MATCH (ex)-[r:RELATES_TO]->(o:Entity) WHERE r.group_id = $g "
    "RETURN ex AS s, r, o UNION ALL MATCH (s:Entity)-[r:RELATES_TO]->(ex) "
    "WHERE r.group_id = $g AND s <> ex RETURN s, r, ex AS o } "
    f"WITH s, r, o RETURN collect({ROW}) AS about }} "
    f"RETURN {_lookup_return('ex')}, null, lineage, about"
)


def history_named(store: CypherReads, group: str, fact_id: str, key: NameKey) -> NamedRead:
    """``versions`` = the lineage ``fact_id``'s versions; ``incoming`` = the pick's."""
    row = store.cypher(HISTORY, g=group, f=fact_id, **_key_params("ex", key))[0]
    about = row_versions(row[5])
    about.sort(key=lambda v: (v.created_at, v.fact_id, v.id))
    return NamedRead(names={"entity": _candidates(row, 0)}, stamp=None,
                     versions=row_versions(row[4]), incoming=about)


def _expand(x: str, depth: int, cond: str) -> str:
    """The versions ``kgmem.reason.paths._expand`` collects in ``depth`` hops from ``x``
    (frontier by frontier; each hop the visible versions touching the frontier)."""
    if depth < 1:
        return f"CALL () {{ RETURN [] AS {x}_edges }} "
    hops = "".join(
        "CALL (f) { UNWIND f AS n MATCH (n)-[r:RELATES_TO]-(m:Entity) "
        f"WHERE r.group_id = $g AND {cond} RETURN collect(DISTINCT r) AS hop, "
        "collect(DISTINCT m) AS ms } "
        "WITH es + hop AS es, [m IN ms WHERE NOT m IN seen] AS f, "
        "seen + [m IN ms WHERE NOT m IN seen] AS seen "
        for _ in range(depth))
    return (f"CALL ({x}) {{ WITH [{x}] AS f, [{x}] AS seen, [] AS es {hops}"
            f"RETURN es AS {x}_edges }} ")


@lru_cache(maxsize=64)
def neighbourhood_query(depth_a: int, depth_b: int, known_range: bool, any_valid: bool) -> str:
    when = TimeFilter(valid_at=_T, known_at=_T, known_to=_T if known_range else None,
                      any_valid=any_valid)
    cond, _ = version_cypher(when)
    return (
        _lookup("ax") + _lookup("bx") + _expand("ax", depth_a, cond) + _expand("bx", depth_b, cond)
        + "CALL (ax_edges, bx_edges) { UNWIND ax_edges + bx_edges AS r WITH DISTINCT r "
        f"WITH startNode(r) AS s, r, endNode(r) AS o RETURN collect({ROW_NOPROV}) AS rows }} "
        f"RETURN {_lookup_return('ax')}, {_lookup_return('bx')}, null, rows"
    )


def neighbourhood_named(store: CypherReads, group: str, a: NameKey, b: NameKey, depth_a: int,
                        depth_b: int, when: TimeFilter) -> NamedRead:
    _, params = version_cypher(when)
    query = neighbourhood_query(depth_a, depth_b, when.known_to is not None, when.any_valid)
    row = store.cypher(query, g=group, **params, **_key_params("ax", a), **_key_params("bx", b))[0]
    return NamedRead(names={"a": _candidates(row, 0), "b": _candidates(row, 3)}, stamp=None,
                     versions=row_versions(row[7]))


def sources_of_versions(store: CypherReads, group: str, version_ids: Sequence[str],
                        when: TimeFilter | None = None) -> dict[str, list[str]]:
    params = {} if when is None else version_cypher(when)[1]
    rows = store.cypher("UNWIND $ids AS id MATCH ()-[r:RELATES_TO {uuid: id}]->() "
                        f"WHERE r.group_id = $g RETURN r.uuid{v_prov(when)}",
                        g=group, ids=list(dict.fromkeys(version_ids)), **params)
    return {r[0]: sorted(r[1] or []) for r in rows}
