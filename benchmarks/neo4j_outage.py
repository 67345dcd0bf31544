"""Neo4j under kill -9 (issue 32): acknowledged writes survive, retries make no duplicates.

Two scenarios, each with writers that send one item (a fact, or every fourth an episode) at a
time and, on any failure, send the *same* item again until it is acknowledged (kgmem's writes
are idempotent: the same assertion or episode is one record):

* ``db``: a private Neo4j server (:mod:`benchmarks.neo4j_private`, never the shared one) is
  killed with SIGKILL while library writers (each its own ``Neo4jStore``) and HTTP writers
  (through an API process on that server) write; it is restarted at once. A prober asks
  ``/ready`` every 0.2 s. Measured: how long the restart took, and the **recovery time**, from
  the moment the server answers again to each writer's first acknowledged write after it,
  and to ``/ready``'s first 200.
* ``api``: the API process (on the shared server, fresh groups) is killed with SIGKILL while
  HTTP writers write, and started again.

After the kills every writer's group is read back: each acknowledged fact is there with its
object, each acknowledged episode is there, and the group holds exactly as many lineages,
versions and episodes as were acknowledged (a duplicate would add one).

    python -m benchmarks neo4j-outage --db-kills 3 --api-kills 3

Prints a table and writes ``benchmarks/out/neo4j_outage/latest.json``. Exit status 1 when an
acknowledged write is lost, a duplicate is found or a writer saw an unexpected error.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

from benchmarks.api_load import start_server
from benchmarks.hostile import machine_before
from benchmarks.neo4j_private import PrivateNeo4j, free_port

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "benchmarks" / "out" / "neo4j_outage"
HOST = "127.0.0.1"
CITIES = ["Boston", "Denver", "Paris", "Lisbon", "Oslo", "Kyoto", "Lima", "Accra"]


@dataclass(frozen=True)
class Item:
    """The i-th write of a writer: a fact (subject unique to it) or an episode."""

    writer: str
    i: int

    @property
    def is_episode(self) -> bool:
        return self.i % 4 == 3

    @property
    def subject(self) -> str:
        return f"{self.writer}-P{self.i}"

    @property
    def city(self) -> str:
        return CITIES[self.i % len(CITIES)]

    @property
    def year(self) -> str:
        return str(2000 + self.i % 20)

    @property
    def content(self) -> str:
        return f"{self.writer} note {self.i}: {self.city}"


@dataclass
class Ack:
    kind: str  # "fact" | "episode"
    key: str  # subject, or the episode's content
    id: str
    object: str
    t: float  # time.monotonic() of the acknowledgement
    took: float  # seconds of the attempt that was acknowledged


@dataclass
class WriterLog:
    name: str
    group: str
    via: str  # "library" | "api"
    acks: list[Ack] = field(default_factory=list)
    expected_errors: Counter[str] = field(default_factory=Counter)
    unexpected_errors: list[str] = field(default_factory=list)
    gave_up: str | None = None  # an item abandoned at the hard deadline (may be stored)


class Writer(threading.Thread):
    """Writes items 0, 1, 2...; each is retried until acknowledged. ``stop`` ends the run
    between items; ``hard_deadline`` (monotonic) abandons a retry loop."""

    def __init__(self, log: WriterLog, send: Callable[[Item], Ack], expected: Callable[
            [BaseException], bool], stop: threading.Event, hard_deadline: float) -> None:
        super().__init__(daemon=True, name=log.name)
        self.log, self.send, self.expected = log, send, expected
        self.stop, self.hard_deadline = stop, hard_deadline

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            item = Item(self.log.name, i)
            while True:
                try:
                    self.log.acks.append(self.send(item))
                    break
                except Exception as exc:  # noqa: BLE001 - classified and recorded
                    label = f"{type(exc).__name__}: {str(exc)[:160]}"
                    if self.expected(exc):
                        self.log.expected_errors[type(exc).__name__] += 1
                    else:
                        self.log.unexpected_errors.append(label)
                    if time.monotonic() > self.hard_deadline:
                        self.log.gave_up = item.subject
                        return
                    time.sleep(0.1)
            i += 1


# ------------------------------------------------------------------ writers
def library_sender(memory: Any, group: str) -> Callable[[Item], Ack]:
    def send(item: Item) -> Ack:
        t0 = time.monotonic()
        if item.is_episode:
            ep = memory.add_episode(item.content, "2024-01-01", group=group, extract=False)
            now = time.monotonic()
            return Ack("episode", item.content, ep.id, "", now, now - t0)
        v = memory.assert_fact(item.subject, "LIVES_IN", item.city, valid_at=item.year,
                               group=group)
        now = time.monotonic()
        return Ack("fact", item.subject, v.fact_id, item.city, now, now - t0)
    return send


def library_expected(exc: BaseException) -> bool:
    from kgmem.errors import StoreBusyError, StoreUnavailableError

    return isinstance(exc, (StoreUnavailableError, StoreBusyError))


class HttpStatusError(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:200]}")
        self.status = status


def api_sender(base: str, group: str) -> Callable[[Item], Ack]:
    client = httpx.Client(base_url=base, timeout=30, headers={"X-Group": group})

    def send(item: Item) -> Ack:
        t0 = time.monotonic()
        if item.is_episode:
            r = client.post("/v1/episodes", json={"content": item.content,
                                                  "reference_time": "2024-01-01",
                                                  "extract": False})
        else:
            r = client.post("/v1/facts", json={"subject": item.subject, "predicate": "LIVES_IN",
                                               "object": item.city, "valid_at": item.year})
        if r.status_code not in (200, 201):
            raise HttpStatusError(r.status_code, r.text)
        body, now = r.json(), time.monotonic()
        if item.is_episode:
            return Ack("episode", item.content, body["id"], "", now, now - t0)
        return Ack("fact", item.subject, body["fact_id"], item.city, now, now - t0)
    return send


def api_expected(exc: BaseException) -> bool:
    """A 503 (store unavailable or busy) or no answer (the API process is down)."""
    if isinstance(exc, HttpStatusError):
        return exc.status == 503
    return isinstance(exc, httpx.TransportError)


# ------------------------------------------------------------------ verification
def verify(memory: Any, logs: list[WriterLog]) -> dict[str, Any]:
    """Every acknowledged write is stored once; the group holds nothing else."""
    lost: list[str] = []
    duplicates: list[str] = []
    acked = 0
    for log in logs:
        facts = [a for a in log.acks if a.kind == "fact"]
        episodes = [a for a in log.acks if a.kind == "episode"]
        acked += len(log.acks)
        current = {v.subject: v for v in memory.facts(group=log.group)}
        for a in facts:
            v = current.get(a.key)
            if v is None or v.fact_id != a.id or v.object != a.object:
                lost.append(f"{log.group}: fact {a.key} {a.id}")
        for a in episodes:
            if memory.store.get_episode(log.group, a.id) is None:
                lost.append(f"{log.group}: episode {a.id}")
        counts = memory.store.counts(log.group)
        # an item abandoned at the hard deadline may be stored without an acknowledgement
        slack = 1 if log.gave_up else 0
        for kind, want in (("lineages", len(facts)), ("versions", len(facts)),
                           ("episodes", len(episodes))):
            if not want <= counts[kind] <= want + slack:
                duplicates.append(f"{log.group}: {counts[kind]} {kind} for {want} acknowledged")
    return {"acknowledged": acked, "lost": len(lost), "duplicates": len(duplicates),
            "examples": (lost + duplicates)[:10]}


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 3) if xs else None


class ReadyProbe(threading.Thread):
    """GET /ready every ``every`` seconds: (monotonic time, status or 0 for no answer)."""

    def __init__(self, base: str, stop: threading.Event, every: float = 0.2) -> None:
        super().__init__(daemon=True, name="ready-probe")
        self.base, self.stop, self.every = base, stop, every
        self.seen: list[tuple[float, int]] = []

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=10) as c:
            while not self.stop.is_set():
                try:
                    status = c.get("/ready").status_code
                except httpx.TransportError:
                    status = 0
                self.seen.append((time.monotonic(), status))
                self.stop.wait(self.every)


def probe_routes(base: str, group: str) -> dict[str, dict[str, float]]:
    """One search, one read and one write while the database is down: status and seconds."""
    out: dict[str, dict[str, float]] = {}
    with httpx.Client(base_url=base, timeout=60, headers={"X-Group": group}) as c:
        for name, method, url, kw in (
                ("search", "GET", "/v1/search", {"params": {"q": "Where does anyone live?"}}),
                ("facts", "GET", "/v1/facts", {}),
                ("write", "POST", "/v1/facts", {"json": {"subject": "Probe", "predicate":
                                                         "LIVES_IN", "object": "Oslo"}})):
            t0 = time.monotonic()
            status = c.request(method, url, **kw).status_code
            out[name] = {"status": status, "seconds": round(time.monotonic() - t0, 3)}
    return out


# ------------------------------------------------------------------ scenario: kill the database
def run_db_kills(tmp: Path, kills: int, lib_writers: int, api_writers: int, warm: float,
                 down: float, after: float, log: Callable[[str], None] = print
                 ) -> dict[str, Any]:
    from kgmem.memory.facade import Memory
    from kgmem.store.neo4j import Neo4jStore

    server = PrivateNeo4j(tmp / "neo4j-private")
    api = None
    memories: list[Any] = []
    try:
        first = server.start()
        log(f"[db] private Neo4j at {server.uri} started in {first:.1f} s")
        port = free_port()
        base = f"http://{HOST}:{port}"
        api = start_server(tmp / "api-home", port, tmp / "api.log", neo4j_uri=server.uri,
                           timeout=120)
        stop = threading.Event()
        hard = time.monotonic() + kills * (warm + down + after + 300) + 120
        run = uuid.uuid4().hex[:8]
        logs: list[WriterLog] = []
        writers: list[Writer] = []
        for w in range(lib_writers):
            m = Memory(store=Neo4jStore(server.uri), extractor=None)
            memories.append(m)
            wl = WriterLog(f"lib{w}", f"outage-{run}-lib{w}", "library")
            logs.append(wl)
            writers.append(Writer(wl, library_sender(m, wl.group), library_expected, stop, hard))
        for w in range(api_writers):
            wl = WriterLog(f"api{w}", f"outage-{run}-api{w}", "api")
            logs.append(wl)
            writers.append(Writer(wl, api_sender(base, wl.group), api_expected, stop, hard))
        probe = ReadyProbe(base, stop)
        probe.start()
        for t in writers:
            t.start()
        rounds = []
        for k in range(kills):
            time.sleep(warm)
            t_kill = time.monotonic()
            server.kill9()
            time.sleep(down)
            outage = probe_routes(base, f"outage-{run}-probe")  # a group no writer checks
            t_start = time.monotonic()
            took = server.start()
            t_up = time.monotonic()
            # every writer acknowledges something after the server is back, and /ready
            # says 200 again (bounded wait)
            deadline = t_up + 300
            while time.monotonic() < deadline and not (all(
                    any(a.t > t_up for a in wl.acks) for wl in logs) and any(
                    t > t_up and st == 200 for t, st in probe.seen)):
                time.sleep(0.1)
            time.sleep(after)
            firsts = [min((a.t for a in wl.acks if a.t > t_up), default=None) for wl in logs]
            recovery = [round(f - t_up, 3) for f in firsts if f is not None]
            ready_after = [t for t, st in probe.seen if t > t_up and st == 200]
            down_probes = [st for t, st in probe.seen if t_kill + 0.5 < t < t_start]
            # writes sent once /ready said 200 again: do they take their usual time?
            after_ready = [a.took for wl in logs for a in wl.acks
                           if ready_after and a.t - a.took > ready_after[0]]
            before_kill = [a.took for wl in logs for a in wl.acks if t_kill - warm < a.t < t_kill]
            rnd = {"round": k + 1, "restart_s": round(took, 1),
                   "writers_recovered": len(recovery), "writers": len(logs),
                   "recovery_s": {"median": _median(recovery), "max": max(recovery, default=None),
                                  "each": recovery},
                   "ready_200_after_s": round(ready_after[0] - t_up, 3) if ready_after else None,
                   "writes_after_ready_200": {"count": len(after_ready),
                                              "median_s": _median(after_ready),
                                              "max_s": round(max(after_ready), 3)
                                              if after_ready else None},
                   "writes_before_kill": {"count": len(before_kill),
                                          "median_s": _median(before_kill)},
                   "ready_while_down": dict(Counter(str(s) for s in down_probes)),
                   "routes_while_down": outage}
            rounds.append(rnd)
            log(f"[db] kill {k + 1}: restart {took:.1f} s, writers recovered "
                f"{len(recovery)}/{len(logs)}, first write after {rnd['recovery_s']} s, "
                f"/ready 200 after {rnd['ready_200_after_s']} s, writes sent after that "
                f"{rnd['writes_after_ready_200']} (before the kill: "
                f"{rnd['writes_before_kill']}), /ready while down "
                f"{rnd['ready_while_down']}, routes while down {outage}")
        stop.set()
        for t in writers:
            t.join(timeout=120)
        probe.join(timeout=10)
        check = Memory(store=Neo4jStore(server.uri), extractor=None)
        memories.append(check)
        result = verify(check, logs)
        result.update(rounds=rounds, writers=[_writer_summary(wl) for wl in logs],
                      unexpected_errors=sum(len(wl.unexpected_errors) for wl in logs),
                      server_start_s=round(first, 1))
        log(f"[db] {result['acknowledged']} acknowledged writes over {kills} kills: lost "
            f"{result['lost']}, duplicates {result['duplicates']}, unexpected errors "
            f"{result['unexpected_errors']}")
        return result
    finally:
        for m in memories:
            try:
                m.close()
            except Exception:  # noqa: BLE001 - the server may be gone
                pass
        if api is not None:
            api.kill()
            api.wait()
        server.destroy()


def _writer_summary(wl: WriterLog) -> dict[str, Any]:
    return {"name": wl.name, "via": wl.via, "acknowledged": len(wl.acks),
            "expected_errors": dict(wl.expected_errors),
            "unexpected_errors": wl.unexpected_errors[:5], "gave_up": wl.gave_up}


# ------------------------------------------------------------------ scenario: kill the API
def run_api_kills(tmp: Path, neo4j_uri: str, kills: int, writers_n: int, warm: float,
                  log: Callable[[str], None] = print) -> dict[str, Any]:
    from kgmem.memory.facade import Memory
    from kgmem.store.neo4j import Neo4jStore

    port = free_port()
    base = f"http://{HOST}:{port}"
    home, api_log = tmp / "api-home", tmp / "api-kill.log"
    api = start_server(home, port, api_log, neo4j_uri=neo4j_uri, timeout=120)
    run = uuid.uuid4().hex[:8]
    stop = threading.Event()
    hard = time.monotonic() + kills * (warm + 180) + 120
    logs = [WriterLog(f"api{w}", f"apikill-{run}-{w}", "api") for w in range(writers_n)]
    writers = [Writer(wl, api_sender(base, wl.group), api_expected, stop, hard) for wl in logs]
    check = Memory(store=Neo4jStore(neo4j_uri), extractor=None)
    restarts: list[float] = []
    try:
        for t in writers:
            t.start()
        for _ in range(kills):
            time.sleep(warm)
            api.kill()  # SIGKILL
            api.wait()
            t0 = time.monotonic()
            api = start_server(home, port, api_log, neo4j_uri=neo4j_uri, timeout=120)
            restarts.append(round(time.monotonic() - t0, 2))
        time.sleep(warm)
        stop.set()
        for t in writers:
            t.join(timeout=120)
        result = verify(check, logs)
        for wl in logs:  # leave nothing on the shared server
            check.erase(group=wl.group, whole_group=True)
        result.update(kills=kills, api_restart_s=restarts,
                      writers=[_writer_summary(wl) for wl in logs],
                      unexpected_errors=sum(len(wl.unexpected_errors) for wl in logs))
        log(f"[api] {result['acknowledged']} acknowledged writes over {kills} kills of the API: "
            f"lost {result['lost']}, duplicates {result['duplicates']}, unexpected errors "
            f"{result['unexpected_errors']}")
        return result
    finally:
        stop.set()
        api.kill()
        api.wait()
        check.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db-kills", type=int, default=3)
    ap.add_argument("--api-kills", type=int, default=3)
    ap.add_argument("--lib-writers", type=int, default=3)
    ap.add_argument("--api-writers", type=int, default=2)
    ap.add_argument("--warm", type=float, default=4.0, help="seconds of writes before a kill")
    ap.add_argument("--down", type=float, default=2.0, help="seconds the database stays down")
    ap.add_argument("--after", type=float, default=3.0, help="seconds of writes after recovery")
    ap.add_argument("--neo4j-uri", default=os.environ.get("KGMEM_NEO4J_URI",
                                                           "bolt://127.0.0.1:7687"),
                    help="the (shared) server the API-kill scenario writes to")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args(argv)
    report: dict[str, Any] = {
        "when": datetime.now(timezone.utc).isoformat(),
        "machine": machine_before(),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}}
    with tempfile.TemporaryDirectory(prefix="kgmem-neo4j-outage-") as tmp:
        if args.db_kills:
            report["db"] = run_db_kills(Path(tmp), args.db_kills, args.lib_writers,
                                        args.api_writers, args.warm, args.down, args.after)
        if args.api_kills:
            report["api"] = run_api_kills(Path(tmp), args.neo4j_uri, args.api_kills,
                                          args.api_writers + args.lib_writers, args.warm)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"-> {args.out / 'latest.json'}")
    bad = [s for s in ("db", "api") if s in report and (
        report[s]["lost"] or report[s]["duplicates"] or report[s]["unexpected_errors"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

