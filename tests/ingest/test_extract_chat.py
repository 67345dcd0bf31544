"""Offline extractor on real-chat phrasings (LoCoMo-like turns): what must NOT become a fact,
and a few chat forms that must. Sentences are written for these tests (not from the eval set)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.offline import OfflineExtractor

UTC = timezone.utc
REF = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)


def facts(ex: OfflineExtractor, text: str) -> set[tuple[str, str, str, str]]:
    return {(f.subject, f.predicate, f.object, f.kind)
            for f in ex.extract(text, REF, speaker="Sam")}


@pytest.mark.parametrize("text", [
    "I'm really enjoying my new job.",                       # generic object
    "I love the color and texture.",                         # reaction to a photo
    "Wow, I love the dark sky and green scenery.",
    "I love the smell and taste it adds to dishes.",
    "I like the structure of the language.",
    "I'm a big fan of being outside.",
    "I'd love to take a look!",                              # light verb, not a plan
    "I would love to join in.",
    "I hope to work in the future.",
    "Basketball has been a part of my life since I was a kid.",
    "We're part of something bigger.",
    "I've been playing all kinds of new games.",
    "I work on all kinds of cars at the shop.",
    "I'm no writer like you.",                               # denial, not a role
    "I just got back from a rad vacay.",
    "I'm into the rush of fast cars.",
])
def test_chat_reactions_are_not_facts(ex, text) -> None:
    assert facts(ex, text) == set(), text


@pytest.mark.parametrize("text,expected", [
    ("I love hiking in the mountains.", ("Sam", "LIKES", "hiking in the mountains", "assert")),
    ("I love the beach.", ("Sam", "LIKES", "beach", "assert")),
    ("I'm totally into The Witcher 3 right now.", ("Sam", "LIKES", "Witcher", "assert")),
    ("I'm now part of the fire brigade.", ("Sam", "MEMBER_OF", "fire brigade", "assert")),
    ("I'm planning to visit Iceland.", ("Sam", "PLANS", "Iceland", "assert")),  # a wish is not
])
def test_chat_preferences_still_extracted(ex, text, expected) -> None:
    assert expected in facts(ex, text), text


def test_bare_gerund_is_not_a_preference(ex) -> None:
    assert not [f for f in facts(ex, "I really enjoy watching our pets play.")
                if f[1] == "LIKES"]


def test_went_to_work_for_is_a_job(ex) -> None:
    (f,) = [f for f in ex.extract("I went to work for Google in 2019.", REF, speaker="Sam")
            if f.predicate == "WORKS_AT"]
    assert (f.subject, f.object, f.kind) == ("Sam", "Google", "assert")
    assert f.valid_at == datetime(2019, 1, 1, tzinfo=UTC)


def test_job_that_ended_is_an_ending_not_a_start(ex) -> None:
    (f,) = ex.extract("My job at Acme ended in March.", REF, speaker="Sam")
    assert (f.predicate, f.object, f.kind) == ("WORKS_AT", "Acme", "end")
    assert f.invalid_at == datetime(2023, 3, 1, tzinfo=UTC) and f.valid_at is None
