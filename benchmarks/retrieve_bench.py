"""Quick retrieval measurements for kgmem.retrieve (no LLM), from a checkout.

    python -m benchmarks retrieve locomo --conv 0            # turn recall_any@10 + latency
    python -m benchmarks retrieve zyphra [--logs 26,28]      # time_qs: hits@10/min(10,|gold|)
    python -m benchmarks retrieve synthetic --facts 100000   # latency on a large store
    python -m benchmarks retrieve chat --sittings 10000      # search vs search_sessions

Metrics are named as in docs/BENCHMARKS.md. Episodes are ingested with extraction off
(``Memory(path, extractor=None)``); the asking time is the day after the last session
(LoCoMo) or the first message of the final session (Zyphra: its relative questions count
whole elapsed days back from that moment -- checked on logs 26, 28 and 31 -- and "earlier
today" excludes the final session).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

# the data folder: --data, else $KGMEM_BENCH_DATA, else the project machine's copy
DATA_DEFAULT = Path("/work/shared/benchmarks/data")


def data_dir(given: str | None = None) -> Path:
    import os

    return Path(given or os.environ.get("KGMEM_BENCH_DATA") or DATA_DEFAULT)
UTC = timezone.utc


def _embedder(kind: str) -> Any:
    if kind == "hashing":
        from kgmem.embed import HashingEmbedder

        return HashingEmbedder(384)
    from kgmem.embed import get_default_embedder

    return get_default_embedder()


def parse_locomo_time(s: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    s = s.strip()
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M:%S %p on %A %d %B, %Y"):
        try:
            return datetime.strptime(s, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unparsed LoCoMo time {s!r}")


def _sessions(conv: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    out = []
    for k, v in conv.items():
        m = re.fullmatch(r"session_(\d+)", k)
        if m and isinstance(v, list) and v:
            out.append((int(m.group(1)), parse_locomo_time(conv[f"{k}_date_time"]), v))
    return sorted(out, key=lambda x: x[0])


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def _memory(path: Path, embedder: Any, clock_start: datetime) -> Any:
    from kgmem.memory.facade import Memory

    t = [clock_start]

    def clock() -> datetime:
        t[0] += timedelta(microseconds=1)
        return t[0]

    m = Memory(path, extractor=None, clock=clock)
    m.embedder = embedder
    return m


def locomo(conv_index: int = 0, embedder: str = "minilm", limit: int = 10,
           out: str | None = None, data: str | None = None) -> dict[str, Any]:
    from kgmem.retrieve import index_pending, search

    samples = json.loads((data_dir(data) / "locomo" / "locomo10.json").read_text())
    sample = samples[conv_index]
    conv = sample["conversation"]
    emb = _embedder(embedder)
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-locomo-"))
    sessions = _sessions(conv)
    m = _memory(tmp, emb, datetime(2030, 1, 1, tzinfo=UTC))
    dia: dict[str, str] = {}
    t0 = time.perf_counter()
    n = 0
    for _no, when, turns in sessions:
        for i, turn in enumerate(turns):
            text = turn.get("text") or ""
            if not text.strip():
                continue
            ep = m.add_episode(text, when + timedelta(seconds=i), speaker=turn["speaker"],
                               source_description=turn["dia_id"])
            dia[ep.id] = turn["dia_id"]
            n += 1
    t_ingest = time.perf_counter() - t0
    t0 = time.perf_counter()
    index_pending(m)
    t_index = time.perf_counter() - t0
    asking = sessions[-1][1] + timedelta(days=1)
    lat: list[float] = []
    hits_by_cat: dict[int, list[int]] = {}
    rows = []
    for qa in sample["qa"]:
        gold = set()
        for e in qa.get("evidence") or []:
            for g in re.findall(r"D\d+:\d+", str(e)):
                gold.add(g)
        if not gold:
            continue
        t1 = time.perf_counter()
        res = search(m, qa["question"], limit=limit, kinds=("episodes",), reference_time=asking)
        lat.append(time.perf_counter() - t1)
        got = [dia.get(r.id) for r in res]
        hit = int(any(g in gold for g in got))
        hits_by_cat.setdefault(int(qa.get("category", 0)), []).append(hit)
        rows.append({"question": qa["question"], "category": qa.get("category"),
                     "gold": sorted(gold), "top": got, "hit": hit})
    allh = [h for v in hits_by_cat.values() for h in v]
    result = {
        "benchmark": f"locomo conv {conv_index} ({sample.get('sample_id')})",
        "embedder": emb.name,
        "episodes": n,
        "ingest_s": round(t_ingest, 2),
        "index_s": round(t_index, 2),
        "questions": len(allh),
        "metric": f"turn recall_any@{limit}",
        "recall_any": round(sum(allh) / len(allh), 4),
        "by_category": {c: round(sum(v) / len(v), 4) for c, v in sorted(hits_by_cat.items())},
        "latency_p50_ms": round(1000 * _pct(lat, 50), 1),
        "latency_p95_ms": round(1000 * _pct(lat, 95), 1),
    }
    if out:
        with open(out, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    m.close()
    return result


def zyphra(logs: list[int] | None = None, embedder: str = "hashing", limit: int = 10,
           sets: str = "time_qs", data: str | None = None) -> dict[str, Any]:
    from kgmem.retrieve import index_pending, search

    root = data_dir(data) / "zyphra_temporal_memory"
    files = sorted((root / "TestData" / sets).glob("*.json")) if sets == "time_qs" else [
        root / "TestData" / "content_time_qs" / "content_time_qs.json"
    ]
    qsets = {f.stem: json.loads(f.read_text()) for f in files}
    ids = logs or qsets[next(iter(qsets))]["file_indexes"]
    emb = _embedder(embedder)
    per_set: dict[str, list[float]] = {}
    lat: list[float] = []
    misses: list[dict[str, Any]] = []
    for log_id in ids:
        conv = json.loads((root / "ConversationData" / f"{log_id}.json").read_text())
        tmp = Path(tempfile.mkdtemp(prefix=f"kgmem-zyphra-{log_id}-"))
        m = _memory(tmp, emb, datetime(2030, 1, 1, tzinfo=UTC))
        num: dict[str, int] = {}
        last = None  # the asking time: when the final session started (see module doc)
        for _no, _when, turns in _sessions(conv):
            for i, turn in enumerate(turns):
                when = parse_locomo_time(turn["date_time"])
                ep = m.add_episode(turn.get("text") or "(no text)", when,
                                   speaker=turn["speaker"])
                num[ep.id] = int(turn["response_number"])
                if i == 0 and (last is None or when > last):
                    last = when
        index_pending(m)
        for name, qs in qsets.items():
            for item in qs.get(f"file_{log_id}", []):
                gold = set(item["relevant_docs"])
                for q in item["questions"]:
                    t1 = time.perf_counter()
                    res = search(m, q, limit=limit, kinds=("episodes",), reference_time=last)
                    lat.append(time.perf_counter() - t1)
                    got = [num[r.id] for r in res]
                    score = len(gold & set(got)) / min(limit, len(gold))
                    per_set.setdefault(name, []).append(score)
                    if score < 1 and len(misses) < 500:
                        misses.append({"log": log_id, "q": q, "score": round(score, 2),
                                       "window": res[0].time_window.model_dump(mode="json")
                                       if res and res[0].time_window else None})
        m.close()
    allv = [x for v in per_set.values() for x in v]
    return {
        "benchmark": f"zyphra {sets} logs {ids}",
        "metric": f"gold hits in top {limit} / min({limit}, |gold|)",
        "embedder": emb.name,
        "questions": len(allv),
        "score": round(sum(allv) / len(allv), 4),
        "by_set": {k: round(sum(v) / len(v), 4) for k, v in per_set.items()},
        "latency_p50_ms": round(1000 * _pct(lat, 50), 1),
        "latency_p95_ms": round(1000 * _pct(lat, 95), 1),
        "misses": misses,
    }


def synthetic(n_facts: int = 100_000, embedder: str = "hashing", queries: int = 200,
              path: str | None = None, seed: int = 7, reuse: bool = False) -> dict[str, Any]:
    """A large store built with bulk SQL (the search triggers fire as for normal writes),
    then indexed and queried. Latency excludes nothing: FTS, ANN, visibility checks.

    ``reuse``: ``path`` holds a store this function built earlier with the same ``n_facts``
    and ``seed``: only query it (the same queries: the generator is replayed)."""
    import sqlite3
    import uuid

    from kgmem.retrieve import index_pending, search
    from kgmem.timeutil import to_micros

    rng = random.Random(seed)
    emb = _embedder(embedder)
    base = Path(path) if path else Path(tempfile.mkdtemp(prefix="kgmem-synth-"))
    m = _memory(base, emb, datetime(2030, 1, 1, tzinfo=UTC))
    m.store.search_tables()  # install the search tables first
    first = ["Maya", "Sam", "Alex", "Jordan", "Priya", "Chen", "Lena", "Omar", "Ivan", "Sofia"]
    last_ = ["Smith", "Garcia", "Kim", "Nguyen", "Patel", "Rossi", "Novak", "Silva", "Khan"]
    cities = [f"City{i}" for i in range(300)]
    orgs = [f"Org{i}" for i in range(2000)]
    hobbies = ["chess", "hiking", "pottery", "surfing", "painting", "jazz", "cycling", "baking"]
    n_people = max(100, n_facts // 10)
    people = [f"{rng.choice(first)} {rng.choice(last_)} {i}" for i in range(n_people)]
    conn: sqlite3.Connection = m.store._conn
    now = datetime(2029, 1, 1, tzinfo=UTC)
    t_us = to_micros(now)
    ents: dict[str, str] = {}

    def eid(name: str) -> str:
        if name not in ents:
            ents[name] = str(uuid.uuid4())
            conn.execute(
                "INSERT INTO entities(id, group_id, name, norm_name, summary, created_at) "
                "VALUES(?,?,?,?,?,?)",
                (ents[name], "default", name, name.lower(), "", t_us),
            )
        return ents[name]

    preds = [("LIVES_IN", cities, "lives in"), ("WORKS_AT", orgs, "works at"),
             ("LIKES", hobbies, "likes")]
    if reuse:
        if not path or int(conn.execute("SELECT count(*) FROM versions").fetchone()[0]) != n_facts:
            raise SystemExit(f"--reuse: no store of {n_facts} facts at {path}")
        for i in range(n_facts):  # replay the generator: the same queries as when built
            rng.choice(preds[i % 3][1])
            rng.randrange(28)
            rng.randrange(12)
        ents.update(conn.execute("SELECT name, id FROM entities").fetchall())
    t0 = time.perf_counter()
    conn.execute("BEGIN")
    for i in range(0 if reuse else n_facts):
        p = people[i % n_people]
        pred, objs, verb = preds[i % 3]
        o = rng.choice(objs)
        fid = str(uuid.uuid4())
        start = to_micros(datetime(2000 + rng.randrange(28), 1 + rng.randrange(12), 1,
                                   tzinfo=UTC))
        conn.execute(
            "INSERT INTO versions(id, fact_id, group_id, subject_id, predicate, object_id, "
            "fact_text, valid_at, valid_precision, invalid_at, invalid_precision, "
            "stated_invalid_at, created_at, expired_at, change_id, reason, caused_by) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (str(uuid.uuid4()), fid, "default", eid(p), pred, eid(o), f"{p} {verb} {o}", start,
             "month", None, "instant", None, t_us, None, "bulk", "bulk", None),
        )
        if i % 50_000 == 49_999:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    index_pending(m, batch_size=2048)
    t_index = time.perf_counter() - t0
    qs = []
    for _ in range(queries):
        p = rng.choice(people)
        qs.append(rng.choice([f"where does {p} live", f"who works at {rng.choice(orgs)}",
                              f"what does {p} like", f"{rng.choice(hobbies)} fans in "
                              f"{rng.choice(cities)}"]))
    t0 = time.perf_counter()
    search(m, qs[0])  # first query builds / loads the ANN indexes
    t_first = time.perf_counter() - t0
    lat = []
    for q in qs:
        t1 = time.perf_counter()
        search(m, q, limit=10)
        lat.append(time.perf_counter() - t1)
    from kgmem.retrieve import flush

    flush(m)
    m.close()
    return {
        "benchmark": f"synthetic {n_facts} facts, {len(ents)} entities",
        "embedder": emb.name,
        "load_s": round(t_load, 1),
        "index_s": round(t_index, 1),
        "first_query_s": round(t_first, 2),
        "queries": len(lat),
        "latency_p50_ms": round(1000 * statistics.median(lat), 1),
        "latency_p95_ms": round(1000 * _pct(lat, 95), 1),
        "path": str(base),
    }


CHAT_WORDS = ("hiking pottery camping painting guitar piano soccer cooking baking garden dog cat "
              "lake beach mountain museum concert book movie school work job trip city paris "
              "tokyo berlin").split()


def chat(sittings: int, embedder: str = "hashing", queries: int = 60, path: str | None = None,
         reuse: bool = False, per: int = 10) -> dict[str, Any]:
    """One group of ``sittings`` x ``per`` chat turns (a minute apart; sittings 2-48 h apart):
    latency of ``search(limit=100, kinds=episodes)`` and of ``search_sessions`` on the same
    queries, interleaved."""
    from kgmem.memory.facade import Memory
    from kgmem.retrieve import index_pending, search, search_sessions

    rng = random.Random(7)
    base = Path(path or tempfile.mkdtemp(prefix="kgmem-chat-"))
    m = Memory(base, extractor=None)
    m.embedder = _embedder(embedder)
    t = datetime(2015, 1, 1, tzinfo=UTC)
    t0 = time.perf_counter()
    batch: list[dict[str, Any]] = []
    if not reuse:
        for s in range(sittings):
            t += timedelta(hours=rng.randint(2, 48))
            for i in range(per):
                w = rng.sample(CHAT_WORDS, 3)
                batch.append({"content": f"I went {w[0]} near the {w[1]}, then we talked about "
                              f"{w[2]} ({s}-{i}).", "reference_time": t + timedelta(minutes=i),
                              "speaker": rng.choice(["Ana", "Ben", "Cara", "Dev"])})
            if len(batch) >= 5000 or s == sittings - 1:
                m.add_episodes(batch)
                batch = []
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    index_pending(m, batch_size=2048)
    t_index = time.perf_counter() - t0
    qs = [f"when did we talk about {a} and {b}?" for a, b in
          (rng.sample(CHAT_WORDS, 2) for _ in range(queries))]
    search(m, qs[0], limit=100, kinds=("episodes",))  # loads the ANN index
    plain, sess = [], []
    for q in qs:
        t1 = time.perf_counter()
        search(m, q, limit=100, kinds=("episodes",))
        t2 = time.perf_counter()
        search_sessions(m, q, limit=10)
        sess.append(time.perf_counter() - t2)
        plain.append(t2 - t1)
    m.close()
    return {
        "benchmark": f"chat: {sittings} sittings x {per} turns in one group",
        "embedder": embedder, "load_s": round(t_load, 1), "index_s": round(t_index, 1),
        "queries": len(qs),
        "search_p50_ms": round(1000 * statistics.median(plain), 1),
        "search_p95_ms": round(1000 * _pct(plain, 95), 1),
        "search_sessions_p50_ms": round(1000 * statistics.median(sess), 1),
        "search_sessions_p95_ms": round(1000 * _pct(sess, 95), 1),
        "path": str(base),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks retrieve")
    ap.add_argument("--data", help=f"benchmark data folder (default: $KGMEM_BENCH_DATA or "
                    f"{DATA_DEFAULT})")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("locomo")
    a.add_argument("--conv", type=int, default=0)
    a.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    a.add_argument("--out")
    b = sub.add_parser("zyphra")
    b.add_argument("--logs", default="")
    b.add_argument("--embedder", default="hashing", choices=["minilm", "hashing"])
    b.add_argument("--sets", default="time_qs", choices=["time_qs", "content_time_qs"])
    c = sub.add_parser("synthetic")
    c.add_argument("--facts", type=int, default=100_000)
    c.add_argument("--embedder", default="hashing", choices=["minilm", "hashing"])
    c.add_argument("--queries", type=int, default=200)
    c.add_argument("--path")
    c.add_argument("--reuse", action="store_true",
                   help="query the store already at --path (built by an earlier run)")
    d = sub.add_parser("chat")
    d.add_argument("--sittings", type=int, default=10_000)
    d.add_argument("--embedder", default="hashing", choices=["minilm", "hashing"])
    d.add_argument("--queries", type=int, default=60)
    d.add_argument("--path")
    d.add_argument("--reuse", action="store_true", help="query the store already at --path")
    args = ap.parse_args(argv)
    if args.cmd == "chat":
        res = chat(args.sittings, args.embedder, args.queries, args.path, reuse=args.reuse)
    elif args.cmd == "locomo":
        res = locomo(args.conv, args.embedder, out=args.out, data=args.data)
    elif args.cmd == "zyphra":
        logs = [int(x) for x in args.logs.split(",") if x.strip()] or None
        res = zyphra(logs, args.embedder, sets=args.sets, data=args.data)
    else:
        res = synthetic(args.facts, args.embedder, args.queries, args.path, reuse=args.reuse)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
