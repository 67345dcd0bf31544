"""Zyphra temporal-memory dataset (Alonso et al., 2024, arXiv:2406.00057) loader.

No license upstream; the logs are modified LoCoMo conversations (CC BY-NC 4.0): treat as
non-commercial research data and attribute both papers. See
``zyphra_temporal_memory/SOURCE.md``.

Layout (learned from the files):

* ``ConversationData/<log id>.json`` (12 logs: 26, 28, 31, 41..49): a LoCoMo-style
  ``conversation`` object (``speaker_a``, ``speaker_b``, ``session_<n>_date_time``,
  ``session_<n>``) whose turns also carry ``date_time`` ("01:56:04 AM on Monday 08 May, 2023")
  and a global ``response_number`` ("0".."N-1", contiguous across sessions).
* ``TestData/<family>/<file>.json`` for families ``time_qs`` (plain questions),
  ``ambiguous_time_qs`` (each "question" is a short dialogue, a list of
  ``{speaker, text}``) and ``content_time_qs`` (content + time). Each file is a dict:
  ``file_indexes`` (the log ids) and ``file_<log id>``: a list of groups
  ``{"questions": [variant, ...], "relevant_docs": [response_number, ...]}``; every variant
  of a group shares the gold. Some time_qs groups repeat a variant verbatim: kept as given.
* Relative questions ("167 days ago", "last Friday", "earlier today") are relative to the
  date of the log's last message: :attr:`ZyphraLog.reference_time`.

Metric used by the paper: gold hits in top k / min(k, |gold|)
(:func:`benchmarks.metrics.zyphra_recall_at_k`).
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
from benchmarks.datasets.locomo import parse_locomo_datetime
from benchmarks.task import Haystack, Question, RetrievalTask, Session, Turn

FAMILIES = ("time_qs", "ambiguous_time_qs", "content_time_qs")

_TURN_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2}):(\d{2})\s*([AaPp][Mm])\s+on\s+(?:[A-Za-z]+\s+)?(\d{1,2})\s+"
    r"([A-Za-z]+),?\s+(\d{4})\s*$"
)


def parse_zyphra_datetime(text: str) -> datetime:
    """``"01:56:04 AM on Monday 08 May, 2023"`` -> 2023-05-08 01:56:04 UTC (read as UTC)."""
    m = _TURN_DATE.match(text)
    if not m:
        raise ValueError(f"unrecognised Zyphra date {text!r}")
    hh, mm, ss, ampm, day, month, year = m.groups()
    base = parse_locomo_datetime(f"{int(hh)}:{mm} {ampm} on {day} {month}, {year}")
    return base.replace(second=int(ss))


@dataclass(frozen=True)
class ZyphraMessage:
    response_number: int
    dia_id: str
    session: int
    speaker: str
    text: str
    timestamp: datetime
    img_caption: str | None = None


@dataclass(frozen=True)
class ZyphraLog:
    log_id: int
    speakers: tuple[str, str]
    session_dates: dict[int, datetime]
    messages: tuple[ZyphraMessage, ...]

    @property
    def reference_time(self) -> datetime:
        """Date of the last message: 'now' for relative questions."""
        return self.messages[-1].timestamp

    def haystack(self) -> Haystack:
        sessions = []
        for n, date in sorted(self.session_dates.items()):
            turns = tuple(
                Turn(
                    turn_id=str(m.response_number),
                    session_id=f"S{n}",
                    speaker=m.speaker,
                    text=m.text,
                    timestamp=m.timestamp,
                    image_caption=m.img_caption,
                )
                for m in self.messages
                if m.session == n
            )
            sessions.append(Session(session_id=f"S{n}", date=date, turns=turns))
        return Haystack(haystack_id=str(self.log_id), sessions=tuple(sessions))


@dataclass(frozen=True)
class ZyphraQuestion:
    family: str  # time_qs | ambiguous_time_qs | content_time_qs
    qtype: str  # file stem, e.g. "test_dates", "test_rel_day", "content_time_qs"
    log_id: int
    group: int  # index of the group in the file's list for this log
    variant: int  # index of the variant in the group
    text: str  # the question; for dialogues, "speaker: text" lines joined by newlines
    dialogue: tuple[tuple[str, str], ...] | None  # ambiguous_time_qs: (speaker, text) turns
    relevant_docs: tuple[int, ...]

    @property
    def question_id(self) -> str:
        return f"{self.family}/{self.qtype}/{self.log_id}/{self.group}/{self.variant}"


@dataclass
class ZyphraDataset:
    root: Path
    logs: dict[int, ZyphraLog]
    questions: list[ZyphraQuestion]
    sha256_mismatches: list[str] = field(default_factory=list)

    def stats(self) -> dict[str, Any]:
        groups = {(q.family, q.qtype, q.log_id, q.group) for q in self.questions}
        return {
            "logs": len(self.logs),
            "messages": sum(len(lg.messages) for lg in self.logs.values()),
            "questions": len(self.questions),
            "groups": len(groups),
            "by_family": dict(sorted(Counter(q.family for q in self.questions).items())),
            "groups_by_family": dict(sorted(Counter(g[0] for g in groups).items())),
            "by_type": dict(
                sorted(Counter(f"{q.family}/{q.qtype}" for q in self.questions).items())
            ),
            "sha256_mismatches": self.sha256_mismatches,
        }

    def to_retrieval_task(self, families: tuple[str, ...] = FAMILIES) -> RetrievalTask:
        """Haystack per log; turn gold = relevant response numbers; category = family/type."""
        haystacks = {str(i): lg.haystack() for i, lg in self.logs.items()}
        questions = []
        for q in self.questions:
            if q.family not in families:
                continue
            log = self.logs[q.log_id]
            by_num = {m.response_number: m for m in log.messages}
            gold_turns = tuple(str(n) for n in q.relevant_docs if n in by_num)
            gold_sessions = tuple(dict.fromkeys(f"S{by_num[int(t)].session}" for t in gold_turns))
            questions.append(
                Question(
                    question_id=q.question_id,
                    haystack_id=str(q.log_id),
                    question=q.text,
                    answer=None,
                    category=f"{q.family}/{q.qtype}",
                    gold_turn_ids=gold_turns,
                    gold_session_ids=gold_sessions,
                    question_date=log.reference_time,
                    extra={"group": q.group, "variant": q.variant},
                )
            )
        return RetrievalTask(
            name="zyphra", haystacks=haystacks, questions=questions, notes=self.stats()
        )


def _load_log(path: Path) -> ZyphraLog:
    conv = json.loads(path.read_text(encoding="utf-8"))
    sessions = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    msgs = []
    dates = {}
    for n in sessions:
        dates[n] = parse_locomo_datetime(conv[f"session_{n}_date_time"])
        for t in conv[f"session_{n}"]:
            msgs.append(
                ZyphraMessage(
                    response_number=int(t["response_number"]),
                    dia_id=str(t.get("dia_id", "")),
                    session=n,
                    speaker=str(t.get("speaker", "")),
                    text=str(t.get("text", "")),
                    timestamp=parse_zyphra_datetime(t["date_time"]),
                    img_caption=t.get("blip_caption"),
                )
            )
    msgs.sort(key=lambda m: m.response_number)
    return ZyphraLog(
        log_id=int(path.stem),
        speakers=(str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))),
        session_dates=dates,
        messages=tuple(msgs),
    )


def _question_text(q: Any) -> tuple[str, tuple[tuple[str, str], ...] | None]:
    if isinstance(q, str):
        return q, None
    dialogue = tuple((str(t.get("speaker", "")), str(t.get("text", ""))) for t in q)
    return "\n".join(f"{s}: {t}" for s, t in dialogue), dialogue


def default_zyphra_root() -> Path:
    return default_data_dir() / "zyphra_temporal_memory"


def load_zyphra(
    root: str | Path | None = None,
    *,
    families: tuple[str, ...] = FAMILIES,
    verify: bool = True,
) -> ZyphraDataset:
    """Load the logs and the question files of ``families`` (sha256 checked per file)."""
    r = Path(root) if root is not None else default_zyphra_root()
    conv_dir = r / "ConversationData"
    if not conv_dir.is_dir():
        raise DatasetNotFoundError(
            f"Zyphra data not found at {conv_dir}; get github.com/Zyphra/TemporalMemoryDataset "
            "and set KGMEM_BENCH_DATA to the folder holding zyphra_temporal_memory/."
        )
    mismatches: list[str] = []

    def check(p: Path) -> None:
        if not verify:
            return
        rel = p.relative_to(r).as_posix()
        if verify_sha256(p, expected_sha256_from_source_md(r / "SOURCE.md", rel)) is False:
            mismatches.append(rel)

    logs = {}
    for p in sorted(conv_dir.glob("*.json"), key=lambda x: int(x.stem)):
        check(p)
        lg = _load_log(p)
        logs[lg.log_id] = lg
    questions: list[ZyphraQuestion] = []
    for fam in families:
        for p in sorted((r / "TestData" / fam).glob("*.json")):
            check(p)
            data = json.loads(p.read_text(encoding="utf-8"))
            for log_id in data.get("file_indexes", []):
                for gi, grp in enumerate(data.get(f"file_{log_id}", [])):
                    gold = tuple(int(x) for x in grp.get("relevant_docs", []))
                    for vi, raw_q in enumerate(grp.get("questions", [])):
                        text, dialogue = _question_text(raw_q)
                        questions.append(
                            ZyphraQuestion(
                                family=fam,
                                qtype=p.stem,
                                log_id=int(log_id),
                                group=gi,
                                variant=vi,
                                text=text,
                                dialogue=dialogue,
                                relevant_docs=gold,
                            )
                        )
    return ZyphraDataset(root=r, logs=logs, questions=questions, sha256_mismatches=mismatches)
