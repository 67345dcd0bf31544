"""A conversation read in order (``extract_many``): turns of one sitting share who was named
("my partner", "she"), who is talking to whom ("our friendship"), and "since we last talked"
is the days since the previous sitting (issue 15). Sentences are written for these tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kgmem.ingest.offline import OfflineExtractor
from kgmem.ingest.temporal import resolve_time
from kgmem.timeline import same_sitting
from kgmem.timeutil import Precision

UTC = timezone.utc
MAY1 = datetime(2023, 5, 1, 10, 0, tzinfo=UTC)
MAY10 = datetime(2023, 5, 10, 18, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor()


def turns(*rows: tuple[datetime, str, str], group: str = "g") -> list[dict]:
    out = []
    for i, (when, speaker, text) in enumerate(rows):
        out.append({"text": text, "reference_time": when + timedelta(seconds=i),
                    "speaker": speaker, "group": group})
    return out


def triples(results: list[list]) -> list[set[tuple[str, str, str]]]:
    return [{(f.subject, f.predicate, f.object) for f in fs} for fs in results]


def test_my_partner_is_the_partner_named_earlier_in_the_sitting(ex) -> None:
    got = triples(ex.extract_many(turns(
        (MAY10, "Ana", "My partner Jordan is a nurse."),
        (MAY10, "Ben", "Nice!"),
        (MAY10, "Ana", "And my partner just got a job at Pfizer."),
    )))
    assert ("Jordan", "WORKS_AT", "Pfizer") in got[2]


def test_names_do_not_cross_into_another_sitting(ex) -> None:
    got = triples(ex.extract_many(turns(
        (MAY1, "Ana", "My partner Jordan is a nurse."),
        (MAY10, "Ana", "My partner just got a job at Pfizer."),
    )))
    assert not any(p == "WORKS_AT" for _s, p, _o in got[1])


def test_since_we_last_talked_is_the_days_since_the_previous_sitting(ex) -> None:
    res = ex.extract_many(turns(
        (MAY1, "Ana", "Hi there!"),
        (MAY10, "Ana", "Since we last talked, I joined a choir!"),
    ))
    choir = next(f for f in res[1] if f.predicate == "MEMBER_OF")
    assert choir.valid_at == datetime(2023, 5, 1, tzinfo=UTC)
    assert choir.valid_precision is Precision.DAY


def test_the_previous_sitting_can_be_given_by_the_caller(ex) -> None:
    item = {"text": "I got a puppy since we last spoke!", "reference_time": MAY10,
            "speaker": "Ana", "last_sitting": "2023-05-03T09:00:00Z"}
    pup = next(f for f in ex.extract_many([item])[0] if f.predicate == "HAS_PET")
    assert pup.valid_at == datetime(2023, 5, 3, tzinfo=UTC)


def test_since_we_last_talked_without_a_previous_sitting_is_undated(ex) -> None:
    res = ex.extract_many([{"text": "Since we last talked, I joined a choir!",
                            "reference_time": MAY10, "speaker": "Ana"}])
    assert next(f for f in res[0] if f.predicate == "MEMBER_OF").valid_at is None


def test_our_friendship_names_the_one_spoken_to(ex) -> None:
    got = triples(ex.extract_many(turns(
        (MAY10, "Ana", "Thanks for always being there."),
        (MAY10, "Ben", "I really appreciate our friendship."),
    )))
    assert ("Ben", "FRIEND_OF", "Ana") in got[1]


@pytest.mark.parametrize("text", ["Your friendship means so much to me.",
                                  "Really glad to have you as a friend!"])
def test_your_friendship_names_the_one_spoken_to(ex, text) -> None:
    got = triples(ex.extract_many(turns((MAY10, "Ana", "Thanks for listening."),
                                        (MAY10, "Ben", text))))
    assert ("Ben", "FRIEND_OF", "Ana") in got[1]


@pytest.mark.parametrize("text", ["Does my friendship mean anything to you?",
                                  "I'd love to have you as a guest.",
                                  "His friendship means a lot to her."])
def test_no_friendship_where_none_is_told(ex, text) -> None:
    got = triples(ex.extract_many(turns((MAY10, "Ana", "Thanks for listening."),
                                        (MAY10, "Ben", text))))
    assert not [t for t in got[1] if t[1] == "FRIEND_OF"], got


def test_she_is_the_person_named_earlier_in_the_sitting(ex) -> None:
    got = triples(ex.extract_many(turns(
        (MAY10, "Ana", "My sister Priya visited last week."),
        (MAY10, "Ben", "How is she?"),
        (MAY10, "Ana", "She just moved to Denver."),
    )))
    assert ("Priya", "LIVES_IN", "Denver") in got[2]


def test_sittings_follow_the_gap_between_turns() -> None:
    assert same_sitting(MAY10, MAY10 + timedelta(minutes=30))
    assert not same_sitting(MAY10, MAY10 + timedelta(minutes=31))
    assert not same_sitting(MAY10, MAY10 - timedelta(seconds=1))


@pytest.mark.parametrize("text,start,end", [
    ("last Tues", "2023-05-09", "2023-05-10"),             # said on Wednesday 2023-05-10
    ("the other day", "2023-05-03", "2023-05-10"),         # some day of the week before
    ("since we last chatted", "2023-05-01", "2023-05-11"),
])
def test_chat_times(text, start, end) -> None:
    rt = resolve_time(text, MAY10, last_sitting=MAY1)
    assert rt is not None and rt.precision is Precision.DAY
    assert (rt.start.date().isoformat(), rt.end.date().isoformat()) == (start, end)


def test_texts_dated_alike_are_not_one_conversation(ex) -> None:
    same = [{"text": "My sister Sarah is a nurse.", "reference_time": MAY10, "speaker": "Ana"},
            {"text": "My sister lives in Paris.", "reference_time": MAY10, "speaker": "Ana"}]
    assert not any(f.predicate == "LIVES_IN" for f in ex.extract_many(same)[1])


def test_generic_and_plural_pets(ex) -> None:
    got = triples(ex.extract_many(turns(
        (MAY10, "Ana", "My pets are my everything."),
        (MAY10, "Ana", "My pups are crazy today."),
        (MAY10, "Ana", "I have three dogs: Pepper, Precious and Panda."),
    )))
    assert got[0] == set()
    assert ("Ana", "HAS_PET", "pup") in got[1]
    assert {o for _s, p, o in got[2] if p == "HAS_PET"} == {"Pepper", "Precious", "Panda"}


def test_image_captions_are_not_what_was_said(ex) -> None:
    text = "Look at this! [shares a photo: a man holding a dog named Max at a concert]"
    assert ex.extract(text, MAY10, speaker="Ana") == []


@pytest.mark.parametrize("text", ["Thanks for being an awesome friend.", "Glad we're friends!",
                                  "Thank you for being such a good friend to me.",
                                  "It's so great to have friends like you."])
def test_thanks_for_being_a_friend_names_the_one_spoken_to(ex, text) -> None:
    got = triples(ex.extract_many(turns((MAY10, "Ana", "Thanks for listening."),
                                        (MAY10, "Ben", text))))
    assert ("Ben", "FRIEND_OF", "Ana") in got[1], got


@pytest.mark.parametrize("text", ["We're not friends anymore.", "Are we friends?",
                                  "Thanks for being there."])
def test_no_friendship_from_a_denial_a_question_or_plain_thanks(ex, text) -> None:
    got = triples(ex.extract_many(turns((MAY10, "Ana", "Thanks for listening."),
                                        (MAY10, "Ben", text))))
    assert ("Ben", "FRIEND_OF", "Ana") not in got[1], got
