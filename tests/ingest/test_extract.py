"""Offline extractor: specific behaviours (speaker resolution, kinds, dates, names)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.facts import ANY_OBJECT, KINDS, ExtractedFact, resolve_speaker
from kgmem.ingest.offline import OfflineExtractor
from kgmem.timeutil import Precision
from kgmem.vocabulary import DEFAULT_PREDICATES

UTC = timezone.utc
REF = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)
VOCAB = {p.name for p in DEFAULT_PREDICATES}


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor()


def triples(facts: list[ExtractedFact]) -> set[tuple[str, str, str, str]]:
    return {(f.subject, f.predicate, f.object, f.kind) for f in facts}


def one(facts: list[ExtractedFact], predicate: str, obj: str | None = None) -> ExtractedFact:
    hits = [f for f in facts if f.predicate == predicate and (obj is None or f.object == obj)]
    assert len(hits) == 1, facts
    return hits[0]


# ------------------------------------------------------------------ speaker resolution
def test_resolve_speaker_rules() -> None:
    assert resolve_speaker("Maya", None) == "Maya"
    assert resolve_speaker("Maya", "u-1") == "Maya"
    assert resolve_speaker(None, "u-1") == "u-1"
    assert resolve_speaker("user", "Maya") == "Maya"  # a role label defers to the user name
    assert resolve_speaker(None, None) == "user"


@pytest.mark.parametrize("speaker,user,expected", [
    ("Maya", None, "Maya"), (None, "alice-42", "alice-42"), (None, None, "user"),
])
def test_first_person_is_the_speaker(ex, speaker, user, expected) -> None:
    facts = ex.extract("I live in Boston and my sister Sarah works at Acme.", REF, speaker, user)
    assert (expected, "LIVES_IN", "Boston", "assert") in triples(facts)
    assert (expected, "SIBLING_OF", "Sarah", "assert") in triples(facts)
    assert ("Sarah", "WORKS_AT", "Acme", "assert") in triples(facts)
    assert all(f.subject_is_speaker == (f.subject == expected) for f in facts)


def test_we_is_the_speaker(ex) -> None:
    assert ("Maya", "LIVES_IN", "Portland", "assert") in triples(
        ex.extract("We just moved to Portland!", REF, "Maya"))


def test_pronoun_resolves_to_last_named_person(ex) -> None:
    facts = ex.extract("My sister Sarah moved to Paris. She works at Chanel.", REF, "Maya")
    assert ("Sarah", "WORKS_AT", "Chanel", "assert") in triples(facts)
    assert ("Sarah", "LIVES_IN", "Paris", "assert") in triples(facts)


# ------------------------------------------------------------------ dates
def test_moved_last_march_is_dated_to_the_month(ex) -> None:
    f = one(ex.extract("I moved to Denver last March", datetime(2023, 5, 8, tzinfo=UTC), "Maya"),
            "LIVES_IN")
    assert (f.subject, f.object, f.kind) == ("Maya", "Denver", "assert")
    assert f.valid_at == datetime(2023, 3, 1, tzinfo=UTC)
    assert f.valid_precision is Precision.MONTH
    assert f.time_text == "last March"


def test_no_date_in_text_leaves_valid_at_none(ex) -> None:
    f = one(ex.extract("I work at Google.", REF, "Maya"), "WORKS_AT")
    assert f.valid_at is None and f.valid_precision is None and f.invalid_at is None


def test_since_and_present_perfect_duration_give_the_start(ex) -> None:
    f = one(ex.extract("I've lived in Chicago since 2015.", REF, "Maya"), "LIVES_IN")
    assert f.valid_at == datetime(2015, 1, 1, tzinfo=UTC) and f.valid_precision is Precision.YEAR
    f = one(ex.extract("I've worked at Stripe for three years now.", REF, "Maya"), "WORKS_AT")
    assert f.valid_at == datetime(2020, 1, 1, tzinfo=UTC)
    # a finished past duration has no start
    f = one(ex.extract("I lived in Rome for three years.", REF, "Maya"), "LIVES_IN")
    assert f.valid_at is None


def test_future_move_is_dated_in_the_future(ex) -> None:
    f = one(ex.extract("I'm moving to Seattle next month.", REF, "Maya"), "LIVES_IN")
    assert f.valid_at == datetime(2023, 6, 1, tzinfo=UTC)


def test_range_gives_both_bounds(ex) -> None:
    f = one(ex.extract("I lived in Rome from 2015 to 2018.", REF, "Maya"), "LIVES_IN")
    assert f.valid_at == datetime(2015, 1, 1, tzinfo=UTC)
    assert f.invalid_at == datetime(2018, 1, 1, tzinfo=UTC)
    assert f.invalid_precision is Precision.YEAR


def test_plans_carry_no_valid_time(ex) -> None:
    f = one(ex.extract("I'm planning to visit Japan in October.", REF, "Maya"), "PLANS")
    assert f.object == "Japan" and f.valid_at is None
    assert f.attributes["planned_for"].startswith("2023-10-01")


# ------------------------------------------------------------------ kinds
def test_actually_never_lived_is_a_retraction(ex) -> None:
    f = one(ex.extract("Actually I never lived in Boston.", REF, "Maya"), "LIVES_IN")
    assert (f.object, f.kind) == ("Boston", "retract")


def test_no_longer_work_is_an_ending(ex) -> None:
    f = one(ex.extract("I no longer work at Google.", REF, "Maya"), "WORKS_AT")
    assert (f.object, f.kind) == ("Google", "end")
    assert f.invalid_at is None  # ended as of the reference time


def test_ending_with_a_date(ex) -> None:
    f = one(ex.extract("I moved out of Boston in 2021.", REF, "Maya"), "LIVES_IN")
    assert f.kind == "end"
    assert f.invalid_at == datetime(2021, 1, 1, tzinfo=UTC) and f.valid_at is None
    assert f.invalid_precision is Precision.YEAR


def test_x_not_y_correction(ex) -> None:
    facts = ex.extract("Sorry, I meant I work at Microsoft, not Google.", REF, "Maya")
    assert triples(facts) == {("Maya", "WORKS_AT", "Microsoft", "assert"),
                              ("Maya", "WORKS_AT", "Google", "retract")}


def test_broke_up_without_partner_ends_any_value(ex) -> None:
    f = one(ex.extract("We broke up last month.", REF, "Maya"), "DATING")
    assert (f.object, f.kind) == (ANY_OBJECT, "end")
    assert f.invalid_at == datetime(2023, 4, 1, tzinfo=UTC)


def test_broke_up_with_named_partner(ex) -> None:
    assert ("Maya", "DATING", "Lisa", "end") in triples(
        ex.extract("Lisa and I broke up last week.", REF, "Maya"))


@pytest.mark.parametrize("text,expected", [
    # the copula has no subject of its own: "am" inherits "I" through the conjunction, "Been"
    # drops it; "married"/"divorced" take the subject the copula found
    ("I moved to Boston in 2015 and am married to Tom now.",
     ("Maya", "MARRIED_TO", "Tom", "assert")),
    ("Been married to Sam for ten years.", ("Maya", "MARRIED_TO", "Sam", "assert")),
    ("Moved back to Ohio and am divorced from Mark now.", ("Maya", "MARRIED_TO", "Mark", "end")),
])
def test_married_or_divorced_after_a_copula_without_its_own_subject(ex, text, expected) -> None:
    assert expected in triples(ex.extract(text, REF, "Maya"))


def test_stopped_using_and_switching(ex) -> None:
    assert triples(ex.extract("I switched from Trello to Asana in January.", REF, "Maya")) == {
        ("Maya", "USES", "Trello", "end"), ("Maya", "USES", "Asana", "assert")}
    assert ("Maya", "USES", "Evernote", "end") in triples(
        ex.extract("I don't use Evernote anymore.", REF, "Maya"))


def test_dont_like_is_a_dislike(ex) -> None:
    assert triples(ex.extract("I don't like horror movies.", REF, "Maya")) == {
        ("Maya", "DISLIKES", "horror movies", "assert")}


def test_pet_death_ends_the_pet(ex) -> None:
    f = one(ex.extract("Our old dog Biscuit passed away yesterday.", REF, "Maya"), "HAS_PET")
    assert (f.object, f.kind) == ("Biscuit", "end")
    assert f.invalid_at == datetime(2023, 5, 7, tzinfo=UTC)


# ------------------------------------------------------------------ possessives and names
@pytest.mark.parametrize("text,predicate,obj", [
    ("My sister Sarah is a lawyer.", "SIBLING_OF", "Sarah"),
    ("my dog Max loves the beach", "HAS_PET", "Max"),
    ("My wife Anna is a teacher.", "MARRIED_TO", "Anna"),
    ("My boss Tom is on vacation.", "REPORTS_TO", "Tom"),
    ("Tom is my manager.", "REPORTS_TO", "Tom"),
    ("My son Leo started school.", "PARENT_OF", "Leo"),
    ("My mom, Linda, is retired.", "CHILD_OF", "Linda"),
    ("My friend Jake is a firefighter.", "FRIEND_OF", "Jake"),
])
def test_possessive_relations(ex, text, predicate, obj) -> None:
    assert ("Maya", predicate, obj, "assert") in triples(ex.extract(text, REF, "Maya"))


def test_ex_spouse_is_an_ended_marriage(ex) -> None:
    assert ("Maya", "MARRIED_TO", "Carl", "end") in triples(
        ex.extract("My ex-husband Carl lives in Reno.", REF, "Maya"))


def test_full_name_is_one_entity_and_determiners_are_stripped(ex) -> None:
    f = one(ex.extract("Alice Chen leads the ML team.", REF, "Maya"), "LEADS")
    assert (f.subject, f.object) == ("Alice Chen", "ML team")


def test_take_over_is_leads_with_date(ex) -> None:
    f = one(ex.extract("Bob took over the platform team last month.", REF, "Maya"), "LEADS")
    assert (f.subject, f.object, f.valid_at) == ("Bob", "platform team",
                                                 datetime(2023, 4, 1, tzinfo=UTC))


def test_roles_and_employer(ex) -> None:
    facts = ex.extract("I'm a software engineer at Dropbox.", REF, "Maya")
    assert triples(facts) == {("Maya", "HAS_ROLE", "software engineer", "assert"),
                              ("Maya", "WORKS_AT", "Dropbox", "assert")}
    f = one(ex.extract("I was promoted to senior engineer in January.", REF, "Maya"), "HAS_ROLE")
    assert (f.object, f.valid_at) == ("senior engineer", datetime(2023, 1, 1, tzinfo=UTC))


def test_third_person(ex) -> None:
    assert triples(ex.extract("Alice works at Acme.", REF, "Maya")) == {
        ("Alice", "WORKS_AT", "Acme", "assert")}
    assert ("Jenny", "MARRIED_TO", "Mike", "assert") in triples(
        ex.extract("Jenny and Mike got married last June.", REF, "Maya"))


# ------------------------------------------------------------------ precision: no facts
@pytest.mark.parametrize("text", [
    "Do you like jazz?",
    "If I lived in Denver, I'd go skiing every weekend.",
    "I might move to Denver.",
    "Should I move to Denver?",
    "What should I name my dog?",
    "Boston is a great city for students.",
    "Remind me to call the dentist tomorrow.",
    "lol that's hilarious",
    "",
])
def test_no_fact(ex, text) -> None:
    assert ex.extract(text, REF, "Maya") == []


# ------------------------------------------------------------------ output contract
def test_output_contract(ex) -> None:
    text = ("I moved to Denver last March. My dog Max hates the snow. I no longer work at "
            "Google; actually I never worked at Amazon.")
    facts = ex.extract(text, REF, "Maya")
    assert facts
    for f in facts:
        assert f.predicate in VOCAB
        assert f.kind in KINDS
        assert 0 < f.confidence <= 1
        assert f.rule
        s, e = f.evidence
        assert 0 <= s < e <= len(text)
        if f.object != ANY_OBJECT:
            assert f.object.lower() in text[s:e].lower() or f.subject.lower() in text[s:e].lower()
        for t in (f.valid_at, f.invalid_at):
            assert t is None or t.utcoffset().total_seconds() == 0
        d = f.to_dict()
        assert d["predicate"] == f.predicate and isinstance(d["evidence"], list)


def test_extract_many_matches_extract_and_accepts_item_shapes(ex) -> None:
    texts = ["I live in Boston.", "I no longer work at Google.", "", "Bob lives in Seattle."]
    single = [ex.extract(t, REF, "Maya") for t in texts]
    as_dicts = ex.extract_many([{"text": t, "reference_time": REF, "speaker": "Maya"}
                                for t in texts])
    as_tuples = ex.extract_many([(t, REF, "Maya") for t in texts])
    as_strings = ex.extract_many(texts, reference_time=REF, speaker="Maya")
    for a, b, c, d in zip(single, as_dicts, as_tuples, as_strings, strict=True):
        assert triples(a) == triples(b) == triples(c) == triples(d)
    iso = ex.extract_many([{"text": "I moved to Denver last March", "speaker": "Maya",
                            "reference_time": "2023-05-08"}])
    assert iso[0][0].valid_at == datetime(2023, 3, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        ex.extract_many(["no reference time"])


@pytest.mark.parametrize("text,expected", [
    ("Sarah is the CEO of Lumen.", {("Sarah", "HAS_ROLE", "CEO", "assert"),
                                    ("Sarah", "WORKS_AT", "Lumen", "assert")}),
    ("Priya got promoted to VP of Engineering.", {("Priya", "HAS_ROLE", "VP of Engineering",
                                                   "assert")}),
    ("I ditched Chrome for Firefox.", {("Maya", "USES", "Chrome", "end"),
                                       ("Maya", "USES", "Firefox", "assert")}),
    ("I live with my boyfriend Sam in Chicago.", {("Maya", "LIVES_IN", "Chicago", "assert"),
                                                  ("Maya", "DATING", "Sam", "assert")}),
    ("I love my job at Nike.", {("Maya", "WORKS_AT", "Nike", "assert")}),
    ("Currently working remotely for a startup called Loomly.",
     {("Maya", "WORKS_AT", "Loomly", "assert")}),
    ("I have two kids, Max and Lily.", {("Maya", "PARENT_OF", "Max", "assert"),
                                        ("Maya", "PARENT_OF", "Lily", "assert")}),
    ("I haven't worked at IBM since 2019.", {("Maya", "WORKS_AT", "IBM", "end")}),
    ("I used to live in Chicago.", {("Maya", "LIVES_IN", "Chicago", "end")}),  # over, undated
    ("I'd love to check it out sometime!", set()),
    ("I love your commitment.", set()),
    ("When I was 10 I loved skateboarding.", set()),
    ("I've never been to Boston.", set()),
])
def test_more_patterns(ex, text, expected) -> None:
    assert triples(ex.extract(text, REF, "Maya")) == expected
