"""What an extractor returns, shared by every extractor (offline rules and LLM).

:class:`ExtractedFact` is one fact found in an utterance (subject, predicate from
``kgmem.vocabulary``, object, stated valid time, kind); :func:`resolve_speaker` says who "I" is;
:func:`normalize_item` reads one ``extract_many`` input.

**valid_at = None means "no date in the text"**: the caller (``Memory.add_episode``) should then
use the episode's ``reference_time``, never "now". ``invalid_at = None`` on an ``end`` fact
likewise means "ended as of the reference time". An ``end`` fact with object ``"*"``
(:data:`ANY_OBJECT`), e.g. from "we broke up", means "end whatever the subject's current value
of this (functional) predicate is".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from kgmem.timeutil import Precision

__all__ = ["ANY_OBJECT", "KINDS", "ExtractedFact", "normalize_item", "resolve_speaker"]

ANY_OBJECT = "*"
KINDS = ("assert", "end", "retract")
GENERIC_SPEAKERS = frozenset({"user", "human", "me", "you", "speaker", "customer", "client"})
ASSISTANT_SPEAKERS = frozenset({"assistant", "ai", "bot", "system", "agent", "model", "gpt"})


@dataclass
class ExtractedFact:
    """One extracted fact.

    ``kind``: ``"assert"`` (holds from ``valid_at``), ``"end"`` (stopped holding at
    ``invalid_at``: invalidate the matching fact), ``"retract"`` (a correction: it was never
    true). ``valid_at``/``invalid_at`` are ``None`` when the text gives no date: the caller uses
    the episode's reference time. ``evidence`` is the ``(start, end)`` character span in the
    input text that supports the fact; ``rule`` names the rule that fired.

    ``event``: the fact is something that happened (visited, attended, had surgery) rather
    than a state: it holds over the period its time expression names (``valid_at`` to
    ``invalid_at``), not from then on; an undated one holds on the day it was told.
    """

    subject: str
    predicate: str
    object: str
    valid_at: datetime | None = None
    valid_precision: Precision | None = None
    invalid_at: datetime | None = None
    invalid_precision: Precision | None = None
    kind: str = "assert"
    confidence: float = 0.8
    evidence: tuple[int, int] = (0, 0)
    rule: str = ""
    subject_is_speaker: bool = False
    time_text: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    event: bool = False
    # entity types (kgmem.entity_types: person, place, organisation, pet, ...), None if unknown
    subject_type: str | None = None
    object_type: str | None = None

    def key(self) -> tuple[str, str, str, str]:
        return (self.subject.lower(), self.predicate, self.object.lower(), self.kind)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("valid_at", "invalid_at"):
            d[k] = d[k].isoformat() if d[k] else None
        for k in ("valid_precision", "invalid_precision"):
            d[k] = d[k].value if d[k] else None
        d["evidence"] = list(self.evidence)
        return d


def resolve_speaker(speaker: str | None, user: str | None) -> str:
    """Who "I" is: the speaker's name; ``user`` if the speaker is missing or a generic role
    label ("user", "human"); else ``"user"``."""
    if speaker and speaker.strip() and speaker.strip().lower() not in GENERIC_SPEAKERS:
        return speaker.strip()
    if user and user.strip():
        return user.strip()
    return (speaker or "").strip() or "user"


def normalize_item(
    it: Any, reference_time: Any, speaker: str | None, user: str | None
) -> tuple[str, datetime, str | None, str | None]:
    """One extraction input (a string, a mapping with ``text``, or a tuple
    ``(text, reference_time[, speaker[, user]])``) as ``(text, reference_time, speaker, user)``;
    shared by every extractor's ``extract_many``."""
    if isinstance(it, str):
        t, r, s, u = it, reference_time, speaker, user
    elif isinstance(it, Mapping):
        t = it["text"]
        r = it.get("reference_time", reference_time)
        s = it.get("speaker", speaker)
        u = it.get("user", user)
    else:
        t = it[0]
        r = it[1] if len(it) > 1 else reference_time
        s = it[2] if len(it) > 2 else speaker
        u = it[3] if len(it) > 3 else user
    if r is None:
        raise ValueError("reference_time is required for every utterance")
    if isinstance(r, str):
        from kgmem.timeutil import parse_instant

        r = parse_instant(r, "reference_time")
    return t or "", r, s, u
