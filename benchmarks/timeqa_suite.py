"""TimeQA through kgmem: extract facts from Wikipedia passages, answer time-constrained
questions from the facts valid at the question's time.

    python -m benchmarks.timeqa_suite --limit 20 --out benchmarks/out/timeqa

Data: TimeQA human-annotated test set (``benchmarks/datasets/timeqa.py``; 257 documents, 989
questions, of which 159 have no answer in the passage: gold ``""``).

Per document, in one embedded :class:`~kgmem.memory.facade.Memory` (fresh directory per run):

1. every paragraph is added as an episode (``source="text"``) to a fresh group, with the
   offline extractor (the product default, ``Settings.extractor="offline"``) and an injected clock; the episodes' reference time
   is ``--reference-time`` (default 2021-01-01, the dataset's year), so a fact whose sentence
   carries no date starts there (kgmem's rule: valid time defaults to when it was said);
2. each question is answered from facts only (no reading of the passage):

   * **time constraint** (:func:`parse_constraint`): ``from X to Y`` / ``between X and Y`` /
     ``X to Y`` -> ``[start(X), end(Y))``; ``in X`` / ``during X`` -> X's year or month;
     ``before X`` -> ``(-inf, start(X))``; ``after X`` -> ``[end(X), +inf)``; none -> any time;
   * **relation** (:func:`map_predicates`): keywords of the question -> kgmem predicates
     ("which team did X play for" -> MEMBER_OF_TEAM/WORKS_AT/MEMBER_OF, "which school" ->
     ATTENDED/STUDIES_AT, "position/role/worked as" -> HAS_ROLE, "employer/work for" ->
     WORKS_AT, "married/spouse" -> MARRIED_TO, "party/member" -> MEMBER_OF, "coach/head/
     chair" -> LEADS/HAS_ROLE, "live/reside" -> LIVES_IN); if nothing matches, or no fact of a
     mapped predicate is valid at that time, any fact about the subject;
   * **subject**: the document's title entity (entities whose name shares a distinctive token
     with the title, e.g. "Hossenfelder", or holds all the title's words and at most two more:
     "Lee Martin Nogan" for Lee Nogan); its outgoing facts answer with their object,
     incoming facts ("X coached Inter Milan" for a question about Inter Milan) with their
     subject;
   * candidates are the facts valid in the question's interval at ``known_at`` = now
     (``Memory.facts(valid_at=, valid_to=)``: overlap); the answer is the one overlapping the
     interval the longest (``before``: the latest, ``after``: the earliest), else ``""``.

Metrics (``benchmarks/metrics.py``): SQuAD exact match and token F1 against the gold answers
(max over gold answers), over all questions (an unanswerable question is right when the
answer is ``""``) and over answerable questions only; per relation type (Wikidata property of
the document: the dataset has no difficulty levels) and per constraint type. A failure
breakdown for answerable questions says where the gold answer got lost: never extracted,
extracted but not linked to the subject, under an unmapped predicate, at the wrong time
(often: no date in the sentence), or present but not selected.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from benchmarks.datasets.timeqa import TimeQADocument, TimeQAQuestion, load_timeqa
from benchmarks.metrics import exact_match, normalize_answer, token_f1
from benchmarks.outputs import write_json, write_jsonl

UTC = timezone.utc
DEFAULT_OUT = Path(__file__).resolve().parent / "out" / "timeqa"
DEFAULT_REF = datetime(2021, 1, 1, tzinfo=UTC)
FAR_PAST = datetime(1, 1, 1, tzinfo=UTC)
FAR_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)

RELATIONS = {  # Wikidata properties of the documents (labels for the report)
    "P937": "work location",
    "P69": "educated at",
    "P26": "spouse",
    "P488": "chairperson",
    "P108": "employer",
    "P127": "owned by",
    "P39": "position held",
    "P102": "political party",
    "P1448": "official name",
    "P1435": "heritage designation",
    "P463": "member of",
    "P54": "member of sports team",
    "P137": "operator",
    "P286": "head coach",
    "P27": "country of citizenship",
    "P17": "country",
    "P1037": "director / manager",
    "P6087": "coach of sports team",
    "P551": "residence",
    "P749": "parent organization",
    "P2962": "title of chess person",
    "P6": "head of government",
    "P106": "occupation",
    "P371": "presenter",
    "P4791": "commanded by",
    "P176": "manufacturer",
    "P466": "occupant",
    "P1416": "affiliation",
    "P410": "military rank",
    "P641": "sport",
    "P118": "league",
    "P159": "headquarters location",
}

# ----------------------------------------------------------------------------- time constraint
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"


def _date(p: str) -> str:
    return rf"(?:(?P<{p}m>{_MON})\s+)?(?P<{p}y>\d{{3,4}})"


_D1, _D2 = _date("a"), _date("b")
_RANGE = re.compile(rf"\b{_D1}\s*(?:to|until|till|and|-|–)\s*{_D2}(?!\d)", re.I)
_BEFORE = re.compile(rf"\b(?:before|prior to|until)\s+(?:the year\s+)?{_D1}(?!\d)", re.I)
_AFTER = re.compile(rf"\b(?:after|since)\s+(?:the year\s+)?{_D1}(?!\d)", re.I)
_SINGLE = re.compile(rf"\b{_D1}(?!\d)", re.I)


@dataclass(frozen=True)
class Constraint:
    """The question's time: ``kind`` in range / in / before / after / none, and the
    closed-open valid-time interval it asks about (``None`` bounds are open)."""

    kind: str
    start: datetime | None
    end: datetime | None
    text: str = ""


def _period(month: str | None, year: str) -> tuple[datetime, datetime] | None:
    y = int(year)
    if not 1 <= y <= 2100:
        return None
    if month:
        m = _MONTHS.get(month.lower()[:3])
        if m is None:
            return None
        start = datetime(y, m, 1, tzinfo=UTC)
        end = datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=UTC)
        return start, end
    return datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC)


def parse_constraint(question: str) -> Constraint:
    """The time constraint of a TimeQA question (see the module docstring)."""
    if (m := _RANGE.search(question)) is not None:
        a, b = _period(m["am"], m["ay"]), _period(m["bm"], m["by"])
        if a and b:
            if b[1] <= a[0]:  # typo such as "from 1977 to 179": keep the first period
                b = a
            return Constraint("range", a[0], b[1], m.group(0))
    if (m := _BEFORE.search(question)) is not None and (a := _period(m["am"], m["ay"])):
        return Constraint("before", None, a[0], m.group(0))
    if (m := _AFTER.search(question)) is not None and (a := _period(m["am"], m["ay"])):
        return Constraint("after", a[1], None, m.group(0))
    if (m := _SINGLE.search(question)) is not None and (a := _period(m["am"], m["ay"])):
        return Constraint("in", a[0], a[1], m.group(0))
    return Constraint("none", None, None)


# ----------------------------------------------------------------------------- relation
_RULES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (
        re.compile(r"\b(married|marry|wed|wife|husband|spouse|partner)\b", re.I),
        ("MARRIED_TO", "DATING"),
    ),
    (
        re.compile(
            r"\b(school|college|universit\w*|educat\w*|stud(y|ied|ent)|attend\w*|"
            r"alma mater|enrolled|graduat\w*)\b",
            re.I,
        ),
        ("ATTENDED", "STUDIES_AT", "WORKS_AT", "MEMBER_OF"),
    ),
    (
        re.compile(
            r"\b(coach\w*|manag\w*|head(ed|s)?|chair\w*|led|lead\w*|direct\w*|captain\w*|"
            r"president|in charge)\b",
            re.I,
        ),
        ("LEADS", "HAS_ROLE", "WORKS_AT"),
    ),
    (
        re.compile(r"\b(play(ed|s|ing)? for|team|club|squad|side)\b", re.I),
        ("MEMBER_OF_TEAM", "WORKS_AT", "MEMBER_OF", "LEADS"),
    ),
    (re.compile(r"\b(party|parties)\b", re.I), ("MEMBER_OF", "MEMBER_OF_TEAM")),
    (
        re.compile(
            r"\b(position|role|title|office|job|occupation|profession|post|rank|"
            r"worked as|work as|serve[ds]? as|was elected|elected)\b",
            re.I,
        ),
        ("HAS_ROLE", "LEADS"),
    ),
    (re.compile(r"\b(employ\w*|work(ed|s|ing)?|job|hired)\b", re.I), ("WORKS_AT", "MEMBER_OF")),
    (
        re.compile(r"\b(member|belong\w*|join\w*|affiliat\w*)\b", re.I),
        ("MEMBER_OF", "MEMBER_OF_TEAM", "WORKS_AT"),
    ),
    (re.compile(r"\b(live[ds]?|living|reside\w*|home|based)\b", re.I), ("LIVES_IN",)),
    (re.compile(r"\b(own\w*|possess\w*|proprietor|bought|acquired|parent)\b", re.I),
     ("OWNS", "RUNS")),
    (re.compile(r"\b(operat\w*|run by|ran|controll\w*|control)\b", re.I),
     ("RUNS", "OWNS", "LEADS")),
    (re.compile(r"\b(governed|mayor|presided|president|head of)\b", re.I), ("LEADS", "HAS_ROLE")),
]


_ASKS_PERSON = re.compile(
    r"^(?:who|whom)\b|\b(?:which|what) (?:person|people|man|woman|individual|leader|"
    r"coach|manager|chair\w*|president|director|commander|spouse|wife|husband)\b|"
    r"\bby (?:who|whom)\b|\b(?:who|whom)\b", re.I)
_ASKS_ORG = re.compile(
    r"\b(?:which|what) (?:\w+ ){0,3}?(?:team|club|side|school|college|universit\w*|party|"
    r"compan\w*|organi[sz]ation|employer|institution|workplace|association|band|group|"
    r"league|station|channel|network|label|firm|academy)\b", re.I)
_ASKS_ROLE = re.compile(
    r"\b(?:position|title|job|role|office|post|rank|occupation|profession)\b|"
    r"\bworked as\b|\bwork as\b|\bserved as\b", re.I)
# answers that cannot be a person / an organisation
_NOT_PERSON = frozenset({"HAS_ROLE", "LIVES_IN", "FROM", "ATTENDED", "STUDIES_AT", "VISITED"})


def answer_kind(question: str) -> str | None:
    """What the question asks for: ``role``, ``org`` (a team, school, party...), ``person``,
    or None (anything)."""
    if _ASKS_ROLE.search(question) and not _ASKS_ORG.search(question):
        return "role"
    if _ASKS_ORG.search(question):
        return "org"
    if _ASKS_PERSON.search(question):
        return "person"
    return None


def fits(c: Candidate, kind: str | None) -> bool:
    """Whether a candidate can be the kind of answer asked for: a role is a HAS_ROLE
    object; an organisation or a person never is (nor is a person a home or a school)."""
    if kind == "role":
        return c.predicate == "HAS_ROLE" and c.direction == "out"
    if kind == "org":
        return c.predicate != "HAS_ROLE"
    if kind == "person":
        return not (c.direction == "out" and c.predicate in _NOT_PERSON)
    return True


def map_predicates(question: str) -> list[str]:
    """Kgmem predicates a question's relation maps to, most specific first (may be empty)."""
    out: list[str] = []
    for pat, preds in _RULES:
        if pat.search(question):
            out += [p for p in preds if p not in out]
    return out


