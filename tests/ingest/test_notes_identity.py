"""Entities people would recognise, through the offline extractor and the pipeline (issue 31):
an unnamed thing is its owner's, a fact said again strengthens one lineage, a name told after
a pet is that pet, and a moved date supersedes the old one."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.pipeline import make_extractor
from kgmem.memory.facade import Memory
from tests.conftest import ManualClock

UTC = timezone.utc


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return make_extractor()


def _memory(tmp_path, extractor) -> tuple[Memory, ManualClock]:  # type: ignore[no-untyped-def]
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    return Memory(tmp_path, clock=clock, extractor=extractor), clock


def test_said_again_is_one_lineage_and_each_owner_has_their_own(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m, clock = _memory(tmp_path, extractor)
    for text, day, who in [("I took my dog to the park.", 1, "Ana"),
                           ("My dog loves the beach.", 9, "Ana"),
                           ("I walked my dog this morning.", 20, "Ana"),
                           ("My dog chewed my shoes.", 21, "Ben")]:
        m.add_episode(text, datetime(2023, 5, day, 12, tzinfo=UTC), speaker=who)
        clock.advance(hours=1)
    pets = sorted((v.subject, v.object) for v in m.facts(predicate="HAS_PET"))
    assert pets == [("Ana", "Ana's dog"), ("Ben", "Ben's dog")]
    (ana,) = m.facts(subject="Ana", predicate="HAS_PET")
    assert ana.valid_at == datetime(2023, 5, 1, 12, tzinfo=UTC)  # the first telling
    assert len(m.history(ana.fact_id)) == 1


def test_a_name_told_after_the_pet_is_that_pet(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m, _clock = _memory(tmp_path, extractor)
    m.add_episode("I got a puppy last week. His name is Rex.",
                  datetime(2023, 8, 3, 12, tzinfo=UTC), speaker="Jon")
    assert [v.object for v in m.facts(subject="Jon", predicate="HAS_PET")] == ["Rex"]


def test_a_moved_date_supersedes_the_old_one(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m, clock = _memory(tmp_path, extractor)
    m.add_episode("Heads up: the launch date moved from June 3 to July 10.",
                  datetime(2024, 6, 1, 10, tzinfo=UTC), speaker="user")
    clock.advance(hours=1)
    m.add_episode("The launch has been pushed back to August 5.",
                  datetime(2024, 7, 1, 10, tzinfo=UTC), speaker="user")
    now = [v.object for v in m.facts(subject="launch", predicate="SCHEDULED_ON",
                                     valid_at="2024-07-15")]
    assert now == ["2024-08-05"]
    june = [v.object for v in m.facts(subject="launch", predicate="SCHEDULED_ON",
                                      valid_at="2024-06-15")]
    assert june == ["2024-07-10"]


def test_a_name_told_in_a_later_turn_is_the_pet_told_of_before(extractor) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    x = extractor.extractor
    at = datetime(2024, 3, 4, 9, tzinfo=UTC)
    turns = [("Jon", "I adopted a kitten on Sunday!"), ("Ana", "Cute! What's her name?"),
             ("Jon", "Her name is Mochi."), ("Jon", "I met a guy at the vet, his name is Tom.")]
    out = x.extract_many([{"text": t, "reference_time": at + timedelta(seconds=i),
                           "speaker": s, "group": "g"} for i, (s, t) in enumerate(turns)])
    pets = [(f.object, f.attributes.get("kind_of")) for facts in out for f in facts
            if f.predicate == "HAS_PET"]
    assert pets == [("Mochi", "kitten")]
