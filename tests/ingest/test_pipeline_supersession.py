"""End-to-end supersession from text through the offline extractor (issue: ingestion #3)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.ingest.pipeline import make_extractor
from kgmem.memory.facade import Memory
from tests.conftest import ManualClock

UTC = timezone.utc
EPISODES = [
    ("I live in Boston", datetime(2021, 1, 10, tzinfo=UTC)),
    ("I moved to Denver last March", datetime(2023, 5, 8, tzinfo=UTC)),
]


def lives_in(m: Memory) -> list[tuple[str, datetime | None, datetime | None]]:
    return sorted(((v.object, v.valid_at, v.invalid_at)
                   for v in m.history("Sam") if v.predicate == "LIVES_IN" and v.expired_at is None),
                  key=lambda x: x[1] or datetime.min.replace(tzinfo=UTC))


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return make_extractor()


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_move_supersedes_in_either_ingestion_order(tmp_path, extractor, order) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    m = Memory(tmp_path, clock=clock, extractor=extractor)
    for i in order:
        text, ref = EPISODES[i]
        m.add_episode(text, ref, speaker="Sam")
        clock.advance(hours=1)
    boston_start = datetime(2021, 1, 10, tzinfo=UTC)
    march = datetime(2023, 3, 1, tzinfo=UTC)
    assert lives_in(m) == [("Boston", boston_start, march), ("Denver", march, None)]
    denver = [v for v in m.facts("Sam", "LIVES_IN")][0]
    assert denver.valid_precision.value == "month"
    # a later correction retracts Boston
    m.add_episode("Actually I never lived in Boston", datetime(2023, 6, 1, tzinfo=UTC),
                  speaker="Sam")
    assert lives_in(m) == [("Denver", march, None)]
    assert m.facts("Sam", valid_at="2022-01-01") == []


def test_breakup_ends_whatever_partner_is_current(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    m = Memory(tmp_path, clock=clock, extractor=extractor)
    m.add_episode("I'm dating Chris", datetime(2022, 2, 1, tzinfo=UTC), speaker="Kim")
    clock.advance(hours=1)
    m.add_episode("We broke up last week", datetime(2023, 3, 15, tzinfo=UTC), speaker="Kim")
    assert [f.object for f in m.facts("Kim", "DATING", valid_at="2022-06-01")] == ["Chris"]
    assert m.facts("Kim", "DATING") == []
    assert all(f.object != "*" for f in m.history("Kim"))


def test_end_told_before_start_gets_its_start(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    m = Memory(tmp_path, clock=clock, extractor=extractor)
    m.add_episode("I left Google in May 2020.", datetime(2023, 1, 1, tzinfo=UTC), speaker="Maya")
    clock.advance(hours=1)
    m.add_episode("I joined Google in 2015.", datetime(2023, 2, 1, tzinfo=UTC), speaker="Maya")
    assert [f.object for f in m.facts("Maya", "WORKS_AT", valid_at="2016-06-01")] == ["Google"]
    assert m.facts("Maya", "WORKS_AT", valid_at="2021-06-01") == []
    assert m.facts("Maya", "WORKS_AT", valid_at="2014-06-01") == []
