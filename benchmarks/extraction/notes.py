"""Score an extractor on the notes, negative and modality sets (``notes_labels.py``).

    python -m benchmarks.extraction.notes [--split dev|first_look|round2|all] [--show] [--out DIR]
        [--record ROUND [--look first|after]]

* **notes**: each case's turns go through ``extract_many`` as one conversation (its own
  ``group``, one second apart from the case's reference time, each with its speaker). A
  required fact is *found* when an extracted fact has its subject, one of its predicates, its
  object (or an alias; or, for ``keywords``, an object holding every keyword) and its kind (a
  label that ended wants an ``end`` or an assertion with an end; one that holds wants an open
  assertion). ``ME`` is the case's ``name`` when the text names the speaker, else any subject
  the extractor marks as the speaker (``subject_is_speaker``: the role's owner, never the
  assistant).
  **Precision**: distinct extracted facts (subject, predicate, object, kind) that match a
  label, required or optional; a retraction never matches.
* **negative**: every extracted fact that matches none of the case's labels is a false memory.
  Negative cases of later rounds are tallied apart (``negative-round2``).
* ``--record ROUND`` appends the split's totals (notes, and each negative group) to the round
  log (``rounds.py``); a round's first look can be recorded once.
* **modality**: the clause modality of each labelled verb
  (``kgmem.ingest.discourse.modality.clause_modality``) against its label, with the confusions.

Prints a table per genre and writes ``report.json`` and per-fact ``facts.jsonl`` under
``benchmarks/out/extraction/notes/``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kgmem.ingest.facts import ASSISTANT_SPEAKERS
from kgmem.timeutil import parse_instant

from .notes_labels import ME, MODALITY, NEGATIVE, NOTES, Case, Fact
from .realchat import norm

OUT_DIR = Path(__file__).resolve().parent.parent / "out" / "extraction" / "notes"


def _words(text: str) -> str:
    """Normalised text with every word's plural 's' dropped (for keyword containment)."""
    words = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
             for w in re.split(r"[\s-]+", norm(text)) if w]
    return " " + " ".join(words) + " "


def _subject_ok(label: Fact, case: Case, f: Any) -> bool:
    if label.subject == ME:
        if case.name is not None:
            return norm(f.subject) == norm(case.name)
        return bool(f.subject_is_speaker) and f.subject.strip().lower() not in ASSISTANT_SPEAKERS
    return norm(f.subject) == norm(label.subject) or (
        norm(f.subject).endswith(" " + norm(label.subject)))


def _object_ok(label: Fact, f: Any) -> bool:
    if label.keywords:
        have = _words(f.object)
        return all(_words(k).strip() in have for k in label.keywords)
    if label.predicate == "SCHEDULED_ON" or "SCHEDULED_ON" in label.predicates():
        return f.object.strip()[:10] == label.object
    return norm(f.object) in {norm(label.object)} | {norm(a) for a in label.aliases}


def _ended(f: Any) -> bool:
    return f.kind == "end" or (f.kind == "assert" and f.invalid_at is not None
                               and not getattr(f, "event", False))


def matches(label: Fact, case: Case, f: Any) -> bool:
    if f.kind not in ("assert", "end") or f.predicate not in label.predicates():
        return False
    if not (_subject_ok(label, case, f) and _object_ok(label, f)):
        return False
    return _ended(f) == (label.kind == "end")


def run_cases(extractor: Any, cases: tuple[Case, ...]) -> dict[str, list[Any]]:
    items: list[dict[str, Any]] = []
    owners: list[str] = []
    for case in cases:
        ref = parse_instant(case.ref, "ref")
        for i, (speaker, text) in enumerate(case.turns):
            items.append({"text": text, "reference_time": ref + timedelta(seconds=i),
                          "speaker": speaker, "group": case.id})
            owners.append(case.id)
    out: dict[str, list[Any]] = defaultdict(list)
    for cid, facts in zip(owners, extractor.extract_many(items), strict=True):
        out[cid].extend(facts)
    return out


def _fact_key(f: Any) -> tuple[str, str, str, str]:
    return (f.subject.lower(), f.predicate, f.object.lower(), f.kind)


