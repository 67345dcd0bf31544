"""The temporal rules of kgmem, in one place. Pure functions, no storage.

* Visibility of a version at ``(valid_at=V, known_at=K)``::

      created_at <= K < coalesce(expired_at, +inf)  and  valid_at <= V < coalesce(invalid_at, +inf)

  where an unknown start (``valid_at is None``) counts as -inf. Over a range ``[from, to)``
  of either axis the version's interval must overlap it instead (:func:`is_visible_under`).
  Episodes, entities and changes are visible once recorded (:func:`recorded_by`,
  :func:`episode_visible`). The stores' SQL and Cypher forms of these rules are in
  :mod:`kgmem.store.visibility`, next to each other.

* Functional predicates: for one (subject, predicate) the believed timeline is a function of
  the believed assertions alone. Sort them by (start, arrival); each holds from its start
  until the earlier of its stated end and the next assertion's start. An assertion whose
  successor starts at the same instant is *shadowed* (empty interval: the later-arriving
  value at the same instant wins, as a correction). This makes the result independent of the
  order in which dated assertions arrive, re-joins neighbours when a middle value is
  retracted, and leaves a gap after an explicit end.

* Multi-valued predicates: each believed assertion holds exactly over its stated interval.

* Symmetric functional predicates (MARRIED_TO, DATING): each party has one value at a time,
  whichever side stated the relation. Every party's believed relations form a functional
  timeline as above (the other party as the value), and a relation holds where it holds in
  both of its parties' timelines: "Bob married Carol in 2022" ends "Alice married Bob" in 2022
  even when Alice's side told it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

from .errors import InvalidIntervalError

_MIN = datetime.min.replace(tzinfo=timezone.utc)

# A sitting (session) is a run of episodes at most this far apart: search ranks them, and the
# extractor reads "since we last talked" and carries names across one.
SITTING_GAP = timedelta(minutes=30)


def same_sitting(previous: datetime, current: datetime, gap: timedelta = SITTING_GAP) -> bool:
    """``current`` continues the sitting whose latest episode was said at ``previous``."""
    return previous <= current <= previous + gap


def replay_record_time(reference: datetime, last: datetime | None, now: datetime) -> datetime:
    """Transaction time of an episode recorded as learnt when it was said (replaying history,
    ``ingest(record_time="reference")``): its reference time, but never after ``now`` (nothing
    is known in the future) and never before the group's last transaction time ``last``
    (transaction time is never back-dated)."""
    t = min(reference, now)
    return t if last is None or last <= t else last


def age_micros(at: int, asked: int) -> int:
    """How long before the asking instant ``asked`` something was said or learnt at ``at``
    (both in micros since the epoch); zero for what came at or after it (recency never
    rewards the future)."""
    return max(asked - at, 0)


def in_interval(t: datetime, start: datetime | None, end: datetime | None) -> bool:
    """t in [start, end), with None start = -inf and None end = +inf."""
    return (start is None or start <= t) and (end is None or t < end)


def expires_at(start: datetime, keep: timedelta) -> datetime | None:
    """When something that started at ``start`` and is kept ``keep`` expires (None: beyond
    the range of time, never)."""
    try:
        return start + keep
    except OverflowError:
        return None


def ended_by(t: datetime, end: datetime | None) -> bool:
    """An interval ending at ``end`` (None = +inf) no longer holds at ``t``: end <= t."""
    return end is not None and end <= t


def is_visible(
    *,
    valid_at: datetime | None,
    invalid_at: datetime | None,
    created_at: datetime,
    expired_at: datetime | None,
    at_valid: datetime,
    at_known: datetime,
) -> bool:
    return in_interval(at_known, created_at, expired_at) and in_interval(
        at_valid, valid_at, invalid_at
    )


def is_visible_under(
    *,
    valid_at: datetime | None,
    invalid_at: datetime | None,
    created_at: datetime,
    expired_at: datetime | None,
    known_at: datetime,
    known_to: datetime | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
) -> bool:
    """Visibility under a read's filter (kgmem.store.base.TimeFilter): on each axis a point
    (``*_to`` None: the interval contains it) or a range ``[from, to)`` the interval overlaps;
    ``valid_from`` None ignores valid time."""
    if known_to is None:
        known = in_interval(known_at, created_at, expired_at)
    else:
        known = intervals_overlap(created_at, expired_at, known_at, known_to)
    if not known or valid_from is None:
        return known
    if valid_to is None:
        return in_interval(valid_from, valid_at, invalid_at)
    return intervals_overlap(valid_at, invalid_at, valid_from, valid_to)


def recorded_by(created_at: datetime, known_at: datetime) -> bool:
    """A record (entity, episode, change, version) was stored by ``known_at``."""
    return created_at <= known_at


def source_known(recorded_at: datetime | None, known_at: datetime,
                 known_to: datetime | None = None) -> bool:
    """A provenance link (fact <- episode) recorded at ``recorded_at`` is part of what was
    believed under a read's transaction-time filter: by ``known_at`` (a point) or before the
    end ``known_to`` of a range ``[known_at, known_to)`` (as a version overlapping it). A link
    without a time (written by a kgmem older than link times, after the stores' one-off
    migration gave the others theirs) counts as known, as it did then."""
    if recorded_at is None:
        return True
    return recorded_at <= known_at if known_to is None else recorded_at < known_to


def expiry_known_at(expired_at: datetime | None, known_at: datetime) -> datetime | None:
    """A version's expiry as it was known at ``known_at`` (a later one was not known yet)."""
    return expired_at if expired_at is not None and expired_at <= known_at else None


