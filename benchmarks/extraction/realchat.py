"""Score an extractor on the real-chat dev set (hand-labelled LoCoMo dev sessions).

    python -m benchmarks.extraction.realchat [--extractor offline|llm] [--out DIR] [--show]
        [--labels FILE] [--record ROUND [--look first|after]]

Every turn of the labelled sessions goes through the extractor as the product ingests LoCoMo
(``kgmem.ingest.formats.read_episodes``: the session date + turn index seconds as reference
time, image captions appended as ``[shares a photo: ...]``), in order, each with its
conversation (``group``) and the previous session's date (``last_sitting``). Then, per
session:

* **recall** of the required facts: a fact is *found* when an extracted fact has its subject
  (or a nickname), one of its accepted predicates and its object or an alias (lower case,
  articles/possessives and a plural ``s`` ignored; symmetric predicates either way round);
  it is *correct* when in addition its end agrees: a fact told as ended needs an extracted end
  (an ``end`` fact, or an assertion with ``invalid_at`` that is not an event), a fact still
  holding must not be ended. A fact found through a predicate that never ends (``FROM``:
  where one comes from, accepted for "my home country, Sweden" beside an ended ``LIVES_IN``)
  is correct whatever the label's end.
* **precision** over every distinct extracted fact (subject, predicate, object, kind) of the
  labelled sessions: one that matches no label, required or optional, counts against it
  (``retract`` facts never match: no label is a correction).
* **dates** on found facts whose labels carry a window: the extracted start (``valid_at``, or
  the turn's reference time when the extractor gives none, as the pipeline stores it) inside
  the window at an accepted precision (none given counts as ``day``); the same for the end
  of ended facts. ``session date`` is what the reference time alone would score.
* **event/state**: an event label wants the extracted fact marked as an event
  (``ExtractedFact.event`` or ``attributes["event"]``), a state label wants it unmarked.
* **types** (when the extractor gives entity types): subject and object types of found facts.

Writes ``labels.jsonl`` (each label, its result and the facts that matched it),
``extracted.jsonl`` (each extracted fact and the labels it matched) and ``report.json`` under
``benchmarks/out/extraction/realchat/<extractor>/``, and prints the table per kind.
``--record ROUND`` appends the recall and precision to the round log (``rounds.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from kgmem.errors import KgmemError
from kgmem.vocabulary import DEFAULT_PREDICATES

HERE = Path(__file__).resolve().parent
DATA = HERE / "realchat.jsonl"
OUT_DIR = HERE.parent / "out" / "extraction" / "realchat"
SYMMETRIC = {p.name for p in DEFAULT_PREDICATES if p.symmetric} | {"ENGAGED_TO"}
_LEAD = re.compile(r"^(?:(?:the|a|an|my|our|your|his|her|their|this|that|these|those|some)\s+)+")
_ARTICLE = re.compile(r"(?<=\S) (?:a|an|the) (?=\S)")
_PUNCT = re.compile(r"[\"“”‘’'`.,!?;:()\[\]]")


# ------------------------------------------------------------------------ normalisation
def norm(text: str) -> str:
    """Lower case, no punctuation, no leading articles/possessives nor articles inside,
    '&' = 'and', a final plural 's' dropped (applied to both sides, so 'Paris' and 'Pari'
    agree harmlessly)."""
    s = (text or "").lower().replace("&", " and ")
    s = _PUNCT.sub(" ", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = _LEAD.sub("", s)
    s = _ARTICLE.sub(" ", s)  # "interview for a design internship" = "... for design ..."
    if len(s) > 3 and s.endswith("s") and not s.endswith("ss"):
        s = s[:-1]
    return s


def load_labels(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# ------------------------------------------------------------------------ extraction input
def session_items(labels: Sequence[dict[str, Any]], data_path: Path | None = None
                  ) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """The turns of every labelled session, as the product reads them from LoCoMo."""
    from benchmarks.datasets._common import default_data_dir
    from kgmem.ingest.formats import read_episodes

    path = data_path or default_data_dir() / "locomo" / "locomo10.json"
    wanted = {(r["sample_id"], r["session"]): (r["conv"], r["session"]) for r in labels}
    previous = {(r["conv"], r["session"]): r["previous_session_date"] for r in labels}
    out: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for ep in read_episodes(path, "locomo"):
        turn = ep["source_description"].rsplit(" ", 1)[-1]
        key = wanted.get((ep["group"], int(turn[1:].split(":")[0])))
        if key is None:
            continue
        if key[0] >= 5:
            raise ValueError("conversations 5-9 are held out for extraction work")
        # the conversation, and when its previous sitting was (what a store of the whole
        # conversation knows when this session arrives)
        out[key].append({"text": ep["content"], "reference_time": ep["reference_time"],
                         "speaker": ep.get("speaker"), "turn": turn, "group": ep["group"],
                         "last_sitting": previous[key]})
    return dict(out)


def make_extractor(name: str) -> Any:
    if name == "offline":
        from kgmem.ingest import OfflineExtractor

        return OfflineExtractor()
    if name == "llm":
        from kgmem.ingest.llm import LLMExtractor

        return LLMExtractor.from_settings()
    raise SystemExit(f"unknown extractor {name!r} (offline or llm)")


# ------------------------------------------------------------------------ fact views
def _attr(f: Any, name: str) -> Any:
    value = getattr(f, name, None)
    if value is None:
        value = (getattr(f, "attributes", None) or {}).get(name)
    return value


def is_event(f: Any) -> bool:
    return bool(getattr(f, "event", False) or (getattr(f, "attributes", None) or {}).get("event"))


# predicates of facts that hold for good once true (where one comes from): never ended
LASTING = frozenset({"FROM", "BORN_IN"})


def is_ended(f: Any) -> bool:
    return f.kind == "end" or (f.kind == "assert" and f.invalid_at is not None
                               and not is_event(f))


def _prec(value: Any) -> str:
    p = getattr(value, "value", value)
    return "day" if p in (None, "instant") else str(p)


def _in_window(when: datetime, precision: str, window: dict[str, Any]) -> bool:
    lo, hi = date.fromisoformat(window["from"]), date.fromisoformat(window["to"])
    return lo <= when.date() <= hi and precision in window["precision"]


def start_of(f: Any, ref: datetime) -> tuple[datetime, str]:
    if f.valid_at is not None:
        return f.valid_at, _prec(f.valid_precision)
    return ref, "day"


def end_of(f: Any, ref: datetime) -> tuple[datetime, str]:
    if f.invalid_at is not None:
        return f.invalid_at, _prec(f.invalid_precision)
    if f.kind == "end" and f.valid_at is not None:
        return f.valid_at, _prec(f.valid_precision)
    return ref, "day"


def matches(label: dict[str, Any], f: Any) -> bool:
    """Same subject, an accepted (predicate, object), whatever the dates and end."""
    if f.kind not in ("assert", "end"):
        return False
    subjects = {norm(label["subject"])} | {norm(a) for a in label.get("subject_aliases", [])}
    s, o = norm(f.subject), norm(f.object)
    for acc in label["accept"]:
        if acc["predicate"] != f.predicate:
            continue
        objects = {norm(acc["object"])} | {norm(a) for a in acc["aliases"]}
        if acc["object"] == "*":
            objects = {"*"}
        if s in subjects and o in objects:
            return True
        if f.predicate in SYMMETRIC and o in subjects and s in objects:
            return True
    return False


# ------------------------------------------------------------------------ scoring
def score_label(label: dict[str, Any], found: list[tuple[Any, datetime]]) -> dict[str, Any]:
    """The result of one label given the extracted facts (with reference times) matching it."""
    res: dict[str, Any] = {"found": bool(found)}
    ended_facts = [(f, r) for f, r in found if is_ended(f)]
    if any(f.predicate in LASTING for f, _r in found):
        res["correct"] = True
    elif label["ended"] is not None:
        res["correct"] = bool(ended_facts)
    else:
        res["correct"] = bool(found) and not ended_facts
    starts = [(f, r) for f, r in found if f.kind == "assert"]
    ref = datetime.fromisoformat(label["session_date"])
    if label["start"] is not None:
        res["session_date_ok"] = _in_window(ref, "day", label["start"])
        if starts:
            res["start_ok"] = any(_in_window(*start_of(f, r), label["start"]) for f, r in starts)
    window = label["ended"]
    if window is not None and window["from"] is not None and ended_facts:
        res["end_ok"] = any(_in_window(*end_of(f, r), window) for f, r in ended_facts)
    if found:
        want_event = label["kind"] == "event"
        res["kind_ok"] = any(is_event(f) == want_event for f, _r in found)
        typed = [(f, r) for f, r in found if _attr(f, "object_type") or _attr(f, "subject_type")]
        if typed:
            res["types_ok"] = any(
                _attr(f, "subject_type") == label["subject_type"]
                and _attr(f, "object_type") in label["object_type"] for f, _r in typed)
    return res


def score(labels: Sequence[dict[str, Any]], items: dict[tuple[int, int], list[dict[str, Any]]],
          extracted: dict[tuple[int, int], list[list[Any]]]) -> dict[str, Any]:
    """Per-label results, per-extracted-fact matches and the summary tables."""
    by_session: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for lab in labels:
        by_session[(lab["conv"], lab["session"])].append(lab)
    label_rows, fact_rows = [], []
    for key, labs in sorted(by_session.items()):
        facts = [(f, it) for it, fs in zip(items[key], extracted[key]) for f in fs]
        seen: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        for f, it in facts:
            k = (norm(f.subject), f.predicate, norm(f.object), f.kind)
            if k in seen:
                seen[k]["turns"].append(it["turn"])
                continue
            hits = [lab["id"] for lab in labs if matches(lab, f)]
            seen[k] = {"conv": key[0], "session": key[1], "turns": [it["turn"]],
                       "text": it["text"], "labels": hits, **_fact_dict(f)}
        fact_rows += list(seen.values())
        for lab in labs:
            found = [(f, it["reference_time"]) for f, it in facts if matches(lab, f)]
            label_rows.append({**lab, "result": score_label(lab, found),
                               "matched": [{"turn": it["turn"], **_fact_dict(f)}
                                           for f, it in facts if matches(lab, f)]})
    return {"labels": label_rows, "facts": fact_rows, "summary": summarise(label_rows, fact_rows)}


def _fact_dict(f: Any) -> dict[str, Any]:
    d = f.to_dict()
    keep = ("subject", "predicate", "object", "kind", "valid_at", "valid_precision",
            "invalid_at", "invalid_precision", "rule")
    return {k: d.get(k) for k in keep} | {
        "event": is_event(f), "subject_type": _attr(f, "subject_type"),
        "object_type": _attr(f, "object_type")}


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _tally(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    res = [r["result"] for r in rows]
    dated = [x for x in res if "start_ok" in x]
    ends = [x for x in res if "end_ok" in x]
    found = [x for x in res if x["found"]]
    out = {
        "labels": len(rows),
        "found": sum(x["found"] for x in res),
        "correct": sum(x["correct"] for x in res),
        "recall": _ratio(sum(x["correct"] for x in res), len(rows)),
        "recall_found": _ratio(sum(x["found"] for x in res), len(rows)),
        "dated_found": len(dated),
        "start_ok": sum(x["start_ok"] for x in dated),
        "session_date_ok": sum(x.get("session_date_ok", False) for x in dated),
        "end_dated_found": len(ends),
        "end_ok": sum(x["end_ok"] for x in ends),
        "kind_ok": sum(x["kind_ok"] for x in found),
        "typed": sum("types_ok" in x for x in found),
        "types_ok": sum(x.get("types_ok", False) for x in found),
    }
    out["date_accuracy"] = _ratio(out["start_ok"] + out["end_ok"], len(dated) + len(ends))
    out["kind_accuracy"] = _ratio(out["kind_ok"], len(found))
    return out


def summarise(label_rows: Sequence[dict[str, Any]], fact_rows: Sequence[dict[str, Any]]
              ) -> dict[str, Any]:
    required = [r for r in label_rows if r["required"]]
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in required:
        kinds[r["cat"]].append(r)
    tp = sum(1 for f in fact_rows if f["labels"])
    per_pred: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in fact_rows:
        per_pred[f["predicate"]][0 if f["labels"] else 1] += 1
    return {
        "sessions": len({(r["conv"], r["session"]) for r in label_rows}),
        "required": _tally(required),
        "required_labelled_first": _tally(r for r in required if not r["added_after_review"]),
        "by_kind": {k: _tally(v) for k, v in sorted(kinds.items())},
        "by_label_kind": {k: _tally(r for r in required if r["kind"] == k)
                          for k in ("state", "event")},
        "optional": _tally(r for r in label_rows if not r["required"]),
        "precision": {"extracted": len(fact_rows), "matched": tp,
                      "precision": _ratio(tp, len(fact_rows))},
        "precision_by_predicate": {p: {"matched": m, "unmatched": u,
                                       "precision": _ratio(m, m + u)}
                                   for p, (m, u) in sorted(per_pred.items())},
    }


# ------------------------------------------------------------------------ running
def extract_sessions(extractor: Any, items: dict[tuple[int, int], list[dict[str, Any]]]
                     ) -> tuple[dict[tuple[int, int], list[list[Any]]], float, float]:
    """Extract every session's turns in one batch; returns results, wall and CPU seconds."""
    keys = sorted(items)
    flat = [it for k in keys for it in items[k]]
    t0, c0 = time.perf_counter(), time.process_time()
    results = extractor.extract_many(
        [{"text": it["text"], "reference_time": it["reference_time"], "speaker": it["speaker"],
          "group": it["group"], "last_sitting": it["last_sitting"]} for it in flat])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out: dict[tuple[int, int], list[list[Any]]] = {}
    i = 0
    for k in keys:
        out[k] = results[i:i + len(items[k])]
        i += len(items[k])
    return out, wall, cpu


