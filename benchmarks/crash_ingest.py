"""Crash suite: ``kgmem ingest`` of LoCoMo conversation 0 killed with SIGKILL at random moments
and re-run; after every re-run the facts (subject, predicate, object, both valid-time bounds)
must equal a clean run's and ``kgmem check`` must be clean (right after the kill too).

    python -m benchmarks.crash_ingest [--store embedded|neo4j|both] [--kills 10] [--seed 13]
        [--sessions N] [--batch-size 16] [--out DIR]

Each trial is a real ``python -m kgmem.cli.main ingest`` process on a fresh embedded directory or a
fresh Neo4j group (the conversation's ``sample_id`` is rewritten per trial), killed at a moment
drawn uniformly from (``--from`` x, 1 x) the clean run's duration with a fixed seed; the
moments are printed.
Writes ``crash_ingest.json`` (per trial: kill moment, episodes and facts stored when killed,
facts after the re-run, whether they equal the clean run's, the check). Exit status 1 if any
trial differs. ``tests/crash`` runs the same trials on fewer turns, in-process, in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

FactRow = tuple[str, str, str, str | None, str | None]


def conversation_file(out: Path, group: str, sessions: int | None = None,
                      data_dir: Path | None = None) -> Path:
    """LoCoMo conversation 0 (its first ``sessions`` sessions) in the locomo10.json schema,
    with ``sample_id`` = ``group`` (kgmem ingest uses it as the group)."""
    from benchmarks.datasets._common import default_data_dir

    src = (data_dir or default_data_dir()) / "locomo" / "locomo10.json"
    conv = json.loads(src.read_text(encoding="utf-8"))[0]
    talk = dict(conv["conversation"])
    if sessions is not None:
        n = sessions + 1
        while f"session_{n}" in talk:
            talk.pop(f"session_{n}")
            talk.pop(f"session_{n}_date_time", None)
            n += 1
    out.write_text(json.dumps([{"sample_id": group, "conversation": talk, "qa": []}]),
                   encoding="utf-8")
    return out


def facts_of(memory: Any, group: str) -> list[FactRow]:
    """The group's believed facts at every valid time, as comparable rows."""
    rows = memory.facts(valid_at="0001-01-02", valid_to="9999-12-30", group=group, limit=None)
    return sorted((f.subject, f.predicate, f.object,
                   f.valid_at.isoformat() if f.valid_at else None,
                   f.invalid_at.isoformat() if f.invalid_at else None) for f in rows)


@dataclass
class Trial:
    store: str
    trial: int
    kill_at_s: float
    killed: bool  # False when the run had ended before the kill moment
    episodes_when_killed: int
    facts_when_killed: int
    check_after_kill: bool
    facts_after_rerun: int
    rerun_status: int  # the re-run's exit status: a failed re-run explains a short fact count
    equal_to_clean: bool
    check_after_rerun: bool
    missing: list[FactRow]
    extra: list[FactRow]


class Target:
    """Where the trials write: fresh embedded directories or fresh groups of one Neo4j
    database; ``memory(place)`` opens it for reading, ``cli_args(place)`` points kgmem at it."""

    def __init__(self, kind: str, root: Path) -> None:
        self.kind, self.root = kind, root
        self.groups: list[str] = []
        self._neo4j: Any = None

    def place(self, name: str) -> tuple[str, Path | None]:
        group = f"crash-{name}-{uuid.uuid4().hex[:8]}"
        self.groups.append(group)
        return group, (self.root / group if self.kind == "embedded" else None)

    def cli_args(self, home: Path | None) -> list[str]:
        return ["--home", str(home)] if home is not None else ["--store", "neo4j"]

    @contextmanager
    def memory(self, home: Path | None) -> Iterator[Any]:
        from kgmem.memory.facade import Memory

        if home is not None:
            with Memory(home, extractor=None) as m:
                yield m
            return
        if self._neo4j is None:
            from kgmem.store.neo4j import Neo4jStore

            self._neo4j = Neo4jStore()
        yield Memory(store=self._neo4j, extractor=None)

    def cleanup(self) -> None:
        if self._neo4j is not None:
            from kgmem.memory.facade import Memory

            m = Memory(store=self._neo4j, extractor=None)
            for g in self.groups:
                m.erase(whole_group=True, group=g)
            self._neo4j.close()


def observe(target: Target, home: Path | None, group: str) -> tuple[int, list[FactRow], bool]:
    """(episodes, facts, check clean) of a trial's group."""
    from kgmem.jobs.check import check_store

    with target.memory(home) as m:
        return (m.stats(group)["episodes"], facts_of(m, group),
                check_store(m.store, group, m.vocabulary).ok)


class Run(Protocol):
    """A started ``kgmem`` command."""

    def kill(self) -> bool: ...  # SIGKILL it if still running; whether it was
    def wait(self) -> int: ...  # its exit status


