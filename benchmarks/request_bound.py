"""Bounded work per request (issue 32): search latency while a big embedding backlog waits.

    python -m benchmarks request-bound [--chars 1000000] [--groups 8] [--searches 5]
                                       [--locomo-turns 600] [--out benchmarks/out/request_bound]

Runs the REST API in this process (the ASGI app with its background indexer, as `kgmem serve`
runs it) over a fresh embedded store with the offline MiniLM, and measures:

1. **one big episode**: ``--chars`` characters sent with ``"extract": false`` to group ``big``
   (the server's ``KGMEM_MAX_EPISODE_CHARS`` raised to allow it), then searches in ``big`` and
   in group ``other`` (a few small, indexed episodes) while the backlog is pending;
2. **many groups**: the same number of characters spread over ``--groups`` groups, then
   searches in each and in ``other``;
3. **a fresh LoCoMo ingest**: ``--locomo-turns`` turns of conversation 0 stored without an
   index build (as after a killed ``kgmem index``), then the first search.

The baseline, measured in the same run, is the time the background indexer takes to embed
each backlog: what a search used to do inside its request before answering. Texts are salted
with random words, queries too, and the embedder runs without its cache, so every text is
embedded for real. Prints a table; writes
JSON with every latency.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = ("lighthouse keeper weather storm harbour boat rope lantern tide gull shell fog "
         "island coast wave anchor sail compass map journey morning evening").split()


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    n = 0
    while n < chars:
        w = rng.choice(WORDS) if rng.random() < 0.7 else f"w{rng.randrange(10**9):x}"
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:chars]


def _search(c: Any, group: str, q: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = c.get("/v1/search", params={"q": q}, headers={"X-Group": group})
    dt = time.perf_counter() - t0
    r.raise_for_status()
    return dt, int(r.json()["index_pending"])


def _wait_indexed(c: Any, groups: list[str], timeout: float) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if all(_search(c, g, "lantern")[1] == 0 for g in groups):
            return time.perf_counter() - t0
        time.sleep(0.5)
    return float("nan")


def _scenario(c: Any, name: str, groups: dict[str, int], rng: random.Random,
              searches: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    for g, chars in groups.items():
        r = c.post("/v1/episodes", headers={"X-Group": g},
                   json={"content": _text(rng, chars), "reference_time": "2024-05-01",
                         "extract": False})
        r.raise_for_status()
    stored = time.perf_counter() - t0
    own: list[float] = []
    other: list[float] = []
    pending: list[int] = []
    for i in range(searches):
        for g in groups:
            dt, p = _search(c, g, f"lighthouse keeper storm {_text(rng, 12)}")
            own.append(dt)
            pending.append(p)
        dt, _ = _search(c, "other", f"harbour boat {_text(rng, 12)}")
        other.append(dt)
    backlog_s = _wait_indexed(c, list(groups), timeout=1800)
    return {"scenario": name, "chars": sum(groups.values()), "groups": len(groups),
            "store_s": stored, "own_search_s": own, "other_search_s": other,
            "pending_seen": pending, "backlog_embed_s": backlog_s}


def _locomo(c: Any, turns: int) -> dict[str, Any] | None:
    from benchmarks.datasets.locomo import default_locomo_path
    from kgmem.ingest.formats import read_episodes

    path = default_locomo_path()
    if not path.is_file():
        return None
    items = list(read_episodes(path, "locomo"))[:turns]
    group = "locomo"
    t0 = time.perf_counter()
    for i in range(0, len(items), 200):
        body = [{"content": it["content"], "reference_time": str(it["reference_time"]),
                 "speaker": it.get("speaker"), "extract": False} for it in items[i:i + 200]]
        c.post("/v1/episodes/bulk", headers={"X-Group": group},
               json={"episodes": body}).raise_for_status()
    stored = time.perf_counter() - t0
    first, pending = _search(c, group, "When did Caroline go to the LGBTQ support group?")
    second, _ = _search(c, group, "What did Melanie paint?")
    backlog_s = _wait_indexed(c, [group], timeout=1800)
    return {"scenario": "locomo-fresh", "turns": len(items), "store_s": stored,
            "first_search_s": first, "second_search_s": second, "pending_at_first": pending,
            "backlog_embed_s": backlog_s}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks request-bound",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=8)
    ap.add_argument("--searches", type=int, default=5)
    ap.add_argument("--locomo-turns", type=int, default=600)
    ap.add_argument("--seed", type=int, default=None, help="text salt (default: random)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/request_bound"))
    args = ap.parse_args(argv)

    from fastapi.testclient import TestClient

    from api.app import create_app
    from kgmem.embed import get_default_embedder
    from kgmem.memory.facade import Memory
    from kgmem.settings import Settings

    rng = random.Random(args.seed)
    store = Path(tempfile.mkdtemp(prefix="kgmem-request-bound-"))
    m = Memory(store / "store", extractor=None)
    emb = get_default_embedder()
    m.embedder = getattr(emb, "inner", emb)  # type: ignore[attr-defined]  # no embedding cache
    settings = Settings(max_episode_chars=max(args.chars, 200_000), index_interval=0.5,
                        max_request_bytes=4 * args.chars + 1_000_000)
    results: list[dict[str, Any]] = []
    with TestClient(create_app(settings, memory=m)) as c:
        for i in range(5):
            c.post("/v1/episodes", headers={"X-Group": "other"},
                   json={"content": f"the harbour boat {i} " + _text(rng, 200),
                         "reference_time": "2024-05-01", "extract": False}).raise_for_status()
        _wait_indexed(c, ["other"], timeout=120)
        results.append(_scenario(c, "one-episode", {"big": args.chars}, rng, args.searches))
        per = args.chars // args.groups
        results.append(_scenario(c, "many-groups", {f"g{i}": per for i in range(args.groups)},
                                 rng, args.searches))
        loc = _locomo(c, args.locomo_turns) if args.locomo_turns else None
        if loc is not None:
            results.append(loc)
    m.close()

    print(f"{'scenario':<14} {'chars':>10} {'own max s':>10} {'own p50 s':>10} "
          f"{'other max s':>12} {'backlog s':>10} {'pending':>8}")
    for r in results:
        if r["scenario"] == "locomo-fresh":
            print(f"{'locomo-fresh':<14} {r['turns']:>8} t {r['first_search_s']:>10.2f} "
                  f"{r['second_search_s']:>10.2f} {'':>12} {r['backlog_embed_s']:>10.1f} "
                  f"{r['pending_at_first']:>8}")
            continue
        print(f"{r['scenario']:<14} {r['chars']:>10,} {max(r['own_search_s']):>10.2f} "
              f"{statistics.median(r['own_search_s']):>10.2f} {max(r['other_search_s']):>12.2f} "
              f"{r['backlog_embed_s']:>10.1f} {max(r['pending_seen']):>8}")
    print("backlog s: the background indexer's time to embed it all = what one search did "
          "inside its request before (the baseline)")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "request_bound.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