def _cell(num: int, den: int) -> str:
    return f"{num}/{den}" if den else "-"


def print_table(summary: dict[str, Any], name: str) -> None:
    print(f"real-chat dev set: {summary['sessions']} LoCoMo dev sessions, extractor={name}")
    head = (f"{'kind':14} {'labels':>6} {'found':>6} {'recall':>7} {'start date':>11} "
            f"{'(session)':>9} {'end date':>9} {'event/state':>11} {'types':>7}")
    print(head)
    print("-" * len(head))
    rows = [*summary["by_kind"].items(), ("ALL required", summary["required"]),
            ("  states", summary["by_label_kind"]["state"]),
            ("  events", summary["by_label_kind"]["event"]),
            ("optional", summary["optional"])]
    for k, t in rows:
        rec = f"{t['recall']:.3f}" if t["recall"] is not None else "-"
        print(f"{k:14} {t['labels']:6d} {t['found']:6d} {rec:>7} "
              f"{_cell(t['start_ok'], t['dated_found']):>11} "
              f"{_cell(t['session_date_ok'], t['dated_found']):>9} "
              f"{_cell(t['end_ok'], t['end_dated_found']):>9} "
              f"{_cell(t['kind_ok'], t['found']):>11} {_cell(t['types_ok'], t['typed']):>7}")
    p = summary["precision"]
    prec = f"{p['precision']:.3f}" if p["precision"] is not None else "-"
    print(f"precision {prec} ({p['matched']}/{p['extracted']} distinct extracted facts match a "
          f"label)")
    worst = [(k, v) for k, v in summary["precision_by_predicate"].items() if v["unmatched"]]
    if worst:
        print("unmatched by predicate: " + ", ".join(
            f"{k} {v['unmatched']}/{v['matched'] + v['unmatched']}" for k, v in worst))


