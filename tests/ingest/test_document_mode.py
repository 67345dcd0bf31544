"""Document mode (issue 31): a document's layout (title, headings, lists), office-holder
lists, ownership sentences, appointments by an organisation, an email's sender, a piece of a
long document that keeps its title."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.discourse.voice import quoted_spans, signed_by
from kgmem.ingest.offline import OfflineExtractor
from kgmem.ingest.offline.layout import Layout, heading_text, title_of
from kgmem.ingest.offline.rules.lists import office_of, period_of

REF = datetime(2021, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def x() -> OfflineExtractor:
    return OfflineExtractor()


def triples(facts: list) -> set[tuple]:
    return {(f.subject, f.predicate, f.object,
             f.valid_at.year if f.valid_at else None,
             f.invalid_at.year if f.invalid_at else None) for f in facts if f.kind == "assert"}


def test_layout_reads_title_headings_and_items() -> None:
    text = "Condor ( airline )\n\nCondor is an airline .\n\nDirectors .\n\n- Ann Lee ( 1990-1995 )"
    lay = Layout(text)
    assert lay.title == "Condor"
    assert [(ln.text, h) for ln, h in lay.items()] == [("- Ann Lee ( 1990-1995 )", "Directors")]
    assert heading_text("History .") == "History"
    assert heading_text("He retired in 2004 .") is None
    assert title_of("Tidewater Energy appoints new finance chief\n\nText.") is None  # a headline
    assert title_of("Design review, 4 March 2025\n\nText.") is None


def test_office_and_period_of_a_list_item() -> None:
    assert office_of("List of coaches") == "coach"
    assert office_of("Chairmanship") == "chair"
    assert office_of("Head coaches") == "head coach"
    assert office_of("Early life") is None
    rt, _text, _span = period_of("Quique Setién ( 2015–17 )")
    assert (rt.start.year, rt.end.year) == (2015, 2017)
    rt, _text, _span = period_of("Pepe Mel ( 2019– )")
    assert rt.relation == "since" and rt.start.year == 2019


def test_holders_list_leads_the_documents_subject(x: OfflineExtractor) -> None:
    text = ("UD Las Palmas\n\nUD Las Palmas is a Spanish football club .\n\nList of coaches .\n\n"
            "- Paco Jémez ( 2010–11 )\n- 2000-2016 : Christoph Palm ( CDU )\n- Not a name here")
    got = triples(x.extract(text, REF))
    assert ("Paco Jémez", "LEADS", "UD Las Palmas", 2010, 2011) in got
    assert ("Paco Jémez", "HAS_ROLE", "coach", 2010, 2011) in got
    assert ("Christoph Palm", "LEADS", "UD Las Palmas", 2000, 2016) in got
    assert not any(s.startswith("Not") for s, *_ in got)


def test_a_list_under_a_heading_that_names_no_office_gives_nothing(x: OfflineExtractor) -> None:
    text = "Ann Lee\n\nAwards .\n\n- Order of Merit ( 1990-1995 )\n- Tom Hill ( 1996 )"
    assert not [f for f in x.extract(text, REF) if f.rule.startswith("list_")]


def test_ownership_sentences(x: OfflineExtractor) -> None:
    text = ("Kestrel Airways was a British regional airline founded in 1978 . In 1987 Kestrel was "
            "bought by Bristol Holdings . Ruth Kemble was chief executive from 1990 to 1998 . "
            "British Midland acquired Kestrel in 1999 .")
    got = triples(x.extract(text, REF))
    assert ("Bristol Holdings", "OWNS", "Kestrel Airways", 1987, None) in got
    assert ("British Midland", "OWNS", "Kestrel Airways", 1999, None) in got
    assert ("Ruth Kemble", "LEADS", "Kestrel Airways", 1990, 1998) in got


def test_an_announced_or_agreed_acquisition_is_not_ownership(x: OfflineExtractor) -> None:
    text = ("Verity Group said it had agreed to acquire Harbor Analytics. It was announced that "
            "the Polish Aviation Group would acquire Condor.")
    assert not [f for f in x.extract(text, REF) if f.predicate == "OWNS"]


def test_a_person_sold_to_a_club_is_not_owned(x: OfflineExtractor) -> None:
    text = "Lee Nogan is a footballer . He was sold on to Watford in December 1991 ."
    assert not [f for f in x.extract(text, REF) if f.predicate == "OWNS"]


def test_an_organisation_appoints_its_head_coach(x: OfflineExtractor) -> None:
    text = "On 8 July 2004 , Inter appointed former Lazio coach Roberto Mancini as its new head coach ."
    got = triples(x.extract(text, REF))
    assert ("Roberto Mancini", "HAS_ROLE", "head coach", 2004, None) in got
    assert ("Roberto Mancini", "LEADS", "Inter", 2004, None) in got


def test_email_sender_and_quoted_message() -> None:
    text = ("From: Hannah Weiss\nTo: Marco Bianchi\n\nHi Marco,\n\nI left Deloitte.\n\n"
            "> On 8 March, Marco Bianchi wrote:\n> I joined Maersk in 2020.")
    assert signed_by(text) == "Hannah Weiss"
    assert len(quoted_spans(text)) == 2


def test_quoted_message_is_not_the_senders_life(x: OfflineExtractor) -> None:
    text = ("From: Hannah Weiss\nTo: Marco Bianchi\n\nHi Marco,\n\nI moved to Hamburg in 2024.\n\n"
            "> On 8 March, Marco Bianchi wrote:\n> I moved to Lisbon in 2020.")
    got = {(f.subject, f.object) for f in x.extract(text, REF)}
    assert ("Hannah Weiss", "Hamburg") in got
    assert ("Hannah Weiss", "Lisbon") not in got


def test_a_later_piece_keeps_the_documents_title(x: OfflineExtractor) -> None:
    items = [{"text": "Numedal Line\n\nThe Numedal Line is a railway line .", "reference_time": REF},
             {"text": "Directors .\n\n- Ann Lee ( 1990-1995 )", "reference_time": REF,
              "continues": True}]
    second = x.extract_many(items)[1]
    assert ("Ann Lee", "LEADS", "Numedal Line", 1990, 1995) in triples(second)
    alone = x.extract_many([items[1] | {"continues": False}])[0]
    assert not [f for f in alone if f.predicate == "LEADS"]


def test_a_players_clubs_are_one_timeline_of_teams(x: OfflineExtractor) -> None:
    text = ("Lee Nogan\n\nLee Martin Nogan ( born 21 May 1969 ) is a Welsh former footballer . "
            "He is the elder brother of Kurt Nogan .\n\nA forward , he began his career at Oxford "
            "United in 1987 . He joined Spanish La Liga club RCD Mallorca in 1999 .")
    got = triples(x.extract(text, REF))
    assert ("Lee Nogan", "MEMBER_OF_TEAM", "Oxford United", 1987, None) in got
    assert ("Lee Nogan", "MEMBER_OF_TEAM", "RCD Mallorca", 1999, None) in got
    assert not [t for t in got if t[1] == "WORKS_AT"]
