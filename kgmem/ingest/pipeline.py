"""From episodes to memory operations: runs an extractor and applies what it found.

``assert`` facts become :meth:`Memory.assert_fact` (valid time from the text, else the
episode's reference time); ``end`` facts invalidate the matching believed fact at the stated
time (or record a fact that ended then, if none is known); ``retract`` facts retract the
matching believed facts ("Actually I never lived in Boston").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError, KgmemError
from ..model import Episode, FactVersion
from ..names import normalize_name

if TYPE_CHECKING:
    from ..memory import Memory

_ALL_TIME = (datetime(1, 1, 1, tzinfo=timezone.utc), datetime(9999, 12, 31, tzinfo=timezone.utc))


def _matching(m: Memory, group: str, subject: str, predicate: str, obj: str | None
              ) -> list[FactVersion]:
    found = m.facts(subject=subject, predicate=predicate, valid_at=_ALL_TIME[0],
                    valid_to=_ALL_TIME[1], group=group)
    if obj is None:
        return found
    key = normalize_name(obj)
    if m.vocabulary.get(predicate).symmetric:  # a mirrored version names obj as its subject
        return [f for f in found if key in (normalize_name(f.object), normalize_name(f.subject))]
    return [f for f in found if normalize_name(f.object) == key]


class ExtractionPipeline:
    """Wraps an extractor (``extract_many(items) -> list[list[ExtractedFact]]``)."""

    def __init__(self, extractor: Any, min_confidence: float = 0.0) -> None:
        self.extractor = extractor
        self.min_confidence = min_confidence

    def apply(self, m: Memory, episode: Episode) -> list[str]:
        return self.apply_many(m, [episode])[0]

    def apply_many(self, m: Memory, episodes: Sequence[Episode]) -> list[list[str]]:
        """Extract from many episodes in one batch; returns the fact ids touched per episode."""
        items = [(ep.content, ep.reference_time, ep.speaker) for ep in episodes]
        results = self.extractor.extract_many(items)
        return [self._apply_one(m, ep, facts) for ep, facts in zip(episodes, results, strict=True)]

    def _apply_one(self, m: Memory, ep: Episode, facts: Sequence[Any]) -> list[str]:
        touched: list[str] = []
        for f in facts:
            if f.confidence < self.min_confidence:
                continue
            try:
                touched += self._apply_fact(m, ep, f)
            except InvalidInputError:
                continue  # an extraction the rules cannot place in time: skip, keep the episode
            except KgmemError:
                continue
        return touched

    def _apply_fact(self, m: Memory, ep: Episode, f: Any) -> list[str]:
        g = ep.group
        if f.kind == "assert":
            start = f.valid_at or ep.reference_time
            # (only an open-ended assertion can complete an ended fact: skip the read otherwise)
            known = [] if f.invalid_at is not None else _matching(m, g, f.subject, f.predicate,
                                                                   f.object)
            for cur in known:
                # "I left X in May 2020" told before "I joined X in 2015": the ended fact had
                # no start yet; give it this one instead of opening a second interval.
                if (cur.valid_at is None and cur.stated_invalid_at is not None
                        and cur.stated_invalid_at > start and f.invalid_at is None):
                    m.correct(cur.fact_id, valid_at=start, group=g,
                              reason=f"start learnt from episode {ep.id}")
                    return [cur.fact_id]
            v = m.assert_fact(
                f.subject, f.predicate, f.object,
                valid_at=f.valid_at or ep.reference_time,
                invalid_at=f.invalid_at,
                valid_precision=f.valid_precision if f.valid_at else None,
                invalid_precision=f.invalid_precision if f.invalid_at else None,
                group=g, episode=ep.id, reason=f"extracted ({f.rule})", from_text=True,
            )
            return [v.fact_id]
        any_object = f.object == "*"  # "we broke up": end whatever the current value is
        if f.kind == "end":
            at = f.invalid_at or f.valid_at or ep.reference_time
            out = []
            for cur in _matching(m, g, f.subject, f.predicate, None if any_object else f.object):
                if cur.invalid_at is not None and cur.invalid_at <= at:
                    continue
                if cur.valid_at is not None and cur.valid_at >= at:
                    continue
                m.invalidate(cur.fact_id, at, reason=f"ended per episode {ep.id}", group=g)
                out.append(cur.fact_id)
            if not out and f.object and not any_object:
                v = m.assert_fact(f.subject, f.predicate, f.object, invalid_at=at, group=g,
                                  invalid_precision=f.invalid_precision, episode=None,
                                  reason=f"ended per episode {ep.id}", from_text=True)
                out.append(v.fact_id)
            return out
        if f.kind == "retract":
            out = []
            if any_object:
                return []  # never retract every value on a vague correction
            for cur in _matching(m, g, f.subject, f.predicate, f.object):
                m.retract(cur.fact_id, reason=f"corrected by episode {ep.id}", group=g)
                out.append(cur.fact_id)
            return out
        return []


def make_extractor(settings: Any = None) -> ExtractionPipeline | None:
    """The configured extraction pipeline (offline spaCy by default)."""
    kind = getattr(settings, "extractor", "offline") if settings is not None else "offline"
    if kind == "none":
        return None
    if kind == "llm":
        from .llm import LLMExtractor

        return ExtractionPipeline(LLMExtractor.from_settings(settings))
    from .offline import OfflineExtractor

    return ExtractionPipeline(OfflineExtractor())
