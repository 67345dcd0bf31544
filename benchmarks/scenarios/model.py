"""Plain data for scenarios: truth segments, told statements, episodes, questions.

Valid-time points are strings that keep their precision, exactly as kgmem accepts them:
``"2019"`` (year), ``"2019-06"`` (month), ``"2019-06-03"`` (day); the instant they denote is the
start of that period (kgmem's documented policy). Transaction/reference times are ISO-8601 UTC
instants (``"2021-03-04T10:15:00+00:00"``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

UTC = timezone.utc
PREDICATES = ("WORKS_AT", "LIVES_IN", "HAS_ROLE", "LEADS", "MARRIED_TO")
KINDS = ("now", "as_of", "as_known", "connection")


# ----------------------------------------------------------------------------- time points
def point(dt: datetime, precision: str) -> str:
    """The precision string of ``dt`` floored to ``precision`` (year, month, day)."""
    if precision == "year":
        return f"{dt.year:04d}"
    if precision == "month":
        return f"{dt.year:04d}-{dt.month:02d}"
    if precision == "day":
        return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}"
    raise ValueError(f"unknown precision {precision!r}")


def point_precision(p: str) -> str:
    return {4: "year", 7: "month", 10: "day"}[len(p)]


def point_instant(p: str) -> datetime:
    """The instant a point denotes: the start of its period, UTC."""
    parts = [int(x) for x in p.split("-")]
    while len(parts) < 3:
        parts.append(1)
    return datetime(parts[0], parts[1], parts[2], tzinfo=UTC)


def parse_time(s: str) -> datetime:
    return datetime.fromisoformat(s).astimezone(UTC)


def fmt_time(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat()


# ----------------------------------------------------------------------------- records
@dataclass
class Segment:
    """One stretch of world truth: ``subject PREDICATE object`` over ``[start, end)``."""

    object: str
    start: str
    end: str | None = None  # None = still true at the end of the scenario


@dataclass
class Statement:
    """One told operation, applied at transaction time ``t``.

    ``op``: ``assert`` (``object``, ``valid_at``, optional ``invalid_at``), ``invalidate``
    (``target`` ended at ``invalid_at``), ``retract`` (``target`` was never true), ``correct``
    (``target`` gets ``new_object`` and/or ``new_valid_at``). ``target`` is the id of the
    ``assert`` statement whose fact the operation changes. ``tags`` say why it exists
    (``late``, ``out_of_order``, ``range``, ``false``, ``wrong_object``, ``wrong_date``...).
    """

    id: str
    t: str
    op: str
    subject: str
    predicate: str
    object: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None
    target: str | None = None
    new_object: str | None = None
    new_valid_at: str | None = None
    speaker: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass
class Episode:
    """A chat message: ``content`` said by ``speaker`` at ``reference_time``."""

    id: str
    reference_time: str
    speaker: str
    content: str
    statements: list[str] = field(default_factory=list)  # statement ids it renders
    phrasing: str = ""  # template id, for failure analysis ("filler" for chit-chat)


@dataclass
class Question:
    """A question with an exact gold answer (a set of object names, possibly empty).

    ``valid_at``/``known_at`` are ISO instants. ``connection`` questions name ``other`` (the
    second person), ``year`` and ``via`` (the predicate both hops use) and are answered with
    ``paths(mode="sequenced")``; ``valid_at`` is then the start of the year (unused by kgmem).
    """

    id: str
    kind: str
    subject: str
    predicate: str
    valid_at: str
    known_at: str
    gold: list[str]
    text: str
    other: str | None = None
    year: int | None = None
    tags: list[str] = field(default_factory=list)


@dataclass
class Person:
    name: str
    gender: str  # "f" / "m": only for possessive pronouns in rendered text
    role: str  # "speaker" (the user) or "colleague"


@dataclass
class Scenario:
    id: str
    seed: int
    index: int
    people: list[Person]
    truth: dict[str, dict[str, list[Segment]]]  # person -> predicate -> segments
    statements: list[Statement]
    episodes: list[Episode]
    questions: list[Question]
    conversation_start: str
    final_time: str  # "now" for the questions: after the last episode

    @property
    def speaker(self) -> str:
        return next(p.name for p in self.people if p.role == "speaker")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Scenario:
        return cls(
            id=d["id"],
            seed=d["seed"],
            index=d["index"],
            people=[Person(**p) for p in d["people"]],
            truth={
                person: {pred: [Segment(**s) for s in segs] for pred, segs in preds.items()}
                for person, preds in d["truth"].items()
            },
            statements=[Statement(**s) for s in d["statements"]],
            episodes=[Episode(**e) for e in d["episodes"]],
            questions=[Question(**q) for q in d["questions"]],
            conversation_start=d["conversation_start"],
            final_time=d["final_time"],
        )