Spawn = Callable[[list[str]], Run]


def run_trials(kind: str, kills: int, seed: int, make_file: Callable[[Path, str], Path],
               spawn: Spawn, root: Path, batch_size: int = 16,
               window: tuple[float, float] = (0.0, 1.0),
               log: Callable[[str], None] = print) -> dict[str, Any]:
    """One clean run, then ``kills`` trials (killed run + re-run) on ``kind``;
    ``spawn(args)`` starts ``kgmem <args>``; the kill moments are drawn uniformly from
    ``window`` (fractions of the clean run's duration)."""
    target = Target(kind, root)
    rng = random.Random(seed)
    try:
        group, home = target.place("clean")
        t0 = time.perf_counter()
        status = spawn([*target.cli_args(home), "--json", "ingest",
                        str(make_file(root / f"{group}.json", group)), "--batch-size",
                        str(batch_size)]).wait()
        clean_s = time.perf_counter() - t0
        if status != 0:
            raise RuntimeError(f"the clean run exited with {status}")
        _, clean, clean_ok = observe(target, home, group)
        log(f"{kind}: clean run {clean_s:.2f} s, {len(clean)} facts, check "
            f"{'clean' if clean_ok else 'NOT clean'}; seed {seed}")
        trials = []
        for i in range(kills):
            at = rng.uniform(window[0] * clean_s, window[1] * clean_s)
            group, home = target.place(str(i))
            f = make_file(root / f"{group}.json", group)
            args = [*target.cli_args(home), "--json", "ingest", str(f), "--batch-size",
                    str(batch_size)]
            run = spawn(args)
            time.sleep(at)
            killed = run.kill()
            n_eps, n_facts, ok_killed = observe(target, home, group)
            status = spawn(args).wait()
            _, after, ok_after = observe(target, home, group)
            t = Trial(kind, i, round(at, 3), killed, n_eps, len(n_facts), ok_killed,
                      len(after), status, after == clean and status == 0, ok_after,
                      sorted(set(clean) - set(after)), sorted(set(after) - set(clean)))
            trials.append(t)
            log(f"{kind} kill {i}: at {at:.3f} s ({'killed' if killed else 'had ended'}) with "
                f"{n_eps} episodes / {len(n_facts)} facts stored, check "
                f"{'clean' if ok_killed else 'NOT clean'}; re-run: exit {status}, {len(after)} facts, "
                f"{'equal to' if t.equal_to_clean else 'DIFFERENT from'} the clean run, check "
                f"{'clean' if ok_after else 'NOT clean'}")
        return {"store": kind, "seed": seed, "clean_seconds": clean_s, "clean_facts": len(clean),
                "clean_check": clean_ok, "trials": [asdict(t) for t in trials]}
    finally:
        target.cleanup()


class ProcessRun:
    """``python -m kgmem.cli.main <args>`` in its own process (what a user runs)."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kgmem.cli.main", *args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(self) -> bool:
        if self.proc.poll() is not None:
            return False
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        return True

    def wait(self) -> int:
        return self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", choices=["embedded", "neo4j", "both"], default="both")
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--sessions", type=int, default=None, help="first N sessions (all: 19)")
    ap.add_argument("--batch-size", type=int, default=16, help="kgmem ingest --batch-size")
    ap.add_argument("--from", dest="start", type=float, default=0.2,
                    help="earliest kill moment, as a fraction of the clean run (its first "
                    "seconds are Python and spaCy starting)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/crash_ingest"))
    args = ap.parse_args(argv)
    kinds = ["embedded", "neo4j"] if args.store == "both" else [args.store]
    results = []
    with tempfile.TemporaryDirectory(prefix="kgmem-crash-") as tmp:
        for kind in kinds:
            results.append(run_trials(
                kind, args.kills, args.seed,
                lambda p, g: conversation_file(p, g, args.sessions), ProcessRun, Path(tmp),
                args.batch_size, (args.start, 1.0)))
    ok = all(t["equal_to_clean"] and t["check_after_rerun"] and t["check_after_kill"]
             for r in results for t in r["trials"]) and all(r["clean_check"] for r in results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "crash_ingest.json").write_text(json.dumps(
        {"ok": ok, "load": os.getloadavg(), "results": results}, indent=2))
    for r in results:
        eq = sum(t["equal_to_clean"] for t in r["trials"])
        killed = sum(t["killed"] for t in r["trials"])
        print(f"{r['store']}: {eq}/{len(r['trials'])} re-runs equal to the clean run "
              f"({r['clean_facts']} facts), {killed} runs killed mid-ingest, checks "
              f"{'clean' if all(t['check_after_kill'] and t['check_after_rerun'] for t in r['trials']) else 'NOT clean'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
