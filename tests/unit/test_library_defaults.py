"""The library behaves like the CLI: Memory(path) extracts offline by default (the extractor
is built on first use, extractor=None opts out), and ingest can replay history by recording
each episode at its reference time."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgmem import InvalidInputError, Memory
from kgmem.timeline import replay_record_time

SAID = ("I moved to Denver last March.", "2023-05-08T20:41:00Z")


def test_memory_extracts_offline_by_default(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m")
    assert m._extractor == "offline"  # nothing built (nor spaCy loaded) until needed
    m.add_episode(*SAID, speaker="Maya")
    facts = m.facts("Maya")
    assert [(f.predicate, f.object, f.valid_at.date().isoformat()) for f in facts] == [
        ("LIVES_IN", "Denver", "2023-03-01")]  # type: ignore[union-attr]


@pytest.mark.parametrize("off", [None, "none"])
def test_extractor_none_stores_episodes_only(tmp_path: Path, off: str | None) -> None:
    m = Memory(tmp_path / "m", extractor=off)
    ep = m.add_episode(*SAID, speaker="Maya")
    assert m.facts("Maya") == []
    assert ep.extraction is not None and ep.extraction.status == "skipped"


def test_an_unknown_extractor_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="extractor"):
        Memory(tmp_path / "m", extractor="spacy")


CHAT = [
    {"content": "I live in Boston.", "reference_time": "2022-01-10T09:00:00Z", "speaker": "Maya"},
    {"content": "I moved to Denver last March.", "reference_time": "2023-05-08T20:41:00Z",
     "speaker": "Maya"},
]


def test_replayed_ingest_records_each_episode_when_it_was_said(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m")
    report = m.ingest(list(reversed(CHAT)), record_time="reference")  # any order
    assert [e.created_at.year for e in report.episodes] == [2022, 2023]  # said order
    as_known = m.facts("Maya", "LIVES_IN", valid_at="2023-04-01", known_at="2023-04-01")
    assert [f.object for f in as_known] == ["Boston"]  # the move was told on 2023-05-08
    assert [f.object for f in m.facts("Maya", "LIVES_IN", valid_at="2023-04-01")] == ["Denver"]


def test_ingest_records_now_by_default(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m")
    m.ingest(CHAT)
    assert m.facts("Maya", known_at="2023-06-01") == []  # nothing was known before today


times = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1),
                     timezones=st.just(timezone.utc))


@given(times, st.none() | times, times)
def test_replay_record_time_is_the_reference_time_within_last_write_and_now(
        reference: datetime, last: datetime | None, now: datetime) -> None:
    t = replay_record_time(reference, last, now)
    if last is not None and last > min(reference, now):
        assert t == last  # never back-dated
    else:
        assert t == min(reference, now)  # never in the future
    assert last is None or t >= last
    assert t <= max(now, last or now)
