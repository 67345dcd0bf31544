"""Temporal expressions in chat text, resolved against an episode's reference time.

``resolve_time("last March", ref)`` turns one expression into a :class:`ResolvedTime`
(a UTC period plus the precision it is known to); ``find_time_expressions(doc_or_text, ref)``
finds the expressions in a text (spaCy DATE/TIME entities, plus regexes as a fallback).

Resolution order (first answer wins):

1. a rule table (regexes, no library) for the expressions where a library is wrong or where our
   precision policy matters: years, month names with ``last/this/next``, seasons, ``early/mid/
   late``, ``the beginning/middle/end of``, ``N units ago``, ``last/this/next week|month|year``,
   weekdays, ``yesterday/today/tomorrow``, ``last weekend``, a few holidays, and the relational
   forms ``since X``, ``until X``, ``for N years`` and ``from X to Y``;
2. ``dateparser`` (English only; ``RELATIVE_BASE`` = reference time, ``PREFER_DATES_FROM`` =
   past unless the caller prefers the future, UTC), whose ``period`` gives the precision;
3. ``parsedatetime`` as a last resort (only answers that carry a date).

Precision policy (see ``Precision``; a period is closed-open ``[start, end)``):

* ``in 2019``, ``2019``, ``last year``, ``N years ago``, ``early/mid/late 2020``, decades:
  **YEAR**. ``N years ago`` is deliberately YEAR (``2 years ago`` said 2023-05-08 is 2021, not
  2021-05-08). ``early 2020`` starts 2020-01-01 and ends 2020-05-01 (mid: May-Sep, late: Sep-Jan).
* month names, ``last March`` (the most recent March strictly before the reference month),
  ``N months ago``, ``last month``, seasons (meteorological, northern hemisphere: the period
  starts on the season's first month; ``last summer`` = the most recent summer that has ended),
  ``the beginning/middle/end of June`` (start on the 1st/11th/21st): **MONTH**.
* ``yesterday``, weekdays, explicit dates, ``N days/weeks ago``, ``last week`` (its Monday, the
  period covers the week), ``last weekend`` (its Saturday), ``last Tues``, ``the other day``
  (the period covers the 7 days before the reference day), ``since we last talked`` (the days
  from the previous sitting through the reference day; needs ``last_sitting``): **DAY**.
* clock times (``at 3pm``) and ``N hours/minutes ago``: **INSTANT**.

Ambiguous expressions without a direction (a bare ``in December``, ``on Saturday``,
``the end of June``) resolve to the most recent such period at or before the reference time;
pass ``prefer="future"`` to get the next one (the extractor does this for future-tense clauses).
Vague expressions (``recently``, ``a while ago``, ``these days``, ``now``) resolve to ``None``.

All datetimes are timezone-aware UTC (a naive ``reference_time`` is taken as UTC).

Layout: ``resolve`` (:func:`resolve_time`, the relational forms) -> ``rules`` (the rule table,
then ``libraries``) -> ``periods`` (calendar arithmetic, the words of time); ``find``
(:func:`find_time_expressions`) resolves what it finds with :func:`resolve_time`.
"""

from __future__ import annotations

from .find import TimeMention, find_time_expressions
from .resolve import ResolvedTime, resolve_time

__all__ = [
    "ResolvedTime",
    "TimeMention",
    "find_time_expressions",
    "resolve_time",
]
