"""A small client for OpenAI-compatible ``POST {base_url}/chat/completions`` (OpenAI, Azure-style
gateways, Ollama ``http://localhost:11434/v1``, vLLM, llama.cpp server, LM Studio, LiteLLM...).

* ``base_url`` is the API root (``https://api.openai.com/v1``); a bare ``http://host:port``
  gets ``/v1`` appended, and a URL already ending in ``/chat/completions`` is accepted.
* 408/409/425/429/5xx answers and connection errors are retried ``max_retries`` times with
  exponential backoff and jitter (``backoff_base * 2**attempt``, capped at ``max_backoff``); a
  ``retry-after-ms`` / ``Retry-After`` header (seconds or HTTP date) is honoured instead, capped
  at ``max_retry_after``. A 429 with code ``insufficient_quota`` is not retried (no amount of
  waiting helps). No HTTP answer on any attempt raises :class:`LLMUnreachableError`.
* A reply that does not come within ``timeout`` (or before ``deadline``) raises
  :class:`LLMTimeoutError` and is **not** retried: httpx closes the connection, but a server
  that keeps generating for an abandoned request (llama-cpp-python does) would make a retry
  queue behind it.
* 401/403 raise :class:`LLMAuthError` at once; any 4xx/5xx whose message names
  ``response_format`` (or json_schema/json_object) raises
  :class:`ResponseFormatUnsupportedError` at once (so callers can fall back); other 4xx raise
  :class:`LLMBadRequestError` with the server's message.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

import httpx

from kgmem.errors import InvalidInputError

from .errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMTimeoutError,
    LLMUnavailableError,
    LLMUnreachableError,
    ResponseFormatUnsupportedError,
)

__all__ = ["ChatClient", "ChatResult", "chat_completions_url"]

RETRY_STATUSES = frozenset({408, 409, 425, 429})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output",
                 "guided_json", "response format")


def chat_completions_url(base_url: str) -> str:
    """``{base_url}/chat/completions``; a base URL without a path gets ``/v1`` first."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise InvalidInputError("llm base_url must be an http(s) URL", field="base_url")
    base = base_url.strip().rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError(f"llm base_url must be an http(s) URL, got {base_url!r}",
                                field="base_url")
    if base.endswith("/chat/completions"):
        return base
    if parts.path in ("", "/"):
        base += "/v1"
    return base + "/chat/completions"


@dataclass
class ChatResult:
    """The first choice of a chat-completions response, plus what accounting needs."""

    content: str | None
    refusal: str | None
    finish_reason: str | None
    model: str
    id: str | None
    usage: dict[str, Any]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    latency_s: float = 0.0

    @classmethod
    def from_body(cls, body: dict[str, Any], model: str = "", latency_s: float = 0.0
                  ) -> ChatResult:
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise LLMError("chat completions response has no choices", body=_clip(body))
        choice = choices[0]
        msg = choice.get("message") or {}
        if not isinstance(msg, Mapping):
            msg = {}
        content = msg.get("content")
        if isinstance(content, list):  # content parts (some gateways)
            content = "".join(
                p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content
            )
        elif content is not None and not isinstance(content, str):
            content = str(content)
        refusal = msg.get("refusal")
        usage = body.get("usage")
        return cls(
            content=content,
            refusal=refusal if isinstance(refusal, str) and refusal else None,
            finish_reason=choice.get("finish_reason"),
            model=str(body.get("model") or model),
            id=body.get("id"),
            usage=dict(usage) if isinstance(usage, Mapping) else {},
            raw=body,
            latency_s=latency_s,
        )


def _clip(obj: Any, n: int = 300) -> str:
    text = obj if isinstance(obj, str) else repr(obj)
    return text[:n]


def _error_info(resp: httpx.Response) -> tuple[str, str | None, str | None]:
    """(message, code, param) from an OpenAI-style error body (or the raw text)."""
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:500].strip() or resp.reason_phrase, None, None
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            msg = err.get("message") or err.get("detail") or err.get("error") or ""
            code, param = err.get("code"), err.get("param")
            return (str(msg)[:1000] or _clip(body),
                    None if code is None else str(code), None if param is None else str(param))
        if isinstance(err, str):
            return err[:1000], None, None
        if "detail" in body:
            return str(body["detail"])[:1000], None, None
    return _clip(body), None, None


def _hint(status: int) -> str:
    if status in (401, 403):
        return " (check KGMEM_LLM_API_KEY / api_key and that it may use this model)"
    if status == 404:
        return (" (check base_url: it should be the API root such as https://api.openai.com/v1"
                " or http://localhost:11434/v1; and the model name)")
    if status == 413:
        return " (the episode is too long for this endpoint)"
    return ""


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if ra is None:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    ref = now if now is not None else datetime.now(timezone.utc).timestamp()
    return max(0.0, when.timestamp() - ref)


