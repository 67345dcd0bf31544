"""Erase latency on a store of realistic size, old code against new in the same run.

    python benchmarks/erase_latency.py build --path DIR [--facts 100000]
    python benchmarks/erase_latency.py compare --path DIR --base SRC [--head SRC] [--n 10]

``build`` writes an embedded store: ``--facts`` facts of the scale benchmark's generator plus
the turns of LoCoMo conversations 0-1 (dev split) as episodes, all indexed with the 384-dim
hashing embedder (HNSW files persisted). ``compare`` copies the store once per code version and
round, then, in a fresh process importing kgmem from ``--base`` / ``--head`` (alternating),
erases ``--n`` episodes and ``--n`` entities (people with ~10 facts) in two settings: "cli" (a
fresh Memory that never searched) and "server" (a search first, so the indexes are loaded).
Prints medians (ms) and head/base ratios and writes ``erase_latency.json``; timings on these
shared machines vary 10-20%, the load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

LOCOMO = Path(os.environ.get("KGMEM_BENCH_DATA", "/work/shared/benchmarks/data")) / "locomo"


def build(path: Path, n_facts: int) -> None:
    from kgmem.embed import HashingEmbedder
    from kgmem.memory.facade import Memory
    from kgmem.retrieve import index_pending, warm

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.scale import generate

    m = Memory(path, embedder=HashingEmbedder(384), extractor=None)
    rows, _ = generate(n_facts)
    m.assert_facts(rows, batch_size=5000)
    data = json.loads((LOCOMO / "locomo10.json").read_text())
    base, items = datetime(2023, 1, 1, tzinfo=timezone.utc), []
    for conv in data[:2]:
        c = conv["conversation"]
        for key in sorted(k for k in c if k.startswith("session_") and isinstance(c[k], list)):
            for turn in c[key]:
                items.append({"content": turn["text"], "speaker": turn["speaker"],
                              "reference_time": base + timedelta(minutes=len(items))})
    m.add_episodes(items, extract=False)
    index_pending(m)
    warm(m)
    m.close()


def run(path: Path, n: int, mode: str) -> dict[str, Any]:
    """Erase ``n`` episodes and ``n`` entities of the store at ``path``; times in ms."""
    from kgmem.embed import HashingEmbedder
    from kgmem.memory.facade import Memory

    m = Memory(path, extractor=None)
    if mode == "server":
        from kgmem.retrieve import search

        m.embedder = HashingEmbedder(384)
        search(m, "where does person12 live")
    eps = m.episodes(limit=n, offset=100)
    people = [f"person{i}" for i in range(100, 100 + n)]
    out: dict[str, list[float]] = {"episode": [], "entity": []}
    for ep in eps:
        t = time.perf_counter()
        m.erase(episode=ep.id)
        out["episode"].append((time.perf_counter() - t) * 1000)
    for name in people:
        t = time.perf_counter()
        m.erase(entity=name)
        out["entity"].append((time.perf_counter() - t) * 1000)
    m.close()
    return out


def compare(path: Path, base: Path, head: Path, n: int, rounds: int, out: Path) -> None:
    results: dict[str, dict[str, list[float]]] = {}
    work = Path(tempfile.mkdtemp(prefix="erase-bench-"))
    try:
        for r in range(rounds):
            for label, src in (("base", base), ("head", head)) if r % 2 == 0 else (
                    ("head", head), ("base", base)):
                for mode in ("cli", "server"):
                    copy = work / f"{label}-{mode}-{r}"
                    shutil.copytree(path, copy)
                    env = {**os.environ, "PYTHONPATH": str(src),
                           "KGMEM_CACHE_DIR": str(work / f"cache-{label}")}
                    res = subprocess.run(
                        [sys.executable, __file__, "run", "--path", str(copy), "--n", str(n),
                         "--mode", mode], env=env, capture_output=True, text=True, check=True)
                    for kind, ms in json.loads(res.stdout.splitlines()[-1]).items():
                        results.setdefault(f"{mode} {kind}", {}).setdefault(label, []).extend(ms)
                    shutil.rmtree(copy)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    table = []
    print(f"{'erase':<16}{'base p50 ms':>12}{'head p50 ms':>12}{'ratio':>8}   (n per cell)")
    for key, by in sorted(results.items()):
        b, h = statistics.median(by["base"]), statistics.median(by["head"])
        table.append({"op": key, "base_p50_ms": b, "head_p50_ms": h, "ratio": h / b,
                      "n": len(by["head"]), "base_ms": by["base"], "head_ms": by["head"]})
        print(f"{key:<16}{b:>12.1f}{h:>12.1f}{h / b:>8.2f}   ({len(by['head'])})")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "erase_latency.json").write_text(json.dumps(
        {"store": str(path), "base": str(base), "head": str(head), "rounds": rounds,
         "load": load, "results": table}, indent=1))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--path", type=Path, required=True)
    b.add_argument("--facts", type=int, default=100_000)
    r = sub.add_parser("run")
    r.add_argument("--path", type=Path, required=True)
    r.add_argument("--n", type=int, default=10)
    r.add_argument("--mode", choices=["cli", "server"], default="cli")
    c = sub.add_parser("compare")
    c.add_argument("--path", type=Path, required=True)
    c.add_argument("--base", type=Path, required=True, help="source tree of the old code")
    c.add_argument("--head", type=Path, default=Path(__file__).resolve().parent.parent)
    c.add_argument("--n", type=int, default=10)
    c.add_argument("--rounds", type=int, default=2)
    c.add_argument("--out", type=Path, default=Path("benchmarks/out/erase"))
    a = ap.parse_args(argv)
    if a.cmd == "build":
        build(a.path, a.facts)
    elif a.cmd == "run":
        print(json.dumps(run(a.path, a.n, a.mode)))
    else:
        compare(a.path, a.base, a.head, a.n, a.rounds, a.out)


if __name__ == "__main__":
    main()
