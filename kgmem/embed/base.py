"""The :class:`Embedder` protocol every embedding backend satisfies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kgmem.errors import InvalidInputError

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    ``name`` and ``dim`` may be plain attributes or read-only properties.

    * ``name`` identifies the vector space (two embedders with the same name produce
      interchangeable vectors; caches key on it).
    * ``dim`` is the vector length.
    * ``embed(texts)`` returns a float32 array of shape ``(len(texts), dim)`` whose rows
      have L2 norm 1 (an empty list gives shape ``(0, dim)``).
    * ``embed_one(text)`` returns one float32 vector of shape ``(dim,)``.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate the argument of ``embed``: a sequence of str, not a bare str."""
    if isinstance(texts, (str, bytes)):
        raise InvalidInputError(
            "embed() takes a list of texts, not a single string; use embed_one(text)"
        )
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InvalidInputError(
                f"texts[{i}] is {type(t).__name__}, expected str", index=i
            )
    return out


def l2_normalize(x: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Rows divided by their L2 norm (norm clamped at ``eps``, like
    ``torch.nn.functional.normalize``), as float32."""
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(norms, eps)).astype(np.float32, copy=False)


class EmbedderBase:
    """Convenience base: ``embed_one`` via ``embed``. Subclasses set ``name``/``dim``
    and implement ``_embed(list[str]) -> ndarray`` (rows already normalised)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed(items)

    def embed_one(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise InvalidInputError(f"text is {type(text).__name__}, expected str")
        return self.embed([text])[0]

    def _embed(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.dim})"
