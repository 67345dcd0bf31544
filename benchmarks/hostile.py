"""Hostile input over the REST API (issue 13, "what must be shown", point 4), in one run:

1. **schemathesis**: requests generated from the API's own OpenAPI schema, valid and invalid
   (``--examples`` per operation and mode) against the app over a seeded store; counts by
   status class, 5xx, and conformance failures per check;
2. **bad input**: a fixed table of hostile requests (extreme times, bad JSON, wrong types,
   huge values, unknown fields, Unicode junk, bulk batches with one bad item) on each store;
   for each, the status, the error type and whether it left something half-written: a
   refused request (4xx/5xx) must leave the store exactly as before (a digest of every row of
   the group, or of every SQLite table, taken before and after);
3. **lock contention**: :mod:`benchmarks.lock_contention` with another process holding the
   embedded store's write lock: the write's status and the p95 of concurrent reads.

    python -m benchmarks.hostile [--stores embedded,neo4j] [--examples 50] [--hold 15]

Prints the tables and writes ``benchmarks/out/hostile/latest.json``. Neo4j uses the server of
``KGMEM_NEO4J_URI`` in a fresh group (erased afterwards) and is skipped when unreachable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from kgmem.memory.facade import Memory
from kgmem.settings import Settings

REPO = Path(__file__).resolve().parents[1]


def machine_before() -> dict[str, Any]:
    """The machine a probe run starts on (the report's ``machine``; ``load_after`` is added
    at the end)."""
    return {"python": platform.python_version(), "cpus": os.cpu_count(),
            "platform": platform.platform(), "load_before": list(os.getloadavg())}
OUT_DIR = REPO / "benchmarks" / "out" / "hostile"
EXTREMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0000-01-01",
            "10000-01-01", "2023-02-30", "2023-05-08T25:00:00Z", "2023-05-08T10:00:00+25:00",
            "yesterday", "", " ", "9" * 64, "2023\x00", "\u0662\u0660\u0662\u0663"]


def _settings() -> Settings:
    return Settings(_env_file=None, api_keys=None, extractor="none")  # type: ignore[call-arg]


# ------------------------------------------------------------------ store digests
def _digest_rows(rows: Iterator[Any]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(r, default=str, sort_keys=True).encode())
    return h.hexdigest()


def embedded_digest(m: Memory, group: str) -> str:
    """Every row of every table of the SQLite database (search tables included)."""
    store: Any = m.store
    with store._lock:
        c = store._conn
        tables = [r[0] for r in c.execute(
            "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return _digest_rows(iter(sorted(  # table names come from sqlite_master
            json.dumps([t, list(r)], default=repr) for t in tables
            for r in c.execute(f'SELECT * FROM "{t}"'))))


# Search derivatives any process's lazy indexing may add to the group at any time (the Neo4j
# backend embeds whatever lacks a vector, database-wide): not part of a request's write.
_DERIVED_LABELS = ["KgmemChunk", "KgmemEpisodeTime"]
_DERIVED_PROPS = ["name_embedding", "fact_embedding", "kgmem_tokens"]


def neo4j_digest(m: Memory, group: str) -> str:
    """Every node and relationship of the group (and the provenance edges between them),
    without the search derivatives other processes' indexing may add meanwhile."""
    q: Any = m.store.cypher  # type: ignore[attr-defined]
    nodes = q("MATCH (n) WHERE n.group_id = $g AND none(l IN labels(n) WHERE l IN $derived) "
              "RETURN labels(n), properties(n)", g=group, derived=_DERIVED_LABELS)
    rels = q("MATCH ()-[r]->() WHERE r.group_id = $g RETURN type(r), properties(r)", g=group)
    for row in [*nodes, *rels]:
        for k in _DERIVED_PROPS:
            row[1].pop(k, None)
    supports = q("MATCH (e:Episodic {group_id: $g})-[:KGMEM_SUPPORTS]->(l) "
                 "RETURN e.uuid, l.fact_id", g=group)
    return _digest_rows(iter(sorted(json.dumps(x, default=str, sort_keys=True)
                                    for x in [*nodes, *rels, *supports])))


