"""Accuracy of the discourse layer's components on their own labelled sets
(``discourse_labels.py``): clause times and coreference links.

    python -m benchmarks.extraction.discourse [--show] [--out DIR]

* **clause time**: the time the offline rules' context gives the labelled clause (its own
  time expression, else the one it borrows: ``kgmem.ingest.discourse.time``); right when the
  relation agrees and the start (and for ``range``/``until`` the end) falls in the labelled
  period, or when both say "no time".
* **coreference**: what ``kgmem.ingest.discourse.coref`` resolves the labelled mention to;
  right when it is the labelled name (case-insensitive), or when both say "nobody". Also
  reported: precision of the links it made (right / resolved) and how often it abstained.

Writes ``report.json`` and the per-item rows under ``benchmarks/out/extraction/discourse/``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.extraction.discourse_labels import CLAUSE_TIMES, COREFERENCE
from benchmarks.extraction.documents import period

UTC = timezone.utc
OUT = Path(__file__).resolve().parents[1] / "out" / "extraction" / "discourse"


def _nth(doc: Any, word: str, nth: int) -> Any | None:
    words = word.split()
    seen = 0
    for t in doc:
        if [x.text for x in doc[t.i:t.i + len(words)]] == words:
            if seen == nth:
                return doc[t.i + len(words) - 1]
            seen += 1
    return None


def clause_times(nlp: Any) -> list[dict[str, Any]]:
    from kgmem.ingest.offline.context import Context

    rows = []
    for item in CLAUSE_TIMES:
        ref = datetime.fromisoformat(item.reference_time).replace(tzinfo=UTC)
        doc = nlp(item.text)
        ctx = Context(doc, ref, "user", False, None, None,
                      narrative=item.genre == "document")
        verb = _nth(doc, item.verb, item.nth)
        hit = ctx.time_for(verb, ctx.flags(verb)) if verb is not None else None
        got = None if hit is None else (hit[0].relation, hit[0].start.date().isoformat(),
                                        hit[0].end.date().isoformat() if hit[0].end else None)
        rows.append({"text": item.text, "verb": item.verb, "expected": item.expected,
                     "got": got, "right": _time_right(item.expected, hit)})
    return rows


def _time_right(expected: tuple[str, str | None, str | None] | None, hit: Any) -> bool:
    if expected is None or hit is None:
        return expected is None and hit is None
    rel, start, end = expected
    rt = hit[0]
    if rt.relation != rel:
        return False
    if rel == "until":
        a, b = period(end or "")
        return a <= rt.start <= b
    if start is not None:
        a, b = period(start)
        if not a <= rt.start < b:
            return False
    if rel == "range" and end is not None:
        a, b = period(end)
        return rt.end is not None and a <= rt.end <= b
    return True


def coreference(nlp: Any) -> list[dict[str, Any]]:
    from kgmem.ingest.discourse import Coreference

    rows = []
    for item in COREFERENCE:
        doc = nlp(item.text)
        co = Coreference(doc, narrative=item.speaker is None)
        tok = _nth(doc, item.mention, item.nth)
        got = None
        if tok is not None:
            if co.decided(tok.i):
                got = co.name_at(tok.i)
            else:
                ref = co.referent_of_name(tok.i)
                got = ref.name if ref is not None and ref.name != item.mention else None
        right = (got or "").lower() == (item.expected or "").lower()
        rows.append({"text": item.text, "mention": item.mention, "expected": item.expected,
                     "got": got, "right": right})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--show", action="store_true", help="print the wrong items")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from kgmem.ingest.nlp import get_nlp

    nlp = get_nlp()
    times = clause_times(nlp)
    links = coreference(nlp)
    made = [r for r in links if r["got"] is not None]
    report = {
        "clause_time": {"n": len(times), "right": sum(r["right"] for r in times)},
        "coreference": {"n": len(links), "right": sum(r["right"] for r in links),
                        "resolved": len(made),
                        "resolved_right": sum(r["right"] for r in made),
                        "abstained": len(links) - len(made)},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    for name, rows in (("clause_times", times), ("coreference", links)):
        with (args.out / f"{name}.jsonl").open("w") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    if args.show:
        for r in times + links:
            if not r["right"]:
                print("WRONG", json.dumps(r, ensure_ascii=False))
    ct, co = report["clause_time"], report["coreference"]
    print(f"clause time: {ct['right']}/{ct['n']} right")
    print(f"coreference: {co['right']}/{co['n']} right; {co['resolved']} resolved, "
          f"{co['resolved_right']} of them right; {co['abstained']} abstained")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
