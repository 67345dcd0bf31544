"""Parsing and normalising instants.

Policy (documented in docs/concepts.md): every instant is stored in UTC. Input may be a
``datetime`` or an ISO-8601 string; a value **without a timezone is interpreted as UTC**.
A bare date (``2023-05-08``) means midnight UTC of that day with precision ``day``; a bare
year-month (``2023-05``) and year (``2019``) keep precision ``month`` / ``year``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from enum import Enum

from .errors import InvalidTimeError

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Precision(str, Enum):
    """How precisely a valid-time bound is known (kept from the source text)."""

    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    INSTANT = "instant"


_YEAR = re.compile(r"^\s*(\d{4})\s*$")
_YEAR_MONTH = re.compile(r"^\s*(\d{4})-(\d{1,2})\s*$")
_DATE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$")


def to_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime (naive means UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_instant_with_precision(value: object, field: str = "time") -> tuple[datetime, Precision]:
    """Parse a datetime/date/ISO string into (UTC datetime, precision)."""
    if isinstance(value, datetime):
        return to_utc(value), Precision.INSTANT
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC), Precision.DAY
    if not isinstance(value, str):
        raise InvalidTimeError(
            f"{field} must be a datetime or an ISO-8601 string, got {type(value).__name__}",
            field=field,
            value=repr(value),
        )
    text = value.strip()
    if not text:
        raise InvalidTimeError(f"{field} is empty", field=field)
    try:
        if m := _YEAR.match(text):
            return datetime(int(m[1]), 1, 1, tzinfo=UTC), Precision.YEAR
        if m := _YEAR_MONTH.match(text):
            return datetime(int(m[1]), int(m[2]), 1, tzinfo=UTC), Precision.MONTH
        if m := _DATE.match(text):
            return datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC), Precision.DAY
        iso = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
        return to_utc(datetime.fromisoformat(iso)), Precision.INSTANT
    except ValueError as exc:
        raise InvalidTimeError(
            f"{field}: cannot parse {value!r} as an ISO-8601 time ({exc})",
            field=field,
            value=value,
        ) from None


def parse_instant(value: object, field: str = "time") -> datetime:
    """Parse a datetime/date/ISO string into an aware UTC datetime."""
    return parse_instant_with_precision(value, field)[0]


def parse_optional(value: object | None, field: str = "time") -> datetime | None:
    return None if value is None else parse_instant(value, field)


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
