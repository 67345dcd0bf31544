"""LoCoMo (Maharana et al., ACL 2024) loader: ``locomo/locomo10.json`` into typed records.

Data license: CC BY-NC 4.0 (non-commercial; attribute the paper). See ``locomo/SOURCE.md``.

Facts about the file this loader relies on (checked on the sha256-pinned copy):

* 10 conversations, 272 sessions, 5,882 turns, 1,986 questions. Conversation 0 also lists
  ``session_20_date_time`` .. ``session_35_date_time`` without sessions: ignored (counted).
* Session dates look like ``"1:56 pm on 8 May, 2023"``; they carry no zone and are read as
  UTC (the project's policy for naive times). Turns carry no time of their own: each turn's
  timestamp is its session's date.
* Categories (official code): 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
  5 adversarial. Mem0's paper mislabels 1/3/4; we use the official names.
* Evidence is a list of turn ids ``D<session>:<turn>``, but some entries are malformed
  (``"D"``), point at missing turns (``D10:19``, ``D4:36``), are non-canonical
  (``D:11:26``, ``D30:05``) or hold several ids in one string (``"D8:6; D9:17"``,
  ``"D9:1 D4:4 D4:6"``). :func:`parse_evidence` handles all of these and reports each issue;
  ids pointing at missing turns are dropped from both turn and session gold (the audit file
  agrees: it drops ``D4:36`` and replaces ``D10:19``).
* 4 questions have an empty evidence list: not usable for retrieval scoring (1,982 remain).

``locomo_audit_errors.json`` (dial481/locomo-audit, CC BY-NC 4.0) corrects the evidence and
answers of 156 questions; ``load_locomo(..., audit=True)`` attaches them and
``LocomoQuestion.gold_turn_ids(corrected=True)`` uses them. Report both.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.datasets._common import (
    DatasetNotFoundError,
    default_data_dir,
    expected_sha256_from_source_md,
    verify_sha256,
)
from benchmarks.task import Haystack, Question, RetrievalTask, Session, Turn
from kgmem.ingest.formats import parse_locomo_datetime  # noqa: F401 (re-exported)

LOCOMO_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
AUDIT_SHA256 = "f298ef46263fada20688a1d672be37d4f488c6da3b19343eea55ae5c1b5fe55e"

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}

_ID_RE = re.compile(r"^D:?(\d+):(\d+)$")
_SPLIT_RE = re.compile(r"[;,\s]+")


@dataclass(frozen=True)
class LocomoTurn:
    dia_id: str
    session: int
    index: int  # 1-based position in the session
    speaker: str
    text: str
    timestamp: datetime  # the session's date
    img_caption: str | None = None  # "blip_caption" when the turn shares an image
    img_url: str | None = None


@dataclass(frozen=True)
class LocomoSession:
    index: int
    date_text: str
    date: datetime
    turns: tuple[LocomoTurn, ...]

    @property
    def session_id(self) -> str:
        return f"S{self.index}"


@dataclass(frozen=True)
class LocomoConversation:
    conv_index: int
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[LocomoSession, ...]
    orphan_dates: tuple[str, ...] = ()  # session_N_date_time keys without a session

    @property
    def turns(self) -> list[LocomoTurn]:
        return [t for s in self.sessions for t in s.turns]

    @property
    def turn_ids(self) -> set[str]:
        return {t.dia_id for s in self.sessions for t in s.turns}


@dataclass(frozen=True)
class EvidenceIssue:
    raw: str  # the evidence string as found
    kind: str  # "split" | "normalized" | "malformed" | "missing_turn"
    detail: str = ""


@dataclass
class LocomoQuestion:
    conv_index: int
    qa_index: int
    question: str
    answer: str | None  # None for most adversarial questions (see adversarial_answer)
    category: int
    evidence_raw: list[str]
    evidence: list[str]  # parsed, canonical, existing turn ids (order kept, no duplicates)
    evidence_issues: list[EvidenceIssue] = field(default_factory=list)
    adversarial_answer: str | None = None
    # from locomo_audit_errors.json when loaded with audit=True
    audit_error_type: str | None = None
    corrected_evidence: list[str] | None = None
    corrected_answer: str | None = None

    @property
    def question_id(self) -> str:
        """The audit file's id: ``locomo_<conv>_qa<idx>`` (both 0-based)."""
        return f"locomo_{self.conv_index}_qa{self.qa_index}"

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, f"category-{self.category}")

    def gold_turn_ids(self, corrected: bool = False) -> list[str]:
        if corrected and self.corrected_evidence is not None:
            return list(self.corrected_evidence)
        return list(self.evidence)

    def gold_session_ids(self, corrected: bool = False) -> list[str]:
        out: list[str] = []
        for tid in self.gold_turn_ids(corrected):
            sid = "S" + tid[1:].split(":")[0]
            if sid not in out:
                out.append(sid)
        return out

    def usable(self, corrected: bool = False) -> bool:
        """True when there is at least one valid gold turn to score retrieval against."""
        return bool(self.gold_turn_ids(corrected))


