"""End-to-end QA on top of retrieval: an LLM reader answers each question from kgmem's
``context()`` block, scored with the published protocols of :mod:`benchmarks.qa_prompts`.

Runs only when asked (``--qa`` on the LoCoMo and LongMemEval suites) and an OpenAI-compatible
endpoint is configured: ``KGMEM_LLM_BASE_URL`` (required), ``KGMEM_LLM_MODEL`` (reader),
``KGMEM_LLM_JUDGE_MODEL`` (judge; default: the reader model), ``KGMEM_LLM_API_KEY``,
``KGMEM_LLM_PRICES`` (JSON, USD per 1M tokens, e.g. ``{"gpt-4o-mini": [0.15, 0.6]}``),
``KGMEM_LLM_TIMEOUT``/``_MAX_RETRIES``, ``KGMEM_LLM_CACHE``/``_CACHE_DIR`` (responses are
cached by model, protocol version and request, so a rerun costs nothing).

Per question (systems with a ``context()`` method, i.e. kgmem) and protocol, metrics
(fractions; ``None`` when a protocol does not score the question or the judge's reply was
unusable):

* ``qa.locomo_f1``: the LoCoMo paper's token F1 of its reader's answer (all 5 categories);
* ``qa.mem0_j``: Mem0's J, 1/0 from its judge on its reader's answer (categories 1-4);
* ``qa.lme_acc``: LongMemEval's judge, 1/0 (every question; abstention questions with the
  abstention template).

``info`` keeps each protocol's answer, label, the judge's raw reply and each call's tokens;
:meth:`LLMQA.report` gives calls, tokens and cost per role, the models, the protocol versions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks import qa_prompts as P
from benchmarks.metrics import locomo_f1
from benchmarks.task import Question, Ranking
from kgmem.llm.cache import ResponseCache, cache_key
from kgmem.llm.client import ChatClient, ChatResult
from kgmem.llm.errors import ResponseFormatUnsupportedError
from kgmem.llm.usage import LLMStats, PriceTable

_LABEL = re.compile(r"\b(CORRECT|WRONG)\b")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
METRIC = {"locomo": "qa.locomo_f1", "mem0": "qa.mem0_j", "longmemeval": "qa.lme_acc"}


class QANotConfigured(RuntimeError):
    pass


@dataclass
class QAConfig:
    base_url: str
    reader_model: str
    judge_model: str
    protocols: tuple[str, ...] = ("mem0", "locomo")
    api_key: str | None = None
    budget_tokens: int = 1000
    timeout: float = 30.0
    max_retries: int = 4
    backoff_base: float = 0.5
    prices: dict[str, Any] | None = None
    cache_dir: Any = None  # None: no response cache

    def __post_init__(self) -> None:
        unknown = [p for p in self.protocols if p not in P.PROTOCOLS]
        if unknown or not self.protocols:
            raise ValueError(f"QA protocols must be among {sorted(P.PROTOCOLS)}, got "
                             f"{list(self.protocols)}")

    @classmethod
    def from_env(cls, budget_tokens: int = 1000,
                 protocols: tuple[str, ...] = ("mem0", "locomo")) -> QAConfig:
        from kgmem.ingest.llm import default_cache_dir
        from kgmem.settings import Settings

        s = Settings()
        if not s.llm_base_url:
            raise QANotConfigured(
                "LLM QA needs an OpenAI-compatible endpoint: set KGMEM_LLM_BASE_URL (and "
                "KGMEM_LLM_MODEL, KGMEM_LLM_API_KEY; optional KGMEM_LLM_JUDGE_MODEL)")
        judge = os.environ.get("KGMEM_LLM_JUDGE_MODEL") or s.llm_model
        return cls(
            base_url=s.llm_base_url, reader_model=s.llm_model, judge_model=judge,
            protocols=protocols, api_key=s.llm_api_key, budget_tokens=budget_tokens,
            timeout=s.llm_timeout, max_retries=s.llm_max_retries, backoff_base=s.llm_backoff_base,
            prices=s.llm_prices,
            cache_dir=(s.llm_cache_dir or default_cache_dir()) if s.llm_cache else None,
        )


def parse_judge(content: str | None) -> tuple[str | None, str]:
    """(label, reasoning) from a Mem0-style judge reply: a JSON object with ``label`` (code
    fences tolerated), else a bare CORRECT/WRONG word; label None when neither is there."""
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


def parse_yes_no(content: str | None) -> bool | None:
    """LongMemEval's rule (``'yes' in eval_response.lower()``); None for an empty reply."""
    text = (content or "").strip()
    return None if not text else "yes" in text.lower()


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
        self.format_fallbacks = 0  # judge calls resent without response_format

    def _call(self, role: _Role, call: P.Call, protocol: str, purpose: str
              ) -> tuple[str, dict[str, Any]]:
        version = P.PROTOCOLS[protocol]
        options = {"max_tokens": call.max_tokens, **call.extra}
        key = cache_key(role.model, version, [*call.messages, {"role": "_options",
                                                               "content": json.dumps(options)}])
        body = self.cache.get(key) if self.cache is not None else None
        if body is not None:
            role.stats.add(cache_hits=1)
            res = ChatResult.from_body(body, role.model)
            return (res.content or "").strip(), {"cached": True, "usage": res.usage}
        payload: dict[str, Any] = {"messages": call.messages, "temperature": 0, **call.extra}
        if call.max_tokens is not None:
            payload["max_tokens"] = call.max_tokens
        try:
            res = role.client.complete(payload)
        except ResponseFormatUnsupportedError:
            self.format_fallbacks += 1
            payload.pop("response_format", None)
            res = role.client.complete(payload)
        rec = role.stats.record_call(res.model, res.usage, self.prices, role.model,
                                     res.latency_s, purpose)
        if self.cache is not None:
            self.cache.put(key, res.raw, role.model, version)
        return (res.content or "").strip(), {"cached": False, "usage": res.usage,
                                             "cost_usd": rec.cost_usd, "model": res.model}

    def _locomo(self, q: Question, context: str) -> tuple[float | None, dict[str, Any]]:
        cat = q.extra.get("category_number")
        category = int(cat) if isinstance(cat, int) else None
        adv = q.extra.get("adversarial_answer")
        turn = P.locomo_reader(context, q.question, category, q.question_id,
                               adv if isinstance(adv, str) else None)
        answer, rinfo = self._call(self.reader, turn.call, "locomo", "reader")
        if turn.choices is not None:
            answer = P.locomo_cat5_answer(answer, turn.choices)
        if category is None or (category != 5 and not q.answer):
            return None, {"answer": answer, "reader": rinfo}
        return locomo_f1(answer, q.answer, category), {"answer": answer, "reader": rinfo}

    def _mem0(self, q: Question, context: str) -> tuple[float | None, dict[str, Any]]:
        answer, rinfo = self._call(self.reader, P.mem0_reader(context, q.question), "mem0",
                                   "reader")
        info: dict[str, Any] = {"answer": answer, "reader": rinfo}
        if not q.answer or q.extra.get("category_number") == 5:  # llm_judge.py skips cat 5
            return None, info
        verdict, jinfo = self._call(self.judge, P.mem0_judge(q.question, q.answer, answer),
                                    "mem0", "judge")
        label, reasoning = parse_judge(verdict)
        if label is None:
            self.judge.stats.add(errors=1)
        info.update(judge=jinfo, label=label, reasoning=reasoning)
        return (None if label is None else float(label == "CORRECT")), info

    def _longmemeval(self, q: Question, context: str) -> tuple[float | None, dict[str, Any]]:
        date = str(q.extra.get("question_date_text") or
                   (q.question_date.isoformat() if q.question_date else ""))
        answer, rinfo = self._call(self.reader, P.longmemeval_reader(context, q.question, date),
                                   "longmemeval", "reader")
        verdict, jinfo = self._call(
            self.judge, P.longmemeval_judge(q.category, q.question, q.answer or "", answer,
                                            q.is_abstention), "longmemeval", "judge")
        label = parse_yes_no(verdict)
        if label is None:
            self.judge.stats.add(errors=1)
        info = {"answer": answer, "reader": rinfo, "judge": jinfo, "label": label,
                "reply": verdict}
        return (None if label is None else float(label)), info

    def __call__(self, system: Any, question: Question, ranking: Ranking
                 ) -> tuple[dict[str, float | None], dict[str, Any]]:
        context = getattr(system, "context", None)
        if context is None:
            self.skipped += 1
            return {}, {}
        block = context(question, self.config.budget_tokens)
        text = block.text or "(none)"
        metrics: dict[str, float | None] = {}
        info: dict[str, Any] = {"context_tokens": block.tokens}
        run = {"locomo": self._locomo, "mem0": self._mem0, "longmemeval": self._longmemeval}
        for protocol in self.config.protocols:
            metrics[METRIC[protocol]], info[protocol] = run[protocol](question, text)
        return metrics, info

    def report(self) -> dict[str, Any]:
        def role(r: _Role) -> dict[str, Any]:
            d = r.stats.to_dict()
            d.pop("per_call", None)
            return {"model": r.model, **d}

        return {"protocols": {p: P.PROTOCOLS[p] for p in self.config.protocols},
                "reader": role(self.reader), "judge": role(self.judge),
                "budget_tokens": self.config.budget_tokens, "skipped_questions": self.skipped,
                "judge_format_fallbacks": self.format_fallbacks}

    def close(self) -> None:
        self.reader.client.close()
        self.judge.client.close()
        if self.cache is not None:
            self.cache.close()


