"""Name and predicate normalisation (kgmem.names, kgmem.vocabulary) on arbitrary Unicode:
keys are idempotent, cleaning never changes a key, stored names carry no invisible or
bidirectional characters."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from kgmem.errors import InvalidInputError
from kgmem.names import BIDI_CONTROLS, clean_name, normalize_name
from kgmem.vocabulary import normalize_predicate

# Any code point (surrogates included), weighted towards the tricky ones.
TRICKY = st.sampled_from(sorted(BIDI_CONTROLS) + list("\u200b\u200c\u200d\u00ad\ufeff\x00\x1f"
                                                     "\u0301\u0308ßİıﬁ½ｱＡ_ .'’-ǰᴀ"))
text = st.lists(st.one_of(st.characters(), TRICKY), max_size=24).map("".join)


@settings(max_examples=500, deadline=None)
@given(text)
def test_normalize_name_is_idempotent(s: str) -> None:
    key = normalize_name(s)
    assert normalize_name(key) == key


@settings(max_examples=500, deadline=None)
@given(text)
@example("A\u200b\u0300")  # the removed ZWSP kept A and the grave accent from composing
def test_a_cleaned_name_has_the_same_key_and_nothing_invisible(s: str) -> None:
    try:
        name = clean_name(s, "name")
    except InvalidInputError:
        return
    assert normalize_name(name) == normalize_name(s)
    assert clean_name(name, "name") == name
    assert not BIDI_CONTROLS & set(name)
    assert all(unicodedata.category(c) not in ("Cc", "Cs") for c in name)
    assert all(unicodedata.category(c) != "Cf" or c in "\u200c\u200d" for c in name)


@settings(max_examples=500, deadline=None)
@given(text)
def test_normalize_predicate_is_idempotent_and_keeps_letters(s: str) -> None:
    try:
        key = normalize_predicate(s)
    except InvalidInputError:
        return
    assert normalize_predicate(key) == key
    assert unicodedata.category(key[0]).startswith("L")
    letters = [c for c in unicodedata.normalize("NFKC", s) if c.isalpha()]
    assume(letters)
    # every letter of the input survives (upper-cased), whatever its script
    assert len([c for c in key if c.isalpha()]) >= len(letters)


@pytest.mark.parametrize("name", ["The The", "the the x", "a . b", "ﬁsh", "İstanbul"])
def test_known_edge_cases_are_stable(name: str) -> None:
    assert normalize_name(normalize_name(name)) == normalize_name(name)