def _show(result: dict[str, Any]) -> None:
    for r in result["labels"]:
        if r["required"] and not r["result"]["correct"]:
            got = "; ".join(f"{m['predicate']} {m['object']} ({m['kind']})" for m in r["matched"])
            print(f"MISSED  {r['id']} {r['subject']} {r['predicate']} {r['object']}"
                  f"{' (ended)' if r['ended'] else ''}  {got}")
    for f in result["facts"]:
        if not f["labels"]:
            print(f"UNLABELLED c{f['conv']}s{f['session']} {f['turns'][0]} {f['subject']} "
                  f"{f['predicate']} {f['object']} ({f['kind']}) [{f.get('rule')}] "
                  f"<- {f['text'][:110]!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extractor", default="offline", help="offline (default) or llm "
                    "(an OpenAI-compatible endpoint from KGMEM_LLM_* settings)")
    ap.add_argument("--labels", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument("--show", action="store_true",
                    help="print every missed required fact and every unmatched extraction")
    ap.add_argument("--record", metavar="ROUND", help="append this look to the round log")
    ap.add_argument("--look", choices=("first", "after"), default="first")
    args = ap.parse_args(argv)
    labels = load_labels(args.labels)
    items = session_items(labels)
    try:
        extractor = make_extractor(args.extractor)
        extract_sessions(extractor, {k: v[:2] for k, v in list(items.items())[:1]})  # warm up
        extracted, wall, cpu = extract_sessions(extractor, items)
    except KgmemError as exc:  # an LLM endpoint missing, refusing the key, unreachable...
        print(f"{args.extractor} extractor failed: {exc}", file=sys.stderr)
        return 2
    result = score(labels, items, extracted)
    turns = sum(len(v) for v in items.values())
    result["summary"].update(extractor=args.extractor, turns=turns,
                             turns_per_s=round(turns / wall, 1) if wall else None,
                             turns_per_cpu_s=round(turns / cpu, 1) if cpu else None,
                             load_average=os.getloadavg()[0])
    if getattr(extractor, "stats", None) is not None:  # the LLM extractor: calls, tokens, cost
        stats = extractor.stats.to_dict()
        stats.pop("per_call", None)
        result["summary"]["llm"] = stats
    print_table(result["summary"], args.extractor)
    if args.record:
        from .rounds import record

        req, prec = result["summary"]["required"], result["summary"]["precision"]
        record(args.record, "chat", args.look, required=req["labels"], found=req["correct"],
               facts=prec["extracted"], right=prec["matched"],
               note=f"realchat --labels {args.labels.name}")
    if args.show:
        _show(result)
    out = args.out / args.extractor
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("labels", result["labels"]), ("extracted", result["facts"])):
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    (out / "report.json").write_text(json.dumps(result["summary"], indent=2, default=str),
                                     encoding="utf-8")
    print(f"wrote {out}/labels.jsonl, extracted.jsonl, report.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
