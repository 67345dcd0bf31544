"""Pinned prompts of the optional LLM QA step (reader + judge), versioned.

Any edit to a prompt below must bump :data:`PROMPT_VERSION`: the version is written into every
report and is part of the response-cache key, so numbers from different prompts never mix.

* Reader: answers a LoCoMo/LongMemEval question from kgmem's ``context()`` block only, in a
  short phrase, with dates resolved to absolute ones (LoCoMo's "when" questions).
* Judge: grades the reader's answer against the gold answer as CORRECT/WRONG, generous about
  wording and format and strict about the fact (the LLM-as-judge protocol used for LoCoMo by
  Mem0/Zep and for LongMemEval); it replies with a JSON object.
"""

from __future__ import annotations

PROMPT_VERSION = "kgmem-qa-1"

READER_SYSTEM = (
    "You answer questions about a long conversation between two people, using only the "
    "memory excerpts you are given. Dated facts and quoted conversation snippets carry the "
    "time they refer to. Resolve relative dates (\"last week\", \"yesterday\") against the "
    "snippet's date and answer with absolute dates. If the memories do not contain the "
    "answer, say \"I don't know\". Answer in a short phrase (at most 15 words), no explanation."
)

READER_USER = (
    "Memories:\n{context}\n\n"
    "Question (asked on {asked}): {question}\n"
    "Answer:"
)

JUDGE_SYSTEM = (
    "You grade answers to questions about a conversation. You get the question, the gold "
    "answer and a generated answer. Label the generated answer CORRECT if it states the same "
    "fact as the gold answer: different wording, extra detail, or another format of the same "
    "date or time period (\"May 7th\" for \"7 May 2023\") are fine. Label it WRONG if it "
    "misses or contradicts the gold answer, or says it does not know. Reply with a JSON "
    "object only: {\"reasoning\": \"<one sentence>\", \"label\": \"CORRECT\" or \"WRONG\"}."
)

JUDGE_USER = (
    "Question: {question}\n"
    "Gold answer: {gold}\n"
    "Generated answer: {answer}\n"
)


def reader_messages(context: str, question: str, asked: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": READER_SYSTEM},
        {"role": "user", "content": READER_USER.format(context=context or "(none)",
                                                       question=question, asked=asked)},
    ]


def judge_messages(question: str, gold: str, answer: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": JUDGE_USER.format(question=question, gold=gold,
                                                      answer=answer)},
    ]