# ----------------------------------------------------------------------------- subject
_STOP = {
    "the",
    "of",
    "and",
    "a",
    "an",
    "de",
    "la",
    "le",
    "von",
    "van",
    "der",
    "jr",
    "sr",
    "sir",
    "saint",
    "st",
    "fc",
    "club",
    "city",
    "university",
    "new",
    "united",
    "king",
    "queen",
    "prince",
    "ii",
    "iii",
    "iv",
}


def title_of(doc: TimeQADocument) -> str:
    base = doc.index.split("#", 1)[0]
    title = unquote(base.rsplit("/", 1)[-1]).replace("_", " ")
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def _tokens(name: str) -> set[str]:
    return {t for t in normalize_answer(name).split() if t not in _STOP and len(t) > 1}


def subject_ids(entities: Iterable[Any], title: str, first_para: str = "") -> set[str]:
    """Ids of the entities that name the document's subject."""
    want = _tokens(title) or _tokens(first_para)
    full = normalize_answer(title)
    out = set()
    for e in entities:
        names = [e.name, *getattr(e, "aliases", [])]
        if any(normalize_answer(n) == full for n in names):
            out.add(e.id)
            continue
        toks = set().union(*(_tokens(n) for n in names))
        if toks and toks <= want:
            out.add(e.id)
        elif want and len(want) >= 2 and want <= toks and len(toks - want) <= 2:
            out.add(e.id)  # the full name with middle names: "Lee Martin Nogan" for Lee Nogan
    return out


