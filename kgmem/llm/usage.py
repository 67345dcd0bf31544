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

import statistics
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from kgmem.errors import InvalidInputError

__all__ = ["CallUsage", "LLMStats", "LLMSummary", "Price", "PriceTable", "SecondsSummary",
           "cached_prompt_tokens", "format_summary", "parse_prices"]


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


def parse_prices(prices: Mapping[str, object] | None) -> dict[str, Price]:
    return {str(k): _price(str(k), v) for k, v in (prices or {}).items()}


class PriceTable:
    def __init__(self, prices: Mapping[str, object] | None = None) -> None:
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


def cached_prompt_tokens(usage: Mapping[str, object] | None,
                         body: Mapping[str, object] | None = None) -> int | None:
    """Prompt tokens the server answered from its prompt cache, or ``None`` when the response
    does not say. OpenAI and vLLM report ``usage.prompt_tokens_details.cached_tokens``;
    llama.cpp's own server adds ``timings.cache_n`` (and ``tokens_cached`` in older versions)
    to the response body; llama-cpp-python's server reports none of them."""
    details = (usage or {}).get("prompt_tokens_details")
    if isinstance(details, Mapping) and details.get("cached_tokens") is not None:
        return _int(details.get("cached_tokens"))
    body = body or {}
    timings = body.get("timings")
    if isinstance(timings, Mapping) and timings.get("cache_n") is not None:
        return _int(timings.get("cache_n"))
    if body.get("tokens_cached") is not None:
        return _int(body.get("tokens_cached"))
    return None


class SecondsSummary(TypedDict):
    """Request times in seconds (``None``: no request)."""

    n: int
    median: float | None
    p95: float | None
    max: float | None
    total: float


class LLMSummary(TypedDict):
    """The figures an ingest prints and writes as JSON (:meth:`LLMStats.summary`)."""

    episodes: int
    chunks: int
    cache_hits: int
    failed_episodes: int
    requests: int
    retries: int
    repairs: int
    rejected: dict[str, int]
    truncated_replies: int
    facts: int
    dropped_facts: int
    tokens_in: int
    tokens_out: int
    cached_prompt_tokens: int | None
    cost_usd: float | None
    request_seconds: SecondsSummary


def _seconds_summary(values: list[float]) -> SecondsSummary:
    if not values:
        return {"n": 0, "median": None, "p95": None, "max": None, "total": 0.0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "median": round(statistics.median(ordered), 3),
            "p95": round(p95, 3), "max": round(ordered[-1], 3), "total": round(sum(values), 3)}