def episode_visible(
    *,
    created_at: datetime,
    reference_time: datetime,
    known_at: datetime | None,
    ref_max: datetime | None = None,
    window: tuple[datetime, datetime] | None = None,
) -> bool:
    """An episode is visible at ``known_at`` once stored; with ``ref_max`` only if said by then
    ("what had been said as of V"); with ``window`` only if said inside it (closed-open)."""
    return ((known_at is None or recorded_by(created_at, known_at))
            and (ref_max is None or reference_time <= ref_max)
            and (window is None or in_interval(reference_time, *window)))


def changed_after(created_at: datetime, expired_at: datetime | None, since: datetime) -> bool:
    """A version was written or expired after ``since``."""
    return since < created_at or (expired_at is not None and since < expired_at)


def precedes_in_sitting(
    a: tuple[datetime, datetime, str], b: tuple[datetime, datetime, str], gap: timedelta
) -> bool:
    """Episode ``a`` comes before episode ``b`` in the same sitting: ``(reference_time,
    created_at, id)`` orders them and ``b`` was said at most ``gap`` after ``a``."""
    return a < b and same_sitting(a[0], b[0], gap)


def mentions_window(start: datetime, end: datetime, window: tuple[datetime, datetime],
                    earliest: datetime) -> bool:
    """A period an episode mentions overlaps ``window`` and starts no earlier than
    ``earliest`` (mentioned periods are bounded in length, so the stores can seek by start)."""
    return intervals_overlap(start, end, *window) and earliest <= start


def ends_inside(at: datetime, start: datetime | None, end: datetime | None) -> bool:
    """An end stated at ``at`` falls inside a fact's interval ``[start, end)`` after its start:
    it can end the fact there."""
    return (start is None or start < at) and (end is None or at < end)


def is_interval(start: datetime | None, end: datetime | None) -> bool:
    """``[start, end)`` is not empty (an open bound never makes it empty)."""
    return start is None or end is None or start < end


def intervals_overlap(
    a_start: datetime | None,
    a_end: datetime | None,
    b_start: datetime | None,
    b_end: datetime | None,
) -> bool:
    """Closed-open intervals [a_start, a_end) and [b_start, b_end) share an instant."""
    return (b_end is None or a_start is None or a_start < b_end) and (
        a_end is None or b_start is None or b_start < a_end
    )


