"""Chat forms found on ten more fresh LoCoMo dev sessions (conversations 0-4, labelled before the
extractor ran on them; wave 2, sitting 6): tag questions, events had or held, the place an
event was in, "took X to Y", a graduation with no school, "I'm in a club", "not ... yet".
Sentences are written for these tests (not copied from the dataset)."""

from __future__ import annotations

import pytest

from .test_extract_chat import REF, facts


@pytest.mark.parametrize("text,expected", [
    ("I opened my own bakery last year - pretty cool, huh?", ("Sam", "RUNS", "bakery", "assert")),
    ("I moved to Denver in March, right?", ("Sam", "LIVES_IN", "Denver", "assert")),
    ("We adopted a puppy named Rex, you know?", ("Sam", "HAS_PET", "Rex", "assert")),
])
def test_a_statement_with_a_question_tag_still_states(ex, text, expected) -> None:
    assert expected in facts(ex, text), (text, facts(ex, text))


@pytest.mark.parametrize("text", [
    "Did you move to Denver in March?",
    "So, you moved to Denver, huh?",   # about the listener: no fact for the speaker
    "Would you open your own bakery, right?",
])
def test_real_questions_still_state_nothing(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[0] == "Sam"], (text, got)


@pytest.mark.parametrize("text,place", [
    ("Last week I went to a comic convention in Japan.", "Japan"),
    ("I took my kids to the beach in Miami yesterday.", "Miami"),
    ("Two days ago we took my mom to Chicago.", "Chicago"),
])
def test_the_town_an_event_or_trip_was_in_is_visited(ex, text, place) -> None:
    got = facts(ex, text)
    assert ("Sam", "VISITED", place, "assert") in got, (text, got)


def test_the_visit_is_dated_like_the_event(ex) -> None:
    got = {f.predicate: f for f in ex.extract(
        "Last week I went to a comic convention in Japan.", REF, speaker="Sam")}
    assert got["VISITED"].valid_at == got["ATTENDED"].valid_at is not None


@pytest.mark.parametrize("text", [
    "I graduated from Harvard in 2010.",        # the school is the fact, as before
    "I'll graduate next spring.",               # not yet
    "I have a job interview tomorrow.",         # a plan, not an event that happened
    "I was in a band in college.",              # over: no membership now
    "I'm in a good place right now.",
])
def test_no_event_or_membership_where_none_happened(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[1] in ("EXPERIENCED", "MEMBER_OF") or (
        f[1] == "ATTENDED" and "interview" in f[2])], (text, got)


@pytest.mark.parametrize("text", [
    "I haven't tried pottery yet, but I'd love to.",
    "I haven't moved to Austin yet.",
    "We haven't adopted a dog yet.",
])
def test_not_yet_is_no_retraction(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[3] in ("retract", "end")], (text, got)


def test_whom_one_teaches_is_no_role(ex) -> None:
    got = facts(ex, "I love running my studio and teaching others.")
    assert not [f for f in got if f[1] == "HAS_ROLE"], got
    assert ("Sam", "HAS_ROLE", "yoga teacher", "assert") in facts(ex, "I keep teaching yoga.")


def test_a_plan_drops_its_reason(ex) -> None:
    got = facts(ex, "I'm thinking about going into nursing because of my mom.")
    plans = [f[2] for f in got if f[1] == "PLANS"]
    assert plans and all("because" not in p for p in plans), got


@pytest.mark.parametrize("text,expected", [
    ("Yesterday I spent time at the animal shelter volunteering at the front desk.",
     {("Sam", "VOLUNTEERS_AT", "animal shelter", "assert")}),
    ("Wish I had a vacation lined up.", set()),
    ("I had an amazing time meeting with my old coach.", set()),
])
def test_parser_slips_of_chat(ex, text, expected) -> None:
    assert facts(ex, text) == expected, (text, facts(ex, text))


@pytest.mark.parametrize("text", [
    "As a teacher, my sister knows that.",      # the sister is the teacher
    "As a kid, I loved comics.",                # not a role
    "As a writer, do you ever get stuck?",      # a question
    "My favorite show is on tonight.",          # not one's own show
    "I gave up coffee last month.",             # no event
])
def test_no_role_show_or_event_where_none_is_said(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[1] in ("HAS_ROLE", "RUNS", "ATTENDED")], (text, got)


@pytest.mark.parametrize("text", [
    "My favourite band is Radiohead.",
    "My old band broke up years ago.",
    "I love my group of friends.",
    "I'm going to hit the gym tomorrow.",
])
def test_no_membership_from_a_liked_or_past_group(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[1] == "MEMBER_OF"], (text, got)


def test_a_new_thing_is_still_stripped_of_new(ex) -> None:
    assert ("Sam", "OWNS", "car", "assert") in facts(ex, "I just got a new car.")