def real_endpoint_command(suite: str, systems: str) -> str:
    """The command a user runs with a real endpoint (printed by the suites and RESULTS.md)."""
    protocols = "longmemeval" if suite == "longmemeval" else "mem0,locomo"
    return (
        "KGMEM_LLM_BASE_URL=https://api.openai.com/v1 KGMEM_LLM_API_KEY=sk-... "
        "KGMEM_LLM_MODEL=gpt-4o-mini KGMEM_LLM_JUDGE_MODEL="
        f"{'gpt-4o-2024-08-06' if suite == 'longmemeval' else 'gpt-4o-mini'} "
        "KGMEM_LLM_PRICES='{\"gpt-4o-mini\": [0.15, 0.6], \"gpt-4o\": [2.5, 10]}' "
        f"python -m benchmarks {suite} --systems {systems} --qa --qa-protocols {protocols}"
    )


def not_measured(suite: str, names: Sequence[str]) -> dict[str, Any]:
    """What a report says about QA accuracy without ``--qa``."""
    systems = ",".join(n for n in names if n.startswith("kgmem")) or "kgmem-extract"
    return {"measured": False, "command": real_endpoint_command(suite, systems)}


def add_qa_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--qa", action="store_true",
        help="LLM reader + judge on kgmem's context() (needs KGMEM_LLM_BASE_URL; see "
        "benchmarks/llm_qa.py)",
    )
    ap.add_argument("--qa-protocols", default=None,
                    help="comma-separated: mem0 (J), locomo (paper F1), longmemeval (judge); "
                    "default: mem0,locomo on LoCoMo, longmemeval on LongMemEval")
    ap.add_argument("--qa-budget", type=int, default=1000, help="context() token budget")


def qa_from_args(args: argparse.Namespace, suite: str, names: Sequence[str],
                 say: Callable[[str], None]) -> LLMQA | None:
    """The QA hook when ``--qa`` is given (a clear exit without an endpoint); otherwise say
    that QA accuracy is not measured and print the command that would measure it."""
    if not args.qa:
        say("QA accuracy: not measured (no --qa). With an OpenAI-compatible endpoint:\n  "
            + not_measured(suite, names)["command"])
        return None
    default = "longmemeval" if suite == "longmemeval" else "mem0,locomo"
    protocols = tuple(p.strip() for p in (args.qa_protocols or default).split(",") if p.strip())
    try:
        return LLMQA(QAConfig.from_env(budget_tokens=args.qa_budget, protocols=protocols))
    except QANotConfigured as exc:
        raise SystemExit(str(exc)) from exc
    except ValueError as exc:
        raise SystemExit(f"--qa-protocols: {exc}") from exc
