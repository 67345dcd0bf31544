"""Errors raised by :mod:`kgmem.llm`. All derive from :class:`kgmem.errors.KgmemError` and
share the stable ``type`` ``"llm_error"``; ``details["reason"]`` says which failure it was."""

from __future__ import annotations

from typing import Any

from kgmem.errors import KgmemError


class LLMError(KgmemError):
    """A chat-completions call failed (endpoint unreachable, error status, unusable output).

    ``status_code`` is the HTTP status of the last answer (``None`` if none came back, e.g.
    connection refused or timeouts on every attempt).
    """

    type = "llm_error"
    http_status = 502
    reason = "llm_error"

    def __init__(self, message: str, *, status_code: int | None = None, **details: Any) -> None:
        details.setdefault("reason", self.reason)
        super().__init__(message, status_code=status_code, **details)
        self.status_code = status_code


class LLMAuthError(LLMError):
    """401/403: the API key is missing, wrong or lacks access to the model."""

    reason = "auth"


class LLMBadRequestError(LLMError):
    """Another 4xx the server will keep answering (bad model name, context too long...)."""

    reason = "bad_request"


class ResponseFormatUnsupportedError(LLMBadRequestError):
    """400 about ``response_format``: the server/model cannot do this structured-output mode
    (callers downgrade json_schema -> json_object -> none)."""

    reason = "response_format_unsupported"


class LLMUnavailableError(LLMError):
    """Retryable failures (429, 5xx, timeouts, network) persisted through every retry, or the
    account has no quota left."""

    reason = "unavailable"


class LLMOutputError(LLMError):
    """The model's reply is not the JSON asked for, even after one repair request."""

    reason = "malformed_output"
