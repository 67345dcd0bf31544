"""chunk_text / embed_chunks / embed_long: long texts are embedded in pieces, never cut."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.embed import HashingEmbedder, chunk_text, count_tokens, embed_chunks, embed_long
from kgmem.embed.tokenizer import encode_for_model
from kgmem.errors import InvalidInputError


def _check_spans(text: str, spans: list[tuple[int, int]], max_tokens: int, overlap: int):
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    covered = np.zeros(len(text), dtype=bool)
    for a, b in spans:
        assert 0 <= a < b <= len(text)
        covered[a:b] = True
        # fits the window including [CLS]/[SEP]: nothing gets truncated
        assert count_tokens(text[a:b]) <= max_tokens - 2
    for i, ch in enumerate(text):
        assert covered[i] or ch.isspace(), f"char {i} {ch!r} not covered"
    for (a1, b1), (a2, b2) in zip(spans, spans[1:], strict=False):
        assert a1 < a2 and b1 < b2  # monotone progress
        if overlap:
            assert a2 < b1 and count_tokens(text[a2:b1]) >= overlap


def test_short_text_is_one_span():
    assert chunk_text("hello world") == [(0, 11)]
    assert chunk_text("") == [(0, 0)]
    assert chunk_text("   ") == [(0, 3)]


def test_long_text_windows(long_text):
    text = long_text * 3  # ~1200 tokens
    spans = chunk_text(text)
    assert len(spans) >= 5
    _check_spans(text, spans, 256, 32)
    for a, b in spans:
        (ids,) = encode_for_model([text[a:b]], max_length=10_000)
        assert len(ids) <= 256  # the model sees every token of every chunk


def test_chunks_end_on_word_boundaries():
    text = " ".join(["unbelievably"] * 200)  # 5 word pieces per word
    spans = chunk_text(text, max_tokens=64, overlap=8)
    _check_spans(text, spans, 64, 8)
    for a, b in spans:
        assert text[a:b].strip() == text[a:b]
        assert set(text[a:b].split()) == {"unbelievably"}


def test_zero_overlap_and_bad_arguments(long_text):
    spans = chunk_text(long_text, max_tokens=50, overlap=0)
    _check_spans(long_text, spans, 50, 0)
    for bad in [dict(max_tokens=2), dict(max_tokens=40, overlap=38), dict(overlap=-1)]:
        with pytest.raises(InvalidInputError):
            chunk_text(long_text, **bad)
    with pytest.raises(InvalidInputError):
        chunk_text(None)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.one_of(
            st.sampled_from(["the", "Alice", "unbelievably", "東京", "!", "x2", "café", "🙂"]),
            st.text(alphabet="abcdefghij ,.'\n", min_size=1, max_size=12),
        ),
        max_size=80,
    ),
    max_tokens=st.integers(16, 40),
    overlap=st.integers(0, 3),
)
def test_chunking_properties(words, max_tokens, overlap):
    text = " ".join(words)
    spans = chunk_text(text, max_tokens=max_tokens, overlap=overlap)
    if count_tokens(text) <= max_tokens - 2:
        assert spans == [(0, len(text))]
    else:
        _check_spans(text, spans, max_tokens, overlap)


def test_embed_chunks_with_any_embedder(long_text):
    emb = HashingEmbedder(32)
    text = long_text * 2
    chunks = embed_chunks(text, emb, max_tokens=128, overlap=16)
    assert [(a, b) for a, b, _ in chunks] == chunk_text(text, 128, 16)
    for a, b, v in chunks:
        np.testing.assert_allclose(v, emb.embed_one(text[a:b]), atol=1e-6)


def test_embed_long_with_minilm(onnx_minilm, long_text):
    short = "Carol is allergic to peanuts."
    np.testing.assert_allclose(embed_long(short, onnx_minilm), onnx_minilm.embed_one(short),
                               atol=1e-6)
    text = long_text * 2 + " Carol is allergic to peanuts."
    chunks = embed_chunks(text, onnx_minilm)
    assert len(chunks) >= 2
    # the tail sentence lives in the last chunk, which a single truncated embedding loses
    tail = onnx_minilm.embed_one("Carol has a peanut allergy.")
    assert float(chunks[-1][2] @ tail) > float(onnx_minilm.embed_one(text) @ tail)
    vec = embed_long(text, onnx_minilm)
    assert vec.shape == (384,) and abs(np.linalg.norm(vec) - 1) < 1e-5