class ChatClient:
    """``ChatClient(base_url, model, api_key=None, timeout=30, max_retries=4)``.

    ``complete(payload)`` posts a chat-completions body (``model`` filled in if missing) and
    returns a :class:`ChatResult`. ``on_request`` (if set) is called once per HTTP attempt and
    ``on_retry`` once per retry; ``transport`` and ``sleep`` are test injection points.
    Thread-safe (one ``httpx.Client``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        *,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 60.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        on_request: Callable[[], None] | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError("llm model must be a non-empty string", field="model")
        if max_retries < 0 or timeout <= 0 or backoff_base < 0:
            raise InvalidInputError("max_retries >= 0, timeout > 0 and backoff_base >= 0 needed")
        self.url = chat_completions_url(base_url)
        self.model = model.strip()
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_base = float(backoff_base)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        hdrs = {"Content-Type": "application/json", "Accept": "application/json",
                **dict(headers or {})}
        if api_key:
            hdrs["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
            headers=hdrs, transport=transport,
        )
        self._sleep = sleep
        self._lock = threading.Lock()
        self.on_request = on_request
        self.on_retry = on_retry

    # ------------------------------------------------------------------ backoff
    def delay(self, attempt: int, resp: httpx.Response | None) -> float:
        if resp is not None:
            ra = parse_retry_after(resp.headers)
            if ra is not None:
                return min(ra, self.max_retry_after)
        base = min(self.max_backoff, self.backoff_base * (2 ** attempt))
        return base * (0.5 + random.random() / 2)  # jitter in [base/2, base]

    # ------------------------------------------------------------------ HTTP
    def complete(self, payload: Mapping[str, object], deadline: float | None = None
                 ) -> ChatResult:
        """One successful response to ``payload``. ``deadline`` (a ``time.monotonic()``
        value) bounds the whole call, retries and backoff included: each attempt's timeout is
        cut to what is left, and no attempt starts after it."""
        payload = {"model": self.model, **payload}
        attempts = self.max_retries + 1
        last, last_status, answered = "", None, False
        for attempt in range(attempts):
            resp: httpx.Response | None = None
            timeout = self._attempt_timeout(deadline)
            if self.on_request is not None:
                self.on_request()
            t0 = time.monotonic()
            try:
                resp = self._client.post(self.url, json=payload, timeout=timeout)
            except (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout) as exc:
                raise LLMTimeoutError(
                    f"chat completions request to {self.url} (model {self.model!r}) got no "
                    f"reply within {timeout.read:g} s ({type(exc).__name__}); not retried, "
                    "the server may still be working on it (raise KGMEM_LLM_TIMEOUT or lower "
                    "KGMEM_LLM_MAX_TOKENS for a slow local model)",
                    url=self.url, model=self.model, timeout_s=timeout.read) from None
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                last, last_status = f"{type(exc).__name__}: {exc}".rstrip(": "), None
            else:
                answered = True
                status = resp.status_code
                if 200 <= status < 300:
                    return self._result(resp, time.monotonic() - t0)
                msg, code, param = _error_info(resp)
                last, last_status = f"HTTP {status}: {msg}", status
                self._raise_final(status, msg, code, param)
            if attempt + 1 < attempts:
                wait = self.delay(attempt, resp)
                if deadline is not None and time.monotonic() + wait >= deadline:
                    break  # the next attempt could not finish in time
                if self.on_retry is not None:
                    self.on_retry(attempt + 1, wait, last)
                self._sleep(wait)
        cls = LLMUnavailableError if answered else LLMUnreachableError
        what = "still failing" if answered else "unreachable (no HTTP answer)"
        raise cls(
            f"chat completions endpoint {self.url} (model {self.model!r}) {what} after "
            f"{attempt + 1} attempt(s); last error: {last}",
            status_code=last_status, url=self.url, model=self.model, attempts=attempt + 1,
        )

    def _attempt_timeout(self, deadline: float | None) -> httpx.Timeout:
        read = self.timeout
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LLMTimeoutError(
                    f"chat completions request to {self.url} not sent: the episode's time "
                    "budget (KGMEM_LLM_EPISODE_TIMEOUT) is used up", url=self.url,
                    model=self.model)
            read = min(read, left)
        return httpx.Timeout(read, connect=min(10.0, read))

    def _raise_final(self, status: int, msg: str, code: str | None, param: str | None) -> None:
        """Raise for answers that retrying will not fix; return for retryable ones."""
        common: dict[str, Any] = {"status_code": status, "url": self.url, "model": self.model,
                                  "server_message": msg, "code": code}
        if status == 429 and code == "insufficient_quota":
            raise LLMUnavailableError(
                f"chat completions request to {self.url} failed with HTTP 429: {msg} "
                "(no quota left: not retried)", **common)
        text = f"chat completions request to {self.url} (model {self.model!r}) failed with " \
               f"HTTP {status}: {msg}{_hint(status)}"
        # Any status: llama-cpp-python answers 500 to a json_schema response_format.
        if status not in (401, 403, 429) and (
            param == "response_format" or any(w in msg.lower() for w in _FORMAT_WORDS)
        ):
            raise ResponseFormatUnsupportedError(text, **common)
        if status in RETRY_STATUSES or status >= 500:
            return
        if status in (401, 403):
            raise LLMAuthError(text, **common)
        raise LLMBadRequestError(text, **common)

    def _result(self, resp: httpx.Response, latency: float) -> ChatResult:
        try:
            body = resp.json()
        except ValueError as exc:
            raise LLMError(
                f"chat completions endpoint {self.url} returned non-JSON: {resp.text[:200]!r}",
                status_code=resp.status_code, url=self.url,
            ) from exc
        if not isinstance(body, dict):
            raise LLMError(
                f"chat completions endpoint {self.url} returned {type(body).__name__}, "
                "expected a JSON object", status_code=resp.status_code, url=self.url,
            )
        if "error" in body and "choices" not in body:  # some proxies answer 200 with an error
            msg = body["error"].get("message") if isinstance(body["error"], Mapping) else \
                body["error"]
            raise LLMError(f"chat completions endpoint {self.url} returned an error: {msg}",
                           status_code=resp.status_code, url=self.url)
        return ChatResult.from_body(body, self.model, latency)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