# ------------------------------------------------------------------ seeded memories
@dataclass
class Seeded:
    memory: Memory
    group: str
    fact: str
    digest: Callable[[Memory, str], str]
    cleanup: Callable[[], None]


def seed(m: Memory, group: str) -> str:
    ep = m.add_episode("Alice moved to Boston in 2021.", "2021-01-05", group=group, extract=False)
    fact = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=group,
                         episode=ep.id).fact_id
    m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022", group=group)
    m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2022", group=group)
    return fact


def open_store(kind: str, tmp: Path) -> Seeded | None:
    if kind == "embedded":
        m = Memory(tmp / "embedded", extractor=None)
        group = "hostile"
        return Seeded(m, group, seed(m, group), embedded_digest, m.close)
    from kgmem.errors import StoreUnavailableError
    from kgmem.store.neo4j import Neo4jStore

    try:
        store = Neo4jStore()
    except StoreUnavailableError as exc:
        print(f"neo4j skipped: {exc}")
        return None
    m = Memory(store=store, extractor=None)
    group = f"hostile-{uuid.uuid4().hex[:10]}"

    def cleanup() -> None:
        m.erase(group=group, whole_group=True)
        m.close()

    return Seeded(m, group, seed(m, group), neo4j_digest, cleanup)


# ------------------------------------------------------------------ 1. schemathesis
def run_schemathesis(s: Seeded, examples: int) -> dict[str, Any]:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis.checks import not_a_server_error
    from schemathesis.config import SchemathesisConfig
    from schemathesis.core.failures import Failure
    from schemathesis.core.result import Ok
    from schemathesis.generation import GenerationMode
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        negative_data_rejection,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [not_a_server_error, status_code_conformance, content_type_conformance,
              response_headers_conformance, response_schema_conformance,
              negative_data_rejection]
    config = SchemathesisConfig.from_dict({"checks": {"negative_data_rejection": {
        "expected-statuses": [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]}}})
    app = create_app(_settings(), memory=s.memory)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)
    statuses: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    examples_5xx: list[str] = []
    per_op: dict[str, Counter[str]] = defaultdict(Counter)
    def run(op: Any, mode: Any) -> None:
        op_label = op.label

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy(generation_mode=mode))
        def one(case: Any) -> None:
            case.headers = {**(case.headers or {}), "X-Group": s.group}
            resp = case.call()
            statuses[f"{resp.status_code // 100}xx"] += 1
            per_op[op_label][str(resp.status_code)] += 1
            if resp.status_code >= 500 and len(examples_5xx) < 10:
                examples_5xx.append(f"{op_label}: {resp.status_code} {resp.text[:200]}")
            try:
                case.validate_response(resp, checks=checks)
            except Failure as exc:
                failures[getattr(exc, "title", type(exc).__name__)] += 1
            except BaseException as exc:  # noqa: BLE001 - several checks failed at once
                for sub in getattr(exc, "exceptions", [exc]):
                    failures[getattr(sub, "title", type(sub).__name__)] += 1

        try:
            one()
        except Unsatisfiable:  # nothing to generate (e.g. no invalid form of GET /health)
            skipped.append(f"{op_label} ({mode.value})")

    skipped: list[str] = []
    for result in schema.get_all_operations():
        if not isinstance(result, Ok):
            failures["operation not loadable"] += 1
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            run(result.ok(), mode)
    return {"requests": sum(statuses.values()), "by_class": dict(sorted(statuses.items())),
            "server_errors": statuses.get("5xx", 0), "conformance_failures": dict(failures),
            "examples_5xx": examples_5xx, "nothing_to_generate": skipped,
            "per_operation": {k: dict(sorted(v.items())) for k, v in sorted(per_op.items())}}


# ------------------------------------------------------------------ 2. bad input
@dataclass
class Case:
    category: str
    name: str
    method: str
    path: str
    kw: dict[str, Any]
    expect: str = "4xx"  # or "2xx": a hostile-looking but valid request


def _fact(**extra: Any) -> dict[str, Any]:
    return {"subject": "Carol", "predicate": "VISITED", "object": "Oslo", **extra}


def _episode(**extra: Any) -> dict[str, Any]:
    return {"content": f"note {uuid.uuid4().hex}", "reference_time": "2024-01-01",
            "extract": False, **extra}