def overlapping_pairs(
    intervals: Sequence[tuple[datetime | None, datetime | None]],
) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of closed-open intervals that share an instant: each interval that
    overlaps one starting no later than it is paired with the furthest-reaching such one (so
    the list is empty exactly when no two overlap)."""
    order = sorted(range(len(intervals)), key=lambda i: intervals[i][0] or _MIN)
    out: list[tuple[int, int]] = []
    reach: int | None = None  # the interval seen so far that ends last
    for i in order:
        if reach is not None and intervals_overlap(*intervals[reach], *intervals[i]):
            out.append((reach, i))
        end, best = intervals[i][1], None if reach is None else intervals[reach][1]
        if reach is None or (best is not None and (end is None or end > best)):
            reach = i
    return out


def intersect(
    intervals: Iterable[tuple[datetime | None, datetime | None]],
) -> tuple[datetime | None, datetime | None] | None:
    """Common intersection of closed-open intervals, or None when empty."""
    lo: datetime | None = None
    hi: datetime | None = None
    for start, end in intervals:
        if start is not None and (lo is None or start > lo):
            lo = start
        if end is not None and (hi is None or end < hi):
            hi = end
    if lo is not None and hi is not None and not lo < hi:
        return None
    return lo, hi


def check_interval(start: datetime | None, end: datetime | None) -> None:
    if start is not None and end is not None and not is_interval(start, end):
        raise InvalidIntervalError(
            f"invalid_at ({end.isoformat()}) must be after valid_at ({start.isoformat()})",
            valid_at=start.isoformat(),
            invalid_at=end.isoformat(),
        )


@dataclass(frozen=True)
class Stated:
    """What the sources state about one believed lineage."""

    fact_id: str
    object_id: str
    start: datetime | None
    stated_end: datetime | None
    seq: int  # arrival order, breaks ties between equal starts


@dataclass(frozen=True)
class Effective:
    """The derived valid interval of a lineage. ``empty`` means shadowed (not visible)."""

    start: datetime | None
    end: datetime | None
    caused_by: str | None = None  # fact_id whose start closed this interval
    empty: bool = False


def order_key(s: Stated) -> tuple[bool, datetime, int]:
    """Sort by start (unknown start first), then by arrival."""
    return (s.start is not None, s.start or _MIN, s.seq)


def functional_timeline(believed: Sequence[Stated]) -> dict[str, Effective]:
    """Effective intervals for the believed assertions of one functional (subject, predicate)."""
    items = sorted(believed, key=order_key)
    out: dict[str, Effective] = {}
    for i, it in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        if nxt is None:
            out[it.fact_id] = Effective(it.start, it.stated_end)
            continue
        if nxt.start == it.start:
            out[it.fact_id] = Effective(it.start, it.start, caused_by=nxt.fact_id, empty=True)
            continue
        # nxt.start > it.start (nxt.start cannot be None here: None sorts first and ties above)
        if it.stated_end is not None and it.stated_end <= nxt.start:  # type: ignore[operator]
            out[it.fact_id] = Effective(it.start, it.stated_end)
        else:
            out[it.fact_id] = Effective(it.start, nxt.start, caused_by=nxt.fact_id)
    return out


def multi_timeline(believed: Sequence[Stated]) -> dict[str, Effective]:
    """Multi-valued predicates: each believed assertion holds over its stated interval."""
    return {s.fact_id: Effective(s.start, s.stated_end) for s in believed}


def symmetric_timeline(believed: Sequence[tuple[str, str, Stated]]) -> dict[str, Effective]:
    """Effective intervals of the believed relations ``(party_a, party_b, stated)`` of one
    symmetric functional predicate: the intersection of the relation's intervals in both
    parties' functional timelines. A party's timeline is only right when every relation
    touching it is given."""
    by_party: dict[str, list[Stated]] = {}
    for a, b, st in believed:
        by_party.setdefault(a, []).append(replace(st, object_id=b))
        by_party.setdefault(b, []).append(replace(st, object_id=a))
    per = {party: functional_timeline(items) for party, items in by_party.items()}
    out: dict[str, Effective] = {}
    for a, b, st in believed:
        ea, eb = per[a][st.fact_id], per[b][st.fact_id]
        if ea.empty or eb.empty:
            out[st.fact_id] = ea if ea.empty else eb
            continue
        # both start at the stated start; the earlier end wins (None = open)
        out[st.fact_id] = min((ea, eb), key=lambda e: (e.end is None, e.end or _MIN,
                                                        e.caused_by is None))
    return out


def holder_at(believed: Sequence[Stated], at_valid: datetime) -> Stated | None:
    """Which assertion of a functional (subject, predicate) holds at ``at_valid``.

    A direct, probe-based definition (used by tests as an independent check of
    :func:`functional_timeline`): the latest-starting (then latest-arriving) assertion that
    started at or before ``at_valid``, provided its stated end is after ``at_valid``.
    """
    started = [s for s in believed if s.start is None or s.start <= at_valid]
    if not started:
        return None
    best = max(started, key=order_key)
    if best.stated_end is not None and not at_valid < best.stated_end:
        return None
    return best
