"""Fixtures: ``server`` (a :class:`FakeOpenAI` on 127.0.0.1) and ``make_extractor`` (an
:class:`LLMExtractor` pointed at it, cache in ``tmp_path``, tiny backoff)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgmem.ingest.llm import LLMExtractor

from .fakeserver import FakeOpenAI


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    s = FakeOpenAI()
    yield s
    s.close()


@pytest.fixture
def make_extractor(server: FakeOpenAI, tmp_path: Path) -> Iterator[Callable[..., LLMExtractor]]:
    made: list[LLMExtractor] = []

    def make(**kw: Any) -> LLMExtractor:
        kw.setdefault("cache_dir", tmp_path / "llm-cache")
        kw.setdefault("backoff_base", 0.001)
        kw.setdefault("timeout", 5.0)
        ex = LLMExtractor(server.base_url, kw.pop("model", "gpt-4o-mini"),
                          kw.pop("api_key", "sk-test-cdef"), **kw)
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.close()
