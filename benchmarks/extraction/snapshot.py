"""Everything the offline extractor gives on a fixed set of inputs, as sorted JSONL.

    python -m benchmarks.extraction.snapshot --out FILE [--limit N]
    python -m benchmarks.extraction.snapshot --diff OLD NEW

An identity check, not a score: two snapshots are equal exactly when the extractor (and the
time resolver under it) behaves the same on these inputs, so a refactor must leave the file
unchanged and an extraction change shows up as a readable diff (``--diff``: items removed and
added per input, exit code 1 when the files differ).

Inputs:

* **locomo**: every LoCoMo turn of all 10 conversations, read as ``kgmem import --format
  locomo`` reads them (:func:`kgmem.ingest.formats.read_episodes`: the session's date as
  reference time, one second apart per turn, the turn's speaker, a shared photo's caption
  appended). Unscored, so the held-out conversations 5-9 are not evaluated here.
* **utterances**: the 500 rows of ``utterances.jsonl`` (dev and test), once with the small
  gazetteers on (the default) and once with them off (``utterances-no-gazetteer``).
* **temporal-cases**: every case of ``temporal_cases.py`` through ``resolve_time``.

One line per item, ``{"source", "id", "type", "input", ...}``, with ``type`` one of

* ``fact``: an :class:`ExtractedFact` (every field, as ``to_dict()`` gives it);
* ``time-doc`` / ``time-regex``: a time mention that ``find_time_expressions`` found in the
  input with the spaCy parse / with regexes only (``nlp=False``, as search indexing and query
  parsing call it): the span, its offsets and the resolved period;
* ``time-case``: a temporal case's resolution (``null`` when unresolved).

Lines are sorted (JSON with sorted keys), so ``cmp`` or ``diff`` of two files is meaningful.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
UTTERANCES = HERE / "utterances.jsonl"


def _resolved(r: Any) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "start": r.start.isoformat(),
        "end": r.end.isoformat() if r.end is not None else None,
        "precision": r.precision.value,
        "end_precision": r.end_precision.value if r.end_precision is not None else None,
        "relation": r.relation,
        "text": r.text,
    }


def locomo_inputs(path: Path | None = None) -> list[dict[str, Any]]:
    """Every LoCoMo turn as kgmem's LoCoMo import reads it: ``{id, text, reference_time,
    speaker}`` with ``id`` = ``"<sample_id> <dia_id>"``."""
    from benchmarks.datasets.locomo import default_locomo_path
    from kgmem.ingest.formats import read_episodes

    out = []
    for ep in read_episodes(path or default_locomo_path(), "locomo"):
        ident = ep["source_description"].removeprefix("locomo ")
        out.append({"id": ident, "text": ep["content"], "reference_time": ep["reference_time"],
                    "speaker": ep.get("speaker")})
    return out


def utterance_inputs() -> list[dict[str, Any]]:
    from kgmem.timeutil import parse_instant

    rows = [json.loads(line) for line in UTTERANCES.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [{"id": r["id"], "text": r["text"], "speaker": r["speaker"],
             "reference_time": parse_instant(r["reference_time"], "reference_time")}
            for r in rows]


def _text_items(source: str, inputs: list[dict[str, Any]], extractor: Any,
                with_times: bool = True) -> Iterator[dict[str, Any]]:
    """Facts of every input, then (optionally) its time mentions with and without a parse."""
    from kgmem.ingest.temporal import find_time_expressions

    results = extractor.extract_many(
        [{"text": i["text"], "reference_time": i["reference_time"], "speaker": i["speaker"]}
         for i in inputs])
    for item, facts in zip(inputs, results, strict=True):
        for f in facts:
            yield {"source": source, "id": item["id"], "type": "fact", "input": item["text"],
                   **f.to_dict()}
    if not with_times:
        return
    docs = extractor.nlp.pipe((i["text"] for i in inputs), batch_size=256)
    for item, doc in zip(inputs, docs, strict=True):
        ref: datetime = item["reference_time"]
        for kind, found in (("time-doc", find_time_expressions(doc, ref)),
                            ("time-regex", find_time_expressions(item["text"], ref, nlp=False))):
            for text, a, b, r in found:
                yield {"source": source, "id": item["id"], "type": kind, "input": item["text"],
                       "span": [a, b], "span_text": text, "resolved": _resolved(r)}


def _case_items() -> Iterator[dict[str, Any]]:
    from kgmem.ingest.temporal import resolve_time
    from kgmem.timeutil import parse_instant

    from .temporal_cases import CASES

    for i, case in enumerate(CASES):
        r = resolve_time(case.expr, parse_instant(case.ref), prefer=case.prefer)
        yield {"source": "temporal-cases", "id": f"{i:03d}", "type": "time-case",
               "input": case.expr, "reference_time": case.ref, "prefer": case.prefer,
               "resolved": _resolved(r)}


def snapshot(limit: int | None = None, locomo_path: Path | None = None) -> list[str]:
    """The sorted snapshot lines (``limit``: first N LoCoMo turns only, for a quick look)."""
    from kgmem.ingest.offline import OfflineExtractor, set_gazetteer

    ex = OfflineExtractor()
    locomo = locomo_inputs(locomo_path)[:limit]
    utterances = utterance_inputs()
    items: list[dict[str, Any]] = []
    items += _text_items("locomo", locomo, ex)
    items += _text_items("utterances", utterances, ex)
    set_gazetteer(False)
    try:
        items += _text_items("utterances-no-gazetteer", utterances, ex, with_times=False)
    finally:
        set_gazetteer(True)
    items += _case_items()
    return sorted(json.dumps(i, sort_keys=True, ensure_ascii=False) for i in items)


def _counts(lines: Iterable[str]) -> Counter[tuple[str, str]]:
    c: Counter[tuple[str, str]] = Counter()
    for line in lines:
        d = json.loads(line)
        c[(d["source"], d["type"])] += 1
    return c


def _print_counts(counts: Counter[tuple[str, str]]) -> None:
    for (source, kind), n in sorted(counts.items()):
        print(f"  {source:<24} {kind:<10} {n:>6}")
    print(f"  {'total':<35} {sum(counts.values()):>6}")


def _short(d: dict[str, Any]) -> str:
    if d["type"] == "fact":
        when = d.get("valid_at") or ""
        if d.get("invalid_at"):
            when += f" -> {d['invalid_at']}"
        return (f"{d['subject']} | {d['predicate']} | {d['object']} | {d['kind']} {when} "
                f"({d['rule']})")
    r = d.get("resolved")
    span = f"{d.get('span_text')!r} " if "span_text" in d else ""
    if r is None:
        return f"{span}unresolved"
    return f"{span}{r['relation']} {r['start']} .. {r['end']} ({r['precision']})"


def diff(old: Path, new: Path) -> int:
    """Print what changed between two snapshots, per input; 0 when identical, 1 otherwise."""
    a = set(old.read_text(encoding="utf-8").splitlines())
    b = set(new.read_text(encoding="utf-8").splitlines())
    removed, added = a - b, b - a
    if not removed and not added:
        print(f"identical: {len(a)} items")
        return 0
    per_input: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for sign, lines in (("-", removed), ("+", added)):
        for line in lines:
            d = json.loads(line)
            per_input[(d["source"], d["id"])].append((sign, d))
    for (source, ident), changes in sorted(per_input.items()):
        first = changes[0][1]
        print(f"{source} {ident}: {first.get('input', '')[:160]!r}")
        for sign, d in sorted(changes, key=lambda x: (x[1]["type"], x[0])):
            print(f"  {sign} [{d['type']}] {_short(d)}")
    print(f"{len(removed)} removed, {len(added)} added, over {len(per_input)} inputs "
          f"({len(a)} -> {len(b)} items)")
    print("removed by source/type:")
    _print_counts(_counts(removed))
    print("added by source/type:")
    _print_counts(_counts(added))
    return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write the snapshot here")
    ap.add_argument("--limit", type=int, default=None, help="first N LoCoMo turns only")
    ap.add_argument("--locomo", type=Path, default=None,
                    help="locomo10.json (default: $KGMEM_BENCH_DATA/locomo/locomo10.json)")
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("OLD", "NEW"),
                    help="compare two snapshots instead of writing one")
    args = ap.parse_args(argv)
    if args.diff:
        return diff(*args.diff)
    if args.out is None:
        ap.error("--out FILE or --diff OLD NEW")
    t0 = time.perf_counter()
    lines = snapshot(args.limit, args.locomo)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"{len(lines)} items -> {args.out} ({time.perf_counter() - t0:.0f} s)")
    _print_counts(_counts(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
