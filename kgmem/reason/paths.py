"""Path finding between two entities over a time-filtered view of the graph.

Pure functions over an ``adjacent(entity_ids) -> versions`` callback, so they run unchanged
on every store. Modes:

* ``slice``: every hop is a fact version visible at (valid_at, known_at).
* ``sequenced``: hops visible at known_at at *any* valid time whose valid intervals share a
  common instant; each path carries that intersection (``valid_from``, ``valid_to``).

The graph is explored from both ends (ceil(h/2) hops from ``a``, floor(h/2) from ``b``),
which collects every edge of every path of at most ``h`` hops while touching far fewer edges
than a one-sided search; paths are then enumerated shortest first.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Literal

from ..model import FactVersion, Path, PathHop
from ..timeline import intersect

Adjacent = Callable[[Sequence[str]], list[FactVersion]]
Interval = tuple[datetime | None, datetime | None]


def _expand(adjacent: Adjacent, start: str, depth: int, edges: dict[str, FactVersion]) -> None:
    seen = {start}
    frontier = [start]
    for _ in range(depth):
        if not frontier:
            return
        nxt: list[str] = []
        for v in adjacent(frontier):
            edges[v.id] = v
            for n in (v.subject_id, v.object_id):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt


def _distances(
    adj: dict[str, list[tuple[str, FactVersion, bool]]], start: str, cap: int
) -> dict[str, int]:
    dist = {start: 0}
    q = deque([start])
    while q:
        n = q.popleft()
        if dist[n] >= cap:
            continue
        for m, _, _ in adj.get(n, ()):
            if m not in dist:
                dist[m] = dist[n] + 1
                q.append(m)
    return dist


def find_paths(
    adjacent: Adjacent,
    a: str,
    b: str,
    max_hops: int,
    mode: Literal["slice", "sequenced"] = "slice",
    limit: int = 50,
) -> list[Path]:
    """Simple paths from ``a`` to ``b`` of at most ``max_hops`` hops, shortest first."""
    if a == b or max_hops < 1 or limit < 1:
        return []
    edges: dict[str, FactVersion] = {}
    _expand(adjacent, a, depths(max_hops)[0], edges)
    _expand(adjacent, b, depths(max_hops)[1], edges)
    return paths_over(edges.values(), a, b, max_hops, mode, limit)


def depths(max_hops: int) -> tuple[int, int]:
    """Hops explored from ``a`` and from ``b``."""
    return (max_hops + 1) // 2, max_hops // 2


def paths_over(
    versions: Iterable[FactVersion],
    a: str,
    b: str,
    max_hops: int,
    mode: Literal["slice", "sequenced"] = "slice",
    limit: int = 50,
) -> list[Path]:
    """:func:`find_paths` over the versions its exploration collected (every version
    ``adjacent`` returned within :func:`depths` hops of ``a`` and of ``b``; a store that
    collects them in one query passes them here)."""
    if a == b or max_hops < 1 or limit < 1:
        return []
    edges = {v.id: v for v in versions}
    adj: dict[str, list[tuple[str, FactVersion, bool]]] = defaultdict(list)
    names: dict[str, str] = {}
    for v in sorted(edges.values(), key=lambda v: (v.fact, v.id)):
        names[v.subject_id] = v.subject
        names[v.object_id] = v.object
        if v.subject_id == v.object_id:
            continue
        adj[v.subject_id].append((v.object_id, v, True))
        adj[v.object_id].append((v.subject_id, v, False))
    dist_b = _distances(adj, b, max_hops)
    if a not in dist_b:
        return []
    results: list[Path] = []

    def dfs(
        node: str,
        length: int,
        nodes: list[str],
        hops: list[tuple[str, str, FactVersion, bool]],
        interval: Interval,
    ) -> None:
        if len(results) >= limit:
            return
        if len(hops) == length:
            if node == b:
                results.append(
                    Path(
                        entities=[names.get(n, n) for n in nodes],
                        hops=[
                            PathHop(
                                source=names.get(s, s), target=names.get(t, t), fact=f, forward=fw
                            )
                            for s, t, f, fw in hops
                        ],
                        valid_from=interval[0] if mode == "sequenced" else None,
                        valid_to=interval[1] if mode == "sequenced" else None,
                    )
                )
            return
        remaining = length - len(hops) - 1
        for nbr, v, forward in adj.get(node, ()):
            if nbr in nodes or dist_b.get(nbr, max_hops + 1) > remaining:
                continue
            iv = interval
            if mode == "sequenced":
                got = intersect([interval, (v.valid_at, v.invalid_at)])
                if got is None:
                    continue
                iv = got
            nodes.append(nbr)
            hops.append((node, nbr, v, forward))
            dfs(nbr, length, nodes, hops, iv)
            hops.pop()
            nodes.pop()

    for length in range(dist_b[a], max_hops + 1):
        dfs(a, length, [a], [], (None, None))
        if len(results) >= limit:
            break
    return results


def with_sources(paths: list[Path], versions_of_fact: Callable[[str], Sequence[FactVersion]]
                 ) -> list[Path]:
    """The paths with each hop's fact carrying its source episodes, as ``facts()`` gives them
    (path finding reads the graph without them: the fewer columns, the faster the walk)."""
    by_id: dict[str, list[str]] = {}
    for fid in {h.fact.fact_id for p in paths for h in p.hops}:
        for v in versions_of_fact(fid):
            by_id[v.id] = v.episodes
    return with_source_map(paths, by_id)


def with_source_map(paths: list[Path], by_id: dict[str, list[str]]) -> list[Path]:
    """The paths with each hop's fact carrying ``by_id[version id]`` as its source episodes."""
    return [p.model_copy(update={"hops": [
        h.model_copy(update={"fact": h.fact.model_copy(
            update={"episodes": by_id.get(h.fact.id, h.fact.episodes)})})
        for h in p.hops]}) for p in paths]