# ----------------------------------------------------------------------------- answering
@dataclass
class Candidate:
    answer: str
    predicate: str
    valid_at: datetime | None
    invalid_at: datetime | None
    precision: str
    direction: str  # "out" (answer = object) or "in" (answer = subject)
    fact: str


def _overlap(c: Candidate, lo: datetime | None, hi: datetime | None) -> float:
    a = max(c.valid_at or FAR_PAST, lo or FAR_PAST)
    b = min(c.invalid_at or FAR_FUTURE, hi or FAR_FUTURE)
    return max(0.0, (b - a).total_seconds())


def candidates(
    m: Any,
    group: str,
    subj: set[str],
    valid_at: datetime | None = None,
    valid_to: datetime | None = None,
) -> list[Candidate]:
    """Facts touching the subject, valid somewhere in ``[valid_at, valid_to)`` (all time
    when both are None), known now."""
    lo = valid_at or FAR_PAST
    hi = valid_to or FAR_FUTURE
    out = []
    for sid in sorted(subj):
        for f in m.facts(subject=sid, valid_at=lo, valid_to=hi, group=group):
            if f.object_id in subj:
                continue
            out.append(
                Candidate(
                    f.object,
                    f.predicate,
                    f.valid_at,
                    f.invalid_at,
                    str(getattr(f.valid_precision, "value", f.valid_precision)),
                    "out",
                    f.fact,
                )
            )
        for f in m.facts(object=sid, valid_at=lo, valid_to=hi, group=group):
            if f.subject_id in subj:
                continue
            out.append(
                Candidate(
                    f.subject,
                    f.predicate,
                    f.valid_at,
                    f.invalid_at,
                    str(getattr(f.valid_precision, "value", f.valid_precision)),
                    "in",
                    f.fact,
                )
            )
    return out


