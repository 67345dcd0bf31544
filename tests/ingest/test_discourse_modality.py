"""The discourse layer's modality of a clause (kgmem.ingest.discourse.modality) and how the
offline extractor's emit obeys it; chat roles and the names speakers give themselves
(kgmem.ingest.discourse.speakers). Sentences written for these tests, not taken from the
labelled sets of benchmarks/extraction/notes_labels.py."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.discourse.modality import Modality, clause_modality
from kgmem.ingest.discourse.speakers import is_role, self_name
from kgmem.ingest.offline import OfflineExtractor

REF = datetime(2024, 3, 4, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("sentence", "verb", "want"), [
    ("We bought a flat in Porto.", "bought", Modality.ASSERTED),
    ("I don't own a car.", "own", Modality.NEGATED),
    ("Did you buy the flat?", "buy", Modality.ASKED),
    ("If the bank says yes, we'll buy a flat.", "buy", Modality.HYPOTHETICAL),
    ("I wish we owned a flat.", "owned", Modality.WISHED),
    ("I can't wait to own a flat.", "own", Modality.WISHED),
    ("My uncle said he sold his boat.", "sold", Modality.REPORTED),
    ("I used to own a boat.", "own", Modality.HABITUAL_PAST),
    ("I want to buy a boat.", "buy", Modality.PLANNED),
])
def test_clause_modality(ex, sentence, verb, want) -> None:
    doc = ex.nlp(sentence)
    tok = next(t for t in doc if t.text == verb)
    assert clause_modality(tok) is want


def _facts(ex: OfflineExtractor, text: str, speaker: str = "Sam") -> set[tuple[str, ...]]:
    return {(f.subject, f.predicate, f.object, f.kind)
            for f in ex.extract(text, REF, speaker=speaker)}


@pytest.mark.parametrize("text", [
    "If they offer me the position, I'll relocate to Madrid.",
    "I can't wait for the day I walk on the beach with my cat.",
    "I hope to live in Rome one day.",
    "My cousin told me she lives in Lima now.",
    "I'd love to work at a zoo.",
])
def test_unstated_clauses_give_no_fact(ex, text) -> None:
    assert _facts(ex, text) == set(), text


def test_used_to_ends_the_state(ex) -> None:
    assert ("Sam", "LIVES_IN", "Leeds", "end") in _facts(ex, "I used to live in Leeds.")
    assert _facts(ex, "We used to visit Oslo every winter.") == set()


def test_the_assistant_has_no_life_to_remember(ex) -> None:
    assert _facts(ex, "I live in a data centre in Dublin.", speaker="assistant") == set()


@pytest.mark.parametrize(("text", "name"), [
    ("My name is Ines.", "Ines"),
    ("Hi, I'm Bartek and I cook a lot.", "Bartek"),
    ("Call me Jo.", "Jo"),
    ("My name's Dara and I cook a lot.", "Dara"),  # "name's" parsed as a possessive
    ("my name is Ada Lovelace.", "Ada Lovelace"),
    ("I'm fine, thanks.", None),
    ("I'm from Jordan.", None),
])
def test_self_name(ex, text, name) -> None:
    assert self_name(ex.nlp(text)) == name


def test_a_role_is_named_by_what_its_speaker_says(ex) -> None:
    out = ex.extract_many([
        {"text": "I work at Lidl.", "reference_time": REF, "speaker": "user", "group": "g"},
        {"text": "Oh, and my name is Ines.", "reference_time": REF.replace(minute=1),
         "speaker": "user", "group": "g"},
        {"text": "I live in Graz.", "reference_time": REF.replace(minute=2),
         "speaker": "user", "group": "g"},
    ])
    subjects = {f.subject for facts in out for f in facts}
    assert subjects == {"Ines"}
    assert is_role("User") and is_role("assistant") and not is_role("Ines")


@pytest.mark.parametrize(("text", "want"), [
    ("Please keep your replies short, friendly and in Spanish.",
     {"keep your replies short", "keep your replies friendly", "keep your replies in Spanish"}),
    ("Keep the summaries brief, and use metric units.",
     {"keep the summaries brief", "use metric units"}),
    ("Reply in English, please.", {"reply in English"}),
    ("Got an email about a volunteer gig.", set()),         # a dropped "I", not an order
    ("Keep going and you'll find the answer.", set()),      # encouragement
    ("Let me know if you need any suggestions!", set()),
])
def test_standing_instructions(ex, text, want) -> None:
    assert {o for _s, p, o, _k in _facts(ex, text, speaker="user") if p == "INSTRUCTION"} == want


@pytest.mark.parametrize(("text", "want"), [
    ("We agreed to send the invoice every Friday.", {"send the invoice every Friday"}),
    ("We're still deciding on the venue.", set()),          # not taken yet
    ("I agree that schools need more money.", set()),       # an opinion shared
])
def test_decisions(ex, text, want) -> None:
    assert {o for _s, p, o, _k in _facts(ex, text) if p == "DECIDED"} == want
