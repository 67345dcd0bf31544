"""Replay generated scenarios into kgmem and score exact answers.

    python -m benchmarks.scenarios.run --seed 1 --scenarios 50 --mode both \\
        --out benchmarks/out/scenarios

Per scenario and mode, a fresh embedded :class:`~kgmem.memory.facade.Memory` (temporary directory)
with an injected clock:

* ``structured``: every told statement becomes ``assert_fact`` / ``invalidate`` / ``retract``
  / ``correct`` with explicit valid times, applied with the clock at the statement's time;
* ``text``: every episode goes through ``add_episode`` (offline extractor,
  ``kgmem.ingest.pipeline.make_extractor``) with the clock at its reference time.

Transaction time is therefore "when it was said" in both modes. Questions are asked with
their ``(valid_at, known_at)``: ``facts(subject, predicate, valid_at, known_at)`` for
``now``/``as_of``/``as_known``; for ``connection``, ``paths(a, b, max_hops=2,
mode="sequenced", known_at)`` keeping the 2-hop paths ``a -P-> X <-P- b`` whose common
interval overlaps the year. Metric: **exact match** of the returned object set with the gold
set (names compared after SQuAD normalisation: case, punctuation, articles), per kind x mode.

Outputs in ``--out``: ``questions.jsonl`` (one line per question and mode), ``statements.jsonl``
(text mode: what the extractor produced for each told statement and the check result),
``summary.json``, ``report.md`` and ``accuracy.png``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.metrics import aggregate, latency_summary, normalize_answer
from benchmarks.outputs import write_json, write_jsonl

from . import diagnose
from .generator import generate_scenarios
from .model import KINDS, UTC, Question, Scenario, parse_time

MODES = ("structured", "text")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "out" / "scenarios"


class Clock:
    """Injected transaction clock: the replay sets it to each statement's time."""

    def __init__(self, t: datetime) -> None:
        self.t = t

    def __call__(self) -> datetime:
        return self.t


