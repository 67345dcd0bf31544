"""Parsing and normalising instants: the one time parser of every input path.

Policy (documented in docs/concepts.md): every instant is stored in UTC. Input may be a
``datetime``, a ``date`` or an ISO-8601 string; a value **without a timezone is interpreted as
UTC**. A bare date (``2023-05-08``) means midnight UTC of that day with precision ``day``; a
bare year-month (``2023-05``) and year (``2019``) keep precision ``month`` / ``year``.

Supported instants are those whose UTC value lies in ``[MIN_INSTANT, MAX_INSTANT]`` (years
1 to 9999, Python's range). Anything else, including a time whose conversion to UTC leaves
that range (``0001-01-01T00:00:00+14:00``), is an :class:`InvalidTimeError`, never an
``OverflowError``. Arithmetic on instants taken from input goes through :func:`add` (out of
range is an error) or :func:`shift` (saturates at the range: query windows).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from enum import Enum

from .errors import InvalidTimeError

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MIN_INSTANT = datetime.min.replace(tzinfo=UTC)
MAX_INSTANT = datetime.max.replace(tzinfo=UTC)
SUPPORTED_RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z"
_ECHO = 80  # characters of a rejected value quoted back in an error


class Precision(str, Enum):
    """How precisely a valid-time bound is known (kept from the source text)."""

    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    INSTANT = "instant"


# Every time string kgmem reads: a year, a month, a date, or an instant (date, 'T' or a space,
# hours[:minutes[:seconds[.fraction of at most 6 digits]]], an optional UTC offset). Anything
# else is refused, not half-read ('...Z\x00', 7-digit fractions). The HTTP API publishes it as
# the pattern of its time fields, so a request matching its schema is one kgmem reads (but
# for calendar checks: a 31 February, an offset leaving the supported range).
_Y = r"([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"
_M, _D = r"(0?[1-9]|1[0-2])", r"(0?[1-9]|[12][0-9]|3[01])"
_M2, _D2 = r"(0[1-9]|1[0-2])", r"(0[1-9]|[12][0-9]|3[01])"
_HMS = r"([01][0-9]|2[0-3])(:[0-5][0-9](:[0-5][0-9]([.,][0-9]{1,6})?)?)?"
_OFFSET = r"(Z|z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?"
TIME_PATTERN = (f"^({_Y}(-{_M}(-{_D})?)?|{_Y}-{_M2}-{_D2}[Tt ]{_HMS}{_OFFSET})$")
_TIME = re.compile(TIME_PATTERN)
_YEAR = re.compile(r"^([0-9]{4})$")
_YEAR_MONTH = re.compile(r"^([0-9]{4})-([0-9]{1,2})$")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$")


def _echo(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _ECHO else text[:_ECHO] + "..."


def _out_of_range(field: str, value: object) -> InvalidTimeError:
    return InvalidTimeError(
        f"{field}: {_echo(value)!r} is outside the supported range {SUPPORTED_RANGE} (UTC)",
        field=field, value=_echo(value), supported_range=SUPPORTED_RANGE,
    )


def to_utc(value: datetime, field: str = "time") -> datetime:
    """Return ``value`` as an aware UTC datetime (naive means UTC); a value whose UTC instant
    is not representable is an :class:`InvalidTimeError`."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise _out_of_range(field, value.isoformat()) from None


def instant(year: int, month: int = 1, day: int = 1, hour: int = 0, minute: int = 0,
            second: int = 0, field: str = "time") -> datetime:
    """A UTC instant from calendar fields read from input (a non-existent date, such as
    February 30 or year 0, is an :class:`InvalidTimeError`)."""
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except (ValueError, OverflowError) as exc:
        raise InvalidTimeError(
            f"{field}: {year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d} is not a "
            f"valid time ({exc})", field=field,
        ) from None