def _match(x: Candidate, c: Constraint, ref: datetime) -> float:
    """How well a fact's valid time matches the asked interval: their overlap over their
    union (an open end counts up to the reference time), so that of two facts overlapping
    the question, the one told for that period beats one open since long before."""
    ov = _overlap(x, c.start, c.end)
    if ov <= 0:
        return 0.0
    a = min(x.valid_at or FAR_PAST, c.start or FAR_PAST)
    b = max(x.invalid_at or max(ref, c.end or ref), c.end or FAR_FUTURE)
    a = max(a, datetime(1000, 1, 1, tzinfo=UTC))
    span = (b - a).total_seconds()
    return ov / span if span > 0 else 0.0


def choose(
    cands: Sequence[Candidate], preds: Sequence[str], c: Constraint,
    kind: str | None = None, ref: datetime = DEFAULT_REF,
) -> tuple[Candidate | None, str]:
    """The best candidate and how it was chosen (``mapped`` predicate or ``fallback``)."""
    cands = [x for x in cands if fits(x, kind)]
    if not cands:
        return None, "none"
    mapped = [x for x in cands if x.predicate in preds]
    pool, how = (mapped, "mapped") if mapped else (list(cands), "fallback")
    rank = {p: i for i, p in enumerate(preds)}

    def key(x: Candidate) -> tuple:
        ov = _overlap(x, c.start, c.end)
        start = (x.valid_at or FAR_PAST).timestamp()
        if c.kind == "before":
            timing = start  # the latest before X
        elif c.kind == "after":
            timing = -start  # the earliest after X
        else:
            timing = 0.0
        return (
            _match(x, c, ref) if c.kind in ("range", "in") else 0.0,
            ov if c.kind in ("range", "in") else 0.0,
            timing,
            -rank.get(x.predicate, len(rank)),
            x.direction == "out",
            x.answer,
        )

    return max(pool, key=key), how


