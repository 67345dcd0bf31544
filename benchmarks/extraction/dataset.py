"""Helpers to write the extraction evaluation set compactly (see README.md for conventions).

The evaluation set lives in ``utterances.jsonl`` and is generated from the hand-written
sources ``split_test.py`` (written first, held out) and ``split_dev.py`` by ``build.py``.

Shorthand used by the sources:

* ``f(predicate, object, at=None, kind="assert", subj=None, until=None)`` is one expected fact.
  ``subj=None`` means the speaker (first person). ``at`` is an ISO date whose *form* carries the
  precision: ``"2019"`` = year, ``"2023-03"`` = month, ``"2023-05-01"`` = day. For
  ``kind="end"`` the date is the end of the fact (``invalid_at``); otherwise it is ``valid_at``.
* ``u(text, facts, category, ref=..., speaker=...)`` is one utterance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

REFS = {
    "R1": "2023-05-08T12:00:00Z",  # Monday
    "R2": "2024-01-15T09:30:00Z",  # Monday
    "R3": "2022-10-20T18:00:00Z",  # Thursday
    "R4": "2023-08-03T10:00:00Z",  # Thursday
}


def _date(value: str | None) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    parts = value.split("-")
    if len(parts) == 1:
        return f"{parts[0]}-01-01", "year"
    if len(parts) == 2:
        return f"{parts[0]}-{parts[1]}-01", "month"
    return value, "day"


@dataclass
class Fact:
    predicate: str
    object: str
    at: str | None = None
    kind: str = "assert"
    subj: str | None = None
    until: str | None = None

    def to_json(self, speaker: str) -> dict:
        d, p = _date(self.at)
        ud, up = _date(self.until)
        out = {
            "subject": self.subj or speaker,
            "predicate": self.predicate,
            "object": self.object,
            "kind": self.kind,
            "valid_at": None,
            "precision": None,
            "invalid_at": None,
            "invalid_precision": None,
        }
        if self.kind == "end":
            out["invalid_at"], out["invalid_precision"] = d, p
        else:
            out["valid_at"], out["precision"] = d, p
            if ud:
                out["invalid_at"], out["invalid_precision"] = ud, up
        return out


def f(predicate, obj, at=None, kind="assert", subj=None, until=None) -> Fact:
    return Fact(predicate, obj, at, kind, subj, until)


@dataclass
class Utt:
    text: str
    facts: list[Fact]
    category: str
    ref: str = "R1"
    speaker: str | None = "Maya"
    source: str = "free"  # "free" (hand-written) or "template"
    extra: dict = field(default_factory=dict)

    def to_json(self, split: str, idx: int) -> dict:
        who = self.speaker or "user"
        return {
            "id": f"{split}-{idx:03d}",
            "split": split,
            "category": self.category,
            "source": self.source,
            "text": self.text,
            "reference_time": REFS.get(self.ref, self.ref),
            "speaker": self.speaker,
            "expected": [x.to_json(who) for x in self.facts],
        }


def u(text, facts, category, ref="R1", speaker="Maya", source="free") -> Utt:
    return Utt(text, list(facts), category, ref, speaker, source)