@dataclass
class LocomoDataset:
    path: Path
    conversations: list[LocomoConversation]
    questions: list[LocomoQuestion]
    sha256_ok: bool | None = None
    audit_applied: bool = False

    def stats(self) -> dict[str, Any]:
        issues = Counter(i.kind for q in self.questions for i in q.evidence_issues)
        return {
            "conversations": len(self.conversations),
            "sessions": sum(len(c.sessions) for c in self.conversations),
            "turns": sum(len(s.turns) for c in self.conversations for s in c.sessions),
            "questions": len(self.questions),
            "questions_by_category": dict(
                sorted(Counter(q.category for q in self.questions).items())
            ),
            "empty_evidence": sum(1 for q in self.questions if not q.evidence_raw),
            "usable": sum(1 for q in self.questions if q.usable()),
            "usable_corrected": sum(1 for q in self.questions if q.usable(corrected=True)),
            "evidence_issues": dict(sorted(issues.items())),
            "questions_with_issues": sum(1 for q in self.questions if q.evidence_issues),
            "orphan_session_dates": sum(len(c.orphan_dates) for c in self.conversations),
            "audited_questions": sum(1 for q in self.questions if q.audit_error_type),
            "sha256_ok": self.sha256_ok,
        }

    def to_retrieval_task(self, *, corrected: bool = False) -> RetrievalTask:
        """Haystack per conversation; questions with usable evidence only."""
        haystacks = {str(c.conv_index): conversation_haystack(c) for c in self.conversations}
        questions = [
            Question(
                question_id=q.question_id,
                haystack_id=str(q.conv_index),
                question=q.question,
                answer=(q.corrected_answer if corrected and q.corrected_answer else q.answer),
                category=q.category_name,
                gold_turn_ids=tuple(q.gold_turn_ids(corrected)),
                gold_session_ids=tuple(q.gold_session_ids(corrected)),
                extra={
                    "category_number": q.category,
                    "evidence_raw": q.evidence_raw,
                    "evidence_issues": [i.kind for i in q.evidence_issues],
                    "audit_error_type": q.audit_error_type,
                    "adversarial_answer": q.adversarial_answer,
                },
            )
            for q in self.questions
            if q.usable(corrected)
        ]
        return RetrievalTask(
            name="locomo" + ("-corrected" if corrected else ""),
            haystacks=haystacks,
            questions=questions,
            notes={"evidence": "audit-corrected" if corrected else "original", **self.stats()},
        )


def conversation_haystack(conv: LocomoConversation) -> Haystack:
    sessions = tuple(
        Session(
            session_id=s.session_id,
            date=s.date,
            turns=tuple(
                Turn(
                    turn_id=t.dia_id,
                    session_id=s.session_id,
                    speaker=t.speaker,
                    text=t.text,
                    timestamp=t.timestamp,
                    image_caption=t.img_caption,
                )
                for t in s.turns
            ),
        )
        for s in conv.sessions
    )
    return Haystack(haystack_id=str(conv.conv_index), sessions=sessions)


def parse_evidence(raw: list[Any], existing: set[str]) -> tuple[list[str], list[EvidenceIssue]]:
    """Parse a LoCoMo evidence list into canonical existing turn ids, reporting issues.

    Each entry may hold several ids separated by ``;``, ``,`` or spaces ("split"); an id is
    canonicalised (``D:11:26`` -> ``D11:26``, ``D30:05`` -> ``D30:5``: "normalized");
    something that is not an id (``D``) is "malformed"; a well-formed id absent from the
    conversation is "missing_turn". Only existing ids are returned, in order, deduplicated.
    """
    ids: list[str] = []
    issues: list[EvidenceIssue] = []
    for entry in raw:
        text = str(entry).strip()
        parts = [p for p in _SPLIT_RE.split(text) if p]
        if len(parts) > 1:
            issues.append(EvidenceIssue(text, "split", f"{len(parts)} ids"))
        if not parts:
            issues.append(EvidenceIssue(text, "malformed", "empty"))
        for part in parts:
            m = _ID_RE.match(part)
            if not m:
                issues.append(EvidenceIssue(part, "malformed"))
                continue
            canon = f"D{int(m.group(1))}:{int(m.group(2))}"
            if canon != part:
                issues.append(EvidenceIssue(part, "normalized", canon))
            if canon not in existing:
                issues.append(EvidenceIssue(part, "missing_turn", canon))
                continue
            if canon not in ids:
                ids.append(canon)
    return ids, issues


