"""Offline stand-ins for graphiti-core's model clients (no network, deterministic).

``HashEmbedder`` is both a graphiti ``EmbedderClient`` and a kgmem ``Embedder``: a bag of
hashed words projected to 384 dims, so texts sharing words are close. ``PassThroughReranker``
keeps the order it is given; ``NoLLM`` refuses every call (search needs none).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient

DIM = 384


def _word_vector(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


class HashEmbedder(EmbedderClient):
    name = "test-hash-384"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower()) or ["<empty>"]
            v = sum(_word_vector(w) for w in words)
            out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
        return [float(x) for x in self.embed_one(text)]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embed(input_data_list)]


class PassThroughReranker(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        return [(p, 1.0 - i / max(len(passages), 1)) for i, p in enumerate(passages)]


class NoLLM(LLMClient):
    def __init__(self) -> None:
        super().__init__(config=None)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("these tests must not call an LLM")