@pytest.mark.parametrize("text", [
    "The trip we're taking next month will be fun.",   # a plan
    "I'll pass the exam next week.",
    "Don't hurt yourself!",
])
def test_no_event_from_plans_or_advice(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[1] in ("ATTENDED", "EXPERIENCED")], (text, got)


@pytest.mark.parametrize("text", [
    "I wanted to tell you I might join a chess club.",   # a telling of a maybe
    "I never said I joined a chess club.",               # a reported negation
    "Don't get hurt out there!",
])
def test_a_telling_keeps_its_own_mood(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[3] == "assert" and f[1] in ("MEMBER_OF", "EXPERIENCED")], (
        text, got)


# one fact each sentence must state, by the round of fresh sessions the shape was found in
@pytest.mark.parametrize("text,expected", [
    # second round (random.Random(17))
    ("We went fishing with my dad two weeks ago.", ("Sam", "ATTENDED", "fishing", "assert")),
    ("I had a job interview at a bank yesterday.",
     ("Sam", "ATTENDED", "job interview", "assert")),
    ("We had a birthday party for my niece last Saturday.",
     ("Sam", "ATTENDED", "birthday party", "assert")),
    ("Last month I organized a bake sale for the shelter.",
     ("Sam", "ATTENDED", "bake sale for shelter", "assert")),
    ("I hosted a charity football game last weekend.",
     ("Sam", "ATTENDED", "charity football game", "assert")),
    ("I graduated last month!", ("Sam", "EXPERIENCED", "graduation", "assert")),
    ("I'm in a hiking club now.", ("Sam", "MEMBER_OF", "hiking club", "assert")),
    ("I'm finally in the study abroad program!",
     ("Sam", "MEMBER_OF", "study abroad program", "assert")),
    ("I spent Sunday volunteering at a food bank.",
     ("Sam", "VOLUNTEERS_AT", "food bank", "assert")),
    # third round (random.Random(18))
    ("As a nurse, my schedule is crazy this week.", ("Sam", "HAS_ROLE", "nurse", "assert")),
    ("I teach cooking classes on my own YouTube channel.",
     ("Sam", "RUNS", "YouTube channel", "assert")),
    ("We went on a hike near Boulder last week.", ("Sam", "VISITED", "Boulder", "assert")),
    ("I took these photos on a hike near Denver last summer.",
     ("Sam", "ATTENDED", "hike", "assert")),
    ("Yesterday I gave a speech at my cousin's wedding.",
     ("Sam", "ATTENDED", "speech", "assert")),
    ("I bought a new laptop last week.", ("Sam", "OWNS", "laptop", "assert")),
    ("I love a gluten-free brownie.", ("Sam", "LIKES", "gluten-free brownie", "assert")),
    # fourth round (random.Random(19))
    ("I brought cookies for the people in my knitting group.",
     ("Sam", "MEMBER_OF", "knitting group", "assert")),
    ("My book club meets on Fridays.", ("Sam", "MEMBER_OF", "book club", "assert")),
    ("Started hitting the gym last week.", ("Sam", "MEMBER_OF", "gym", "assert")),
    ("Last week I visited home and saw my old friends.", ("Sam", "VISITED", "home", "assert")),
    ("Here's a pic from one of my trips to New York City!",
     ("Sam", "VISITED", "New York City", "assert")),
    ("We went to New Orleans last year.", ("Sam", "VISITED", "New Orleans", "assert")),
    ("I took my kids fishing at the lake last weekend.",
     ("Sam", "ATTENDED", "fishing", "assert")),
    ("We had a great time throwing a surprise party for my dad last Saturday.",
     ("Sam", "ATTENDED", "surprise party", "assert")),
    # fifth round (random.Random(20))
    ("We celebrated my son's graduation with a party last weekend.",
     ("Sam", "ATTENDED", "party", "assert")),
    ("I passed the job interview yesterday!", ("Sam", "ATTENDED", "job interview", "assert")),
    ("That photo is from a road trip we took last summer.",
     ("Sam", "ATTENDED", "road trip", "assert")),
    ("I injured myself at practice last week.", ("Sam", "EXPERIENCED", "injury", "assert")),
    ("It's just me, the missus and the dog at home.",
     ("Sam", "HAS_STATUS", "married", "assert")),
    # sixth round (random.Random(21))
    ("Oh yes, I do. Max, my hamster, keeps me busy.", ("Sam", "HAS_PET", "Max", "assert")),
    ("Last month I got hurt and had to stop running.",
     ("Sam", "EXPERIENCED", "injury", "assert")),
    ("We went to a poetry reading at the library last Friday.",
     ("Sam", "ATTENDED", "poetry reading", "assert")),
    ("I wanted to tell you I just joined a chess club.",
     ("Sam", "MEMBER_OF", "chess club", "assert")),
])
def test_chat_shapes_state_their_fact(ex, text, expected) -> None:
    assert expected in facts(ex, text), (text, facts(ex, text))
