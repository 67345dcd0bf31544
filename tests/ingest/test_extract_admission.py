"""Chat forms found on fresh LoCoMo dev sessions (labelled before the extractor ran on them):
a greeted name is not the subject, admissions and new memberships, "my 9-5" is no date.
Sentences are written for these tests (not copied from the dataset)."""

from __future__ import annotations

import pytest

from kgmem.ingest.temporal.find import find_time_expressions

from .test_extract_chat import REF, facts


@pytest.mark.parametrize("text", [
    "Hey Maria, since we last talked I went to the jazz concert.",
    "Hi Maria, I went to the jazz concert last week.",
    "Maria, I went to the jazz concert last week.",
])
def test_a_greeted_name_is_not_the_subject(ex, text) -> None:
    got = facts(ex, text)
    assert ("Sam", "ATTENDED", "jazz concert", "assert") in got, got
    assert not [f for f in got if f[0] == "Maria"], got


def test_a_named_subject_after_a_comma_is_kept(ex) -> None:
    got = facts(ex, "Yesterday, Maria went to the jazz concert.")
    assert ("Maria", "ATTENDED", "jazz concert", "assert") in got, got


@pytest.mark.parametrize("text,expected", [
    ("I just got accepted for a design internship!",
     ("Sam", "HAS_ROLE", "design internship", "assert")),
    ("I got accepted into a nursing program.", ("Sam", "MEMBER_OF", "nursing program", "assert")),
    ("A few days ago I found a new gym near work.", ("Sam", "MEMBER_OF", "gym", "assert")),
    ("Quitting got me out of my boring 9-5 as an accountant.",
     ("Sam", "HAS_ROLE", "accountant", "end")),
])
def test_admissions_and_exits(ex, text, expected) -> None:
    assert expected in facts(ex, text), (text, facts(ex, text))


@pytest.mark.parametrize("text", [
    "I hope I get accepted for the internship.",   # a hope, not an admission
    "I found the gym closed this morning.",       # finding is not joining
    "I'll find a new gym soon.",
])
def test_no_admission_without_one(ex, text) -> None:
    got = facts(ex, text)
    assert not [f for f in got if f[1] in ("HAS_ROLE", "MEMBER_OF")], (text, got)


def test_working_hours_are_not_a_date() -> None:
    assert find_time_expressions("It got me out of my secure 9-5 at last.", REF) == []
    assert find_time_expressions("I hate my boring 9 to 5 job.", REF) == []
    dated = find_time_expressions("We met on 9-5-2021.", REF)
    assert dated and dated[0][3].start.year == 2021