def cases(fact_id: str) -> list[Case]:
    out: list[Case] = []
    for i, t in enumerate(EXTREMES):
        out += [
            Case("extreme times", f"reference_time #{i}", "POST", "/v1/episodes",
                 {"json": _episode(reference_time=t)}),
            Case("extreme times", f"valid_at #{i}", "POST", "/v1/facts",
                 {"json": _fact(valid_at=t)}),
            Case("extreme times", f"invalid_at #{i}", "POST", "/v1/facts",
                 {"json": _fact(invalid_at=t)}),
            Case("extreme times", f"invalidate at #{i}", "POST",
                 f"/v1/facts/{fact_id}/invalidate", {"json": {"at": t}}),
            Case("extreme times", f"correct valid_at #{i}", "POST",
                 f"/v1/facts/{fact_id}/correct", {"json": {"valid_at": t}}),
            Case("extreme times", f"known_at #{i}", "GET", "/v1/facts", {"params": {"known_at": t}}),
        ]
    raw = {"content-type": "application/json"}
    for name, body in [("truncated", b'{"subject": "A"'), ("array", b"[]"), ("null", b"null"),
                       ("string", b'"x"'), ("missing value", b'{"subject": }'),
                       ("NaN", b'{"subject":"A","predicate":"P","object":"B","valid_at":NaN}'),
                       ("empty", b""), ("BOM", b"\xef\xbb\xbf{}"), ("trailing", b"{} {}"),
                       ("invalid utf-8", b'{"subject": "\xff\xfe", "predicate": "P", '
                                         b'"object": "B"}'),
                       ("lone surrogate", b'{"subject": "\\ud800", "predicate": "P", '
                                          b'"object": "B"}')]:
        out.append(Case("bad JSON", name, "POST", "/v1/facts", {"content": body, "headers": raw}))
    out.append(Case("bad JSON", "text/plain", "POST", "/v1/facts",
                    {"content": json.dumps(_fact()).encode(),
                     "headers": {"content-type": "text/plain"}}))
    for name, fact in [("subject number", _fact(subject=123)),
                       ("predicate list", _fact(predicate=["LIVES_IN"])),
                       ("object dict", _fact(object={"name": "x"})),
                       ("valid_at number", _fact(valid_at=2021)),
                       ("precision unknown", _fact(valid_precision="decade")),
                       ("reason null", {**_fact(), "reason": None})]:
        out.append(Case("wrong types", name, "POST", "/v1/facts", {"json": fact}))
    out += [Case("wrong types", "extract string", "POST", "/v1/episodes",
                 {"json": _episode(extract="yes please")}),
            Case("wrong types", "episodes not a list", "POST", "/v1/episodes/bulk",
                 {"json": {"episodes": "x"}}),
            Case("wrong types", "limit text", "GET", "/v1/facts", {"params": {"limit": "ten"}}),
            Case("wrong types", "max_hops 99", "GET", "/v1/paths",
                 {"params": {"a": "Alice", "b": "Acme", "max_hops": 99}}),
            Case("wrong types", "budget -1", "GET", "/v1/context",
                 {"params": {"q": "Alice", "budget_tokens": -1}})]
    out += [Case("huge values", "content 1,000,001 chars", "POST", "/v1/episodes",
                 {"json": _episode(content="x" * 1_000_001)}),
            Case("huge values", "body 3 MB", "POST", "/v1/episodes",
                 {"json": _episode(content="y " * 1_500_000)}),
            Case("huge values", "subject 100k chars", "POST", "/v1/facts",
                 {"json": _fact(subject="S" * 100_000)}),
            Case("huge values", "limit 10^12", "GET", "/v1/facts",
                 {"params": {"limit": 10**12}}),
            Case("huge values", "offset 10^9", "GET", "/v1/facts",
                 {"params": {"offset": 10**9}}),
            Case("huge values", "JSON nested 10,000 deep", "POST", "/v1/facts",
                 {"content": ("[" * 10_000 + "]" * 10_000).encode(), "headers": raw}),
            Case("huge values", "bulk of 1,001", "POST", "/v1/episodes/bulk",
                 {"json": {"episodes": [_episode() for _ in range(1001)]}}),
            Case("huge values", "query 60k chars", "GET", "/v1/search",
                 {"params": {"q": "word " * 12_000}})]
    out += [Case("unknown fields", "fact extra field", "POST", "/v1/facts",
                 {"json": {**_fact(), "confidence": 0.9}}),
            Case("unknown fields", "episode extra field", "POST", "/v1/episodes",
                 {"json": {**_episode(), "metadata": {"a": 1}}}),
            Case("unknown fields", "invalidate extra field", "POST",
                 f"/v1/facts/{fact_id}/invalidate", {"json": {"at": "2030", "when": "now"}}),
            Case("unknown fields", "bad group header", "POST", "/v1/facts",
                 {"json": _fact(), "headers": {"X-Group": "../../etc"}}),
            Case("unknown fields", "unknown route", "POST", "/v1/factz", {"json": _fact()}),
            Case("unknown fields", "wrong method", "PUT", "/v1/facts", {"json": _fact()})]
    for name, text, expect in [("bidi override", "\u202eecilA", "4xx"),
                               ("zero-width only", "\u200b\u200b", "4xx"),
                               ("NUL inside (stripped)", "Al\x00ice", "2xx"),
                               ("control only", "\x01\x02", "4xx"),
                               ("RTL mark inside", "Ali\u200fce", "2xx"),
                               ("emoji", "Alice \U0001f600", "2xx"),
                               ("combining marks", "A\u0300\u0301lice", "2xx")]:
        out.append(Case("unicode junk", f"subject {name}", "POST", "/v1/facts",
                        {"json": _fact(subject=text)}, expect))
    out += [Case("unicode junk", "predicate ÜBER", "POST", "/v1/facts",
                 {"json": _fact(predicate="ÜBER_LIEBT")}, "2xx"),
            Case("unicode junk", "content NUL", "POST", "/v1/episodes",
                 {"json": _episode(content="hello\x00world")}, "2xx"),
            Case("unicode junk", "group header latin-1", "GET", "/v1/facts",
                 {"headers": {"X-Group": "gr\xfcppe".encode("latin-1")}})]
    for name, bad in [("time", {"reference_time": EXTREMES[0]}), ("empty content", {"content": " "}),
                      ("unknown field", {"mood": "x"}), ("speaker bidi", {"speaker": "\u202eX"})]:
        items = [_episode() for _ in range(19)] + [_episode(**bad)]
        out.append(Case("bulk atomicity", f"20 items, last bad {name}", "POST",
                        "/v1/episodes/bulk", {"json": {"episodes": items}}))
    return out