@dataclass
class LLMStats:
    """Running totals, thread-safe. ``calls`` counts billable (2xx) chat-completions responses,
    repair calls included; ``requests`` counts HTTP attempts (retries and fallbacks included);
    ``cache_hits`` counts chunks answered from the response cache (no request at all).
    ``cost_usd`` is ``None`` until a call is priced (no price table, or unknown model).
    ``per_call`` keeps the most recent calls (bounded). ``rejected`` counts replies that could
    not be used, by reason (``not_json``, ``no_facts_array``, ``cut_off``, ``empty``,
    ``system_dropped``); ``failed_episodes`` the episodes left without facts by an error;
    ``cache_reported_calls`` the calls whose response said how many prompt tokens came from the
    server's prompt cache (0: the server does not say, so ``cached_prompt_tokens`` means
    nothing); ``request_seconds`` the wall time of each request (a sitting, or a chunk of a
    long one; retries and the repair included). ``episodes`` counts the turns extracted,
    ``chunks`` the requests they went in (asked or answered from the cache),
    ``context_turns`` the earlier turns repeated as context in them, ``unquoted_times`` the
    time words a model gave that its turn does not contain (ignored)."""

    calls: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    errors: int = 0
    episodes: int = 0
    chunks: int = 0
    context_turns: int = 0
    unquoted_times: int = 0
    facts: int = 0
    dropped_facts: int = 0
    refusals: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cost_usd: float | None = None
    unpriced_calls: int = 0
    failed_episodes: int = 0
    truncated_replies: int = 0
    cache_reported_calls: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    request_seconds: list[float] = field(default_factory=list)
    per_call: deque[CallUsage] = field(default_factory=lambda: deque(maxlen=1000))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, **counts: int) -> None:
        with self._lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)

    def reject(self, reason: str) -> None:
        with self._lock:
            self.rejected[reason] = self.rejected.get(reason, 0) + 1

    def request_done(self, seconds: float) -> None:
        with self._lock:
            self.request_seconds.append(seconds)

    def record_call(self, model: str, usage: Mapping[str, object] | None, prices: PriceTable,
                    configured_model: str, latency_s: float = 0.0,
                    purpose: str = "extract", body: Mapping[str, object] | None = None
                    ) -> CallUsage:
        usage = usage if isinstance(usage, Mapping) else {}
        prompt = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
        completion = _int(usage.get("completion_tokens", usage.get("output_tokens")))
        reported = cached_prompt_tokens(usage, body)
        cached = reported or 0
        price = prices.lookup(model, configured_model) if prices else None
        cost = price.cost(prompt, completion, cached) if price is not None else None
        call = CallUsage(model or configured_model, prompt, completion, cached, cost,
                         latency_s, purpose)
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.cached_prompt_tokens += cached
            self.cache_reported_calls += reported is not None
            if cost is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd = (self.cost_usd or 0.0) + cost
            self.per_call.append(call)
        return call

    def to_dict(self) -> dict[str, object]:
        with self._lock:
            d: dict[str, object] = {k: getattr(self, k) for k in self.__dataclass_fields__
                 if k not in ("per_call", "_lock", "rejected", "request_seconds")}
            d["rejected"] = dict(self.rejected)
            d["request_seconds"] = _seconds_summary(self.request_seconds)
            d["total_tokens"] = self.total_tokens
            d["per_call"] = [asdict(c) | {"total_tokens": c.total_tokens} for c in self.per_call]
        return d

    def summary(self) -> LLMSummary:
        """The figures an ingest prints: requests, retries, rejected replies by reason,
        tokens in/out (cached prompt tokens ``None`` when the server does not report them),
        seconds per request."""
        with self._lock:
            return {
                "episodes": self.episodes, "chunks": self.chunks,
                "cache_hits": self.cache_hits,
                "failed_episodes": self.failed_episodes, "requests": self.requests,
                "retries": self.retries, "repairs": self.repairs,
                "rejected": dict(self.rejected), "truncated_replies": self.truncated_replies,
                "facts": self.facts, "dropped_facts": self.dropped_facts,
                "tokens_in": self.prompt_tokens, "tokens_out": self.completion_tokens,
                "cached_prompt_tokens": (self.cached_prompt_tokens
                                         if self.cache_reported_calls else None),
                "cost_usd": self.cost_usd,
                "request_seconds": _seconds_summary(self.request_seconds),
            }

    def reset(self) -> None:
        fresh = LLMStats()
        with self._lock:
            for k in self.__dataclass_fields__:
                if k != "_lock":
                    setattr(self, k, getattr(fresh, k))


def format_summary(s: LLMSummary) -> str:
    """One human line for :meth:`LLMStats.summary` (the CLI's ingest summary)."""
    rej = s.get("rejected") or {}
    why = ", ".join(f"{k} {v}" for k, v in sorted(rej.items()))
    secs = s.get("request_seconds") or {}
    cached = s.get("cached_prompt_tokens")
    parts = [
        f"{s['episodes']} episodes in {s.get('chunks', 0)} sitting chunks "
        f"({s['cache_hits']} from cache, {s['failed_episodes']} episodes failed)",
        f"{s['requests']} requests, {s['retries']} retries, {s['repairs']} repairs",
        f"{sum(rej.values())} rejected replies" + (f" ({why})" if why else ""),
        f"tokens {s['tokens_in']:,} in / {s['tokens_out']:,} out, cached "
        + ("not reported by the server" if cached is None else f"{cached:,}"),
    ]
    if secs.get("n"):
        parts.append(f"{secs['median']:.2f} s per request (median, p95 {secs['p95']:.2f} s, "
                     f"max {secs['max']:.2f} s)")
    if s.get("cost_usd") is not None:
        parts.append(f"${s['cost_usd']:.4f}")
    return "LLM: " + "; ".join(parts)
