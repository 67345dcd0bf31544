"""Durable facts of real chat (issue 15): events attended and places visited (as events, dated
over their period), memberships, one's own business, possessions, roles, relationships,
health and life events, and what must not become a fact. Sentences are written for these
tests, not taken from LoCoMo or the real-chat dev set."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from kgmem.ingest.offline import OfflineExtractor

UTC = timezone.utc
REF = datetime(2023, 5, 10, 12, 0, tzinfo=UTC)  # a Wednesday


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor()


def extract(ex: OfflineExtractor, text: str) -> list:
    return ex.extract(text, REF, speaker="Sam")


def find(facts: list, predicate: str, objects: tuple[str, ...], kind: str = "assert"):
    wanted = {o.lower() for o in objects}
    hits = [f for f in facts if f.predicate == predicate and f.object.lower() in wanted
            and f.kind == kind and f.subject == "Sam"]
    assert hits, (predicate, objects, [(f.predicate, f.object, f.kind) for f in facts])
    return hits[0]


# (text, predicate, accepted objects, kind, start day or None, event)
CASES = [
    ("We went to a Taylor Swift concert on Saturday night!", "ATTENDED",
     ("Taylor Swift concert",), "assert", date(2023, 5, 6), True),
    ("I competed in my first triathlon last month.", "ATTENDED", ("first triathlon",
                                                                  "triathlon"),
     "assert", date(2023, 4, 1), True),
    ("Had such a good time at my cousin's wedding yesterday.", "ATTENDED",
     ("wedding", "cousin's wedding"), "assert", date(2023, 5, 9), True),
    ("Last weekend we went fishing at the lake.", "ATTENDED", ("fishing",), "assert",
     date(2023, 5, 6), True),
    ("I was at a jazz festival in Montreal two weeks ago.", "ATTENDED", ("jazz festival",),
     "assert", date(2023, 4, 26), True),
    ("I ran my first half marathon three days ago!", "ATTENDED",
     ("first half marathon", "half marathon"), "assert", date(2023, 5, 7), True),
    ("I finally visited the Louvre when I was in Paris in March.", "VISITED", ("Louvre",),
     "assert", None, True),
    ("I joined a running club two weeks ago.", "MEMBER_OF", ("running club",), "assert",
     date(2023, 4, 26), False),
    ("Signed up for a ceramics course yesterday!", "MEMBER_OF", ("ceramics course",), "assert",
     date(2023, 5, 9), False),
    ("I quit the choir last month because of work.", "MEMBER_OF", ("choir",), "end", None,
     False),
    ("I finally opened my own coffee shop in 2020.", "RUNS", ("coffee shop",), "assert",
     date(2020, 1, 1), False),
    ("Business at my bakery has been slow this winter.", "RUNS", ("bakery",), "assert", None,
     False),
    ("We had to close our restaurant during the pandemic.", "RUNS", ("restaurant",), "end",
     None, False),
    ("I sold my motorcycle to my neighbor.", "OWNS", ("motorcycle",), "end", None, False),
    ("My guitar was a gift from my dad.", "OWNS", ("guitar",), "assert", None, False),
    ("I got laid off from Boeing yesterday.", "WORKS_AT", ("Boeing",), "end", None, False),
    ("I'm the goalkeeper for our local soccer team.", "HAS_ROLE", ("goalkeeper",), "assert",
     None, False),
    ("I write a weekly column for the Boston Globe.", "WORKS_AT", ("Boston Globe",), "assert",
     None, False),
    ("My husband and I celebrated our anniversary.", "HAS_STATUS", ("married",), "assert",
     None, False),
    ("I'm allergic to peanuts and shellfish.", "ALLERGIC_TO", ("shellfish",), "assert", None,
     False),
    ("I sprained my ankle playing tennis yesterday.", "EXPERIENCED", ("sprained ankle",),
     "assert", date(2023, 5, 9), True),
    ("My grandfather passed away in January.", "EXPERIENCED", ("death of grandfather",),
     "assert", date(2023, 1, 1), True),
    ("I had an operation on my knee last year.", "EXPERIENCED", ("operation",), "assert",
     date(2022, 1, 1), True),
    ("Jake and I went hiking on Sunday.", "KNOWS", ("Jake",), "assert", None, False),
    ("We adopted two cats, Luna and Milo, last month.", "HAS_PET", ("Milo",), "assert",
     date(2023, 4, 1), False),
    # a photo from a trip is from a past trip, whatever the tense of the showing
    ("Oh, I have a snapshot from a holiday in Portugal!", "VISITED", ("Portugal",), "assert",
     None, True),
    ("Here's a pic from my trip to Chile.", "VISITED", ("Chile",), "assert", None, True),
]


@pytest.mark.parametrize("text,predicate,objects,kind,start,event", CASES,
                         ids=[c[0][:40] for c in CASES])
def test_durable_fact(ex, text, predicate, objects, kind, start, event) -> None:
    f = find(extract(ex, text), predicate, objects, kind)
    assert f.event is event
    if start is not None:
        when = f.invalid_at if kind == "end" else f.valid_at
        assert when is not None and when.date() == start, (when, f.valid_precision)


def test_a_dated_event_holds_over_its_period_only() -> None:
    facts = OfflineExtractor().extract("I went to a book fair last week.", REF, speaker="Sam")
    fair = find(facts, "ATTENDED", ("book fair",))
    assert (fair.valid_at.date(), fair.invalid_at.date()) == (date(2023, 5, 1), date(2023, 5, 8))


def test_an_undated_event_holds_on_the_day_it_was_told(ex) -> None:
    trip = find(extract(ex, "I just got back from a ski trip!"), "ATTENDED", ("ski trip",))
    assert trip.valid_at is None  # the pipeline puts it at the reference time
    assert trip.invalid_at == datetime(2023, 5, 11, tzinfo=UTC)


def test_named_pets_are_the_pets_not_the_animal_noun(ex) -> None:
    facts = extract(ex, "We adopted two cats, Luna and Milo, last month.")
    pets = {f.object for f in facts if f.predicate == "HAS_PET"}
    assert pets == {"Luna", "Milo"}


@pytest.mark.parametrize("text", [
    "You'd be an amazing teacher!",                     # a compliment about the other
    "That photo of your dog is adorable.",
    "I never got to see the Grand Canyon.",             # a negation
    "Did you end up going to the book fair?",           # a question
    "I didn't go to the reunion after all.",
    "If the weather's nice I'll go to the farmers market.",  # a hypothetical
    "I might need surgery.",
    "Tell me about your trip to Italy!",
    "I'm thinking about opening my own bakery someday.",
    "I'm going to sell my car next month.",
    "Do you have a photo from your trip to Chile?",
    "Karen has a picture from a holiday in Portugal.",    # someone else's trip
])
def test_no_durable_fact(ex, text) -> None:
    durable = {"ATTENDED", "VISITED", "MEMBER_OF", "RUNS", "OWNS", "HAS_ROLE", "WORKS_AT",
               "EXPERIENCED", "HAS_STATUS", "ALLERGIC_TO", "HAS_PET", "KNOWS"}
    got = [(f.predicate, f.object) for f in extract(ex, text) if f.predicate in durable]
    assert got == [], text
