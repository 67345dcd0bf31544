"""A busy store over HTTP: what a write and concurrent reads get while another process holds
the embedded store's SQLite write lock (issue 13, point 6).

Starts ``uvicorn`` (``api.app``, one process) on 127.0.0.1 over a temporary embedded store
seeded with facts and episodes, then measures in one run:

1. **baseline**: ``--readers`` threads per read kind looping on ``GET /v1/facts``,
   ``GET /v1/search`` and ``GET /ready`` for ``--baseline`` seconds, and one
   ``POST /v1/facts``;
2. **contended**: another process takes the write lock (``BEGIN IMMEDIATE``) and holds it for
   ``--hold`` seconds; one ``POST /v1/facts`` is sent at once, the readers loop as before.

It prints a table (status and latency of the write; p50/p95/max of each read kind in both
phases, over the whole phase and over the reads that overlapped the write in flight, and the
p95 ratios) and writes JSON to ``benchmarks/out/lock_contention/latest.json``.
``--code DIR`` runs the server from another checkout (e.g. the code before the fix):

    python -m benchmarks.lock_contention --hold 40
    git worktree add --detach /tmp/kgmem-old 1953ce8
    python -m benchmarks.lock_contention --hold 40 --code /tmp/kgmem-old --tag before

Traffic only ever goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "benchmarks" / "out" / "lock_contention"
HOST = "127.0.0.1"
READS = {
    "facts": ("/v1/facts", {"subject": "Person 3"}),
    "search": ("/v1/search", {"q": "where does Person 7 live"}),
    "ready": ("/ready", {}),
}
_HOLDER = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _git_rev(code: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def start_server(code: Path, home: Path, port: int, busy_timeout: float,
                 log_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "KGMEM_HOME": str(home), "KGMEM_STORE": "embedded",
           "KGMEM_EXTRACTOR": "none", "KGMEM_BUSY_TIMEOUT": str(busy_timeout),
           "PYTHONPATH": str(code)}
    env.pop("KGMEM_API_KEYS", None)
    run = (f"import kgmem, sys; print('kgmem from', kgmem.__file__, file=sys.stderr); "
           f"from api.app import run; run(host={HOST!r}, port={port}, log_level='warning')")
    log = open(log_path, "wb")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen([sys.executable, "-c", run], env=env, cwd=str(code), stdout=log,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
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


def seed(c: httpx.Client, n: int) -> None:
    for i in range(n):
        c.post("/v1/facts", json={"subject": f"Person {i % 20}", "predicate": "LIVES_IN",
                                  "object": f"City {i}", "valid_at": f"{2000 + i % 20}"}
               ).raise_for_status()
        if i % 4 == 0:
            c.post("/v1/episodes", json={"content": f"Person {i % 20} moved to City {i}.",
                                         "reference_time": "2023-05-08", "extract": False}
                   ).raise_for_status()
    c.get("/v1/search", params={"q": "warm up"}).raise_for_status()  # search tables, model


def _reader(base: str, kind: str, stop: threading.Event,
            out: dict[str, list[tuple[float, float, int]]], lock: threading.Lock) -> None:
    path, params = READS[kind]
    with httpx.Client(base_url=base, timeout=120) as c:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                status = c.get(path, params=params).status_code
            except httpx.HTTPError:
                status = 0
            with lock:
                out[kind].append((t0, time.perf_counter() - t0, status))


def _write(base: str, i: int) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=120) as c:
        t0 = time.perf_counter()
        r = c.post("/v1/facts", json={"subject": "Writer", "predicate": "LIVES_IN",
                                      "object": f"Town {i}"})
        t1 = time.perf_counter()
        took = t1 - t0
        body: dict[str, Any] = {}
        try:
            body = r.json()
        except ValueError:
            pass
        err = body.get("error", {}) if isinstance(body, dict) else {}
        return {"status": r.status_code, "seconds": round(took, 3), "span": (t0, t1),
                "retry_after": r.headers.get("retry-after"),
                "error_type": err.get("type"), "object": f"Town {i}"}


def phase(base: str, seconds: float, readers: int, write_index: int,
          holder: tuple[Path, float] | None) -> dict[str, Any]:
    """Readers loop for ``seconds`` while one write is sent (and the lock held, if asked)."""
    lat: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    lock, stop = threading.Lock(), threading.Event()
    proc = None
    if holder is not None:
        proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(holder[0]), str(holder[1])],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    t0 = time.monotonic()
    threads = [threading.Thread(target=_reader, args=(base, kind, stop, lat, lock))
               for kind in READS for _ in range(readers)]
    for t in threads:
        t.start()
    write: dict[str, Any] = {}
    wt = threading.Thread(target=lambda: write.update(_write(base, write_index)))
    wt.start()
    time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
    stop.set()
    for t in threads:
        t.join()
    wt.join()
    if proc is not None:
        proc.wait(timeout=seconds + 60)
    w0, w1 = write.pop("span")
    reads = {kind: _stats(xs) for kind, xs in sorted(lat.items())}
    # reads whose time on the wire overlapped the write's (started before it was answered and
    # answered after it was sent)
    during = {kind: _stats([x for x in xs if x[0] < w1 and x[0] + x[1] > w0])
              for kind, xs in sorted(lat.items())}
    return {"seconds": round(time.monotonic() - t0, 2), "write": write, "reads": reads,
            "reads_while_write_in_flight": during}


def _stats(xs: list[tuple[float, float, int]]) -> dict[str, Any]:
    ms = sorted(x[1] * 1000 for x in xs)
    return {"count": len(xs), "p50_ms": round(_pct(ms, 50), 2), "p95_ms": round(_pct(ms, 95), 2),
            "max_ms": round(max(ms, default=0), 2), "statuses": _counts(x[2] for x in xs)}


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _counts(statuses: Any) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for s in statuses:
        out[str(s)] += 1
    return dict(sorted(out.items()))


def _written(base: str, obj: str) -> bool:
    r = httpx.get(f"{base}/v1/facts", params={"subject": "Writer"}, timeout=60)
    return r.status_code == 200 and any(f["object"] == obj for f in r.json()["items"])


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hold", type=float, default=40.0, help="seconds the lock is held")
    ap.add_argument("--baseline", type=float, default=10.0, help="seconds of the baseline")
    ap.add_argument("--readers", type=int, default=2, help="reader threads per read kind")
    ap.add_argument("--busy-timeout", type=float, default=5.0, help="KGMEM_BUSY_TIMEOUT")
    ap.add_argument("--seed-facts", type=int, default=200)
    ap.add_argument("--code", type=Path, default=REPO, help="checkout to run the server from")
    ap.add_argument("--tag", default="", help="label of this run (file name suffix)")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args(argv)
    if not (0 < args.hold <= 300 and 0 < args.baseline <= 300 and 1 <= args.readers <= 32):
        ap.error("bounds: --hold and --baseline in (0, 300] s, 1-32 readers")

    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="kgmem-lock-") as tmp:
        home, port = Path(tmp) / "store", _free_port()
        base = f"http://{HOST}:{port}"
        proc = start_server(args.code, home, port, args.busy_timeout, Path(tmp) / "server.log")
        try:
            with httpx.Client(base_url=base, timeout=60) as c:
                seed(c, args.seed_facts)
            baseline = phase(base, args.baseline, args.readers, 0, None)
            contended = phase(base, args.hold, args.readers, 1,
                              (home / "kgmem.sqlite3", args.hold))
            contended["write"]["written"] = _written(base, contended["write"]["object"])
            baseline["write"]["written"] = _written(base, baseline["write"]["object"])
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            server_log = (Path(tmp) / "server.log").read_text(errors="replace")[-2000:]

    ratios = {k: round(contended["reads_while_write_in_flight"][k]["p95_ms"]
                       / max(v["p95_ms"], 1e-9), 2)
              for k, v in baseline["reads"].items()
              if contended["reads_while_write_in_flight"].get(k, {}).get("count")}
    report: dict[str, Any] = {
        "when": datetime.now(timezone.utc).isoformat(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform(), "load_before": load_before,
                    "load_after": _load()},
        "code": {"dir": str(args.code), "rev": _git_rev(args.code)},
        "config": {"hold_s": args.hold, "baseline_s": args.baseline, "readers": args.readers,
                   "busy_timeout_s": args.busy_timeout, "seed_facts": args.seed_facts,
                   "store": "embedded", "server": "uvicorn, 1 process"},
        "baseline": baseline,
        "contended": contended,
        "p95_ratio_in_flight_over_baseline": ratios,
        "server_log_tail": server_log,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"latest{'-' + args.tag if args.tag else ''}.json"
    (args.out / name).write_text(json.dumps(report, indent=2) + "\n")

    print(f"code {report['code']['rev']} ({args.code}); lock held {args.hold:g} s by another "
          f"process; busy_timeout {args.busy_timeout:g} s; load {load_before}")
    for label, ph in (("baseline", baseline), ("contended", contended)):
        w = ph["write"]
        print(f"  {label:<9} POST /v1/facts -> {w['status']} in {w['seconds']:.2f} s "
              f"(Retry-After {w['retry_after']}, type {w['error_type']}, written "
              f"{w['written']})")
    print(f"  {'read':<7} {'phase':<26} {'n':>6} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}  "
          "statuses")
    empty = {"count": 0, "p50_ms": 0, "p95_ms": 0, "max_ms": 0, "statuses": {}}
    for kind in READS:
        for label, rows in (("baseline", baseline["reads"]),
                            ("contended (whole phase)", contended["reads"]),
                            ("contended (write in flight)",
                             contended["reads_while_write_in_flight"])):
            r = rows.get(kind, empty)
            print(f"  {kind:<7} {label:<26} {r['count']:>6} {r['p50_ms']:>9.1f} "
                  f"{r['p95_ms']:>9.1f} {r['max_ms']:>9.1f}  {r['statuses']}")
    print(f"  p95 while the write is in flight / baseline p95: {ratios}")
    print(f"  -> {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