def answer_question(m: Any, group: str, subj: set[str], q: TimeQAQuestion) -> dict[str, Any]:
    c = parse_constraint(q.question)
    preds = map_predicates(q.question)
    cands = candidates(m, group, subj, c.start, c.end) if subj else []
    kind = answer_kind(q.question)
    best, how = choose(cands, preds, c, kind)
    any_time = candidates(m, group, subj) if subj else []
    best_any, _ = choose(any_time, preds, Constraint("none", None, None), kind)
    return {
        "constraint": {
            "kind": c.kind,
            "start": c.start and c.start.isoformat(),
            "end": c.end and c.end.isoformat(),
            "text": c.text,
        },
        "predicates": preds,
        "answer_kind": kind,
        "prediction": best.answer if best else "",
        "how": how,
        "chosen_fact": best.fact if best else None,
        "n_candidates": len(cands),
        "prediction_any_time": best_any.answer if best_any else "",
    }


# ----------------------------------------------------------------------------- diagnosis
def _hit(text: str, golds: Sequence[str]) -> bool:
    t = normalize_answer(text)
    if not t:
        return False
    return any(
        token_f1(text, g) >= 0.5
        or (normalize_answer(g) and (normalize_answer(g) in t or t in normalize_answer(g)))
        for g in golds
    )


def diagnose(
    m: Any, group: str, subj: set[str], q: TimeQAQuestion, rec: dict[str, Any], ref: datetime
) -> str:
    """Where the gold answer got lost (answerable questions only)."""
    golds = [g for g in q.answer_texts if g.strip()]
    if rec["em"] == 1.0:
        return "correct"
    if rec["f1"] > 0 and _hit(rec["prediction"], golds):
        return "partial_span"
    all_facts = m.facts(valid_at=FAR_PAST, valid_to=FAR_FUTURE, group=group)
    if not any(_hit(f.object, golds) or _hit(f.subject, golds) for f in all_facts):
        return "never_extracted"
    if not subj:
        return "subject_not_found"
    mine = candidates(m, group, subj)
    hits = [x for x in mine if _hit(x.answer, golds)]
    if not hits:
        return "not_linked_to_subject"
    preds = rec["predicates"]
    mapped = [x for x in hits if not preds or x.predicate in preds]
    if preds and not mapped:
        return "predicate_not_mapped"
    c = parse_constraint(q.question)
    timely = [x for x in mapped if _overlap(x, c.start, c.end) > 0 or c.kind == "none"]
    if not timely:
        undated = all(x.precision == "instant" and x.valid_at == ref for x in mapped)
        return "no_date_in_text" if undated else "wrong_time"
    return "not_selected"


