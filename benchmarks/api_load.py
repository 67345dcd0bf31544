"""Loopback load test of the HTTP API: mixed reads and writes from several workers.

Starts ``uvicorn`` (``api.app``) on 127.0.0.1 with a temporary embedded store, or on the
Neo4j server of ``KGMEM_NEO4J_URI`` (fresh groups, erased afterwards), in one or more API
processes over the same store (``--processes``; workers spread over them), runs a bounded
number of requests (and at most ``--max-seconds``) from ``--workers`` threads, then prints
throughput, p50/p95 latency and the error count, and checks that every acknowledged write
(fact or episode) is readable afterwards. ``--stores embedded,neo4j --processes 1,2`` runs each
combination in turn and prints them as one table. Results go to ``benchmarks/out/api_load/``.

    python -m benchmarks.api_load --requests 4000 --workers 8
    python -m benchmarks api-load --stores embedded,neo4j --processes 1,2 --workers 16

Traffic only ever goes to 127.0.0.1. Exit status 1 when any request failed or any
acknowledged write is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "benchmarks" / "out" / "api_load"
HOST = "127.0.0.1"  # loopback only, by construction
CITIES = ["Boston", "Denver", "Paris", "Lisbon", "Oslo", "Kyoto", "Lima", "Accra"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(home: Path, port: int, log_path: Path, neo4j_uri: str | None = None,
                 timeout: float = 60.0, index_interval: float = 0.0
                 ) -> subprocess.Popen[bytes]:
    """``api.app.run`` in a child process on the embedded store under ``home``, or on the
    Neo4j server at ``neo4j_uri``; returns once ``/ready`` says 200. No background indexer
    by default (``index_interval`` 0): the runs compare request work, not embedding."""
    env = {**os.environ, "KGMEM_HOME": str(home), "KGMEM_STORE": "embedded",
           "KGMEM_EXTRACTOR": "none", "KGMEM_INDEX_INTERVAL": f"{index_interval:g}",
           "PYTHONPATH": str(REPO)}
    if neo4j_uri is not None:
        env.update(KGMEM_STORE="neo4j", KGMEM_NEO4J_URI=neo4j_uri)
    env.pop("KGMEM_API_KEYS", None)
    code = (f"from api.app import run; run(host={HOST!r}, port={port}, "
            "log_level='warning')")
    log = open(log_path, "ab")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=str(REPO),
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"http://{HOST}:{port}/ready", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"server did not start; see {log_path}")
        time.sleep(0.2)


@dataclass
class WorkerResult:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)  # acknowledged fact writes
    episodes: list[dict[str, Any]] = field(default_factory=list)  # acknowledged episodes


class Budget:
    """A shared request counter and deadline: the run is bounded in count and time."""

    def __init__(self, total: int, seconds: float) -> None:
        self.left = total
        self.deadline = time.monotonic() + seconds
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0 or time.monotonic() > self.deadline:
                return False
            self.left -= 1
            return True


def worker(wid: int, base: str, groups: list[str], budget: Budget, write_ratio: float,
           seed: int, res: WorkerResult) -> None:
    rng = random.Random(seed * 1000 + wid)
    group = groups[wid % len(groups)]
    n = 0
    persons: list[str] = []  # subjects with an acknowledged fact
    with httpx.Client(base_url=base, timeout=30, headers={"X-Group": group}) as c:
        def call(kind: str, method: str, url: str, **kw: Any) -> httpx.Response | None:
            t0 = time.perf_counter()
            try:
                r = c.request(method, url, **kw)
            except httpx.HTTPError as exc:
                res.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                return None
            res.latencies[kind].append(time.perf_counter() - t0)
            if r.status_code >= 400:
                res.errors.append(f"{kind}: HTTP {r.status_code}: {r.text[:200]}")
                return None
            return r

        while budget.take():
            n += 1
            if rng.random() < write_ratio or not res.facts:
                if rng.random() < 0.75:
                    person = f"Person-{wid}-{n // 5}"
                    year = 2000 + n % 5 * 3 + rng.randint(0, 2)
                    body = {"subject": person, "predicate": "LIVES_IN",
                            "object": rng.choice(CITIES), "valid_at": str(year)}
                    r = call("write_fact", "POST", "/v1/facts", json=body)
                    if r is not None:
                        persons.append(person)
                        res.facts.append({"group": group, "fact_id": r.json()["fact_id"],
                                          "object": body["object"],
                                          "valid_at": body["valid_at"]})
                else:
                    body = {"content": f"worker {wid} note {n}: {rng.random()}",
                            "reference_time": f"2024-01-{rng.randint(1, 28):02d}",
                            "extract": False}
                    r = call("write_episode", "POST", "/v1/episodes", json=body)
                    if r is not None:
                        res.episodes.append({"group": group, "id": r.json()["id"]})
            else:
                f = rng.choice(res.facts)
                person = rng.choice(persons)
                roll = rng.random()
                if roll < 0.35:
                    call("read_facts", "GET", "/v1/facts",
                         params={"subject": person,
                                 "valid_at": str(rng.randint(2000, 2014))})
                elif roll < 0.55:
                    call("read_fact", "GET", f"/v1/facts/{f['fact_id']}",
                         params={"valid_at": f["valid_at"]})
                elif roll < 0.70:
                    call("read_entity", "GET", f"/v1/entities/{person}")
                elif roll < 0.80:
                    call("read_history", "GET", f"/v1/facts/{f['fact_id']}/history")
                elif roll < 0.85:
                    call("read_paths", "GET", "/v1/paths",
                         params={"a": person, "b": f["object"],
                                 "max_hops": 2, "mode": "sequenced"})
                elif roll < 0.95:
                    call("read_list", "GET", "/v1/episodes", params={"limit": 20})
                else:
                    call("search", "GET", "/v1/search",
                         params={"q": f"Where does {person} live?", "limit": 5})


def verify(base: str, results: list[WorkerResult], groups: list[str]) -> dict[str, Any]:
    """Every acknowledged write is present (facts visible at their own valid_at)."""
    missing: list[str] = []
    checked = 0
    with httpx.Client(base_url=base, timeout=30) as c:
        for res in results:
            for f in res.facts:
                r = c.get(f"/v1/facts/{f['fact_id']}", params={"valid_at": f["valid_at"]},
                          headers={"X-Group": f["group"]})
                checked += 1
                if r.status_code != 200 or r.json()["object"] != f["object"]:
                    missing.append(f"fact {f['fact_id']}: {r.status_code}")
                other = groups[(groups.index(f["group"]) + 1) % len(groups)]
                if c.get(f"/v1/facts/{f['fact_id']}",
                         headers={"X-Group": other}).status_code != 404:
                    missing.append(f"fact {f['fact_id']} visible from group {other}")
            for e in res.episodes:
                r = c.get(f"/v1/episodes/{e['id']}", headers={"X-Group": e["group"]})
                checked += 1
                if r.status_code != 200:
                    missing.append(f"episode {e['id']}: {r.status_code}")
    return {"checked": checked, "missing": len(missing), "examples": missing[:10]}


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run_one(store: str, processes: int, args: argparse.Namespace) -> dict[str, Any]:
    """One load run: ``processes`` API processes over one store; the report of the run."""
    import uuid

    neo4j_uri = os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687")
    run = uuid.uuid4().hex[:8]
    groups = [f"load-a-{run}", f"load-b-{run}"]
    with tempfile.TemporaryDirectory(prefix="kgmem-api-load-") as tmp:
        procs: list[subprocess.Popen[bytes]] = []
        bases: list[str] = []
        try:
            for i in range(processes):
                port = _free_port()
                bases.append(f"http://{HOST}:{port}")
                procs.append(start_server(Path(tmp) / "store", port,
                                          Path(tmp) / f"server-{i}.log",
                                          neo4j_uri=neo4j_uri if store == "neo4j" else None,
                                          timeout=120))
            for b in bases:  # one request each first: a lazily opened store is not timed
                httpx.get(f"{b}/v1/facts", headers={"X-Group": groups[0]}, timeout=120)
            budget = Budget(args.requests, args.max_seconds)
            results = [WorkerResult() for _ in range(args.workers)]
            threads = [threading.Thread(target=worker, args=(
                i, bases[i % len(bases)], groups, budget, args.write_ratio, args.seed,
                results[i])) for i in range(args.workers)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - t0
            verification = verify(bases[0], results, groups)
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
            if store == "neo4j":  # leave nothing on the (shared) server
                from kgmem.memory.facade import Memory
                from kgmem.store.neo4j import Neo4jStore

                m = Memory(store=Neo4jStore(neo4j_uri), extractor=None)
                for g in groups:
                    m.erase(group=g, whole_group=True)
                m.close()

    by_kind: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for k, v in r.latencies.items():
            by_kind[k] += v
    all_lat = [x for v in by_kind.values() for x in v]
    errors = [e for r in results for e in r.errors]
    n = len(all_lat) + sum(1 for e in errors if "HTTP" not in e)
    return {
        "config": {"store": store, "processes": processes, "workers": args.workers,
                   "requests": args.requests, "max_seconds": args.max_seconds,
                   "write_ratio": args.write_ratio, "extractor": "none",
                   "background_indexer": "off",
                   "server": f"uvicorn, {processes} process(es)"},
        "requests": n,
        "seconds": round(elapsed, 3),
        "throughput_rps": round(n / elapsed, 1) if elapsed else 0.0,
        "latency_ms": {"p50": round(_pct(all_lat, 50) * 1000, 2),
                       "p95": round(_pct(all_lat, 95) * 1000, 2),
                       "max": round(max(all_lat, default=0) * 1000, 2)},
        "by_kind": {k: {"count": len(v), "p50_ms": round(_pct(v, 50) * 1000, 2),
                        "p95_ms": round(_pct(v, 95) * 1000, 2)}
                    for k, v in sorted(by_kind.items())},
        "errors": len(errors),
        "error_examples": errors[:10],
        "acknowledged_writes": {"facts": sum(len(r.facts) for r in results),
                                "episodes": sum(len(r.episodes) for r in results)},
        "verification": verification,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=4000, help="total requests (bound)")
    ap.add_argument("--max-seconds", type=float, default=60.0, help="time bound")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--write-ratio", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--stores", default="embedded",
                    help="comma-separated: embedded, neo4j (KGMEM_NEO4J_URI)")
    ap.add_argument("--processes", default="1",
                    help="comma-separated API process counts, each run over one store")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args(argv)
    stores = args.stores.split(",")
    counts = [int(x) for x in args.processes.split(",")]
    if not (1 <= args.workers <= 64 and 1 <= args.requests <= 200_000
            and 0 < args.max_seconds <= 600 and all(1 <= c <= 4 for c in counts)
            and set(stores) <= {"embedded", "neo4j"}):
        ap.error("bounds: 1-64 workers, 1-200000 requests, at most 600 s, 1-4 processes, "
                 "stores embedded/neo4j")

    runs = []
    for store in stores:
        for c in counts:
            rep = run_one(store, c, args)
            runs.append(rep)
            print(f"[{store} x{c}] {rep['requests']} requests in {rep['seconds']:.1f}s: "
                  f"{rep['throughput_rps']} req/s, p50 {rep['latency_ms']['p50']} ms, "
                  f"p95 {rep['latency_ms']['p95']} ms, errors {rep['errors']}, missing "
                  f"{rep['verification']['missing']}", flush=True)
    report = {"when": datetime.now(timezone.utc).isoformat(),
              "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                          "platform": platform.platform(), "load": list(os.getloadavg())},
              **runs[0], "runs": runs}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(report, indent=2) + "\n")

    print("\n| store | API processes | requests | req/s | p50 ms | p95 ms | errors | "
          "acknowledged writes | missing |\n|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        w = r["acknowledged_writes"]
        print(f"| {r['config']['store']} | {r['config']['processes']} | {r['requests']} | "
              f"{r['throughput_rps']} | {r['latency_ms']['p50']} | {r['latency_ms']['p95']} | "
              f"{r['errors']} | {w['facts'] + w['episodes']} | {r['verification']['missing']} |")
    kinds = sorted({k for r in runs for k in r["by_kind"]})
    print("\np50 / p95 ms by request kind:\n| kind | " + " | ".join(
        f"{r['config']['store']} x{r['config']['processes']}" for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for k in kinds:
        cells = [f"{r['by_kind'][k]['p50_ms']} / {r['by_kind'][k]['p95_ms']}"
                 if k in r["by_kind"] else "" for r in runs]
        print(f"| {k} | " + " | ".join(cells) + " |")
    print(f"wrote {args.out / 'latest.json'}")
    bad = [r for r in runs if r["errors"] or r["verification"]["missing"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
