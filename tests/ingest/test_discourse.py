"""The discourse layer (clause time, coreference, the signer of a letter) and document mode
of the offline extractor (issue 31)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.discourse import Coreference
from kgmem.ingest.discourse.voice import signed_by
from kgmem.ingest.offline import OfflineExtractor
from kgmem.ingest.offline.context import Context

UTC = timezone.utc
REF = datetime(2024, 6, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor()


def _token(doc, word: str, nth: int = 0):
    hits = [t for t in doc if t.text == word]
    return hits[nth]


@pytest.mark.parametrize(("text", "verb", "year", "relation"), [
    ("In 2019 he moved to Oslo and started working at Equinor as a data lead.", "started",
     2019, "at"),
    ("He left Equinor in 2022 and founded a company called Fjord Labs, where he became CEO.",
     "became", 2022, "at"),
    ("In 2018 she moved to Paris. Later that year she joined Airbus.", "joined", 2018, "at"),
    ("After graduating in 2009, he joined Statoil.", "joined", 2009, "at"),
    ("In 2010 she moved to Berlin. She worked at Siemens as a designer.", "worked", 2010, "at"),
])
def test_a_clause_takes_the_time_its_narrative_gives_it(extractor, text, verb, year, relation):
    doc = extractor.nlp(text)
    ctx = Context(doc, REF, "user", False, None, None, narrative=True)
    v = _token(doc, verb)
    hit = ctx.time_for(v, ctx.flags(v))
    assert hit is not None and hit[0].start.year == year and hit[0].relation == relation


@pytest.mark.parametrize("text,verb", [
    ("Lars works at Equinor.", "works"),  # the document's own date is not a valid time
    ("In 2001 he moved to Rome.\n\nHe works at Fiat.", "works"),  # present tense
    ("She lived in Cairo. In 1990 she moved to Rome.", "lived"),  # before the time is told
])
def test_a_clause_the_text_does_not_date_takes_no_time(extractor, text, verb):
    doc = extractor.nlp(text)
    ctx = Context(doc, REF, "user", False, None, None, narrative=True)
    v = _token(doc, verb)
    assert ctx.time_for(v, ctx.flags(v)) is None


def test_running_time_is_read_only_in_narrative_text(extractor):
    doc = extractor.nlp("In 2010 she moved to Berlin. She worked at Siemens as a designer.")
    ctx = Context(doc, REF, "user", False, None, None, narrative=False)
    v = _token(doc, "worked")
    assert ctx.time_for(v, ctx.flags(v)) is None


@pytest.mark.parametrize(("text", "mention", "nth", "expected"), [
    ("Lars Berg was born in Bergen. His wife Ingrid Dahl is a doctor. He left Equinor in "
     "2022.", "He", 0, "Lars Berg"),
    ("Marco Ruiz began his career at Valencia CF . In 2007 he signed with Levante UD .",
     "he", 0, "Marco Ruiz"),
    ("Dana Whitfield leads Oakridge Foods. The company bought Bluebell Dairy in 2024.",
     "company", 0, "Oakridge Foods"),
    # two people the text does not tell apart: nobody
    ("Tom Becker met Anna Lee and Maria Cruz in Rome. She moved to Paris.", "She", 0, None),
    # an unnamed man is the likelier "he": nobody named
    ("Aldred was born in Clerkenwell . His father married his mother shortly before his "
     "birth . He left her at the church .", "He", 0, None),
])
def test_coreference_by_salience_and_agreement(extractor, text, mention, nth, expected):
    doc = extractor.nlp(text)
    co = Coreference(doc, narrative=True)
    tok = _token(doc, mention, nth)
    assert co.decided(tok.i)
    assert co.name_at(tok.i) == expected


def test_a_surname_is_the_person_named_before(extractor):
    doc = extractor.nlp("Johan Ek founded the company in 2011. Ek will stay on the board.")
    co = Coreference(doc, narrative=True)
    ref = co.referent_of_name(_token(doc, "Ek", 1).i)
    assert ref is not None and ref.name == "Johan Ek"


def test_signed_letter_is_told_by_its_signer():
    assert signed_by("Hi all,\n\nI moved.\n\nBest,\nJonas Lund") == "Jonas Lund"
    assert signed_by("I moved to Oslo in 2019.") is None


def _facts(extractor, text, ref=REF):
    return {(f.kind, f.subject, f.predicate, f.object,
             f.valid_at.year if f.valid_at else None,
             f.invalid_at.year if f.invalid_at else None)
            for f in extractor.extract_many([(text, ref, None)])[0]}


def test_a_biography_attaches_each_clause_to_its_person_and_time(extractor):
    text = ("Lars Berg was born in Bergen in 1985.\n\nIn 2019 he moved to Oslo and started "
            "working at Equinor as a data lead. His wife Ingrid Dahl works at Oslo University "
            "Hospital.\n\nHe left Equinor in 2022 and founded a company called Fjord Labs, "
            "where he became CEO.")
    got = _facts(extractor, text)
    assert ("assert", "Lars Berg", "FROM", "Bergen", 1985, None) in got
    assert ("assert", "Lars Berg", "WORKS_AT", "Equinor", 2019, None) in got
    assert ("assert", "Lars Berg", "HAS_ROLE", "data lead", 2019, None) in got
    assert ("end", "Lars Berg", "WORKS_AT", "Equinor", None, 2022) in got
    assert ("assert", "Lars Berg", "RUNS", "Fjord Labs", 2022, None) in got
    assert ("assert", "Lars Berg", "HAS_ROLE", "CEO", 2022, None) in got
    assert not any(f[1] == "Ingrid Dahl" and f[3] in ("Equinor", "CEO") for f in got)


def test_an_encyclopedic_career_gives_teams_with_their_years(extractor):
    text = ("Marco Ruiz ( born 3 April 1988 ) is a Spanish footballer .\n\nIn 2007 he signed "
            "with Levante UD , where he played for three seasons . He joined Sevilla FC in "
            "2010 .")
    got = _facts(extractor, text, datetime(2021, 1, 1, tzinfo=UTC))
    assert ("assert", "Marco Ruiz", "MEMBER_OF_TEAM", "Levante UD", 2007, None) in got
    assert ("assert", "Marco Ruiz", "MEMBER_OF_TEAM", "Sevilla FC", 2010, None) in got
    assert not any(f[2] == "WORKS_AT" for f in got)  # one reading of the same move


def test_chat_turns_keep_their_speaker_and_no_narrative_rules(extractor):
    ref = datetime(2023, 5, 8, tzinfo=UTC)
    facts = extractor.extract_many([("In 2007 I signed with Levante UD.", ref, "Sam")])[0]
    assert all(f.rule != "career_sign" for f in facts)


def test_a_possessive_in_a_clause_without_a_verb_above_it_resolves(extractor):
    # the walk up to the clause's verb ends at the root (it used to loop there forever)
    doc = extractor.nlp("Her name's Mimi and she's adorable.")
    co = Coreference(doc, narrative=False)
    assert co.decided(0)
