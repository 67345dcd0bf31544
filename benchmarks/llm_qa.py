"""Optional end-to-end QA on top of retrieval: an LLM reader answers each question from kgmem's
``context()`` block, an LLM judge grades the answer against the gold one.

Runs only when asked (``--qa`` on the LoCoMo suite) and an OpenAI-compatible endpoint is
configured: ``KGMEM_LLM_BASE_URL`` (required), ``KGMEM_LLM_MODEL`` (reader),
``KGMEM_LLM_JUDGE_MODEL`` (judge; default: the reader model), ``KGMEM_LLM_API_KEY``,
``KGMEM_LLM_PRICES`` (JSON, USD per 1M tokens, e.g. ``{"gpt-4o-mini": [0.15, 0.6]}``),
``KGMEM_LLM_TIMEOUT``/``_MAX_RETRIES``, ``KGMEM_LLM_CACHE``/``_CACHE_DIR`` (responses are
cached by model, prompt version and messages, so a rerun costs nothing).

Prompts are pinned in :mod:`benchmarks.qa_prompts`; their version and both model names go into
the report. Per question (systems with a ``context()`` method, i.e. kgmem): metrics
``qa.judge_correct`` (1/0; None when the dataset has no gold answer, e.g. LoCoMo's adversarial
questions, or the judge's reply is unusable), ``qa.f1`` and ``qa.em`` (SQuAD token F1 / exact
match of the reader's answer, no LLM involved); info: the answer, the judge's label and
reasoning, the context's token count, each call's tokens. :meth:`LLMQA.report` gives the
totals (calls, tokens, cost per role).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from benchmarks.metrics import exact_match, token_f1
from benchmarks.qa_prompts import PROMPT_VERSION, judge_messages, reader_messages
from benchmarks.task import Question, Ranking
from kgmem.llm.cache import ResponseCache, cache_key
from kgmem.llm.client import ChatClient, ChatResult
from kgmem.llm.usage import LLMStats, PriceTable

_LABEL = re.compile(r"\b(CORRECT|WRONG)\b")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


class QANotConfigured(RuntimeError):
    pass


@dataclass
class QAConfig:
    base_url: str
    reader_model: str
    judge_model: str
    api_key: str | None = None
    budget_tokens: int = 1000
    max_answer_tokens: int = 64
    timeout: float = 30.0
    max_retries: int = 4
    backoff_base: float = 0.5
    prices: dict[str, Any] | None = None
    cache_dir: Any = None  # None: no response cache

    @classmethod
    def from_env(cls, budget_tokens: int = 1000) -> QAConfig:
        from kgmem.ingest.llm import LLMSettings, default_cache_dir
        from kgmem.settings import Settings

        s, ls = Settings(), LLMSettings()
        if not s.llm_base_url:
            raise QANotConfigured(
                "LLM QA needs an OpenAI-compatible endpoint: set KGMEM_LLM_BASE_URL (and "
                "KGMEM_LLM_MODEL, KGMEM_LLM_API_KEY; optional KGMEM_LLM_JUDGE_MODEL)")
        judge = os.environ.get("KGMEM_LLM_JUDGE_MODEL") or s.llm_model
        return cls(
            base_url=s.llm_base_url, reader_model=s.llm_model, judge_model=judge,
            api_key=s.llm_api_key, budget_tokens=budget_tokens, timeout=ls.timeout,
            max_retries=ls.max_retries, backoff_base=ls.backoff_base, prices=ls.prices,
            cache_dir=(ls.cache_dir or default_cache_dir()) if ls.cache else None,
        )


def parse_judge(content: str | None) -> tuple[str | None, str]:
    """(label, reasoning) from the judge's reply: a JSON object (code fences tolerated), else
    a bare CORRECT/WRONG word; label None when neither is there."""
    text = (content or "").strip()
    m = _FENCE.match(text)
    if m:
        text = m.group(1)
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        label = str(obj.get("label", "")).strip().upper()
        if label in ("CORRECT", "WRONG"):
            return label, str(obj.get("reasoning", ""))
    words = set(_LABEL.findall(text.upper()))
    if len(words) == 1:
        return words.pop(), text
    return None, text


@dataclass
class _Role:
    model: str
    client: ChatClient
    stats: LLMStats = field(default_factory=LLMStats)


class LLMQA:
    """The runner's ``on_question`` hook (see :func:`benchmarks.runner.run_retrievals`)."""

    def __init__(self, config: QAConfig) -> None:
        self.config = config

        def client(model: str) -> ChatClient:
            return ChatClient(config.base_url, model, config.api_key, timeout=config.timeout,
                              max_retries=config.max_retries, backoff_base=config.backoff_base)

        self.reader = _Role(config.reader_model, client(config.reader_model))
        self.judge = _Role(config.judge_model, client(config.judge_model))
        self.prices = PriceTable(config.prices)
        self.cache = ResponseCache(config.cache_dir) if config.cache_dir is not None else None
        self.skipped = 0  # questions of systems without context()

    def _call(self, role: _Role, messages: list[dict[str, str]], max_tokens: int,
              purpose: str) -> tuple[str | None, dict[str, Any]]:
        key = cache_key(role.model, PROMPT_VERSION, messages)
        body = self.cache.get(key) if self.cache is not None else None
        if body is not None:
            role.stats.add(cache_hits=1)
            res = ChatResult.from_body(body, role.model)
            return res.content, {"cached": True, "usage": res.usage}
        res = role.client.complete({"messages": messages, "temperature": 0,
                                    "max_tokens": max_tokens})
        call = role.stats.record_call(res.model, res.usage, self.prices, role.model,
                                      res.latency_s, purpose)
        if self.cache is not None:
            self.cache.put(key, res.raw, role.model, PROMPT_VERSION)
        return res.content, {"cached": False, "usage": res.usage, "cost_usd": call.cost_usd,
                             "model": res.model}

    def __call__(self, system: Any, question: Question, ranking: Ranking
                 ) -> tuple[dict[str, float | None], dict[str, Any]]:
        context = getattr(system, "context", None)
        if context is None:
            self.skipped += 1
            return {}, {}
        block = context(question, self.config.budget_tokens)
        asked, _known = system.times(question)
        answer, rinfo = self._call(
            self.reader, reader_messages(block.text, question.question, asked.date().isoformat()),
            self.config.max_answer_tokens, "reader")
        answer = (answer or "").strip()
        metrics: dict[str, float | None] = {"qa.judge_correct": None, "qa.f1": None,
                                            "qa.em": None}
        info: dict[str, Any] = {"answer": answer, "context_tokens": block.tokens,
                                "reader": rinfo}
        gold = question.answer
        if gold:
            metrics["qa.f1"] = token_f1(answer, gold)
            metrics["qa.em"] = exact_match(answer, gold)
            verdict, jinfo = self._call(self.judge,
                                        judge_messages(question.question, gold, answer),
                                        200, "judge")
            label, reasoning = parse_judge(verdict)
            if label is None:
                self.judge.stats.add(errors=1)
            else:
                metrics["qa.judge_correct"] = 1.0 if label == "CORRECT" else 0.0
            info.update(judge=jinfo, label=label, reasoning=reasoning)
        return metrics, info

    def report(self) -> dict[str, Any]:
        def role(r: _Role) -> dict[str, Any]:
            d = r.stats.to_dict()
            d.pop("per_call", None)
            return {"model": r.model, **d}

        return {"prompt_version": PROMPT_VERSION, "reader": role(self.reader),
                "judge": role(self.judge), "budget_tokens": self.config.budget_tokens,
                "skipped_questions": self.skipped}

    def close(self) -> None:
        self.reader.client.close()
        self.judge.client.close()
        if self.cache is not None:
            self.cache.close()
