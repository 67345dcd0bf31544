"""General machinery behind chat precision and the fresh rounds' misses (issue 31): what did
not happen, vocatives, titles, things not had yet, the addressee's things, gerund subjects,
allergy nouns, diets that ended, work that is not a job."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kgmem.ingest.offline import OfflineExtractor

REF = datetime(2024, 6, 1, 10, tzinfo=timezone.utc)


def _facts(ex: OfflineExtractor, text: str, speaker: str = "John") -> set[tuple[str, str, str, str]]:
    return {(f.subject, f.predicate, f.object, f.kind) for f in ex.extract(text, REF, speaker)}


def _chat(ex: OfflineExtractor, turns: list[tuple[str, str]]) -> list[set[tuple[str, str, str]]]:
    items = [{"text": t, "reference_time": REF + timedelta(seconds=i), "speaker": s, "group": "g"}
             for i, (s, t) in enumerate(turns)]
    return [{(f.subject, f.predicate, f.object) for f in fs} for fs in ex.extract_many(items)]


def test_what_did_not_happen_states_nothing(ex: OfflineExtractor) -> None:
    assert _facts(ex, "I almost moved to Denver last year.") == set()
    assert _facts(ex, "Adopting a dog would make me happy.") == set()
    assert _facts(ex, "Running a business isn't easy, but I'm determined.") == set()
    assert _facts(ex, "I'm still searching for a place to open my dance studio.", "Jon") == set()


def test_a_vocative_is_not_part_of_what_is_liked(ex: OfflineExtractor) -> None:
    said = _chat(ex, [("Nate", "Look at my new drawing."),
                      ("Joanna", "Awww! It's so cute! I love the thought Nate!")])
    assert said[1] == set()


def test_a_title_keeps_its_of_phrase(ex: OfflineExtractor) -> None:
    assert ("John", "LIKES", "Lord of the Rings", "assert") in _facts(
        ex, "I'm a huge fan of Lord of the Rings!")


def test_a_question_presupposes_the_addressees_pet_not_the_askers(ex: OfflineExtractor) -> None:
    said = _chat(ex, [("Nate", "Hey Joanna, long time!"),
                      ("Joanna", "How have your turtles been?"),
                      ("Nate", "What should I name my dog?")])
    assert said[1] == {("Nate", "HAS_PET", "turtle")}
    assert said[2] == set()


def test_a_gerund_subject_told_as_past_is_the_speakers(ex: OfflineExtractor) -> None:
    facts = _facts(ex, "Organizing a basketball camp for kids in my hometown last summer was an "
                       "awesome experience!")
    assert {(p, o) for _s, p, o, _k in facts} == {("ATTENDED", "basketball camp for kids")}


def test_notes_allergy_nouns_and_ended_diets(ex: OfflineExtractor) -> None:
    assert _facts(ex, "I have a peanut allergy.", "Ana") == {("Ana", "ALLERGIC_TO", "peanut",
                                                              "assert")}
    assert _facts(ex, "I don't have a peanut allergy.", "Ana") == set()
    assert _facts(ex, "My sister has a peanut allergy.", "Ana") == set()
    assert _facts(ex, "I used to be vegan but now I eat everything.", "Ana") == {
        ("Ana", "HAS_DIET", "vegan", "end")}


def test_work_done_is_not_a_job_and_a_described_employer_ends(ex: OfflineExtractor) -> None:
    assert _facts(ex, "Yesterday, I took up some community work with my friends from church.",
                  "Maria") == set()
    assert _facts(ex, "I lost my job at the mechanical engineering company.") == {
        ("John", "WORKS_AT", "mechanical engineering company", "end")}


def test_taking_part_now_attends(ex: OfflineExtractor) -> None:
    assert ("Nate", "ATTENDED", "video game tournament", "assert") in _facts(
        ex, "I'm currently participating in the video game tournament again.", "Nate")
    assert _facts(ex, "I'm competing in a marathon next month.", "Nate") == set()


def test_an_instruction_after_so_and_the_statement_before_it(ex: OfflineExtractor) -> None:
    facts = _facts(ex, "I'm a night owl, so don't schedule calls before noon.", "user")
    assert {p for _s, p, _o, _k in facts} == {"INSTRUCTION"}
    facts = _facts(ex, "I'm lactose intolerant, so please suggest recipes without dairy.", "user")
    assert ("user", "ALLERGIC_TO", "lactose", "assert") in facts
    assert _facts(ex, "I'll always remember those moments that bring us happiness and remind "
                      "us that life is great!", "Joanna") == set()


def test_foods_avoided_and_homes_bought(ex: OfflineExtractor) -> None:
    assert ("user", "AVOIDS", "coconut", "assert") in _facts(
        ex, "I really love spicy food, but I can't handle anything with coconut.", "user")
    assert _facts(ex, "I can't handle stress well.", "user") == set()
    assert _facts(ex, "I just bought a flat in Leeds.", "user") == {
        ("user", "OWNS", "flat", "assert")}


def test_dates_changed_with_now_instead_of_and_moved_objects(ex: OfflineExtractor) -> None:
    assert _facts(ex, "The kickoff is now on September 9 instead of September 2.", "Priya") == {
        ("kickoff", "SCHEDULED_ON", "2024-09-09", "assert")}
    assert _facts(ex, "They moved the dentist appointment to June 11.", "user") == {
        ("dentist appointment", "SCHEDULED_ON", "2024-06-11", "assert")}


def test_round3_shapes(ex: OfflineExtractor) -> None:
    assert ("Leo", "STUDIES_AT", "Westfield Elementary", "assert") in _facts(
        ex, "My son Leo just started at Westfield Elementary.", "user")
    assert _facts(ex, "I switched to a plant-based diet last month.", "user") == {
        ("user", "HAS_DIET", "plant-based", "assert")}
    assert ("user", "AVOIDS", "sugary drinks", "assert") in _facts(
        ex, "I avoid sugary drinks.", "user")
    assert _facts(ex, "I avoid crowds.", "user") == set()
    assert _facts(ex, "The dentist moved my cleaning to March 14.", "user") == {
        ("cleaning", "SCHEDULED_ON", "2025-03-14", "assert")}
    facts = _facts(ex, "Don't suggest seafood restaurants, I'm allergic to shellfish.", "user")
    assert {p for _s, p, _o, _k in facts} == {"ALLERGIC_TO", "INSTRUCTION"}
    assert {o for _s, p, o, _k in facts if p == "ALLERGIC_TO"} == {"shellfish"}
    said = ex.extract_many([{"text": "I prefer to be called Alex, not Alexander.",
                             "reference_time": REF, "speaker": "user", "group": "a"},
                            {"text": "I work at Shopify.", "group": "a", "speaker": "user",
                             "reference_time": REF + timedelta(seconds=1)}])
    assert [(f.subject, f.object) for f in said[1]] == [("Alex", "Shopify")]
    assert ("user", "DECIDED") in {(s, p) for s, p, _o, _k in _facts(
        ex, "Our team agreed to move standups to Tuesdays and Thursdays.", "user")}


def test_round13_shapes(ex: OfflineExtractor) -> None:
    said = _chat(ex, [("John", "I visited a veteran's hospital last week."),
                      ("Maria", "You're a great friend to me."),
                      ("John", "You're not a good friend."),
                      ("Maria", "I did a charity event last Friday."),
                      ("John", "I just started helping out with a food drive."),
                      ("Maria", "I went to the hospital yesterday.")])
    assert said[0] == {("John", "VISITED", "veteran's hospital")}
    assert said[1] == {("Maria", "FRIEND_OF", "John")}
    assert said[2] == set()
    assert said[3] == {("Maria", "ATTENDED", "charity event")}
    assert said[4] == {("John", "VOLUNTEERS_AT", "food drive")}
    assert said[5] == set()


def test_a_group_one_is_a_part_of_told_after_it(ex: OfflineExtractor) -> None:
    assert _facts(ex, "I talked to the virtual support group I am a part of.") == {
        ("John", "MEMBER_OF", "virtual support group", "assert")}
    assert _facts(ex, "This is something I am a part of.") == set()
