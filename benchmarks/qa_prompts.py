"""The published QA protocols (reader prompt, judge prompt, scoring), copied from their code.

Every prompt below is copied byte for byte from the code named in its comment (repository,
file, commit); ``tests/benchmarks/test_qa_protocols.py`` pins the copies against hashes of
the upstream text. Only the memory block changes: where a paper's reader got its own
retrieval output (history chats, memories), it gets kgmem's ``context()`` block. Each
protocol has a version; it is part of the response-cache key and goes into every report, so
numbers from different prompts never mix. Edit nothing here without bumping the version.

* ``locomo``: the LoCoMo paper's RAG QA (Maharana et al., ACL 2024): reader prompt
  ``QA_PROMPT`` / ``QA_PROMPT_CAT_5`` after the retrieved context, temperature 0, 32 answer
  tokens; temporal questions get "Use DATE of CONVERSATION to answer with an approximate
  date."; adversarial questions are a two-way choice between "Not mentioned in the
  conversation" and the adversarial answer, in a random order (seeded per question here).
  Score: the paper's token F1 (:func:`benchmarks.metrics.locomo_f1`); no judge.
* ``mem0``: Mem0's LLM-as-judge "J" (Chhikara et al., 2025; ``evaluation/`` of mem0ai/mem0):
  reader ``ANSWER_PROMPT_ZEP`` (the single memory list variant Mem0's harness used for Zep;
  kgmem has one context block, not one per speaker) as the system message, temperature 0;
  judge ``ACCURACY_PROMPT`` as the user message, temperature 0, JSON object reply with a
  ``label``; adversarial questions (category 5) are skipped, as in ``llm_judge.py``.
* ``longmemeval``: LongMemEval's generation prompt (``run_generation.py``, no chain of thought,
  chat history = the retrieved block) and its GPT-4o judge (``evaluate_qa.py``
  ``get_anscheck_prompt``: one template per question type, one for abstention questions),
  judge temperature 0, 10 tokens, correct when the reply contains "yes".
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------- LoCoMo paper
# snap-research/locomo, branch "code", task_eval/evaluate_gpts.py
# (commit 92286325a40764bee61f77824ddb95233b11c4d6)
LOCOMO_QA_PROMPT = """
Based on the above context, write an answer in the form of a short phrase for the following question. Answer with exact words from the context whenever possible.

Question: {} Short answer:
"""

LOCOMO_QA_PROMPT_CAT_5 = """
Based on the above context, answer the following question.

Question: {} Short answer:
"""

LOCOMO_TEMPORAL_SUFFIX = " Use DATE of CONVERSATION to answer with an approximate date."
LOCOMO_CAT_5_CHOICE = " Select the correct answer: (a) {} (b) {}. "
LOCOMO_NOT_MENTIONED = "Not mentioned in the conversation"
LOCOMO_ANSWER_TOKENS = 32  # run_chatgpt(..., num_tokens_request=32, temperature=0)

# --------------------------------------------------------------------------- Mem0 J
# mem0ai/mem0, evaluation/prompts.py (commit b3ede5b7c0ac0e847b03786a603c107ac943b3ee, the
# last one holding evaluation/; it moved to mem0ai/memory-benchmarks afterwards). A Jinja2
# template in Mem0's code ({{memories}}, {{question}}); rendered here with str.replace.
MEM0_ANSWER_PROMPT_ZEP = """
    You are an intelligent memory assistant tasked with retrieving accurate information from conversation memories.

    # CONTEXT:
    You have access to memories from a conversation. These memories contain
    timestamped information that may be relevant to answering the question.

    # INSTRUCTIONS:
    1. Carefully analyze all provided memories
    2. Pay special attention to the timestamps to determine the answer
    3. If the question asks about a specific event or fact, look for direct evidence in the memories
    4. If the memories contain contradictory information, prioritize the most recent memory
    5. If there is a question about time references (like "last year", "two months ago", etc.), 
       calculate the actual date based on the memory timestamp. For example, if a memory from 
       4 May 2022 mentions "went to India last year," then the trip occurred in 2021.
    6. Always convert relative time references to specific dates, months, or years. For example, 
       convert "last year" to "2022" or "two months ago" to "March 2023" based on the memory 
       timestamp. Ignore the reference while answering the question.
    7. Focus only on the content of the memories. Do not confuse character 
       names mentioned in memories with the actual users who created those memories.
    8. The answer should be less than 5-6 words.

    # APPROACH (Think step by step):
    1. First, examine all memories that contain information related to the question
    2. Examine the timestamps and content of these memories carefully
    3. Look for explicit mentions of dates, times, locations, or events that answer the question
    4. If the answer requires calculation (e.g., converting relative time references), show your work
    5. Formulate a precise, concise answer based solely on the evidence in the memories
    6. Double-check that your answer directly addresses the question asked
    7. Ensure your final answer is specific and avoids vague time references

    Memories:

    {{memories}}

    Question: {{question}}
    Answer:
    """

# mem0ai/mem0, evaluation/metrics/llm_judge.py (same commit); model gpt-4o-mini,
# response_format {"type": "json_object"}, temperature 0.0.
MEM0_ACCURACY_PROMPT = """
Your task is to label an answer to a question as ’CORRECT’ or ’WRONG’. You will be given the following data:
    (1) a question (posed by one user to another user), 
    (2) a ’gold’ (ground truth) answer, 
    (3) a generated answer
