"""Score an extractor on the document dev set (``document_labels.py``, issue 31).

    python -m benchmarks.extraction.documents [--round dev|NAME|all] [--show] [--out DIR]
        [--record ROUND [--look first|after]]

Each document goes through the offline extractor as one ``source="text"`` episode told at its
``reference_time`` (no speaker unless the label gives one). An ``end`` fact closes the
matching asserted fact of the same document at its date (as the pipeline applies it); a fact
without a start starts at the reference time (as stored); of a functional predicate's values
(``WORKS_AT``, ``HAS_ROLE``, ...) a later start ends the earlier value, as the store does.

* a label is **found** when an extracted fact has its subject (the label's name or a part of
  it: "Lindqvist" for Sara Lindqvist), one of its predicates and its object (lower case,
  articles and punctuation ignored; a multi-word name also when one contains the other);
  it is **right** when in addition the stored start falls in the label's start period and the
  stored end in its end period (a period left ``None`` is not checked);
* **precision**: extracted facts (subject, predicate, object) that are right for some label,
  required or optional, over all extracted facts; ``loose`` also counts found ones with a
  wrong date.

``--record ROUND`` appends the totals to the round log (``rounds.py``; genre ``documents``;
found = required facts right with their dates, precision = right facts over extracted); a
round's first look can be recorded once.

Writes ``facts.jsonl`` (each extracted fact and its verdict), ``labels.jsonl`` and
``report.json`` under ``benchmarks/out/extraction/documents/<round>/``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks.extraction.document_labels import DOCS, Doc, Fact
from kgmem.vocabulary import DEFAULT_PREDICATES, Cardinality

UTC = timezone.utc
FUNCTIONAL = {s.name for s in DEFAULT_PREDICATES if s.cardinality == Cardinality.FUNCTIONAL}
OUT = Path(__file__).resolve().parents[1] / "out" / "extraction" / "documents"
_DROP = {"the", "a", "an", "his", "her", "its", "their", "my", "our"}


def norm(text: str) -> list[str]:
    words = re.sub(r"[^\w\s]", " ", text.lower().replace("'s", "")).split()
    return [w for w in words if w not in _DROP]


def same_name(label: str, got: str, *, part_ok: bool) -> bool:
    a, b = norm(label), norm(got)
    if not a or not b:
        return False
    if a == b:
        return True
    sa, sb = set(a), set(b)
    small = min(len(a), len(b))
    if part_ok:
        return sb <= sa or sa <= sb
    return small >= 2 and (sa <= sb or sb <= sa)


def period(value: str) -> tuple[datetime, datetime]:
    parts = [int(p) for p in value.split("-")]
    start = datetime(parts[0], parts[1] if len(parts) > 1 else 1,
                     parts[2] if len(parts) > 2 else 1, tzinfo=UTC)
    if len(parts) == 1:
        end = datetime(parts[0] + 1, 1, 1, tzinfo=UTC)
    elif len(parts) == 2:
        end = datetime(parts[0] + (parts[1] == 12), parts[1] % 12 + 1, 1, tzinfo=UTC)
    else:
        end = start + timedelta(days=1)
    return start, end


@dataclass
class Got:
    subject: str
    predicate: str
    object: str
    start: datetime
    end: datetime | None
    kind: str
    rule: str
    dated: bool


def _utc(d: datetime) -> datetime:
    return d if d.tzinfo else d.replace(tzinfo=UTC)


def extracted(doc: Doc, extractor: Any) -> list[Got]:
    """The facts of ``doc`` as the store would hold them (ends applied, starts defaulted)."""
    ref = datetime.fromisoformat(doc.reference_time).replace(tzinfo=UTC)
    facts = extractor.extract_many([(doc.text, ref, doc.speaker)])[0]
    out: list[Got] = []
    for f in facts:
        if f.kind != "assert":
            continue
        out.append(Got(f.subject, f.predicate, f.object,
                       _utc(f.valid_at) if f.valid_at else ref,
                       _utc(f.invalid_at) if f.invalid_at else None, f.kind, f.rule,
                       f.valid_at is not None))
    for f in facts:
        if f.kind != "end":
            continue
        hit = [g for g in out if g.subject == f.subject and g.predicate == f.predicate
               and (f.object == "*" or g.object.lower() == f.object.lower())]
        when = _utc(f.invalid_at) if f.invalid_at else ref
        for g in hit:
            g.end = when
        if not hit:
            out.append(Got(f.subject, f.predicate, f.object, when, when, "end", f.rule, True))
    # a functional predicate holds one value at a time: a later start closes the one before
    # (what the store does when it is written; "started at Equinor in 2019" ends Statoil)
    by_key: dict[tuple[str, str], list[Got]] = {}
    for g in out:
        if g.predicate in FUNCTIONAL:
            by_key.setdefault((g.subject.lower(), g.predicate), []).append(g)
    for group in by_key.values():
        group.sort(key=lambda g: g.start)
        for a, b in zip(group, group[1:]):
            if a.end is None and b.start > a.start:
                a.end = b.start
    return out


def matches(label: Fact, g: Got) -> bool:
    return (g.predicate in label.predicate
            and same_name(label.subject, g.subject, part_ok=True)
            and same_name(label.object, g.object, part_ok=False))


def dated_right(label: Fact, g: Got) -> bool:
    if label.start is not None:
        a, b = period(label.start)
        if not a <= g.start < b:
            return False
    if label.end is not None:
        a, b = period(label.end)
        if g.end is None or not a <= g.end <= b:
            return False
    return True


def score(docs: Sequence[Doc], extractor: Any) -> dict[str, Any]:
    label_rows: list[dict[str, Any]] = []
    fact_rows: list[dict[str, Any]] = []
    for doc in docs:
        got = extracted(doc, extractor)
        for lab in doc.facts:
            found = [g for g in got if matches(lab, g)]
            right = [g for g in found if dated_right(lab, g)]
            label_rows.append({"doc": doc.id, "genre": doc.genre, "required": lab.required,
                               "label": [lab.subject, list(lab.predicate), lab.object,
                                         lab.start, lab.end],
                               "found": bool(found), "right": bool(right),
                               "got": [_row(g) for g in found]})
        for g in got:
            labs = [lab for lab in doc.facts if matches(lab, g)]
            fact_rows.append({"doc": doc.id, **_row(g), "found": bool(labs),
                              "right": any(dated_right(lab, g) for lab in labs)})
    req = [r for r in label_rows if r["required"]]
    n = len(fact_rows)
    by_genre: dict[str, dict[str, int]] = {}
    for r in req:
        b = by_genre.setdefault(r["genre"], {"required": 0, "found": 0, "right": 0})
        b["required"] += 1
        b["found"] += r["found"]
        b["right"] += r["right"]
    return {
        "documents": len(docs),
        "required": len(req),
        "found": sum(r["found"] for r in req),
        "right": sum(r["right"] for r in req),
        "extracted": n,
        "precision": sum(r["right"] for r in fact_rows) / n if n else None,
        "precision_loose": sum(r["found"] for r in fact_rows) / n if n else None,
        "by_genre": by_genre,
        "labels": label_rows,
        "facts": fact_rows,
    }


def _row(g: Got) -> dict[str, Any]:
    return {"subject": g.subject, "predicate": g.predicate, "object": g.object,
            "start": g.start.date().isoformat() if g.dated else None,
            "end": g.end.date().isoformat() if g.end else None, "rule": g.rule}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--round", default="dev", help="dev, a fresh round's name, or all")
    ap.add_argument("--show", action="store_true", help="print misses and wrong facts")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--record", metavar="ROUND", help="append this look to the round log")
    ap.add_argument("--look", choices=("first", "after"), default="first")
    args = ap.parse_args(argv)
    from kgmem.ingest.offline import OfflineExtractor

    docs = [d for d in DOCS if args.round in ("all", d.round)]
    res = score(docs, OfflineExtractor())
    out = args.out / args.round
    out.mkdir(parents=True, exist_ok=True)
    for name in ("labels", "facts"):
        with (out / f"{name}.jsonl").open("w") as fh:
            for r in res[name]:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    summary = {k: v for k, v in res.items() if k not in ("labels", "facts")}
    (out / "report.json").write_text(json.dumps(summary, indent=1) + "\n")
    if args.show:
        for r in res["labels"]:
            if r["required"] and not r["right"]:
                print("MISS" if not r["found"] else "DATE", r["doc"], r["label"], r["got"])
        for r in res["facts"]:
            if not r["right"]:
                print("WRONG" if not r["found"] else "WDATE", r["doc"], r["subject"],
                      r["predicate"], r["object"], r["start"], r["end"], r["rule"])
    p = summary["precision"]
    pl = summary["precision_loose"]
    print(f"{args.round}: {summary['documents']} documents; required {summary['right']}/"
          f"{summary['required']} right ({summary['found']} found); extracted "
          f"{summary['extracted']}, precision {p if p is None else round(p, 3)} "
          f"(loose {pl if pl is None else round(pl, 3)})")
    for g, b in summary["by_genre"].items():
        print(f"  {g:14s} {b['right']}/{b['required']} right, {b['found']} found")
    if args.record:
        from .rounds import record

        right_facts = sum(1 for r in res["facts"] if r["right"])
        record(args.record, "documents", args.look, required=summary["required"],
               found=summary["right"], facts=summary["extracted"], right=right_facts,
               note=f"{summary['documents']} documents, --round {args.round}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
