"""count_tokens / truncate_to_tokens with the real MiniLM WordPiece tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.embed import count_tokens, truncate_to_tokens
from kgmem.errors import InvalidInputError


def test_count_tokens_known_values():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2  # no [CLS]/[SEP]
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("Playing unbelievably") == 6  # playing un ##bel ##ie ##va ##bly
    assert count_tokens("東京") == 2
    long = "word " * 1000
    assert count_tokens(long) == 1000  # never truncated


def test_truncate_keeps_whole_words():
    text = "Playing unbelievably well, the Café-owner said."
    assert truncate_to_tokens(text, 100) == text
    assert truncate_to_tokens(text, 0) == ""
    assert truncate_to_tokens(text, 1) == "Playing"
    assert truncate_to_tokens(text, 5) == "Playing"  # "unbelievably" needs 5 pieces
    assert truncate_to_tokens(text, 6) == "Playing unbelievably"
    assert truncate_to_tokens(text, 7) == "Playing unbelievably well"


def test_truncate_inside_a_single_huge_word():
    word = "pneumonoultramicroscopicsilicovolcanoconiosis"
    n = count_tokens(word)
    assert n > 3
    cut = truncate_to_tokens(word, 3)
    assert word.startswith(cut) and 0 < count_tokens(cut) <= 3


def test_bad_arguments():
    with pytest.raises(InvalidInputError):
        truncate_to_tokens("abc", -1)
    with pytest.raises(InvalidInputError):
        count_tokens(None)  # type: ignore[arg-type]


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=200), n=st.integers(0, 40))
def test_truncate_properties(text, n):
    out = truncate_to_tokens(text, n)
    assert text.startswith(out)
    assert count_tokens(out) <= n
    if count_tokens(text) <= n:
        assert out == text


def test_lone_surrogates_do_not_crash():
    text = "bad \ud800 input here"  # e.g. from sloppy JSON; not encodable as UTF-8
    assert count_tokens(text) == 3
    out = truncate_to_tokens(text, 2)
    assert text.startswith(out) and count_tokens(out) <= 2
