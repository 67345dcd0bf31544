"""The fallback parsers: dateparser (precision from its ``period``), then parsedatetime
(precision from its accuracy flags), relative to the reference time; serialised by a lock
(neither is thread-safe)."""

from __future__ import annotations

import re
import threading
from datetime import datetime
from typing import Any

from kgmem.timeutil import UTC, Precision, to_utc

from .periods import Core, floor_period

_LIB_LOCK = threading.Lock()


_PDT: Any = None


_DP_PERIOD = {
    "year": Precision.YEAR,
    "month": Precision.MONTH,
    "week": Precision.DAY,
    "day": Precision.DAY,
    "time": Precision.INSTANT,
}


def with_dateparser(s: str, ref: datetime, prefer: str) -> Core | None:
    try:
        from dateparser.date import DateDataParser
    except ImportError:  # pragma: no cover - optional at import time
        return None
    key = "future" if prefer == "future" else "past"
    with _LIB_LOCK:
        base = ref.astimezone(UTC).replace(tzinfo=None)
        ddp = DateDataParser(
            languages=["en"],
            settings={
                "RELATIVE_BASE": base,
                "PREFER_DATES_FROM": key,
                "RETURN_AS_TIMEZONE_AWARE": True,
                "TIMEZONE": "UTC",
                "TO_TIMEZONE": "UTC",
                "PREFER_DAY_OF_MONTH": "first",
            },
        )
        try:
            data = ddp.get_date_data(s)
        except Exception:  # dateparser raises on odd input; treat as "no answer"
            return None
    if data is None or data.date_obj is None:
        return None
    value = to_utc(data.date_obj)
    p = _DP_PERIOD.get(data.period or "day", Precision.DAY)
    if p is Precision.DAY and re.search(r"\d{1,2}(:\d\d)|\d\s*(am|pm)\b|\bnoon\b|\bmidnight\b", s):
        p = Precision.INSTANT
    return floor_period(value, p)


def with_parsedatetime(s: str, ref: datetime, prefer: str) -> Core | None:
    global _PDT
    try:
        import parsedatetime
    except ImportError:  # pragma: no cover
        return None
    with _LIB_LOCK:
        if _PDT is None:
            _PDT = parsedatetime.Calendar(version=parsedatetime.VERSION_CONTEXT_STYLE)
        base = ref.astimezone(UTC).replace(tzinfo=None)
        try:
            value, ctx = _PDT.parseDT(s, sourceTime=base)
        except Exception:
            return None
    if not ctx.hasDate:
        return None
    acc = ctx.accuracy
    if acc & parsedatetime.pdtContext.ACU_DAY or acc & parsedatetime.pdtContext.ACU_WEEK:
        p = Precision.DAY
    elif acc & parsedatetime.pdtContext.ACU_MONTH:
        p = Precision.MONTH
    elif acc & parsedatetime.pdtContext.ACU_YEAR:
        p = Precision.YEAR
    else:
        p = Precision.DAY
    if ctx.hasTime and p is Precision.DAY and acc & (
        parsedatetime.pdtContext.ACU_HOUR | parsedatetime.pdtContext.ACU_MIN
    ):
        p = Precision.INSTANT
    return floor_period(value.replace(tzinfo=UTC), p)