def _answer_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _parse_conversation(conv_index: int, sample: dict[str, Any]) -> LocomoConversation:
    conv = sample["conversation"]
    session_nums = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    dated = sorted(
        int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)_date_time", k))
    )
    sessions = []
    for n in session_nums:
        date_text = conv.get(f"session_{n}_date_time", "")
        date = parse_locomo_datetime(date_text)
        turns = tuple(
            LocomoTurn(
                dia_id=str(t["dia_id"]),
                session=n,
                index=i + 1,
                speaker=str(t.get("speaker", "")),
                text=str(t.get("text", "")),
                timestamp=date,
                img_caption=t.get("blip_caption"),
                img_url=(
                    t["img_url"][0]
                    if isinstance(t.get("img_url"), list) and t["img_url"]
                    else t.get("img_url") or None
                ),
            )
            for i, t in enumerate(conv[f"session_{n}"])
        )
        sessions.append(LocomoSession(index=n, date_text=date_text, date=date, turns=turns))
    orphans = tuple(conv[f"session_{n}_date_time"] for n in dated if n not in set(session_nums))
    return LocomoConversation(
        conv_index=conv_index,
        sample_id=str(sample.get("sample_id", conv_index)),
        speakers=(str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))),
        sessions=tuple(sessions),
        orphan_dates=orphans,
    )


def default_locomo_path() -> Path:
    return default_data_dir() / "locomo" / "locomo10.json"


def load_locomo(
    path: str | Path | None = None,
    *,
    audit: bool | str | Path = False,
    verify: bool = True,
) -> LocomoDataset:
    """Load locomo10.json.

    ``audit``: False, True (``locomo_audit_errors.json`` next to the data file) or a path.
    ``verify``: compare sha256 with the SOURCE.md value (warn on mismatch).
    """
    p = Path(path) if path is not None else default_locomo_path()
    if not p.is_file():
        raise DatasetNotFoundError(
            f"LoCoMo file not found at {p}. Get data/locomo10.json from "
            "github.com/snap-research/locomo (CC BY-NC 4.0) and set KGMEM_BENCH_DATA "
            "to the folder holding locomo/locomo10.json."
        )
    sha_ok = None
    if verify:
        expected = expected_sha256_from_source_md(p.parent / "SOURCE.md", p.name)
        sha_ok = verify_sha256(p, expected or LOCOMO_SHA256)
    raw = json.loads(p.read_text(encoding="utf-8"))
    conversations = [_parse_conversation(i, s) for i, s in enumerate(raw)]
    questions: list[LocomoQuestion] = []
    for conv, sample in zip(conversations, raw):
        existing = conv.turn_ids
        for qi, qa in enumerate(sample.get("qa", [])):
            ev_raw = qa.get("evidence") or []
            if not isinstance(ev_raw, list):
                ev_raw = [ev_raw]
            ids, issues = parse_evidence(ev_raw, existing)
            questions.append(
                LocomoQuestion(
                    conv_index=conv.conv_index,
                    qa_index=qi,
                    question=str(qa.get("question", "")),
                    answer=_answer_text(qa.get("answer")),
                    category=int(qa.get("category", 0)),
                    evidence_raw=[str(e) for e in ev_raw],
                    evidence=ids,
                    evidence_issues=issues,
                    adversarial_answer=_answer_text(qa.get("adversarial_answer")),
                )
            )
    ds = LocomoDataset(path=p, conversations=conversations, questions=questions, sha256_ok=sha_ok)
    if audit:
        audit_path = p.parent / "locomo_audit_errors.json" if audit is True else Path(audit)
        apply_audit(ds, audit_path, verify=verify)
    return ds


def apply_audit(ds: LocomoDataset, audit_path: Path, *, verify: bool = True) -> int:
    """Attach corrected evidence/answers from locomo_audit_errors.json; returns how many."""
    if not audit_path.is_file():
        raise DatasetNotFoundError(
            f"LoCoMo audit file not found at {audit_path} (errors.json of "
            "github.com/dial481/locomo-audit, CC BY-NC 4.0)."
        )
    if verify:
        expected = expected_sha256_from_source_md(audit_path.parent / "SOURCE.md", audit_path.name)
        verify_sha256(audit_path, expected or AUDIT_SHA256)
    by_id = {q.question_id: q for q in ds.questions}
    existing = {c.conv_index: c.turn_ids for c in ds.conversations}
    n = 0
    for item in json.loads(audit_path.read_text(encoding="utf-8")):
        q = by_id.get(str(item.get("question_id")))
        if q is None:
            continue
        ids, _ = parse_evidence(item.get("correct_evidence") or [], existing[q.conv_index])
        q.corrected_evidence = ids
        q.corrected_answer = _answer_text(item.get("correct_answer"))
        q.audit_error_type = item.get("error_type")
        n += 1
    ds.audit_applied = True
    return n
