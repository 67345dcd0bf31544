"""TimeQA human-annotated test set (Chen et al., NeurIPS 2021 D&B) loader.

License: BSD 3-Clause, Copyright (c) 2021 wenhu chen. See ``timeqa/SOURCE.md``.

Layout of ``timeqa/human_annotated_test.json``: a list of 257 documents
``{index, type, link, paras, questions}``; ``type`` is a Wikidata property (P39 position
held, P108 employer, ...); ``paras`` a list of paragraph strings; ``questions`` a list of
``[question, [{para, from, end, answer}, ...]]`` with answer spans located at
``paras[para][from:end]`` (989 questions; checked: every span matches its answer text).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.datasets._common import (
    DatasetNotFoundError,
    default_data_dir,
    expected_sha256_from_source_md,
    verify_sha256,
)


@dataclass(frozen=True)
class AnswerSpan:
    para: int
    start: int  # "from"
    end: int
    text: str


@dataclass(frozen=True)
class TimeQAQuestion:
    doc_index: str  # e.g. "/wiki/Sabine_Hossenfelder#P937"
    q_index: int
    question: str
    answers: tuple[AnswerSpan, ...]

    @property
    def question_id(self) -> str:
        return f"{self.doc_index}#q{self.q_index}"

    @property
    def answer_texts(self) -> list[str]:
        return [a.text for a in self.answers]


@dataclass(frozen=True)
class TimeQADocument:
    index: str
    relation: str  # Wikidata property id ("type")
    link: str
    paras: tuple[str, ...]
    questions: tuple[TimeQAQuestion, ...]


@dataclass
class TimeQADataset:
    path: Path
    documents: list[TimeQADocument]
    sha256_ok: bool | None = None

    @property
    def questions(self) -> list[TimeQAQuestion]:
        return [q for d in self.documents for q in d.questions]

    def span_mismatches(self) -> list[str]:
        """Question ids whose ``paras[para][from:end]`` differs from the answer text."""
        docs = {d.index: d for d in self.documents}
        bad = []
        for q in self.questions:
            paras = docs[q.doc_index].paras
            for a in q.answers:
                if a.para >= len(paras) or paras[a.para][a.start : a.end] != a.text:
                    bad.append(q.question_id)
                    break
        return bad

    def stats(self) -> dict[str, Any]:
        qs = self.questions
        return {
            "documents": len(self.documents),
            "questions": len(qs),
            "multi_answer_questions": sum(1 for q in qs if len(q.answers) > 1),
            "no_answer_questions": sum(1 for q in qs if not q.answers),
            "relations": len({d.relation for d in self.documents}),
            "top_relations": Counter(d.relation for d in self.documents).most_common(5),
            "sha256_ok": self.sha256_ok,
        }


def default_timeqa_path() -> Path:
    return default_data_dir() / "timeqa" / "human_annotated_test.json"


def load_timeqa(path: str | Path | None = None, *, verify: bool = True) -> TimeQADataset:
    p = Path(path) if path is not None else default_timeqa_path()
    if not p.is_file():
        raise DatasetNotFoundError(
            f"TimeQA file not found at {p}; get dataset/human_annotated_test.json from "
            "github.com/wenhuchen/Time-Sensitive-QA (BSD-3-Clause)."
        )
    sha_ok = None
    if verify:
        sha_ok = verify_sha256(p, expected_sha256_from_source_md(p.parent / "SOURCE.md", p.name))
    docs = []
    for d in json.loads(p.read_text(encoding="utf-8")):
        index = str(d.get("index", ""))
        questions = []
        for qi, item in enumerate(d.get("questions", [])):
            text, spans = (item[0], item[1]) if len(item) >= 2 else (item[0], [])
            questions.append(
                TimeQAQuestion(
                    doc_index=index,
                    q_index=qi,
                    question=str(text),
                    answers=tuple(
                        AnswerSpan(int(s["para"]), int(s["from"]), int(s["end"]), str(s["answer"]))
                        for s in spans or []
                    ),
                )
            )
        docs.append(
            TimeQADocument(
                index=index,
                relation=str(d.get("type", "")),
                link=str(d.get("link", "")),
                paras=tuple(str(x) for x in d.get("paras", [])),
                questions=tuple(questions),
            )
        )
    return TimeQADataset(path=p, documents=docs, sha256_ok=sha_ok)
