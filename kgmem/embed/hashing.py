"""A deterministic, fast, model-free embedder for unit tests of other modules.

**Not semantic.** It hashes lower-cased word unigrams (``\\w+``) into ``dim`` buckets with
a random sign per word (the "hashing trick") and L2-normalises the counts, so texts
sharing words are close and texts sharing none are near-orthogonal; synonyms,
paraphrases and word order mean nothing to it. Use it where a test needs *some*
embedder with stable output: the same text gives the same vector on every machine,
process and Python version (blake2b, not ``hash()``).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from kgmem.errors import InvalidInputError

from .base import EmbedderBase

_WORD = re.compile(r"\w+")
_EMPTY_TOKEN = "\x00empty"  # an empty/wordless text still gets a (fixed) unit vector


class HashingEmbedder(EmbedderBase):
    """``HashingEmbedder(dim=64)``: ``name`` is ``"hashing-<dim>"``."""

    def __init__(self, dim: int = 64) -> None:
        if not isinstance(dim, int) or dim < 2:
            raise InvalidInputError("dim must be an int >= 2", dim=dim)
        self.dim = dim
        self.name = f"hashing-{dim}"

    def _bucket(self, word: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"),
                                           digest_size=8).digest(), "little")
        return (h >> 1) % self.dim, (1.0 if h & 1 else -1.0)

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower()) or [_EMPTY_TOKEN]
            for w in words:
                b, sign = self._bucket(w)
                out[i, b] += sign
            norm = float(np.linalg.norm(out[i]))
            if norm == 0.0:  # signs cancelled exactly: fall back to the empty vector
                b, sign = self._bucket(_EMPTY_TOKEN)
                out[i, b] = sign
                norm = 1.0
            out[i] /= norm
        return out
