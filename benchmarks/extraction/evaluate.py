"""Evaluate the offline extractor on the hand-labelled utterances.

    python -m benchmarks.extraction.evaluate [--split dev|test|all] [--errors] [--out DIR]

Prints triple precision / recall / F1 (a triple matches on normalised subject, predicate,
object and kind; symmetric predicates match in either direction), the same per category, the
accuracy of resolved dates on matched triples that have an expected date (correct = same
precision and same value at that precision), and the extraction throughput. Writes a JSON report
to ``benchmarks/out/extraction/<split>.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from kgmem.timeutil import Precision, parse_instant
from kgmem.vocabulary import DEFAULT_PREDICATES

HERE = Path(__file__).resolve().parent
DATA = HERE / "utterances.jsonl"
OUT_DIR = HERE.parent / "out" / "extraction"
SYMMETRIC = {p.name for p in DEFAULT_PREDICATES if p.symmetric}
_DET = re.compile(r"^(?:(?:the|a|an|my|our|your|his|her|their)\s+)+")


def norm_text(value: str) -> str:
    s = (value or "").lower().replace("’", "'")
    s = re.sub(r"[\"“”.,!?;:()]", " ", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = _DET.sub("", s)
    return s


def triple_key(subject: str, predicate: str, obj: str, kind: str) -> tuple[str, str, str, str]:
    s, o = norm_text(subject), norm_text(obj)
    p = predicate.upper()
    if p == "HAS_PET" and len(o) > 3 and o.endswith("s") and not o.endswith("ss"):
        o = o[:-1]  # an unnamed pet is stored in the singular ("three cats" -> "cat")
    if p in SYMMETRIC and o != "*" and o < s:
        s, o = o, s
    return (s, p, o, kind)


def load(split: str) -> list[dict]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    return rows if split == "all" else [r for r in rows if r["split"] == split]


def _floor(value: datetime, precision: Precision) -> tuple:
    if precision is Precision.YEAR:
        return (value.year,)
    if precision is Precision.MONTH:
        return (value.year, value.month)
    return (value.year, value.month, value.day)


def _date_check(exp: dict, got: Any) -> tuple[int, int, int]:
    """(checked, correct, value_correct) for the expected date of one matched triple."""
    if exp["kind"] == "end":
        e_at, e_p = exp.get("invalid_at"), exp.get("invalid_precision")
        g_at, g_p = got.invalid_at, got.invalid_precision
    else:
        e_at, e_p = exp.get("valid_at"), exp.get("precision")
        g_at, g_p = got.valid_at, got.valid_precision
    if not e_at:
        return 0, 0, 0
    if g_at is None:
        return 1, 0, 0
    ep = Precision(e_p)
    value_ok = _floor(parse_instant(e_at), ep) == _floor(g_at, ep)
    prec_ok = g_p is not None and Precision(g_p) is ep
    return 1, int(value_ok and prec_ok), int(value_ok)


def evaluate(split: str = "dev", extractor: Any = None, show_errors: bool = False) -> dict:
    from kgmem.ingest.offline import OfflineExtractor

    rows = load(split)
    ex = extractor or OfflineExtractor()
    _ = ex.nlp  # load the model before timing
    ex.extract_many([{"text": "warm up", "reference_time": "2023-01-01"}])
    t0, c0 = time.perf_counter(), time.process_time()
    preds = ex.extract_many(
        [{"text": r["text"], "reference_time": r["reference_time"], "speaker": r["speaker"]}
         for r in rows]
    )
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0

    tp = fp = fn = 0
    per_cat: dict[str, Counter] = defaultdict(Counter)
    date_checked = date_ok = date_value_ok = spurious_dates = 0
    errors = []
    none_rows = none_clean = 0
    none_outputs: list[list[str]] = []  # what a no-fact row gave: [text, predicate]
    for row, got in zip(rows, preds):
        cat = row["category"]
        exp_keys = [triple_key(e["subject"], e["predicate"], e["object"], e["kind"])
                    for e in row["expected"]]
        got_keys = [triple_key(g.subject, g.predicate, g.object, g.kind) for g in got]
        remaining = list(range(len(got)))
        matched = []
        missed = []
        for ei, k in enumerate(exp_keys):
            hit = next((gi for gi in remaining if got_keys[gi] == k), None)
            if hit is None:
                missed.append(ei)
            else:
                remaining.remove(hit)
                matched.append((ei, hit))
        c = per_cat[cat]
        c["tp"] += len(matched)
        c["fn"] += len(missed)
        c["fp"] += len(remaining)
        tp += len(matched)
        fn += len(missed)
        fp += len(remaining)
        bad_dates = []
        for ei, gi in matched:
            e, g = row["expected"][ei], got[gi]
            chk, ok, vok = _date_check(e, g)
            date_checked += chk
            date_ok += ok
            date_value_ok += vok
            c["date_checked"] += chk
            c["date_ok"] += ok
            if chk and not ok:
                bad_dates.append({"expected": e, "got": g.to_dict()})
            e_date = e.get("invalid_at") if e["kind"] == "end" else e.get("valid_at")
            g_date = g.invalid_at if e["kind"] == "end" else g.valid_at
            if not e_date and g_date is not None:
                spurious_dates += 1
        if cat == "none":
            none_rows += 1
            none_clean += int(not got)
            none_outputs += [[row["text"], g.predicate] for g in got]
        if missed or remaining or bad_dates:
            errors.append({
                "id": row["id"], "category": cat, "text": row["text"],
                "missed": [row["expected"][i] for i in missed],
                "spurious": [got[i].to_dict() for i in remaining],
                "bad_dates": bad_dates,
            })

    def prf(t: int, p_: int, n: int) -> dict:
        prec = t / (t + p_) if t + p_ else 1.0
        rec = t / (t + n) if t + n else 1.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        return {"precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
                "tp": t, "fp": p_, "fn": n}

    report = {
        "split": split,
        "utterances": len(rows),
        "overall": prf(tp, fp, fn),
        "per_category": {k: {**prf(v["tp"], v["fp"], v["fn"]),
                             "date_checked": v["date_checked"], "date_ok": v["date_ok"]}
                         for k, v in sorted(per_cat.items())},
        "dates": {
            "checked": date_checked,
            "accuracy": round(date_ok / date_checked, 4) if date_checked else None,
            "value_accuracy": round(date_value_ok / date_checked, 4) if date_checked else None,
            "spurious_dates_on_matched": spurious_dates,
        },
        "no_fact_utterances": {"total": none_rows, "with_no_output": none_clean,
                               "outputs": none_outputs},
        "throughput_utterances_per_s": round(len(rows) / elapsed, 1) if elapsed else None,
        # wall-clock numbers swing with other load on a shared machine; CPU time does not
        "throughput_utterances_per_cpu_s": round(len(rows) / cpu, 1) if cpu else None,
        "errors": errors,
    }
    if show_errors:
        for e in errors:
            print(f"- [{e['id']}|{e['category']}] {e['text']}")
            for m in e["missed"]:
                d = m.get("valid_at") or m.get("invalid_at")
                print(f"    MISSED   {m['subject']} {m['predicate']} {m['object']} "
                      f"({m['kind']}) {d or ''}")
            for s in e["spurious"]:
                d = s.get("valid_at") or s.get("invalid_at")
                print(f"    SPURIOUS {s['subject']} {s['predicate']} {s['object']} "
                      f"({s['kind']}) {d or ''} [{s['rule']}]")
            for b in e["bad_dates"]:
                ex_ = b["expected"]
                g = b["got"]
                print(f"    DATE     {ex_['predicate']} {ex_['object']}: expected "
                      f"{ex_.get('valid_at') or ex_.get('invalid_at')} "
                      f"{ex_.get('precision') or ex_.get('invalid_precision')}, got "
                      f"{g.get('valid_at') or g.get('invalid_at')} "
                      f"{g.get('valid_precision') or g.get('invalid_precision')}")
    return report


def print_report(rep: dict) -> None:
    o = rep["overall"]
    print(f"split={rep['split']} utterances={rep['utterances']}")
    print(f"triples  P={o['precision']:.3f} R={o['recall']:.3f} F1={o['f1']:.3f} "
          f"(tp={o['tp']} fp={o['fp']} fn={o['fn']})")
    d = rep["dates"]
    if d["checked"]:
        print(f"dates    accuracy={d['accuracy']:.3f} value-only={d['value_accuracy']:.3f} "
              f"on {d['checked']} matched dated triples; spurious dates={d['spurious_dates_on_matched']}")
    n = rep["no_fact_utterances"]
    print(f"no-fact  {n['with_no_output']}/{n['total']} utterances produced nothing")
    print(f"speed    {rep['throughput_utterances_per_s']} utterances/s wall, "
          f"{rep['throughput_utterances_per_cpu_s']} utterances/cpu-s (extract_many)")
    print(f"{'category':15} {'P':>6} {'R':>6} {'F1':>6} {'tp':>4} {'fp':>4} {'fn':>4} {'dates':>7}")
    for k, v in rep["per_category"].items():
        dates = f"{v['date_ok']}/{v['date_checked']}" if v["date_checked"] else ""
        print(f"{k:15} {v['precision']:6.3f} {v['recall']:6.3f} {v['f1']:6.3f} {v['tp']:4d} "
              f"{v['fp']:4d} {v['fn']:4d} {dates:>7}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    ap.add_argument("--errors", action="store_true", help="print every error")
    ap.add_argument("--out", default=str(OUT_DIR))
    ap.add_argument("--no-gazetteer", action="store_true",
                    help="disable the company/software name lists (NER corrections)")
    args = ap.parse_args(argv)
    if args.no_gazetteer:
        from kgmem.ingest.offline import set_gazetteer

        set_gazetteer(False)
    rep = evaluate(args.split, show_errors=args.errors)
    rep["gazetteer"] = not args.no_gazetteer
    print_report(rep)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.split}{'-nogaz' if args.no_gazetteer else ''}.json"
    path.write_text(json.dumps(rep, indent=2, default=str), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
