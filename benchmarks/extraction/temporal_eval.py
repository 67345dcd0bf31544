"""Hit rate of temporal-expression resolution on the hand-written cases.

    python -m benchmarks.extraction.temporal_eval [--show]

A hit = the expected start at the expected precision (and ``None`` when no time is expected).
For comparison it also scores ``dateparser`` alone and ``parsedatetime`` alone on the same
cases (their precision read from dateparser's ``period`` / parsedatetime's accuracy flags).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from kgmem.ingest.temporal import ResolvedTime, resolve_time
from kgmem.timeutil import Precision, parse_instant

from .temporal_cases import CASES, Case

OUT_DIR = Path(__file__).resolve().parent.parent / "out" / "extraction"


def expected_of(case: Case) -> tuple[datetime, Precision] | None:
    if case.expected is None:
        return None
    return parse_instant_precision(case.expected)


def parse_instant_precision(text: str) -> tuple[datetime, Precision]:
    parts = text.split("-")
    if "T" in text:
        return parse_instant(text + "Z"), Precision.INSTANT
    if len(parts) == 1:
        return parse_instant(text), Precision.YEAR
    if len(parts) == 2:
        return parse_instant(text), Precision.MONTH
    return parse_instant(text), Precision.DAY


def _key(value: datetime, p: Precision) -> tuple:
    if p is Precision.YEAR:
        return (value.year,)
    if p is Precision.MONTH:
        return (value.year, value.month)
    if p is Precision.DAY:
        return (value.year, value.month, value.day)
    return (value.year, value.month, value.day, value.hour, value.minute)


def hit(case: Case, got: tuple[datetime, Precision] | None) -> bool:
    exp = expected_of(case)
    if exp is None:
        return got is None
    if got is None:
        return False
    return got[1] is exp[1] and _key(got[0], exp[1]) == _key(exp[0], exp[1])


def ours(case: Case) -> tuple[datetime, Precision] | None:
    r: ResolvedTime | None = resolve_time(case.expr, parse_instant(case.ref), prefer=case.prefer)
    if r is None:
        return None
    if case.relation != r.relation:
        return None
    return r.start, r.precision


def dateparser_alone(case: Case) -> tuple[datetime, Precision] | None:
    from dateparser.date import DateDataParser

    ref = parse_instant(case.ref).replace(tzinfo=None)
    ddp = DateDataParser(languages=["en"], settings={
        "RELATIVE_BASE": ref, "PREFER_DATES_FROM": "future" if case.prefer == "future" else "past",
        "RETURN_AS_TIMEZONE_AWARE": True, "TIMEZONE": "UTC", "TO_TIMEZONE": "UTC"})
    d = ddp.get_date_data(case.expr)
    if d is None or d.date_obj is None:
        return None
    p = {"year": Precision.YEAR, "month": Precision.MONTH, "week": Precision.DAY,
         "day": Precision.DAY, "time": Precision.INSTANT}.get(d.period or "day", Precision.DAY)
    if "pm" in case.expr or ":" in case.expr:
        p = Precision.INSTANT
    return d.date_obj, p


def parsedatetime_alone(case: Case) -> tuple[datetime, Precision] | None:
    import parsedatetime as pdt

    cal = pdt.Calendar(version=pdt.VERSION_CONTEXT_STYLE)
    value, ctx = cal.parseDT(case.expr, sourceTime=parse_instant(case.ref).replace(tzinfo=None))
    if not (ctx.hasDate or ctx.hasTime):
        return None
    acc = ctx.accuracy
    if ctx.hasTime and not ctx.hasDate:
        p = Precision.INSTANT
    elif acc & (pdt.pdtContext.ACU_DAY | pdt.pdtContext.ACU_WEEK):
        p = Precision.DAY
    elif acc & pdt.pdtContext.ACU_MONTH:
        p = Precision.MONTH
    elif acc & pdt.pdtContext.ACU_YEAR:
        p = Precision.YEAR
    else:
        p = Precision.DAY
    return value, p


def run(show: bool = False) -> dict:
    systems = {"kgmem": ours, "dateparser": dateparser_alone, "parsedatetime": parsedatetime_alone}
    report: dict = {"cases": len(CASES), "core_cases": sum(c.core for c in CASES),
                    "fresh_cases": sum(c.fresh for c in CASES), "systems": {}}
    for name, fn in systems.items():
        hits = core_hits = fresh_hits = 0
        misses = []
        for case in CASES:
            try:
                got = fn(case)
            except Exception:  # a library choking on an input counts as a miss
                got = None
            ok = hit(case, got)
            hits += ok
            core_hits += ok and case.core
            fresh_hits += ok and case.fresh
            if not ok:
                misses.append({"expr": case.expr, "ref": case.ref, "expected": case.expected,
                               "got": None if got is None else [got[0].isoformat(), got[1].value]})
        report["systems"][name] = {"hits": hits, "core_hits": core_hits,
                                   "fresh_hits": fresh_hits, "misses": misses}
    if show:
        for name, r in report["systems"].items():
            print(f"{name}: misses")
            for m in r["misses"]:
                print(f"   {m['expr']!r} (ref {m['ref'][:10]}): expected {m['expected']}, got {m['got']}")
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true", help="list the misses of every system")
    args = ap.parse_args(argv)
    rep = run(args.show)
    n, nc, nf = rep["cases"], rep["core_cases"], rep["fresh_cases"]
    for name, r in rep["systems"].items():
        print(f"{name:14} all {r['hits']}/{n} ({r['hits'] / n:.0%})   "
              f"offline-models core {r['core_hits']}/{nc}   fresh {r['fresh_hits']}/{nf}")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "temporal.json").write_text(json.dumps(rep, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