which you will score as CORRECT/WRONG.

The point of the question is to ask about something one user should know about the other user based on their prior conversations.
The gold answer will usually be a concise and short answer that includes the referenced topic, for example:
Question: Do you remember what I got the last time I went to Hawaii?
Gold answer: A shell necklace
The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT. 

For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it's the same date.

Now it's time for the real question:
Question: {question}
Gold answer: {gold_answer}
Generated answer: {generated_answer}

First, provide a short (one sentence) explanation of your reasoning, then finish with CORRECT or WRONG. 
Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation script.

Just return the label CORRECT or WRONG in a json format with the key as "label".
"""

# --------------------------------------------------------------------------- LongMemEval
# xiaowu0162/LongMemEval, src/generation/run_generation.py, prepare_prompt (no CoT, no key
# expansion) (commit 9e0b455f4ef0e2ab8f2e582289761153549043fc); temperature 0, max 500 tokens.
LME_READER_PROMPT = 'I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.\n\n\nHistory Chats:\n\n{}\n\nCurrent Date: {}\nQuestion: {}\nAnswer:'  # noqa: E501
LME_ANSWER_TOKENS = 500

# src/evaluation/evaluate_qa.py, get_anscheck_prompt (same commit); temperature 0, 10 tokens.
_LME_BASE = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. "  # noqa: E501
_LME_TAIL = "\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only."  # noqa: E501
LME_JUDGE_PROMPTS: dict[str, str] = {
    "single-session-user": _LME_BASE + _LME_TAIL,
    "single-session-assistant": _LME_BASE + _LME_TAIL,
    "multi-session": _LME_BASE + _LME_TAIL,
    "temporal-reasoning": _LME_BASE + "In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. " + _LME_TAIL,  # noqa: E501
    "knowledge-update": "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer." + _LME_TAIL,  # noqa: E501
    "single-session-preference": "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.",  # noqa: E501
}
LME_ABSTENTION_PROMPT = "I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\nModel Response: {}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only."  # noqa: E501
LME_JUDGE_TOKENS = 10

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class Call:
    """One chat-completions request of a protocol: messages plus request options."""

    messages: Messages
    max_tokens: int | None  # None: the upstream call sets no limit
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. response_format


@dataclass(frozen=True)
class ReaderTurn:
    call: Call
    choices: Mapping[str, str] | None = None  # LoCoMo adversarial: option letter -> answer


def _seeded(question_id: str) -> random.Random:
    return random.Random(int(hashlib.sha256(question_id.encode()).hexdigest()[:16], 16))


def locomo_reader(context: str, question: str, category: int | None, question_id: str,
                  adversarial_answer: str | None) -> ReaderTurn:
    """The LoCoMo paper's RAG reader call (``get_gpt_answers``, batch size 1)."""
    choices = None
    if category == 2:
        question = question + LOCOMO_TEMPORAL_SUFFIX
    if category == 5:
        other = adversarial_answer or ""
        a, b = ((LOCOMO_NOT_MENTIONED, other) if _seeded(question_id).random() < 0.5
                else (other, LOCOMO_NOT_MENTIONED))
        question = question + LOCOMO_CAT_5_CHOICE.format(a, b)
        choices = {"a": a, "b": b}
        text = context + "\n\n" + LOCOMO_QA_PROMPT_CAT_5.format(question)
    else:
        text = context + "\n\n" + LOCOMO_QA_PROMPT.format(question)
    return ReaderTurn(Call([{"role": "user", "content": text}], LOCOMO_ANSWER_TOKENS), choices)


def locomo_cat5_answer(prediction: str, choices: Mapping[str, str]) -> str:
    """``get_cat_5_answer``: a one-letter or "(a)"-style reply picks that option."""
    p = prediction.strip().lower()
    if len(p) == 1:
        return choices["a"] if "a" in p else choices["b"]
    if len(p) == 3:
        return choices["a"] if "(a)" in p else choices["b"]
    return p


def mem0_reader(context: str, question: str) -> Call:
    text = MEM0_ANSWER_PROMPT_ZEP.replace("{{memories}}", context).replace(
        "{{question}}", question)
    return Call([{"role": "system", "content": text}], None)


def mem0_judge(question: str, gold: str, answer: str) -> Call:
    text = MEM0_ACCURACY_PROMPT.format(question=question, gold_answer=gold,
                                       generated_answer=answer)
    return Call([{"role": "user", "content": text}], None,
                {"response_format": {"type": "json_object"}})


def longmemeval_reader(context: str, question: str, question_date: str) -> Call:
    text = LME_READER_PROMPT.format(context, question_date, question)
    return Call([{"role": "user", "content": text}], LME_ANSWER_TOKENS)


def longmemeval_judge(question_type: str, question: str, answer: str, response: str,
                      abstention: bool) -> Call:
    if abstention:
        template = LME_ABSTENTION_PROMPT
    elif question_type in LME_JUDGE_PROMPTS:
        template = LME_JUDGE_PROMPTS[question_type]
    else:
        raise ValueError(f"LongMemEval has no judge prompt for question type {question_type!r}")
    text = template.format(question, answer, response)
    return Call([{"role": "user", "content": text}], LME_JUDGE_TOKENS)


PROTOCOLS: dict[str, str] = {  # name -> version (cache key, reports)
    "locomo": "locomo-paper-qa-1",
    "mem0": "mem0-j-1",
    "longmemeval": "longmemeval-qa-1",
}
