"""LongMemEval (Wu et al., ICLR 2025) loader. Data license: MIT ("Copyright (c) 2024 Di Wu").

The data is NOT shipped with kgmem nor present on our machines; users place the files in
``$LONGMEMEVAL_DIR`` or ``<bench data>/longmemeval/`` (see :func:`find_longmemeval_file`).
Files (cleaned 2025-09 release, HF ``xiaowu0162/longmemeval-cleaned``):
``longmemeval_oracle.json``, ``longmemeval_s_cleaned.json``, ``longmemeval_m_cleaned.json``;
the original release (``xiaowu0162/longmemeval``) has ``longmemeval_oracle``,
``longmemeval_s``, ``longmemeval_m`` without extension. Both are accepted.

Schema (one JSON list of questions): ``question_id``, ``question_type``, ``question``,
``answer`` (str or int), ``question_date`` ("2023/05/30 (Tue) 23:40"),
``haystack_session_ids``, ``haystack_dates``, ``haystack_sessions`` (list of sessions, each
a list of ``{role, content, has_answer?}``), ``answer_session_ids``. Abstention questions
have ``question_id`` ending in ``_abs``.

Evidence: session level = ``answer_session_ids``; turn level = turns with ``has_answer``
true, id ``<session_id>_<1-based index in the session>`` (the official id scheme, counting
user and assistant turns). Questions of type single-session-assistant have their evidence in
assistant turns only; the official retrieval evaluation (user turns only) cannot score them,
see :func:`benchmarks.metrics.longmemeval_official_retrieval`.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.datasets._common import DatasetNotFoundError, default_data_dir, verify_sha256
from benchmarks.task import Haystack, Question, RetrievalTask, Session, Turn
from kgmem.ingest.formats import parse_longmemeval_date  # noqa: F401 (re-exported)

LONGMEMEVAL_ENV_VAR = "LONGMEMEVAL_DIR"

# Published pins (from data/longmemeval_NOT_INCLUDED.md; not verified on these machines).
KNOWN_SHA256: dict[str, str] = {
    "longmemeval_oracle.json": "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c",
    "longmemeval_s_cleaned.json": "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
}

# Candidate file names per variant, preferred first.
VARIANT_FILES: dict[str, tuple[str, ...]] = {
    "oracle": ("longmemeval_oracle.json", "longmemeval_oracle"),
    "s": ("longmemeval_s_cleaned.json", "longmemeval_s.json", "longmemeval_s"),
    "m": ("longmemeval_m_cleaned.json", "longmemeval_m.json", "longmemeval_m"),
}

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)

WHERE_TO_GET = (
    "LongMemEval is not shipped with kgmem. Download it (MIT license) from the Hugging Face "
    "dataset 'xiaowu0162/longmemeval-cleaned' (longmemeval_oracle.json, "
    "longmemeval_s_cleaned.json, longmemeval_m_cleaned.json) or the original "
    "'xiaowu0162/longmemeval', or the archive linked from github.com/xiaowu0162/LongMemEval, "
    f"and put the files in ${LONGMEMEVAL_ENV_VAR} or <KGMEM_BENCH_DATA>/longmemeval/."
)

@dataclass(frozen=True)
class LMETurn:
    turn_id: str  # "<session_id>_<index from 1>"
    role: str
    content: str
    has_answer: bool | None  # None when the field is absent


@dataclass(frozen=True)
class LMESession:
    session_id: str
    date_text: str
    date: datetime | None
    turns: tuple[LMETurn, ...]


@dataclass(frozen=True)
class LongMemEvalQuestion:
    question_id: str
    question_type: str
    question: str
    answer: str
    question_date_text: str
    question_date: datetime | None
    sessions: tuple[LMESession, ...]
    answer_session_ids: tuple[str, ...]

    @property
    def is_abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    def evidence_turn_ids(self) -> list[str]:
        """Turn-level evidence: every turn with has_answer true (user or assistant)."""
        return [t.turn_id for s in self.sessions for t in s.turns if t.has_answer]

    def user_turn_ids(self) -> set[str]:
        return {t.turn_id for s in self.sessions for t in s.turns if t.role == "user"}

    def user_evidence_turn_ids(self) -> list[str]:
        return [
            t.turn_id for s in self.sessions for t in s.turns if t.has_answer and t.role == "user"
        ]

    def user_evidence_session_ids(self) -> list[str]:
        """Answer sessions holding a user-side has_answer turn (official session gold)."""
        ans = set(self.answer_session_ids)
        return [
            s.session_id
            for s in self.sessions
            if s.session_id in ans and any(t.has_answer and t.role == "user" for t in s.turns)
        ]

    def haystack(self) -> Haystack:
        return Haystack(
            haystack_id=self.question_id,
            sessions=tuple(
                Session(
                    session_id=s.session_id,
                    date=s.date,
                    turns=tuple(
                        Turn(
                            turn_id=t.turn_id,
                            session_id=s.session_id,
                            speaker=t.role,
                            text=t.content,
                            timestamp=s.date,
                            has_answer=t.has_answer,
                        )
                        for t in s.turns
                    ),
                )
                for s in self.sessions
            ),
        )


@dataclass
class LongMemEvalDataset:
    path: Path
    questions: list[LongMemEvalQuestion]
    sha256_ok: bool | None = None

    def stats(self) -> dict[str, Any]:
        return {
            "questions": len(self.questions),
            "by_type": dict(sorted(Counter(q.question_type for q in self.questions).items())),
            "abstention": sum(q.is_abstention for q in self.questions),
            "no_user_side_evidence": sum(
                1 for q in self.questions if not q.is_abstention and not q.user_evidence_turn_ids()
            ),
            "sessions": sum(len(q.sessions) for q in self.questions),
            "sha256_ok": self.sha256_ok,
        }

    def to_retrieval_task(self, *, include_abstention: bool = False) -> RetrievalTask:
        """One haystack per question; gold = answer sessions and has_answer turns (any role).

        Abstention questions are left out unless asked for (they have no gold by design).
        """
        haystacks: dict[str, Haystack] = {}
        questions: list[Question] = []
        for q in self.questions:
            if q.is_abstention and not include_abstention:
                continue
            haystacks[q.question_id] = q.haystack()
            questions.append(
                Question(
                    question_id=q.question_id,
                    haystack_id=q.question_id,
                    question=q.question,
                    answer=q.answer,
                    category=q.question_type,
                    gold_turn_ids=tuple(q.evidence_turn_ids()),
                    gold_session_ids=tuple(q.answer_session_ids),
                    question_date=q.question_date,
                    is_abstention=q.is_abstention,
                    extra={"question_date_text": q.question_date_text},
                )
            )
        return RetrievalTask(
            name=f"longmemeval:{self.path.name}",
            haystacks=haystacks,
            questions=questions,
            notes=self.stats(),
        )


def _parse_question(item: dict[str, Any]) -> LongMemEvalQuestion:
    sids = list(item.get("haystack_session_ids") or [])
    dates = list(item.get("haystack_dates") or [])
    sessions = []
    for i, raw_session in enumerate(item.get("haystack_sessions") or []):
        sid = str(sids[i]) if i < len(sids) else f"session_{i}"
        dtext = str(dates[i]) if i < len(dates) else ""
        try:
            date = parse_longmemeval_date(dtext) if dtext else None
        except ValueError:
            date = None
        turns = tuple(
            LMETurn(
                turn_id=f"{sid}_{j + 1}",
                role=str(t.get("role", "")),
                content=str(t.get("content", "")),
                has_answer=(bool(t["has_answer"]) if "has_answer" in t else None),
            )
            for j, t in enumerate(raw_session)
        )
        sessions.append(LMESession(session_id=sid, date_text=dtext, date=date, turns=turns))
    qdate_text = str(item.get("question_date", ""))
    try:
        qdate = parse_longmemeval_date(qdate_text) if qdate_text else None
    except ValueError:
        qdate = None
    return LongMemEvalQuestion(
        question_id=str(item["question_id"]),
        question_type=str(item.get("question_type", "")),
        question=str(item.get("question", "")),
        answer=str(item.get("answer", "")),
        question_date_text=qdate_text,
        question_date=qdate,
        sessions=tuple(sessions),
        answer_session_ids=tuple(str(x) for x in item.get("answer_session_ids") or []),
    )


def longmemeval_dirs() -> list[Path]:
    """Folders searched, in order: ``$LONGMEMEVAL_DIR``, ``<bench data>/longmemeval``."""
    out = []
    if env := os.environ.get(LONGMEMEVAL_ENV_VAR):
        out.append(Path(env).expanduser())
    out.append(default_data_dir() / "longmemeval")
    return out


def find_longmemeval_file(variant: str) -> Path:
    """The first existing file for ``variant`` ("oracle", "s" or "m"), else a clear error."""
    if variant not in VARIANT_FILES:
        raise ValueError(f"variant must be one of {sorted(VARIANT_FILES)}, got {variant!r}")
    tried = []
    for d in longmemeval_dirs():
        for name in VARIANT_FILES[variant]:
            p = d / name
            tried.append(str(p))
            if p.is_file():
                return p
    raise DatasetNotFoundError(
        f"LongMemEval '{variant}' file not found (looked for {', '.join(tried)}). " + WHERE_TO_GET
    )


def load_longmemeval(
    path: str | Path | None = None,
    *,
    variant: str = "s",
    verify: bool = True,
) -> LongMemEvalDataset:
    """Load a LongMemEval file (``path``, or the file found for ``variant``).

    ``verify``: compare sha256 with the known pin for that file name, when one is known;
    a mismatch warns (the cleaned and original releases differ).
    """
    if path is None:
        p = find_longmemeval_file(variant)
    else:
        p = Path(path)
        if not p.is_file():
            raise DatasetNotFoundError(f"LongMemEval file not found at {p}. " + WHERE_TO_GET)
    sha_ok = verify_sha256(p, KNOWN_SHA256.get(p.name)) if verify else None
    with open(p, encoding="utf-8") as fh:
        raw = json.load(fh)
    if not isinstance(raw, list):
        raise ValueError(f"{p}: expected a JSON list of questions, got {type(raw).__name__}")
    return LongMemEvalDataset(path=p, questions=[_parse_question(x) for x in raw], sha256_ok=sha_ok)