# ----------------------------------------------------------------------------- run
def _episodes(doc: TimeQADocument, ref: datetime, unit: str) -> list[dict[str, Any]]:
    """The document as episodes: one per paragraph, or the whole text as one (paragraphs
    joined by blank lines, as a user would add an article)."""
    paras = [p for p in doc.paras if p.strip()]
    if unit == "document":
        return [{"content": "\n\n".join(paras), "reference_time": ref, "source": "text",
                 "source_description": f"TimeQA {doc.index}"}] if paras else []
    return [
        {
            "content": p,
            "reference_time": ref,
            "source": "text",
            "source_description": f"TimeQA {doc.index} paragraph {j}",
        }
        for j, p in enumerate(paras)
    ]


def _group(i: int, doc: TimeQADocument) -> str:
    name = re.sub(r"[^A-Za-z0-9_.:-]+", "_", title_of(doc))[:80] or "doc"
    return f"tq{i:03d}-{name}"


def run(
    limit: int | None = None,
    *,
    data_path: Path | None = None,
    ref: datetime = DEFAULT_REF,
    workdir: Path | None = None,
    progress: bool = False,
    documents: Sequence[str] | None = None,
    span: tuple[int, int] | None = None,
    unit: str = "document",
) -> dict[str, Any]:
    """Ingest and answer the first ``limit`` documents (all when None), or the documents
    whose ``index`` is in ``documents``, or those at positions ``span`` = [first, stop)
    (the dev half is 0:129, the held-out half 129:257)."""
    from benchmarks.kgmem_api import open_replay_memory

    ds = load_timeqa(data_path) if data_path else load_timeqa()
    docs = ds.documents
    if documents is not None:
        wanted = set(documents)
        docs = [d for d in docs if d.index in wanted]
    if span is not None:
        docs = docs[span[0]:span[1]]
    docs = docs if limit is None else docs[:limit]
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-timeqa-")) if workdir is None else workdir
    path = tmp / "store"
    if path.exists():
        shutil.rmtree(path)
    # kgmem with its product default (offline extraction on): answers come from facts only,
    # so there is no extraction-off variant of this suite
    m = open_replay_memory(path, extract=True, clock=lambda: ref)
    records: list[dict[str, Any]] = []
    ingest_s = 0.0
    n_paras = 0
    try:
        for i, doc in enumerate(docs):
            group = _group(i, doc)
            t0 = time.perf_counter()
            items = _episodes(doc, ref, unit)
            m.add_episodes(items, group=group)
            ingest_s += time.perf_counter() - t0
            n_paras += sum(1 for p in doc.paras if p.strip())
            ents = m.entities(group=group, limit=100_000)
            subj = subject_ids(ents, title_of(doc), doc.paras[0] if doc.paras else "")
            for q in doc.questions:
                rec = answer_question(m, group, subj, q)
                golds = q.answer_texts or [""]
                answerable = any(g.strip() for g in golds)
                rec.update(
                    {
                        "question_id": q.question_id,
                        "question": q.question,
                        "relation": doc.relation,
                        "relation_label": RELATIONS.get(doc.relation, doc.relation),
                        "gold": golds,
                        "answerable": answerable,
                        "em": exact_match(rec["prediction"], golds),
                        "f1": token_f1(rec["prediction"], golds),
                        "em_any_time": exact_match(rec["prediction_any_time"], golds),
                        "f1_any_time": token_f1(rec["prediction_any_time"], golds),
                        "subject": title_of(doc),
                        "subject_entities": len(subj),
                        "group": group,
                    }
                )
                if answerable:
                    rec["diagnosis"] = diagnose(m, group, subj, q, rec, ref)
                else:
                    rec["diagnosis"] = "correct" if rec["em"] else "answered_unanswerable"
                records.append(rec)
            if progress:
                done = [r for r in records if r["group"] == group]
                print(
                    f"[{i + 1}/{len(docs)}] {doc.index}: {len(items)} paragraphs, "
                    f"{sum(r['em'] for r in done):.0f}/{len(done)} EM",
                    file=sys.stderr,
                    flush=True,
                )
        facts_total = (
            sum(m.stats(group=_group(i, d)).get("lineages", 0) for i, d in enumerate(docs))
            if docs
            else 0
        )
    finally:
        m.close()
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "records": records,
        "documents": len(docs),
        "paragraphs": n_paras,
        "ingest_s": ingest_s,
        "facts": facts_total,
        "reference_time": ref.isoformat(),
        "sha256_ok": ds.sha256_ok,
    }


