"""Errors raised by :mod:`kgmem.llm`. All derive from :class:`kgmem.errors.KgmemError` and
share the stable ``type`` ``"llm_error"``; ``details["reason"]`` says which failure it was."""

from __future__ import annotations

from kgmem.errors import KgmemError


class LLMError(KgmemError):
    """A chat-completions call failed (endpoint unreachable, error status, unusable output).

    ``status_code`` is the HTTP status of the last answer (``None`` if none came back, e.g.
    connection refused or timeouts on every attempt).
    """

    type = "llm_error"
    http_status = 502
    reason = "llm_error"

    def __init__(self, message: str, *, status_code: int | None = None, **details: object) -> None:
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
    """A 4xx or 5xx answer that names ``response_format`` (or json_schema/json_object): the
    server/model cannot do this structured-output mode, and asking again will not change that
    (callers downgrade json_schema -> json_object -> none). llama-cpp-python answers HTTP 500
    "Input should be 'text' or 'json_object'" to a json_schema request."""

    reason = "response_format_unsupported"


class LLMUnavailableError(LLMError):
    """Retryable failures (429, 5xx, timeouts, network) persisted through every retry, or the
    account has no quota left."""

    reason = "unavailable"


class LLMUnreachableError(LLMUnavailableError):
    """No HTTP answer at all on any attempt (connection refused, DNS failure, connect timeout):
    the endpoint is down or the URL is wrong, so a batch stops instead of trying every
    remaining episode."""

    reason = "unreachable"


class LLMTimeoutError(LLMUnavailableError):
    """The reply did not come within the request timeout or the episode's time budget. Not
    retried: a server that keeps working on an abandoned request (llama-cpp-python does) would
    make the retry queue behind it."""

    reason = "timeout"


class LLMOutputError(LLMError):
    """The model's reply is not the JSON asked for, even after one repair request."""

    reason = "malformed_output"
