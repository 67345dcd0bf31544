"""Token and cost accounting for chat-completions calls (from each response's ``usage``).

Prices are **USD per 1M tokens**, given per model by the caller (no built-in table: prices
change). Accepted forms for one model::

    {"gpt-4o-mini": (0.15, 0.60)}                                     # (input, output)
    {"gpt-4o-mini": {"input": 0.15, "output": 0.60, "cached_input": 0.075}}
    {"gpt-4o-mini": {"prompt": 0.15, "completion": 0.60}}

A response's model (``gpt-4o-mini-2024-07-18``) is priced by exact name first, then by the
longest configured name it starts with, then by the configured model name.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from kgmem.errors import InvalidInputError

__all__ = ["CallUsage", "LLMStats", "Price", "PriceTable", "parse_prices"]


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cached_input: float | None = None

    def cost(self, prompt: int, completion: int, cached: int = 0) -> float:
        cached = min(max(cached, 0), prompt) if self.cached_input is not None else 0
        rate_cached = self.cached_input if self.cached_input is not None else self.input
        return ((prompt - cached) * self.input + cached * rate_cached
                + completion * self.output) / 1_000_000


def _price(name: str, value: Any) -> Price:
    try:
        if isinstance(value, Price):
            return value
        if isinstance(value, Mapping):
            inp = value.get("input", value.get("prompt"))
            out = value.get("output", value.get("completion"))
            cached = value.get("cached_input", value.get("cached_prompt"))
            return Price(float(inp), float(out), None if cached is None else float(cached))
        seq = list(value)
        if len(seq) not in (2, 3):
            raise ValueError
        return Price(float(seq[0]), float(seq[1]), float(seq[2]) if len(seq) == 3 else None)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"price for model {name!r} must be (input, output[, cached_input]) or a mapping "
            f"with input/output in USD per 1M tokens, got {value!r}", field="prices"
        ) from None


def parse_prices(prices: Mapping[str, Any] | None) -> dict[str, Price]:
    return {str(k): _price(str(k), v) for k, v in (prices or {}).items()}


class PriceTable:
    def __init__(self, prices: Mapping[str, Any] | None = None) -> None:
        self.prices = parse_prices(prices)

    def lookup(self, *models: str | None) -> Price | None:
        for m in models:
            if m and m in self.prices:
                return self.prices[m]
        for m in models:
            if not m:
                continue
            best = max((k for k in self.prices if m.startswith(k)), key=len, default=None)
            if best is not None:
                return self.prices[best]
        return None

    def __bool__(self) -> bool:
        return bool(self.prices)


@dataclass(frozen=True)
class CallUsage:
    """One billable chat-completions response."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int = 0
    cost_usd: float | None = None
    latency_s: float = 0.0
    purpose: str = "extract"  # "extract" | "repair"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def _int(v: Any) -> int:
    try:
        return max(0, int(v))
    except (TypeError, ValueError):
        return 0


@dataclass
class LLMStats:
    """Running totals, thread-safe. ``calls`` counts billable (2xx) chat-completions responses,
    repair calls included; ``requests`` counts HTTP attempts (retries and fallbacks included);
    ``cache_hits`` counts episodes answered from the response cache (no request at all).
    ``cost_usd`` is ``None`` until a call is priced (no price table, or unknown model).
    ``per_call`` keeps the most recent calls (bounded)."""

    calls: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    errors: int = 0
    episodes: int = 0
    facts: int = 0
    dropped_facts: int = 0
    refusals: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cost_usd: float | None = None
    unpriced_calls: int = 0
    per_call: deque[CallUsage] = field(default_factory=lambda: deque(maxlen=1000))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, **counts: int) -> None:
        with self._lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)

    def record_call(self, model: str, usage: Mapping[str, Any] | None, prices: PriceTable,
                    configured_model: str, latency_s: float = 0.0,
                    purpose: str = "extract") -> CallUsage:
        usage = usage if isinstance(usage, Mapping) else {}
        prompt = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
        completion = _int(usage.get("completion_tokens", usage.get("output_tokens")))
        details = usage.get("prompt_tokens_details")
        cached = _int(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
        price = prices.lookup(model, configured_model) if prices else None
        cost = price.cost(prompt, completion, cached) if price is not None else None
        call = CallUsage(model or configured_model, prompt, completion, cached, cost,
                         latency_s, purpose)
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.cached_prompt_tokens += cached
            if cost is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd = (self.cost_usd or 0.0) + cost
            self.per_call.append(call)
        return call

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            d = {k: getattr(self, k) for k in self.__dataclass_fields__
                 if k not in ("per_call", "_lock")}
            d["total_tokens"] = self.total_tokens
            d["per_call"] = [asdict(c) | {"total_tokens": c.total_tokens} for c in self.per_call]
        return d

    def reset(self) -> None:
        fresh = LLMStats()
        with self._lock:
            for k in self.__dataclass_fields__:
                if k != "_lock":
                    setattr(self, k, getattr(fresh, k))