def _mean(xs: Iterable[float]) -> float | None:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def _block(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "n": len(rs),
        "em": _mean(r["em"] for r in rs),
        "f1": _mean(r["f1"] for r in rs),
        "em_any_time": _mean(r["em_any_time"] for r in rs),
        "f1_any_time": _mean(r["f1_any_time"] for r in rs),
    }


def summarize(res: dict[str, Any]) -> dict[str, Any]:
    rs = res["records"]
    ans = [r for r in rs if r["answerable"]]
    by_rel: dict[str, list] = defaultdict(list)
    by_con: dict[str, list] = defaultdict(list)
    for r in rs:
        label = r["relation_label"] if r["relation_label"] != r["relation"] else ""
        by_rel[f"{r['relation']} {label}".strip()].append(r)
        by_con[r["constraint"]["kind"]].append(r)
    return {
        "suite": "timeqa",
        "data": "TimeQA human-annotated test (BSD-3-Clause)",
        "metric": "SQuAD exact match and token F1 vs the gold answers (max over answers); "
        "unanswerable questions have gold '' and are right when the answer is ''",
        "documents": res["documents"],
        "paragraphs": res["paragraphs"],
        "facts": res["facts"],
        "reference_time": res["reference_time"],
        "sha256_ok": res["sha256_ok"],
        "ingest_s": res["ingest_s"],
        "paragraphs_per_s": res["paragraphs"] / res["ingest_s"] if res["ingest_s"] else None,
        "all": _block(rs),
        "answerable": _block(ans),
        "unanswerable": _block([r for r in rs if not r["answerable"]]),
        "predicted_empty": sum(1 for r in rs if not r["prediction"]),
        "baseline_always_empty_em": _mean(0.0 if r["answerable"] else 1.0 for r in rs),
        "by_relation": {
            k: _block(v) for k, v in sorted(by_rel.items(), key=lambda kv: -len(kv[1]))
        },
        "by_constraint": {k: _block(v) for k, v in sorted(by_con.items())},
        "answerable_diagnosis": dict(Counter(r["diagnosis"] for r in ans).most_common()),
        "chosen_by": dict(Counter(r["how"] for r in rs).most_common()),
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def write_outputs(
    res: dict[str, Any], summary: dict[str, Any], out: Path, n_samples: int = 20
) -> dict[str, Path]:
    from benchmarks.report import markdown_table, write_markdown_report

    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "questions": out / "questions.jsonl",
        "summary": out / "summary.json",
        "report": out / "report.md",
    }
    write_jsonl(paths["questions"], res["records"])
    write_json(paths["summary"], summary)
    head = ["questions", "n", "EM", "F1", "EM (time ignored)", "F1 (time ignored)"]

    def row(name: str, b: dict[str, Any]) -> list[Any]:
        return [
            name,
            b["n"],
            _pct(b["em"]),
            _pct(b["f1"]),
            _pct(b["em_any_time"]),
            _pct(b["f1_any_time"]),
        ]

    main = markdown_table(
        head,
        [
            row("all", summary["all"]),
            row("answerable", summary["answerable"]),
            row("unanswerable (gold '')", summary["unanswerable"]),
        ],
    )
    rel = markdown_table(
        ["relation"] + head[1:], [row(k, v) for k, v in summary["by_relation"].items()]
    )
    con = markdown_table(
        ["constraint"] + head[1:], [row(k, v) for k, v in summary["by_constraint"].items()]
    )
    diag_n = sum(summary["answerable_diagnosis"].values()) or 1
    diag = markdown_table(
        ["where the gold answer got lost", "n", "share"],
        [[k, v, f"{100 * v / diag_n:.1f}%"] for k, v in summary["answerable_diagnosis"].items()],
    )
    bad = [r for r in res["records"] if r["answerable"] and r["em"] < 1]
    sample = random.Random(0).sample(bad, min(n_samples, len(bad)))
    lines = [
        f"- **{r['diagnosis']}**: {r['question']}  \n  gold: {r['gold']}; predicted: "
        f'"{r["prediction"]}" ({r["how"]}, {r["n_candidates"]} candidates; fact: '
        f"{r['chosen_fact']}); constraint {r['constraint']['kind']} "
        f"{(r['constraint']['start'] or '')[:10]}..{(r['constraint']['end'] or '')[:10]}; "
        f"predicates {r['predicates']}"
        for r in sample
    ]
    sections = [
        (
            "Setup",
            f"{summary['documents']} documents, {summary['paragraphs']} paragraphs "
            f"ingested as episodes (reference time {summary['reference_time'][:10]}), "
            f"{summary['facts']} facts extracted offline; ingestion "
            f'{summary["ingest_s"]:.1f} s. Metric: {summary["metric"]}. "Time ignored"'
            " answers from the same facts without the time constraint (diagnostic).",
        ),
        (
            "Results",
            main + f"\n\nQuestions answered with no fact (prediction ''): "
            f"{summary['predicted_empty']}; answer chosen by "
            f"{summary['chosen_by']}. Trivial baseline: always answering '' scores EM "
            f"{_pct(summary['baseline_always_empty_em'])} over all questions (0% on "
            "answerable ones): compare systems on answerable questions.",
        ),
        ("Answerable questions: failure breakdown", diag),
        ("Per constraint type", con),
        ("Per relation type (document's Wikidata property)", rel),
        (f"Sample of {len(sample)} failed answerable questions", "\n".join(lines) or "none"),
    ]
    write_markdown_report(paths["report"], "kgmem on TimeQA (offline extraction)", sections)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="first N documents (default all)")
    ap.add_argument("--docs", default=None, metavar="FIRST:STOP",
                    help="documents by position, e.g. 0:129 (dev half) or 129:257 (held out)")
    ap.add_argument("--data", type=Path, default=None, help="human_annotated_test.json")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--reference-time", default=DEFAULT_REF.isoformat())
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--unit", choices=("paragraph", "document"), default="document",
                    help="one episode per paragraph, or the whole document as one episode")
    args = ap.parse_args(argv)
    ref = datetime.fromisoformat(args.reference_time)
    ref = ref if ref.tzinfo else ref.replace(tzinfo=UTC)
    span = None
    if args.docs:
        first, _, stop = args.docs.partition(":")
        span = (int(first or 0), int(stop) if stop else 10**9)
    res = run(args.limit, data_path=args.data, ref=ref, progress=not args.quiet, span=span,
              unit=args.unit)
    summary = summarize(res)
    paths = write_outputs(res, summary, args.out, args.samples)
    for name in ("all", "answerable", "unanswerable"):
        b = summary[name]
        print(
            f"{name:12s} n={b['n']:4d}  EM {_pct(b['em']):>6s}  F1 {_pct(b['f1']):>6s}   "
            f"(time ignored: EM {_pct(b['em_any_time'])}, F1 {_pct(b['f1_any_time'])})"
        )
    print(
        f"(always answering '' scores EM {_pct(summary['baseline_always_empty_em'])} "
        "over all questions)"
    )
    print("answerable, where the gold answer got lost:", summary["answerable_diagnosis"])
    print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