def run_cases(s: Seeded) -> list[dict[str, Any]]:
    c = TestClient(create_app(_settings(), memory=s.memory), raise_server_exceptions=False)
    c.headers["X-Group"] = s.group
    rows = []
    for case in cases(s.fact):
        before = s.digest(s.memory, s.group)
        t0 = time.perf_counter()
        resp = c.request(case.method, case.path, **case.kw)
        took = time.perf_counter() - t0
        changed = s.digest(s.memory, s.group) != before
        try:
            err = resp.json().get("error", {}) if resp.status_code >= 400 else {}
        except ValueError:
            err = {"type": "(not JSON)"}
        rows.append({**{k: v for k, v in asdict(case).items() if k != "kw"},
                     "status": resp.status_code, "error_type": err.get("type"),
                     "error_details": json.dumps(err.get("details"), default=str)[:300],
                     "seconds": round(took, 3), "changed_store": changed,
                     "half_written": resp.status_code >= 400 and changed,
                     "as_expected": f"{resp.status_code // 100}xx" == case.expect})
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in rows:
        d = out.setdefault(r["category"], {"cases": 0, "statuses": Counter(), "5xx": 0,
                                           "half_written": 0, "unexpected": 0})
        d["cases"] += 1
        d["statuses"][str(r["status"])] += 1
        d["5xx"] += r["status"] >= 500
        d["half_written"] += r["half_written"]
        d["unexpected"] += not r["as_expected"]
    return {k: {**v, "statuses": dict(sorted(v["statuses"].items()))} for k, v in out.items()}


