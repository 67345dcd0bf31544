"""The self-contained Python examples of docs/ run as printed and give what their comments
say (README.md: tests/unit/test_readme_and_api_surface.py; docs/ingestion.md there too).
Examples that need a Neo4j or LLM server (neo4j*.md, llm.md, graphiti.md) or continue a
session (entity-resolution.md's fragments) are not run here."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), re.S)


def test_erase_doc_example_prints_what_its_comments_say(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    [block] = _blocks("erase.md")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/erase.md", "exec"), {})  # noqa: S102
    said = re.findall(r"print\(.*\)\s+#\s*(\[.*?\]|\{.*?\})", block)
    assert len(said) == 2 and capsys.readouterr().out.splitlines() == said


def test_embeddings_doc_example_gives_unit_vectors_and_token_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    [block] = _blocks("embeddings.md")
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(block, "docs/embeddings.md", "exec"), ns)  # noqa: S102
    assert ns["vecs"].shape == (2, 384) and ns["v"].shape == (384,)
    assert np.allclose(np.linalg.norm(ns["vecs"], axis=1), 1.0, atol=1e-5)
    assert ns["count_tokens"]("Hello, world!") == 4
    assert ns["count_tokens"](ns["truncate_to_tokens"](ns["long_episode_text"], 200)) <= 200
