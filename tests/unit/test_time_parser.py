"""The one time parser (kgmem.timeutil) against a plain integer model of UTC instants.

Any input is either a UTC instant inside the supported range, equal to what the model
computes, or an InvalidTimeError: never an OverflowError or another exception (issue 13,
point 5: ``0001-01-01T00:00:00+14:00`` used to raise OverflowError on every route).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgmem.errors import InvalidTimeError
from kgmem.timeutil import (
    MAX_INSTANT,
    MIN_INSTANT,
    UTC,
    Precision,
    add,
    instant,
    parse_instant,
    parse_instant_with_precision,
    parse_precision,
    shift,
    to_utc,
)

_US = 1_000_000
_MAX_US = ((MAX_INSTANT.date().toordinal() - 1) * 86_400 + 86_399) * _US + 999_999


def model_utc_micros(local: datetime, offset_minutes: int) -> int:
    """Microseconds since 0001-01-01T00:00Z of a local wall time at a fixed UTC offset."""
    secs = (local.toordinal() - 1) * 86_400 + local.hour * 3600 + local.minute * 60 + local.second
    return secs * _US + local.microsecond - offset_minutes * 60 * _US


def model_instant(micros: int) -> datetime | None:
    """The instant, or None when it is outside the supported range."""
    if not 0 <= micros <= _MAX_US:
        return None
    return MIN_INSTANT + timedelta(microseconds=micros)


def _offset_text(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


local_times = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59,
                                                                               59, 999999))
offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1)


@given(local=local_times, offset=offsets, z=st.booleans())
def test_iso_string_with_any_offset_is_its_utc_instant_or_out_of_range(
    local: datetime, offset: int, z: bool
) -> None:
    text = local.isoformat() + ("Z" if z and offset == 0 else _offset_text(offset))
    want = model_instant(model_utc_micros(local, offset))
    if want is None:
        with pytest.raises(InvalidTimeError, match="supported range"):
            parse_instant(text, "valid_at")
    else:
        got, precision = parse_instant_with_precision(text, "valid_at")
        assert got == want and got.tzinfo is UTC and precision is Precision.INSTANT


@given(local=local_times, offset=offsets)
def test_aware_datetime_with_any_offset_is_its_utc_instant_or_out_of_range(
    local: datetime, offset: int
) -> None:
    value = local.replace(tzinfo=timezone(timedelta(minutes=offset)))
    want = model_instant(model_utc_micros(local, offset))
    if want is None:
        with pytest.raises(InvalidTimeError):
            parse_instant(value)
        with pytest.raises(InvalidTimeError):
            to_utc(value)
    else:
        assert parse_instant(value) == want == to_utc(value)


@given(year=st.integers(min_value=-20, max_value=12_000), month=st.integers(0, 14),
       day=st.integers(0, 33), form=st.sampled_from(["y", "ym", "ymd"]))
def test_dates_keep_their_precision_or_are_invalid(year: int, month: int, day: int,
                                                    form: str) -> None:
    text = {"y": f"{year:04d}", "ym": f"{year:04d}-{month:02d}",
            "ymd": f"{year:04d}-{month:02d}-{day:02d}"}[form]
    try:
        want = date(year, month if form != "y" else 1, day if form == "ymd" else 1)
    except ValueError:
        want = None
    if want is None:
        with pytest.raises(InvalidTimeError):
            parse_instant_with_precision(text)
        return
    got, precision = parse_instant_with_precision(text)
    assert got == datetime(want.year, want.month, want.day, tzinfo=UTC)
    assert precision is {"y": Precision.YEAR, "ym": Precision.MONTH, "ymd": Precision.DAY}[form]


@given(st.one_of(st.text(max_size=80), st.binary(max_size=20), st.integers(), st.floats(),
                 st.none(), st.lists(st.integers(), max_size=2)))
def test_arbitrary_input_is_an_instant_in_range_or_invalid_time(value: object) -> None:
    try:
        got = parse_instant(value, "t")
    except InvalidTimeError as exc:
        assert exc.details["field"] == "t"
        assert len(exc.message) < 400  # a huge value is not echoed whole
        return
    assert got.tzinfo is UTC and MIN_INSTANT <= got <= MAX_INSTANT


def test_the_reported_extremes_are_invalid_time() -> None:
    for text in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
        with pytest.raises(InvalidTimeError, match="supported range") as exc:
            parse_instant(text, "valid_at")
        assert exc.value.details["field"] == "valid_at"
    # the very edges themselves are fine
    assert parse_instant("0001-01-01T00:00:00Z") == MIN_INSTANT
    assert parse_instant("9999-12-31T23:59:59.999999Z") == MAX_INSTANT
    assert parse_instant("0001-01-01T00:00:00-14:00") == datetime(1, 1, 1, 14, tzinfo=UTC)


def test_non_ascii_digits_are_not_a_year() -> None:
    with pytest.raises(InvalidTimeError):
        parse_instant("\uff12\uff10\uff12\uff13")  # fullwidth "2023"


@given(start=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31),
                          timezones=st.just(UTC)),
       days=st.integers(min_value=-4_000_000, max_value=4_000_000))
def test_add_raises_and_shift_saturates_at_the_range(start: datetime, days: int) -> None:
    delta = timedelta(days=days)
    want = model_instant(model_utc_micros(start.replace(tzinfo=None), 0) + days * 86_400 * _US)
    if want is None:
        with pytest.raises(InvalidTimeError):
            add(start, delta)
        assert shift(start, delta) == (MIN_INSTANT if days < 0 else MAX_INSTANT)
    else:
        assert add(start, delta) == shift(start, delta) == want


def test_calendar_fields_and_precisions_from_input_are_checked() -> None:
    assert instant(2023, 5, 8, 13, 56) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    for bad in ((2023, 2, 30), (0, 1, 1), (2023, 13, 1)):
        with pytest.raises(InvalidTimeError):
            instant(*bad)
    assert parse_precision("year") is Precision.YEAR
    with pytest.raises(InvalidTimeError):
        parse_precision("decade", "valid_precision")
