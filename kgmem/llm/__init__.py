"""A small OpenAI-compatible chat-completions client (httpx) with retries, an on-disk response
cache and token/cost accounting. Used by :class:`kgmem.ingest.llm.LLMExtractor`."""

from __future__ import annotations

from .cache import ResponseCache, cache_key
from .client import ChatClient, ChatResult, chat_completions_url, parse_retry_after
from .errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMOutputError,
    LLMTimeoutError,
    LLMUnavailableError,
    LLMUnreachableError,
    ResponseFormatUnsupportedError,
)
from .usage import CallUsage, LLMStats, Price, PriceTable, parse_prices

__all__ = [
    "CallUsage",
    "ChatClient",
    "ChatResult",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMError",
    "LLMOutputError",
    "LLMStats",
    "LLMTimeoutError",
    "LLMUnavailableError",
    "LLMUnreachableError",
    "Price",
    "PriceTable",
    "ResponseCache",
    "ResponseFormatUnsupportedError",
    "cache_key",
    "chat_completions_url",
    "parse_prices",
    "parse_retry_after",
]