def score_cases(cases: tuple[Case, ...], extracted: dict[str, list[Any]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    by_genre: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        facts = extracted.get(case.id, [])
        tally = by_genre[case.genre if case.genre != "negative" or case.split == "dev"
                         else f"negative-{case.split}"]
        for label in case.facts:
            if label.required:
                hit = any(matches(label, case, f) for f in facts)
                tally["required"] += 1
                tally["found"] += hit
                rows.append({"case": case.id, "label": _label_text(label), "found": hit})
        seen: set[tuple[str, str, str, str]] = set()
        for f in facts:
            if _fact_key(f) in seen:
                continue
            seen.add(_fact_key(f))
            ok = any(matches(label, case, f) for label in case.facts)
            tally["facts"] += 1
            tally["right"] += ok
            rows.append({"case": case.id, "fact": f"{f.subject} {f.predicate} {f.object} "
                         f"[{f.kind}]", "rule": f.rule, "right": ok})
        if case.genre.startswith("negative"):
            tally["cases"] += 1
            tally["clean"] += all(any(matches(label, case, f) for label in case.facts)
                                  for f in facts)
    summary = {g: {**t, "recall": _ratio(t["found"], t["required"]),
                   "precision": _ratio(t["right"], t["facts"])}
               for g, t in sorted(by_genre.items())}
    return {"summary": summary, "rows": rows}


def _label_text(label: Fact) -> str:
    return f"{label.subject} {'/'.join(label.predicates())} {label.object} [{label.kind}]"


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def score_modality(nlp: Any) -> dict[str, Any]:
    from kgmem.ingest.discourse.modality import clause_modality

    confusion: Counter[tuple[str, str]] = Counter()
    rows: list[dict[str, Any]] = []
    for sentence, verb, want in MODALITY:
        doc = nlp(sentence)
        tok = next((t for t in doc if t.text == verb), None)
        got = "missing verb" if tok is None else clause_modality(tok).value
        confusion[(want, got)] += 1
        rows.append({"sentence": sentence, "verb": verb, "label": want, "got": got,
                     "right": got == want})
    right = sum(r["right"] for r in rows)
    per_label: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "right": 0})
    for r in rows:
        per_label[r["label"]]["n"] += 1
        per_label[r["label"]]["right"] += r["right"]
    return {"accuracy": _ratio(right, len(rows)), "right": right, "n": len(rows),
            "per_label": dict(per_label), "rows": rows,
            "confusions": {f"{w} -> {g}": n for (w, g), n in confusion.items() if w != g}}


def _record(name: str, look: str, split: str, summary: dict[str, Any]) -> None:
    from .rounds import record

    notes = [t for g, t in summary.items() if not g.startswith("negative")]
    record(name, "notes", look, required=sum(t.get("required", 0) for t in notes),
           found=sum(t.get("found", 0) for t in notes), facts=sum(t.get("facts", 0) for t in notes),
           right=sum(t.get("right", 0) for t in notes), note=f"notes --split {split}")
    for group, t in summary.items():
        # only this split's own negative cases (the dev set and other rounds' are not its look)
        if group == f"negative-{split}":
            record(f"{name}:{group}", "negative", look, required=t.get("cases", 0),
                   found=t.get("clean", 0), facts=t.get("facts", 0), right=t.get("right", 0),
                   note="required = cases, found = cases without a false memory")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=(*sorted({c.split for c in NOTES}), "all"),
                    default="dev")
    ap.add_argument("--record", metavar="ROUND", help="append this look to the round log")
    ap.add_argument("--look", choices=("first", "after"), default="first")
    ap.add_argument("--show", action="store_true", help="print every miss and wrong fact")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument("--no-modality", action="store_true")
    args = ap.parse_args(argv)
    from kgmem.ingest.offline.extractor import OfflineExtractor

    x = OfflineExtractor()
    notes = tuple(c for c in NOTES if args.split == "all" or c.split == args.split)
    result = score_cases(notes + NEGATIVE, run_cases(x, notes + NEGATIVE))
    print(f"notes ({args.split}) and negative set, offline extractor, {datetime.now():%F %T}")
    print(f"{'genre':10} {'required':>8} {'found':>6} {'recall':>7} {'facts':>6} {'right':>6} "
          f"{'precision':>9}")
    for genre, t in result["summary"].items():
        print(f"{genre:10} {t.get('required', 0):>8} {t.get('found', 0):>6} "
              f"{t['recall'] if t['recall'] is not None else '-':>7} {t.get('facts', 0):>6} "
              f"{t.get('right', 0):>6} {t['precision'] if t['precision'] is not None else '-':>9}")
    for group, neg in result["summary"].items():
        if group.startswith("negative"):
            print(f"{group} set: {neg.get('clean', 0)}/{neg.get('cases', 0)} cases without a "
                  f"false memory, {neg.get('facts', 0) - neg.get('right', 0)} false facts")
    if args.record:
        _record(args.record, args.look, args.split, result["summary"])
    report: dict[str, Any] = {"split": args.split, "notes": result["summary"]}
    if not args.no_modality:
        mod = score_modality(x.nlp)
        print(f"modality: {mod['right']}/{mod['n']} = {mod['accuracy']}; per label: " + ", ".join(
            f"{k} {v['right']}/{v['n']}" for k, v in sorted(mod["per_label"].items())))
        report["modality"] = {k: v for k, v in mod.items() if k != "rows"}
        if args.show:
            for r in mod["rows"]:
                if not r["right"]:
                    print(f"  modality {r['label']:>13} got {r['got']:<13} {r['verb']!r} in "
                          f"{r['sentence']!r}")
    if args.show:
        for r in result["rows"]:
            if r.get("found") is False:
                print(f"  missed {r['case']}: {r['label']}")
            if r.get("right") is False:
                print(f"  wrong  {r['case']}: {r['fact']} ({r['rule']})")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"report-{args.split}.json").write_text(json.dumps(report, indent=2) + "\n")
    with (args.out / f"facts-{args.split}.jsonl").open("w", encoding="utf-8") as fh:
        for r in result["rows"]:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
