"""A/B in one process: what reading graphiti's naive times as UTC costs Neo4j reads.

Every time condition of the Neo4j store also compares with the naive twin of its parameter
(``r.valid_at <= $v OR r.valid_at <= $v_l``) and every time it returns goes through a type
check (``micros_of``). This loads ``--facts`` facts (benchmarks/scale.py's generator, computed by
the embedded store and copied with ``import_embedded``) into a fresh group and times
``Memory.facts`` (as of a valid time) and ``Memory.history`` with (A) the conditions and
``micros_of`` of 1953ce8, kept here verbatim, and (B) the store's own, alternating A and B per
query. It checks both give the same answers, prints p50/p95 and the B/A ratios, writes
``benchmarks/out/neo4j_naive_times_ab/latest.json`` and erases the group.

    python -m benchmarks.neo4j_naive_times_ab --facts 50000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.scale import BASE, generate
from kgmem.memory.facade import Memory
from kgmem.store import visibility
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j import queries as n4
from kgmem.store.neo4j import store as neo4j_store
from kgmem.store.neo4j.importer import import_embedded
from kgmem.store.sqlite import EmbeddedStore

OUT_DIR = Path(__file__).resolve().parents[1] / "benchmarks" / "out" / "neo4j_naive_times_ab"
# the visibility conditions of 1953ce8 (before naive times were read)
BEFORE = {
    "CYPHER_KNOWN_POINT": "r.created_at <= $k AND (r.expired_at IS NULL OR r.expired_at > $k "
                "OR r.fact_id IS NULL)",
    "CYPHER_KNOWN_RANGE": "r.created_at < $kt AND (r.expired_at IS NULL OR r.expired_at > $k "
                "OR r.fact_id IS NULL)",
    "CYPHER_VALID_POINT": " AND (r.valid_at IS NULL OR r.valid_at <= $v) AND (r.invalid_at IS NULL "
                "OR r.invalid_at > $v)",
    "CYPHER_VALID_RANGE": " AND (r.valid_at IS NULL OR r.valid_at < $vt) AND (r.invalid_at IS NULL "
                "OR r.invalid_at > $v)",
}


def _micros_before(prop: str) -> str:
    return f"{prop}.epochSeconds * 1000000 + {prop}.microsecond"


def _return(micros: Any) -> str:
    return ("RETURN r.uuid, r.fact_id, r.group_id, s.uuid, s.name, r.name, o.uuid, o.name, "
            f"r.fact, {micros('r.valid_at')}, r.valid_precision, {micros('r.invalid_at')}, "
            f"r.invalid_precision, {micros('r.stated_invalid_at')}, {micros('r.created_at')}, "
            f"{micros('r.expired_at')}, r.change_id, r.reason, r.caused_by")


def _modules(name: str) -> list[Any]:
    """The visibility conditions live in the time seam, the rest in the store's queries (and,
    imported by name, in the store module)."""
    return [visibility] if name in BEFORE else [n4, neo4j_store]


class Variants:
    """Switches the store module between the two sets of query fragments."""

    def __init__(self) -> None:
        self.now = {k: getattr(_modules(k)[0], k) for k in [*BEFORE, "micros_of", "V_RETURN",
                                                         "VERSIONS_OF_ENTITY"]}
        ret = _return(_micros_before)
        self.before = {**BEFORE, "micros_of": _micros_before, "V_RETURN": ret,
                       "VERSIONS_OF_ENTITY": n4.VERSIONS_OF_ENTITY.replace(n4.V_RETURN, ret)}

    def use(self, which: str) -> None:
        for k, v in (self.before if which == "A" else self.now).items():
            for mod in _modules(k):
                if hasattr(mod, k):
                    setattr(mod, k, v)
        n4._FACTS_CACHE.clear()


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))] * 1000 if xs else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args(argv)
    rows, n_people = generate(args.facts)
    group = f"ab-{uuid.uuid4().hex[:10]}"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kgmem-ab-") as tmp:
        src = Memory(store=EmbeddedStore(Path(tmp) / "e"), extractor=None)
        src.assert_facts([{**r, "group": group} for r in rows])
        dst = Neo4jStore()
        import_embedded(src.store, dst, [group])  # type: ignore[arg-type]
        src.close()
    load_s = time.perf_counter() - t0
    m = Memory(store=dst, extractor=None)
    v = Variants()
    rng = random.Random(3)
    qs = [(f"person{rng.randrange(n_people)}", BASE + timedelta(days=rng.randrange(9000)))
          for _ in range(args.queries)]
    res: dict[str, dict[str, list[float]]] = {k: {"asof": [], "history": []} for k in "AB"}
    try:
        for rnd in range(args.rounds):
            for i, (s, at) in enumerate(qs):
                for which in ("A", "B") if (i + rnd) % 2 == 0 else ("B", "A"):
                    v.use(which)
                    t = time.perf_counter()
                    m.facts(s, valid_at=at, group=group)
                    res[which]["asof"].append(time.perf_counter() - t)
                    if i < args.queries // 3:
                        t = time.perf_counter()
                        m.history(s, group=group)
                        res[which]["history"].append(time.perf_counter() - t)
        answers = {}
        for which in "AB":
            v.use(which)
            answers[which] = [[(f.id, f.valid_at, f.invalid_at)
                               for f in m.facts(s, valid_at=at, group=group)] for s, at in qs]
    finally:
        v.use("B")
        m.erase(group=group, whole_group=True)
        m.close()
    out: dict[str, Any] = {
        "facts": args.facts, "load_seconds": round(load_s, 1),
        "load": [round(x, 2) for x in os.getloadavg()],
        "same_answers": answers["A"] == answers["B"],
        **{k: {op: {"p50_ms": round(_pct(xs, .5), 3), "p95_ms": round(_pct(xs, .95), 3),
                    "n": len(xs)} for op, xs in d.items()} for k, d in res.items()},
    }
    out["p50_ratio_B_over_A"] = {op: round(out["B"][op]["p50_ms"] / out["A"][op]["p50_ms"], 3)
                                 for op in ("asof", "history")}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(out, indent=2) + "\n")
    print(f"{args.facts} facts (loaded in {load_s:.0f} s), load {out['load']}; "
          f"same answers: {out['same_answers']}")
    for op in ("asof", "history"):
        a, b = out["A"][op], out["B"][op]
        print(f"  {op:<8} A (1953ce8) p50 {a['p50_ms']:.2f} p95 {a['p95_ms']:.2f} ms | "
              f"B (now) p50 {b['p50_ms']:.2f} p95 {b['p95_ms']:.2f} ms | "
              f"B/A {out['p50_ratio_B_over_A'][op]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