# ------------------------------------------------------------------ 3. lock contention
def run_lock_contention(hold: float, out: Path) -> dict[str, Any]:
    from benchmarks import lock_contention

    lock_contention.main(["--hold", str(hold), "--baseline", str(min(hold, 10.0)),
                          "--out", str(out), "--tag", "hostile"])
    rep = json.loads((out / "latest-hostile.json").read_text())
    c, b = rep["contended"], rep["baseline"]
    return {"hold_s": hold, "busy_timeout_s": rep["config"]["busy_timeout_s"],
            "write": c["write"],
            "p95_ms_while_write_in_flight": {k: v["p95_ms"]
                                             for k, v in c["reads_while_write_in_flight"].items()},
            "p95_ms_baseline": {k: v["p95_ms"] for k, v in b["reads"].items()},
            "statuses_in_flight": {k: v["statuses"]
                                   for k, v in c["reads_while_write_in_flight"].items()}}


# ------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stores", default="embedded,neo4j")
    ap.add_argument("--fuzz-stores", default="embedded", help="stores schemathesis runs on")
    ap.add_argument("--examples", type=int, default=50, help="per operation and mode")
    ap.add_argument("--hold", type=float, default=15.0, help="lock contention: seconds held")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args(argv)
    report: dict[str, Any] = {
        "when": datetime.now(timezone.utc).isoformat(),
        "machine": machine_before(),
        "config": vars(args) | {"out": str(args.out)}, "stores": {}}
    with tempfile.TemporaryDirectory(prefix="kgmem-hostile-") as tmp:
        for kind in args.stores.split(","):
            s = open_store(kind, Path(tmp))
            if s is None:
                report["stores"][kind] = {"skipped": "unreachable"}
                continue
            try:
                entry: dict[str, Any] = {}
                if kind in args.fuzz_stores.split(","):
                    t0 = time.perf_counter()
                    entry["schemathesis"] = run_schemathesis(s, args.examples)
                    entry["schemathesis"]["seconds"] = round(time.perf_counter() - t0, 1)
                rows = run_cases(s)
                entry["bad_input"] = {"summary": summarise(rows), "cases": rows}
                report["stores"][kind] = entry
            finally:
                s.cleanup()
    if args.hold > 0:
        report["lock_contention"] = run_lock_contention(args.hold, args.out)
    report["machine"]["load_after"] = list(os.getloadavg())
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    print_report(report)
    print(f"-> {args.out / 'latest.json'}")
    return 0


def print_report(report: dict[str, Any]) -> None:
    print(f"hostile run, load {report['machine']['load_before']}")
    for kind, entry in report["stores"].items():
        if "skipped" in entry:
            print(f"[{kind}] skipped ({entry['skipped']})")
            continue
        if "schemathesis" in entry:
            st = entry["schemathesis"]
            print(f"[{kind}] schemathesis: {st['requests']} requests {st['by_class']}, "
                  f"5xx {st['server_errors']}, conformance failures "
                  f"{st['conformance_failures'] or 0} ({st['seconds']} s)")
        print(f"[{kind}] {'category':<16} {'cases':>5} {'5xx':>4} {'half-written':>12} "
              f"{'unexpected':>10}  statuses")
        for cat, d in entry["bad_input"]["summary"].items():
            print(f"[{kind}] {cat:<16} {d['cases']:>5} {d['5xx']:>4} {d['half_written']:>12} "
                  f"{d['unexpected']:>10}  {d['statuses']}")
        odd = [r for r in entry["bad_input"]["cases"] if not r["as_expected"] or r["half_written"]]
        for r in odd:
            print(f"[{kind}]   ! {r['category']}: {r['name']} -> {r['status']} "
                  f"{r['error_type']} (half-written {r['half_written']})")
    lc = report.get("lock_contention")
    if lc:
        w = lc["write"]
        print(f"[lock] another process holds the lock {lc['hold_s']:g} s: POST -> {w['status']} "
              f"{w['error_type']} in {w['seconds']} s (Retry-After {w['retry_after']}); "
              f"reads p95 ms in flight {lc['p95_ms_while_write_in_flight']} vs baseline "
              f"{lc['p95_ms_baseline']}")


if __name__ == "__main__":
    raise SystemExit(main())
