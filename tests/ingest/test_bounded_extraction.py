"""Extraction work is bounded by size (issue 13, point 8): long episodes reach the extractor in
pieces, extractor calls hold a bounded amount of text, and the API refuses more synchronous
extraction per request than its limit with 413 and what to do instead."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline, split_text
from kgmem.memory.facade import Memory
from tests.api.conftest import assert_error, client_for


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n!?,;"), max_size=400), st.integers(2, 60))
def test_split_text_pieces_join_back_and_respect_the_size(text: str, size: int) -> None:
    pieces = split_text(text, size)
    assert "".join(pieces) == text
    assert all(len(p) <= size for p in pieces)
    assert all(pieces[:-1])  # no empty piece except a whole empty text


def test_split_text_cuts_at_paragraphs_before_sentences() -> None:
    text = "one. two.\n\nthree four. five six seven."
    assert split_text(text, 20) == ["one. two.\n\n", "three four. ", "five six seven."]


class Recording:
    """Records how much text each extract_many call got; a fact per text holding 'tea'."""

    def __init__(self) -> None:
        self.calls: list[list[int]] = []

    def extract_many(self, items):  # type: ignore[no-untyped-def]
        self.calls.append([len(it[0]) for it in items])
        return [[ExtractedFact("Ann", "LIKES", "tea")] if "tea" in it[0] else [] for it in items]


def test_a_long_episode_is_extracted_in_bounded_pieces(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rec = Recording()
    pipe = ExtractionPipeline(rec, chunk_chars=1000, batch_chars=3000)
    text = "\n\n".join(f"Paragraph {i}. Nothing to see here, really." for i in range(300))
    text += "\n\nI like tea."
    with Memory(tmp_path / "m", extractor=pipe) as m:
        ep = m.add_episode(text, "2024-01-01", speaker="Ann")
        assert ep.content == text  # stored whole
        assert ep.extraction is not None and ep.extraction.facts == 1
        assert [f.object for f in m.facts("Ann")] == ["tea"]
    assert max(n for call in rec.calls for n in call) <= 1000
    assert max(sum(call) for call in rec.calls) <= 3000
    assert sum(n for call in rec.calls for n in call) == len(text)


def test_the_api_refuses_more_extraction_than_its_limit_with_413(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rec = Recording()
    with Memory(tmp_path / "m", extractor=ExtractionPipeline(rec)) as m, \
            client_for(m, max_extract_chars=5000) as c:
        big = {"content": "x " * 3000, "reference_time": "2024-01-01"}
        err = assert_error(c.post("/v1/episodes", json=big), 413, "extraction_too_large")
        assert err["details"]["limit"] == 5000 and err["details"]["got"] == 6000
        assert "extract" in err["message"] and "split" in err["message"]
        bulk = {"episodes": [{"content": "y " * 1500, "reference_time": "2024-01-01"}] * 2}
        bulk["episodes"][1] = {**bulk["episodes"][1], "content": "z " * 1500}
        assert_error(c.post("/v1/episodes/bulk", json=bulk), 413, "extraction_too_large")
        assert rec.calls == [] and c.get("/v1/episodes").json()["items"] == []
        # without extraction it is only stored (and embedded in the background)
        r = c.post("/v1/episodes", json={**big, "extract": False})
        assert r.status_code == 201 and r.json()["extraction"]["status"] == "skipped"
        small = c.post("/v1/episodes", json={"content": "I like tea", "reference_time": "2024"})
        assert small.status_code == 201 and small.json()["extraction"]["facts"] == 1


def test_the_text_bound_applies_without_extraction_too(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """issue 32: `"extract": false` used to skip every bound (999,999 characters accepted)."""
    with Memory(tmp_path / "m", extractor=None) as m, \
            client_for(m, max_episode_chars=5000) as c:
        big = {"content": "x " * 3000, "reference_time": "2024-01-01", "extract": False}
        err = assert_error(c.post("/v1/episodes", json=big), 413, "content_too_large")
        assert err["details"]["limit"] == 5000 and err["details"]["got"] == 6000
        bulk = {"episodes": [{**big, "content": "y " * 1500}, {**big, "content": "z " * 1500}]}
        assert_error(c.post("/v1/episodes/bulk", json=bulk), 413, "content_too_large")
        assert c.get("/v1/episodes").json()["items"] == []
        ok = c.post("/v1/episodes", json={**big, "content": "x " * 2000})
        assert ok.status_code == 201


def test_mcp_remember_is_bounded_like_rest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from kgmem.mcp.server import create_server
    from kgmem.settings import Settings

    with Memory(tmp_path / "m", extractor=None) as m:
        server = create_server(Settings(max_episode_chars=100, max_extract_chars=50), memory=m)
        with pytest.raises(Exception) as exc:
            asyncio.run(server.call_tool("remember", {"content": "x" * 101}))
        assert "content_too_large" in str(exc.value) or "at most 100" in str(exc.value)
        with pytest.raises(Exception) as exc:
            asyncio.run(server.call_tool("remember", {"content": "x" * 60}))
        assert "at most 50" in str(exc.value)
        assert m.episodes() == []
