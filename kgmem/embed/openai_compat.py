"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Azure-style
gateways, vLLM, llama.cpp server, Ollama, LocalAI, TEI...), over httpx.

Wire format (request)::

    POST {base_url}/embeddings
    Authorization: Bearer <api_key>          (only when api_key is given)
    {"model": "...", "input": ["text", ...]} (+ "dimensions": n when send_dimensions)

(response)::

    {"data": [{"index": 0, "embedding": [0.1, ...]}, ...], "model": "...", ...}

``embedding`` may also be a base64 string of little-endian float32 (encoding_format
"base64"); both are accepted. Rows are re-normalised to unit length.

* ``base_url`` is the API root, e.g. ``https://api.openai.com/v1``; a bare
  ``http://host:port`` (no path) gets ``/v1`` appended.
* 429, 408, 425 and 5xx answers and network errors/timeouts are retried ``retries``
  times with exponential backoff and jitter (``Retry-After`` is honoured, capped at
  ``max_backoff``); other 4xx answers fail at once with :class:`EmbeddingHTTPError`
  carrying the server's message.
* Empty strings are sent as a single space (OpenAI rejects empty inputs); lone
  surrogates (not encodable as UTF-8) are replaced with U+FFFD.
"""

from __future__ import annotations

import base64
import random
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from kgmem.errors import InvalidInputError

from .base import EmbedderBase, check_texts, l2_normalize
from .errors import EmbeddingError, EmbeddingHTTPError
from .tokenizer import sanitize

RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def embeddings_url(base_url: str) -> str:
    """``{base_url}/embeddings``; a base URL without a path gets ``/v1`` first."""
    base = base_url.strip().rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError(f"base_url must be an http(s) URL, got {base_url!r}")
    if parts.path in ("", "/"):
        base += "/v1"
    return base + "/embeddings"


def _server_message(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:300].strip()
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("error")
            if msg:
                return str(msg)[:500]
        elif isinstance(err, str):
            return err[:500]
        if "detail" in body:
            return str(body["detail"])[:500]
    return str(body)[:300]


def _hint(status: int) -> str:
    if status in (401, 403):
        return " (check api_key)"
    if status == 404:
        return (
            " (check base_url: it should be the API root such as http://host:port/v1;"
            " and the model name)"
        )
    if status in (400, 422):
        return " (check the model name and inputs)"
    return ""


class OpenAIEmbedder(EmbedderBase):
    """``OpenAIEmbedder(base_url, model, api_key=None, dim=None, timeout=30.0, retries=3)``.

    ``dim``: expected vector length. If ``None`` it is learned from the first response
    (reading ``.dim`` before any call sends one probe request -- and on Python < 3.12
    ``isinstance(e, Embedder)`` reads it -- so pass ``dim`` when you know it). With
    ``send_dimensions=True`` it is also sent as the ``dimensions`` parameter
    (text-embedding-3 models can shorten their vectors).
    ``name`` defaults to ``"openai:<model>"`` (``":<dim>"`` appended when dimensions are
    sent): it names the vector space, so caches and stores keep models apart.
    ``transport`` (an ``httpx`` transport) and ``sleep`` are injection points for tests.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        *,
        batch_size: int = 128,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        send_dimensions: bool = False,
        name: str | None = None,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise InvalidInputError("model must be a non-empty string")
        if dim is not None and dim < 1:
            raise InvalidInputError("dim must be positive", dim=dim)
        if retries < 0 or batch_size < 1:
            raise InvalidInputError("retries must be >= 0 and batch_size >= 1")
        if send_dimensions and dim is None:
            raise InvalidInputError("send_dimensions needs dim")
        self.url = embeddings_url(base_url)
        self.model = model
        self._dim = dim
        self.timeout = timeout
        self.retries = retries
        self.batch_size = batch_size
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.send_dimensions = send_dimensions
        self.name = name or (f"openai:{model}" + (f":{dim}" if send_dimensions else ""))
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        if api_key:
            hdrs["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(timeout=timeout, headers=hdrs, transport=transport)
        self._sleep = sleep
        self.requests = 0  # HTTP requests sent, retries included

    # -- dim --------------------------------------------------------------------------
    @property
    def dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    # -- HTTP -------------------------------------------------------------------------
    def _delay(self, attempt: int, resp: httpx.Response | None) -> float:
        if resp is not None:
            ra = resp.headers.get("retry-after")
            if ra is not None:
                try:
                    return max(0.0, min(self.max_backoff, float(ra)))
                except ValueError:
                    pass
        base = min(self.max_backoff, self.backoff * (2**attempt))
        return base * (0.5 + random.random() / 2)

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        attempts = self.retries + 1
        last: str = ""
        last_status: int | None = None
        for attempt in range(attempts):
            resp: httpx.Response | None = None
            try:
                self.requests += 1
                resp = self._client.post(self.url, json=payload)
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                last, last_status = f"{type(exc).__name__}: {exc}", None
            else:
                if resp.status_code < 300:
                    try:
                        body = resp.json()
                    except ValueError as exc:
                        raise EmbeddingError(
                            f"embeddings endpoint {self.url} returned non-JSON: "
                            f"{resp.text[:200]!r}",
                            url=self.url,
                        ) from exc
                    if not isinstance(body, dict):
                        raise EmbeddingError(
                            f"embeddings endpoint {self.url} returned {type(body).__name__}, "
                            "expected a JSON object",
                            url=self.url,
                        )
                    return body
                msg = _server_message(resp)
                last, last_status = f"HTTP {resp.status_code}: {msg}", resp.status_code
                if resp.status_code not in RETRY_STATUSES and resp.status_code < 500:
                    raise EmbeddingHTTPError(
                        f"embeddings request to {self.url} (model {self.model!r}) failed with "
                        f"HTTP {resp.status_code}: {msg}{_hint(resp.status_code)}",
                        status_code=resp.status_code,
                        url=self.url,
                        model=self.model,
                        server_message=msg,
                    )
            if attempt + 1 < attempts:
                self._sleep(self._delay(attempt, resp))
        raise EmbeddingHTTPError(
            f"embeddings request to {self.url} (model {self.model!r}) still failing after "
            f"{attempts} attempt(s); last error: {last}",
            status_code=last_status,
            url=self.url,
            model=self.model,
            attempts=attempts,
        )

    def _parse(self, body: dict[str, Any], n: int) -> np.ndarray:
        data = body.get("data")
        if not isinstance(data, list) or len(data) != n:
            got = len(data) if isinstance(data, list) else type(data).__name__
            raise EmbeddingError(
                f"embeddings endpoint {self.url} returned {got} embeddings for {n} inputs",
                url=self.url,
            )
        rows: list[np.ndarray | None] = [None] * n
        for pos, item in enumerate(data):
            if not isinstance(item, dict) or "embedding" not in item:
                raise EmbeddingError(f"malformed item {pos} in embeddings response", url=self.url)
            idx = item.get("index", pos)
            if not isinstance(idx, int) or not 0 <= idx < n or rows[idx] is not None:
                raise EmbeddingError(f"bad index {idx!r} in embeddings response", url=self.url)
            emb = item["embedding"]
            try:
                if isinstance(emb, str):
                    raw = base64.b64decode(emb, validate=True)
                    vec = np.frombuffer(raw, dtype="<f4").astype(np.float32)
                else:
                    vec = np.asarray(emb, dtype=np.float32)
            except (ValueError, TypeError) as exc:  # binascii.Error is a ValueError
                raise EmbeddingError(
                    f"malformed embedding {idx} in response: {exc}", url=self.url
                ) from exc
            if vec.ndim != 1 or vec.size == 0 or not np.all(np.isfinite(vec)):
                raise EmbeddingError(f"malformed embedding {idx} in response", url=self.url)
            rows[idx] = vec
        lengths = {r.shape[0] for r in rows if r is not None}
        if len(lengths) != 1:
            raise EmbeddingError(
                f"embeddings of different lengths {sorted(lengths)} in response", url=self.url
            )
        (length,) = lengths
        if self._dim is None:
            self._dim = length
        elif length != self._dim:
            raise EmbeddingError(
                f"model {self.model!r} returned vectors of length {length}, expected {self._dim}",
                url=self.url,
                expected=self._dim,
                got=length,
            )
        return l2_normalize(np.stack(rows))  # type: ignore[arg-type]

    # -- Embedder ---------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return self._embed(items)

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), self.batch_size):
            batch = [sanitize(t) or " " for t in texts[start : start + self.batch_size]]
            payload: dict[str, Any] = {"model": self.model, "input": batch}
            if self.send_dimensions:
                payload["dimensions"] = self._dim
            out.append(self._parse(self._post(payload), len(batch)))
        return np.concatenate(out, axis=0)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self.url!r}, model={self.model!r}, dim={self._dim})"