def parse_precision(value: object, field: str = "precision") -> Precision:
    """A :class:`Precision` from its name ('year', 'month', 'day', 'instant')."""
    try:
        return Precision(value)
    except ValueError:
        raise InvalidTimeError(
            f"{field} must be one of year, month, day, instant; got {_echo(value)!r}",
            field=field, value=_echo(value),
        ) from None


def parse_instant_with_precision(value: object, field: str = "time") -> tuple[datetime, Precision]:
    """Parse a datetime/date/ISO string into (UTC datetime, precision)."""
    if isinstance(value, datetime):
        return to_utc(value, field), Precision.INSTANT
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC), Precision.DAY
    if not isinstance(value, str):
        raise InvalidTimeError(
            f"{field} must be a datetime or an ISO-8601 string, got {type(value).__name__}",
            field=field,
            value=_echo(value),
        )
    text = value.strip()
    if not text:
        raise InvalidTimeError(f"{field} is empty", field=field)
    if not _TIME.match(text):
        raise InvalidTimeError(
            f"{field}: cannot parse {_echo(value)!r} as an ISO-8601 time (a year, month, date "
            "or instant such as '2023-05-08T10:00:00Z'; at most 6 fractional digits)",
            field=field, value=_echo(value))
    try:
        if m := _YEAR.match(text):
            return datetime(int(m[1]), 1, 1, tzinfo=UTC), Precision.YEAR
        if m := _YEAR_MONTH.match(text):
            return datetime(int(m[1]), int(m[2]), 1, tzinfo=UTC), Precision.MONTH
        if m := _DATE.match(text):
            return datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC), Precision.DAY
        iso = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
        parsed = datetime.fromisoformat(iso)
    except ValueError as exc:
        raise InvalidTimeError(
            f"{field}: cannot parse {_echo(value)!r} as an ISO-8601 time ({_echo(str(exc))})",
            field=field,
            value=_echo(value),
        ) from None
    if parsed.tzinfo is not None and parsed.utcoffset() is not None:
        try:
            return parsed.astimezone(UTC), Precision.INSTANT
        except OverflowError:
            raise _out_of_range(field, value) from None
    return parsed.replace(tzinfo=UTC), Precision.INSTANT


def parse_instant(value: object, field: str = "time") -> datetime:
    """Parse a datetime/date/ISO string into an aware UTC datetime."""
    return parse_instant_with_precision(value, field)[0]


def parse_optional(value: object | None, field: str = "time") -> datetime | None:
    return None if value is None else parse_instant(value, field)


def add(value: datetime, delta: timedelta, field: str = "time") -> datetime:
    """``value + delta`` for a time taken from input: leaving the supported range is an
    :class:`InvalidTimeError`."""
    try:
        return value + delta
    except OverflowError:
        raise InvalidTimeError(
            f"{field}: {value.isoformat()} {'+' if delta >= timedelta(0) else '-'} "
            f"{abs(delta)} is outside the supported range {SUPPORTED_RANGE}",
            field=field, supported_range=SUPPORTED_RANGE,
        ) from None


def shift(value: datetime, delta: timedelta) -> datetime:
    """``value + delta`` saturated at the supported range (the edges of a query window: a
    window cannot reach past the first or the last representable instant)."""
    try:
        return value + delta
    except OverflowError:
        return MIN_INSTANT if delta < timedelta(0) else MAX_INSTANT


def to_micros(value: datetime) -> int:
    """UTC datetime -> integer microseconds since the epoch (storage form)."""
    delta = to_utc(value) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


def opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def opt_from_micros(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_with_precision(value: datetime | None, precision: Precision | str | None) -> str:
    """Human form of a bound: '2019' for year precision, '2023-03' for month, etc."""
    if value is None:
        return "?"
    p = Precision(precision) if precision else Precision.INSTANT
    if p is Precision.YEAR:
        return f"{value.year:04d}"
    if p is Precision.MONTH:
        return f"{value.year:04d}-{value.month:02d}"
    if p is Precision.DAY:
        return value.date().isoformat()
    return value.isoformat().replace("+00:00", "Z")
