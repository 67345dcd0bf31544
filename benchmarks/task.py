"""A dataset-neutral retrieval task: haystacks of dated sessions and questions with gold ids.

Every conversational dataset (LoCoMo, LongMemEval, Zyphra) converts to this shape, so a
"system under test" (a baseline or the kgmem engine) is written once against it:

* a :class:`Haystack` is what a system ingests: dated sessions of turns (one LoCoMo
  conversation; one LongMemEval question's haystack; one Zyphra log);
* a :class:`Question` names the haystack it is asked against and carries gold turn and
  session ids, so recall is scored without an LLM.

Ids are strings, unique within a haystack: LoCoMo turn ids are its ``dia_id`` (``D3:7``) and
session ids ``S3``; LongMemEval uses its session ids and ``<session_id>_<turn index from 1>``
(the official convention); Zyphra uses ``response_number`` as turn id.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Turn:
    turn_id: str
    session_id: str
    speaker: str  # speaker name (LoCoMo, Zyphra) or role "user"/"assistant" (LongMemEval)
    text: str
    timestamp: datetime | None = None  # UTC; the session date when turns carry no time
    image_caption: str | None = None
    has_answer: bool | None = None  # LongMemEval turn-level evidence flag, when present

    def render(self, *, speaker: bool = True, caption: bool = True) -> str:
        """The text a baseline indexes: ``"<speaker>: <text> [image: <caption>]"``."""
        out = f"{self.speaker}: {self.text}" if speaker and self.speaker else self.text
        if caption and self.image_caption:
            out = f"{out} [image: {self.image_caption}]"
        return out


@dataclass(frozen=True)
class Session:
    session_id: str
    date: datetime | None
    turns: tuple[Turn, ...]

    def render(self, *, speaker: bool = True, caption: bool = True) -> str:
        return "\n".join(t.render(speaker=speaker, caption=caption) for t in self.turns)


@dataclass(frozen=True)
class Haystack:
    haystack_id: str
    sessions: tuple[Session, ...]

    def turns(self) -> Iterator[Turn]:
        for s in self.sessions:
            yield from s.turns

    @property
    def turn_to_session(self) -> dict[str, str]:
        return {t.turn_id: t.session_id for t in self.turns()}


@dataclass(frozen=True)
class Question:
    question_id: str
    haystack_id: str
    question: str
    answer: str | None
    category: str  # grouping key for per-category tables (e.g. "temporal", "multi-session")
    gold_turn_ids: tuple[str, ...]  # empty when unknown at turn level
    gold_session_ids: tuple[str, ...]
    question_date: datetime | None = None  # "now" for relative questions, when known
    is_abstention: bool = False
    extra: dict[str, object] = field(default_factory=dict)  # dataset-specific, goes to JSONL


@dataclass
class RetrievalTask:
    name: str
    haystacks: dict[str, Haystack]
    questions: list[Question]
    notes: dict[str, object] = field(default_factory=dict)

    def by_haystack(self) -> dict[str, list[Question]]:
        out: dict[str, list[Question]] = {}
        for q in self.questions:
            out.setdefault(q.haystack_id, []).append(q)
        return out


@dataclass
class Ranking:
    """What a system returns for one question: ids, best first.

    Give ``turn_ids`` (session ranking is then derived: order of first appearance) and/or
    ``session_ids``. A level left as None is reported as not applicable ("-").
    """

    turn_ids: Sequence[str] | None = None
    session_ids: Sequence[str] | None = None
    scores: Sequence[float] | None = None  # optional, aligned with the finer level given
    info: dict[str, object] = field(default_factory=dict)  # e.g. context tokens, LLM calls