class _Recorder:
    """Wraps the extractor of a pipeline and keeps its last output (for diagnosis)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.last: list[list[Any]] = []

    def extract_many(self, items: Any) -> list[list[Any]]:
        self.last = self.inner.extract_many(items)
        return self.last


# ----------------------------------------------------------------------------- replay
def replay_structured(m: Any, clock: Clock, sc: Scenario) -> list[str]:
    """Apply every statement as a structured operation; returns error messages (if any)."""
    from kgmem.errors import KgmemError

    fact_of: dict[str, str] = {}
    errors = []
    for s in sc.statements:
        clock.t = parse_time(s.t)
        try:
            if s.op == "assert":
                v = m.assert_fact(
                    s.subject,
                    s.predicate,
                    s.object,
                    valid_at=s.valid_at,
                    invalid_at=s.invalid_at,
                    reason=f"scenario {s.id}",
                )
                fact_of[s.id] = v.fact_id
            elif s.op == "invalidate":
                m.invalidate(fact_of[s.target or ""], s.invalid_at, reason=f"scenario {s.id}")
            elif s.op == "retract":
                m.retract(fact_of[s.target or ""], reason=f"scenario {s.id}")
            elif s.op == "correct":
                m.correct(
                    fact_of[s.target or ""],
                    object=s.new_object,
                    valid_at=s.new_valid_at,
                    reason=f"scenario {s.id}",
                )
        except (KgmemError, KeyError) as exc:
            errors.append(f"{sc.id} {s.id} {s.op}: {type(exc).__name__}: {exc}")
    return errors


def replay_text(
    m: Any, clock: Clock, sc: Scenario, recorder: _Recorder | None
) -> tuple[list[str], dict[str, list[Any]]]:
    """Add every episode (extraction included); returns errors and facts per episode."""
    from kgmem.errors import KgmemError

    errors, extracted = [], {}
    for e in sc.episodes:
        clock.t = parse_time(e.reference_time)
        try:
            m.add_episode(e.content, reference_time=e.reference_time, speaker=e.speaker)
        except KgmemError as exc:
            errors.append(f"{sc.id} {e.id}: {type(exc).__name__}: {exc}")
        if recorder is not None:
            extracted[e.id] = list(recorder.last[0]) if recorder.last else []
            recorder.last = []
    return errors, extracted


# ----------------------------------------------------------------------------- answers
def _overlaps(lo: datetime | None, hi: datetime | None, a: datetime, b: datetime) -> bool:
    return (lo is None or lo < b) and (hi is None or a < hi)


def answer(m: Any, q: Question) -> list[str]:
    from kgmem.errors import KgmemError

    if q.kind == "connection":
        assert q.other is not None and q.year is not None
        y0 = datetime(q.year, 1, 1, tzinfo=UTC)
        y1 = datetime(q.year + 1, 1, 1, tzinfo=UTC)
        try:
            paths = m.paths(
                q.subject, q.other, max_hops=2, mode="sequenced", known_at=q.known_at, limit=500
            )
        except KgmemError:
            return []
        found = set()
        for p in paths:
            if len(p.hops) != 2 or not p.hops[0].forward or p.hops[1].forward:
                continue
            if any(h.fact.predicate != q.predicate for h in p.hops):
                continue
            if _overlaps(p.valid_from, p.valid_to, y0, y1):
                found.add(p.entities[1])
        return sorted(found)
    try:
        facts = m.facts(
            subject=q.subject, predicate=q.predicate, valid_at=q.valid_at, known_at=q.known_at
        )
    except KgmemError:
        return []
    return sorted({f.object for f in facts})


def same_set(pred: Sequence[str], gold: Sequence[str]) -> bool:
    return {normalize_answer(x) for x in pred} == {normalize_answer(x) for x in gold}


# ----------------------------------------------------------------------------- run
def run_scenario(
    sc: Scenario,
    mode: str,
    make_memory: Callable[[Path, Clock], Any],
    workdir: Path,
    recorder: _Recorder | None = None,
) -> dict[str, Any]:
    """Replay one scenario in one mode into a fresh Memory and answer its questions."""
    path = workdir / f"{sc.id}-{mode}"
    if path.exists():
        shutil.rmtree(path)
    clock = Clock(parse_time(sc.episodes[0].reference_time) - timedelta(days=1))
    m = make_memory(path, clock)
    try:
        t0 = time.perf_counter()
        extracted: dict[str, list[Any]] = {}
        if mode == "structured":
            errors = replay_structured(m, clock, sc)
        else:
            errors, extracted = replay_text(m, clock, sc, recorder)
        ingest_s = time.perf_counter() - t0
        clock.t = parse_time(sc.final_time)
        records: list[dict[str, Any]] = []
        for q in sc.questions:
            t1 = time.perf_counter()
            got = answer(m, q)
            lat = time.perf_counter() - t1
            ok = same_set(got, q.gold)
            records.append(
                {
                    "scenario": sc.id,
                    "question_id": q.id,
                    "mode": mode,
                    "kind": q.kind,
                    "category": q.kind,
                    "text": q.text,
                    "subject": q.subject,
                    "predicate": q.predicate,
                    "other": q.other,
                    "year": q.year,
                    "valid_at": q.valid_at,
                    "known_at": q.known_at,
                    "gold": q.gold,
                    "predicted": got,
                    "correct": ok,
                    "metrics": {"exact_match": 1.0 if ok else 0.0},
                    "tags": q.tags,
                    "latency_s": lat,
                }
            )
    finally:
        m.close()
        shutil.rmtree(path, ignore_errors=True)
    out: dict[str, Any] = {
        "records": records,
        "errors": errors,
        "ingest_s": ingest_s,
        "units": len(sc.statements if mode == "structured" else sc.episodes),
    }
    if mode == "text":
        checks = diagnose.statement_checks(sc, extracted)
        by_id = {q.id: q for q in sc.questions}
        for r in records:
            if not r["correct"]:
                r["cause"] = diagnose.question_cause(
                    sc, by_id[r["question_id"]], checks, extracted, list(r["predicted"])
                )
        out["checks"] = checks
        out["extracted"] = extracted
    return out


def _memory_factory(mode: str) -> tuple[Callable[[Path, Clock], Any], _Recorder | None]:
    from kgmem.memory.facade import Memory

    if mode == "structured":
        return (lambda p, c: Memory(p, clock=c, extractor=None)), None
    from kgmem.ingest.pipeline import make_extractor

    pipeline = make_extractor()
    assert pipeline is not None
    recorder = _Recorder(pipeline.extractor)
    pipeline.extractor = recorder
    return (lambda p, c: Memory(p, clock=c, extractor=pipeline)), recorder


def run(
    seed: int, n: int, modes: Sequence[str], workdir: Path | None = None, progress: bool = False
) -> dict[str, Any]:
    """Generate ``n`` scenarios of ``seed`` and run them in each mode (no files written)."""
    scenarios = generate_scenarios(seed, n)
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-scenarios-")) if workdir is None else workdir
    tmp.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, Any]] = []
    statements: list[dict[str, Any]] = []
    errors: list[str] = []
    timing: dict[str, dict[str, float]] = {}
    try:
        for mode in modes:
            factory, recorder = _memory_factory(mode)
            t0 = time.perf_counter()
            ingest, units = 0.0, 0
            for i, sc in enumerate(scenarios):
                res = run_scenario(sc, mode, factory, tmp, recorder)
                records += res["records"]
                errors += res["errors"]
                ingest += res["ingest_s"]
                units += res["units"]
                if mode == "text":
                    statements += _statement_rows(sc, res["checks"], res["extracted"])
                if progress:
                    acc = sum(r["correct"] for r in res["records"]) / max(1, len(res["records"]))
                    print(
                        f"[{mode}] {i + 1}/{len(scenarios)} {sc.id}: {acc:.0%}",
                        file=sys.stderr,
                        flush=True,
                    )
            timing[mode] = {
                "total_s": time.perf_counter() - t0,
                "ingest_s": ingest,
                "units": units,
                "units_per_s": units / ingest if ingest else 0.0,
            }
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "seed": seed,
        "n": n,
        "modes": list(modes),
        "scenarios": scenarios,
        "records": records,
        "statements": statements,
        "errors": errors,
        "timing": timing,
    }


def _statement_rows(
    sc: Scenario, checks: dict[str, str], extracted: dict[str, list[Any]]
) -> list[dict[str, Any]]:
    exps = diagnose.expected(sc.statements)
    by_id = {s.id: s for s in sc.statements}
    rows = []
    for ep in sc.episodes:
        facts = [f.to_dict() for f in extracted.get(ep.id, [])]
        if not ep.statements:
            rows.append(
                {
                    "scenario": sc.id,
                    "episode": ep.id,
                    "phrasing": "filler",
                    "event": "filler",
                    "text": ep.content,
                    "speaker": ep.speaker,
                    "reference_time": ep.reference_time,
                    "expected": [],
                    "extracted": facts,
                    "check": "ok" if not facts else "spurious",
                }
            )
            continue
        for sid in ep.statements:
            s = by_id[sid]
            rows.append(
                {
                    "scenario": sc.id,
                    "episode": ep.id,
                    "statement": sid,
                    "op": s.op,
                    "event": _event(s),
                    "phrasing": ep.phrasing,
                    "text": ep.content,
                    "speaker": ep.speaker,
                    "reference_time": ep.reference_time,
                    "tags": s.tags,
                    "expected": [e.__dict__ for e in exps[sid]],
                    "extracted": facts,
                    "check": checks.get(sid, "ok"),
                }
            )
    return rows


def _event(s: Any) -> str:
    if s.op == "assert":
        return "range" if s.invalid_at else "start"
    if s.op == "correct":
        return "correct_object" if s.new_object else "correct_date"
    return {"invalidate": "end", "retract": "retract"}[s.op]


# ----------------------------------------------------------------------------- summary
def summarize(result: dict[str, Any]) -> dict[str, Any]:
    recs = result["records"]
    by_mode: dict[str, Any] = {}
    for mode in result["modes"]:
        rs = [r for r in recs if r["mode"] == mode]
        agg = aggregate(rs, category_order=KINDS)
        tags: dict[str, list[float]] = defaultdict(list)
        for r in rs:
            for t in r["tags"]:
                tags[t].append(r["metrics"]["exact_match"])
        entry = {
            "n": agg["n"],
            "exact_match": agg["overall"].get("exact_match", {}).get("mean"),
            "by_kind": {
                k: {"n": agg["category_counts"][k], "exact_match": v["exact_match"]["mean"]}
                for k, v in agg["by_category"].items()
            },
            "by_question_tag": {
                t: {"n": len(v), "exact_match": sum(v) / len(v)} for t, v in sorted(tags.items())
            },
            "gold_empty": _acc([r for r in rs if not r["gold"]]),
            "gold_nonempty": _acc([r for r in rs if r["gold"]]),
            "query_latency_s": latency_summary([r["latency_s"] for r in rs]),
            "timing": result["timing"].get(mode, {}),
        }
        if mode == "text":
            causes = Counter(r.get("cause", "other") for r in rs if not r["correct"])
            entry["failure_causes"] = dict(causes.most_common())
            entry["failure_causes_by_kind"] = {
                k: dict(
                    Counter(
                        r.get("cause") for r in rs if not r["correct"] and r["kind"] == k
                    ).most_common()
                )
                for k in KINDS
            }
        by_mode[mode] = entry
    out: dict[str, Any] = {
        "suite": "scenarios",
        "seed": result["seed"],
        "scenarios": result["n"],
        "metric": "exact match of the returned object set vs the gold set (SQuAD-normalised "
        "names), per question",
        "questions_per_mode": len(
            result["scenarios"] and [q for s in result["scenarios"] for q in s.questions]
        ),
        "statements": sum(len(s.statements) for s in result["scenarios"]),
        "episodes": sum(len(s.episodes) for s in result["scenarios"]),
        "statement_tags": dict(
            Counter(
                t for s in result["scenarios"] for st in s.statements for t in st.tags
            ).most_common()
        ),
        "by_mode": by_mode,
        "replay_errors": result["errors"],
    }
    if result["statements"]:
        out["text_extraction"] = _extraction_summary(result["statements"])
    return out


def _acc(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"n": len(rs), "exact_match": (sum(r["correct"] for r in rs) / len(rs)) if rs else None}


def _extraction_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    by_event: dict[str, Counter] = defaultdict(Counter)
    by_pred: dict[str, Counter] = defaultdict(Counter)
    by_phrasing: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        by_event[r["event"]][r["check"]] += 1
        if r["event"] != "filler":
            by_pred[r["expected"][0]["predicate"]][r["check"]] += 1
        by_phrasing[r["phrasing"]][r["check"]] += 1

    def fold(d: dict[str, Counter]) -> dict[str, Any]:
        return {
            k: {
                "n": sum(c.values()),
                "ok_rate": c["ok"] / sum(c.values()),
                "checks": dict(c.most_common()),
            }
            for k, c in sorted(d.items())
        }

    return {
        "by_event": fold(by_event),
        "by_predicate": fold(by_pred),
        "by_phrasing": fold(by_phrasing),
    }


def format_table(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    modes = list(summary["by_mode"])
    headers = ["kind"] + [h for m in modes for h in (f"{m} n", f"{m} EM")]
    rows = []
    for k in (*KINDS, "overall"):
        row = [k]
        for m in modes:
            e = summary["by_mode"][m]
            if k == "overall":
                row += [str(e["n"]), _pct(e["exact_match"])]
            else:
                kk = e["by_kind"].get(k, {})
                row += [str(kk.get("n", 0)), _pct(kk.get("exact_match"))]
        rows.append(row)
    return headers, rows


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _plain_table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join([line, "-" * len(line), *body])


# ----------------------------------------------------------------------------- outputs
def write_outputs(
    result: dict[str, Any], summary: dict[str, Any], out: Path, n_samples: int = 25
) -> dict[str, Path]:
    from benchmarks.report import markdown_table, plot_category_bars, write_markdown_report

    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "questions": out / "questions.jsonl",
        "summary": out / "summary.json",
        "report": out / "report.md",
        "plot": out / "accuracy.png",
    }
    write_jsonl(paths["questions"], result["records"])
    if result["statements"]:
        paths["statements"] = write_jsonl(out / "statements.jsonl", result["statements"])
    write_json(paths["summary"], summary)
    plot_category_bars(
        [
            {
                "system": m,
                "by_category": {
                    k: {"exact_match": {"mean": v["exact_match"], "n": v["n"]}}
                    for k, v in e["by_kind"].items()
                },
            }
            for m, e in summary["by_mode"].items()
        ],
        paths["plot"],
        metric="exact_match",
        title=f"scenarios: exact match per question kind (seed {summary['seed']}, "
        f"{summary['scenarios']} scenarios)",
    )
    headers, rows = format_table(summary)
    sections = [
        ("What is measured", _what_text(summary)),
        ("Exact match per question kind", markdown_table(headers, rows)),
    ]
    for m, e in summary["by_mode"].items():
        tag_rows = [[t, v["n"], _pct(v["exact_match"])] for t, v in e["by_question_tag"].items()]
        tag_rows += [
            ["(gold empty)", e["gold_empty"]["n"], _pct(e["gold_empty"]["exact_match"])],
            ["(gold non-empty)", e["gold_nonempty"]["n"], _pct(e["gold_nonempty"]["exact_match"])],
        ]
        t = e.get("timing", {})
        body = markdown_table(["question tag", "n", "EM"], tag_rows)
        body += (
            f"\n\nIngestion: {t.get('units', 0)} {'statements' if m == 'structured' else 'episodes'}"
            f" in {t.get('ingest_s', 0):.1f} s ({t.get('units_per_s', 0):.0f}/s); query "
            f"p50 {1000 * e['query_latency_s']['p50']:.2f} ms, p95 "
            f"{1000 * e['query_latency_s']['p95']:.2f} ms."
        )
        sections.append((f"{m}: by question tag", body))
    if summary["replay_errors"]:
        sections.append(
            ("Replay errors", "\n".join(f"- `{x}`" for x in summary["replay_errors"][:50]))
        )
    if "text" in summary["by_mode"]:
        sections += _text_sections(result, summary, n_samples)
    write_markdown_report(
        paths["report"],
        "kgmem scenarios suite",
        sections,
        images=[("exact match per kind", paths["plot"])],
    )
    return paths


def _what_text(summary: dict[str, Any]) -> str:
    tags = ", ".join(f"{k} {v}" for k, v in summary["statement_tags"].items())
    return (
        f"{summary['scenarios']} generated scenarios (seed {summary['seed']}): "
        f"{summary['statements']} told statements rendered as {summary['episodes']} chat "
        f"episodes (statement tags: {tags}); {summary['questions_per_mode']} questions per "
        "mode with gold answers computed from the generator's model of what had been told "
        "(not from kgmem).\n\n"
        f"Metric: {summary['metric']}. Kinds: `now` (valid = known = the end of the "
        "conversation), `as_of` (a past valid time, known now), `as_known` (a past valid time "
        'as known at a past transaction time), `connection` (2-hop `paths(mode="sequenced")`'
        " through a shared employer or city whose common interval overlaps a year)."
    )


def _text_sections(
    result: dict[str, Any], summary: dict[str, Any], n_samples: int
) -> list[tuple[str, str]]:
    from benchmarks.report import markdown_table

    e = summary["by_mode"]["text"]
    ex = summary.get("text_extraction", {})
    sections = []
    causes = e.get("failure_causes", {})
    total = sum(causes.values()) or 1
    rows = [[c, n, f"{100 * n / total:.1f}%"] for c, n in causes.items()]
    body = markdown_table(["cause", "failed questions", "share"], rows)
    body += "\n\nPer kind: " + "; ".join(
        f"`{k}` " + ", ".join(f"{c} {n}" for c, n in v.items())
        for k, v in e.get("failure_causes_by_kind", {}).items()
        if v
    )
    body += (
        "\n\nCause = the first failing told statement about the question's subject and "
        "predicate (see `benchmarks/scenarios/diagnose.py`)."
    )
    sections.append(("text: failure causes (all failed questions)", body))
    ev_rows = []
    for ev, c in ex.get("by_event", {}).items():
        probs = ", ".join(f"{k} {v}" for k, v in c["checks"].items() if k != "ok")
        ev_rows.append([ev, c["n"], _pct(c["ok_rate"]), probs])
    sections.append(
        (
            "text: statement-level extraction (per told event)",
            markdown_table(["event", "n", "extracted exactly", "problems"], ev_rows),
        )
    )
    pr_rows = [
        [
            p,
            c["n"],
            _pct(c["ok_rate"]),
            ", ".join(f"{k} {v}" for k, v in c["checks"].items() if k != "ok"),
        ]
        for p, c in ex.get("by_predicate", {}).items()
    ]
    sections.append(
        (
            "text: statement-level extraction per predicate",
            markdown_table(["predicate", "n", "extracted exactly", "problems"], pr_rows),
        )
    )
    worst = sorted(
        (
            (c["ok_rate"], k, c["n"])
            for k, c in ex.get("by_phrasing", {}).items()
            if c["n"] >= 3 and k != "filler"
        )
    )[:15]
    sections.append(
        (
            "text: weakest phrasings (n >= 3)",
            markdown_table(
                ["phrasing", "n", "extracted exactly"], [[k, n, _pct(ok)] for ok, k, n in worst]
            ),
        )
    )
    # a reproducible sample of failing statements with what the extractor produced
    bad = [r for r in result["statements"] if r["check"] != "ok"]
    rng = random.Random(0)
    sample = rng.sample(bad, min(n_samples, len(bad)))
    lines = []
    for r in sorted(sample, key=lambda r: (r["check"], r["event"])):
        exp = (
            "; ".join(
                f"{x['kind']} {x['subject']} {x['predicate']} {x['object']} "
                f"{x.get('valid_at') or ''}{'..' + x['invalid_at'] if x.get('invalid_at') else ''}"
                for x in r["expected"]
            )
            or "(nothing)"
        )
        got = (
            "; ".join(
                f"{f['kind']} {f['subject']} {f['predicate']} {f['object']} "
                f"{(f['valid_at'] or '')[:10]}{'..' + f['invalid_at'][:10] if f.get('invalid_at') else ''}"
                for f in r["extracted"]
            )
            or "(nothing)"
        )
        lines.append(
            f"- **{r['check']}** ({r['event']}, `{r['phrasing']}`, said "
            f'{r["reference_time"][:10]} by {r["speaker"]}): "{r["text"]}"  \n'
            f"  expected: {exp}  \n  extracted: {got}"
        )
    sections.append(
        (
            f"text: sample of {len(sample)} failing statements (of {len(bad)})",
            "\n".join(lines) or "none",
        )
    )
    return sections


# ----------------------------------------------------------------------------- CLI
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenarios", type=int, default=50)
    ap.add_argument("--mode", choices=("structured", "text", "both"), default="both")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument(
        "--samples", type=int, default=25, help="failing text statements listed in the report"
    )
    ap.add_argument(
        "--dump-scenarios",
        action="store_true",
        help="also write scenarios.jsonl (statements, episodes, questions, gold)",
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    modes = MODES if args.mode == "both" else (args.mode,)
    result = run(args.seed, args.scenarios, modes, progress=not args.quiet)
    summary = summarize(result)
    paths = write_outputs(result, summary, args.out, args.samples)
    if args.dump_scenarios:
        with (args.out / "scenarios.jsonl").open("w", encoding="utf-8") as fh:
            for sc in result["scenarios"]:
                fh.write(sc.to_json() + "\n")
    headers, rows = format_table(summary)
    print(_plain_table(headers, rows))
    if "text" in summary["by_mode"]:
        print("\ntext failure causes:", summary["by_mode"]["text"].get("failure_causes"))
    if summary["replay_errors"]:
        print(
            f"\n{len(summary['replay_errors'])} replay errors, e.g. {summary['replay_errors'][0]}"
        )
    print(f"\nwrote {', '.join(str(p) for p in paths.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
