"""Predicate vocabulary with cardinality.

A **functional** predicate holds at most one object per subject at any valid time
(LIVES_IN, HAS_ROLE, ...): a new value supersedes the previous one automatically.
A **multi** predicate may hold many objects at once (LIKES, KNOWS, ...).

Predicates are upper snake case. A :class:`Memory` keeps each group's declarations in its
store (``Memory.declare_predicate``, versioned in transaction time); :data:`DEFAULT_PREDICATES`
are the built-ins every group starts with. :class:`Vocabulary` is a plain value (what an LLM
extractor is told, a group's predicates at one time); :func:`near_miss` finds the known
predicate an unknown one is probably a misspelling of.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Literal

from .errors import InvalidInputError
from .names import refuse_bidi_controls, visible_text


class Cardinality(str, Enum):
    FUNCTIONAL = "functional"
    MULTI = "multi"


PredicateSource = Literal["built-in", "declared", "first use", "undeclared"]


@dataclass(frozen=True)
class PredicateSpec:
    """A predicate's rules. ``source``: ``"built-in"`` (:data:`DEFAULT_PREDICATES`),
    ``"declared"`` (``Memory.declare_predicate``), ``"first use"`` (recorded, multi-valued,
    when a group first used a predicate nobody declared) or ``"undeclared"`` (unknown). ``declared_at`` is the transaction
    time of the stored declaration, ``change_id`` the change that made it (undo it to revert);
    both None for built-ins and first uses."""

    name: str
    cardinality: Cardinality
    description: str = ""
    symmetric: bool = False
    source: PredicateSource = "built-in"
    declared_at: datetime | None = None
    change_id: str | None = None

    @property
    def functional(self) -> bool:
        return self.cardinality is Cardinality.FUNCTIONAL

    def same_rules(self, other: PredicateSpec) -> bool:
        """Whether timelines come out the same under both (cardinality and symmetry)."""
        return (self.cardinality, self.symmetric) == (other.cardinality, other.symmetric)


F, M = Cardinality.FUNCTIONAL, Cardinality.MULTI

DEFAULT_PREDICATES: tuple[PredicateSpec, ...] = (
    # functional: one object per subject at a time
    PredicateSpec("LIVES_IN", F, "current home city/place"),
    PredicateSpec("WORKS_AT", F, "current employer"),
    PredicateSpec("HAS_ROLE", F, "current job title or role"),
    PredicateSpec("LEADS", F, "the team/org the subject leads"),
    PredicateSpec("REPORTS_TO", F, "the subject's manager"),
    PredicateSpec("MARRIED_TO", F, "spouse", symmetric=True),
    PredicateSpec("DATING", F, "partner", symmetric=True),
    PredicateSpec("STUDIES_AT", F, "current school or university"),
    PredicateSpec("MEMBER_OF_TEAM", F, "the team the subject is on"),
    PredicateSpec("HAS_STATUS", F, "a current status (e.g. relationship status)"),
    PredicateSpec("AGE", F, "age"),
    PredicateSpec("FAVORITE", F, "favourite thing (single)"),
    PredicateSpec("SCHEDULED_ON", F, "the date an event is set for (a moved date supersedes)"),
    # multi: many objects at once
    PredicateSpec("KNOWS", M, "acquaintance", symmetric=True),
    PredicateSpec("FRIEND_OF", M, "friend", symmetric=True),
    PredicateSpec("SIBLING_OF", M, "sibling", symmetric=True),
    PredicateSpec("PARENT_OF", M, "parent of"),
    PredicateSpec("CHILD_OF", M, "child of"),
    PredicateSpec("HAS_PET", M, "owns a pet"),
    PredicateSpec("LIKES", M, "likes / enjoys"),
    PredicateSpec("DISLIKES", M, "dislikes"),
    PredicateSpec("USES", M, "uses a tool/product"),
    PredicateSpec("VISITED", M, "visited a place"),
    PredicateSpec("PLANS", M, "plans to do/visit"),
    PredicateSpec("WORKS_ON", M, "works on a project"),
    PredicateSpec("MEMBER_OF", M, "member of a group/club"),
    PredicateSpec("OWNS", M, "owns something"),
    PredicateSpec("SPEAKS", M, "speaks a language"),
    PredicateSpec("HAS_HOBBY", M, "hobby / activity"),
    PredicateSpec("ATTENDED", M, "attended an event/school"),
    PredicateSpec("HAS_DIET", M, "a diet kept (vegan, keto, gluten-free)"),
    PredicateSpec("AVOIDS", M, "a food or drink the subject does not take"),
    PredicateSpec("HAS_CONDITION", M, "a health condition (diabetes, asthma)"),
    PredicateSpec("INSTRUCTION", M, "a standing instruction to the assistant"),
    PredicateSpec("DECIDED", M, "a decision taken (by the subject or their group)"),
    PredicateSpec("RELATED_TO", M, "generic relation"),
    PredicateSpec("MENTIONED_WITH", M, "co-mentioned"),
)

MAX_PREDICATE = 128


def _word_char(ch: str) -> bool:
    """Letters, marks and digits of every script (marks: Devanagari vowel signs...)."""
    return ch != "_" and unicodedata.category(ch)[0] in "LMN"


def normalize_predicate(name: str) -> str:
    """'lives in' / 'lives_in' / 'LivesIn' -> 'LIVES_IN'; 'über' -> 'ÜBER'. Idempotent.

    The same Unicode rules as entity names (:mod:`kgmem.names`): NFKC, control and format
    characters removed, bidirectional controls refused. Words are the runs of letters, marks
    and digits of any script, joined by ``_`` and upper-cased; a lower-case letter (or digit)
    followed by an upper-case one starts a new word. The first character must be a letter.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError("predicate must be a non-empty string", field="predicate")
    refuse_bidi_controls(name, "predicate")
    text = visible_text(name)
    chars: list[str] = []
    before_digits = ""  # the character before the current run of digits
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else ""
        if not prev.isdigit():
            before_digits = prev
        # "livesIn", "phase2B": a case boundary only after a lower-case letter that has an
        # upper case (an upper-cased key has none, which keeps this idempotent)
        lower = before_digits if prev.isdigit() else prev
        if ch.isupper() and lower.islower() and lower.upper() != lower:
            chars.append("_")
        chars.append(ch if _word_char(ch) else "_")
    words = [w for w in "".join(chars).split("_") if w]
    key = unicodedata.normalize("NFKC", "_".join(words).upper())
    if not key or unicodedata.category(key[0])[0] != "L":
        raise InvalidInputError(
            f"predicate {name!r} must start with a letter (e.g. LIVES_IN)", field="predicate"
        )
    if len(key) > MAX_PREDICATE:
        raise InvalidInputError(f"predicate is longer than {MAX_PREDICATE} characters",
                                field="predicate")
    return key


_DIGITS = re.compile(r"\d+")
_ENDINGS = ("S", "D", "ES", "ED", "ING")


def _stems(word: str) -> set[str]:
    """A word and what it is without an English ending (LIVES -> LIVE, LIV)."""
    return {word} | {word[: -len(e)] for e in _ENDINGS
                     if word.endswith(e) and len(word) - len(e) >= 3}


def _inflection_of(a: str, b: str) -> bool:
    """The same words but for an ending or an underscore: LIVE_IN / LIVES_IN, LIVESIN."""
    if a.replace("_", "") == b.replace("_", ""):
        return True
    wa, wb = a.split("_"), b.split("_")
    return len(wa) == len(wb) and all(x == y or _stems(x) & _stems(y)
                                      for x, y in zip(wa, wb, strict=True))


def _typo_of(a: str, b: str) -> bool:
    """One edit apart, same digits; a substitution only in names of 6+ characters and not of
    the first letter (RATING is not DATING)."""
    from rapidfuzz.distance import OSA

    if min(len(a), len(b)) < 4 or _DIGITS.findall(a) != _DIGITS.findall(b):
        return False
    if OSA.distance(a, b, score_cutoff=1) != 1:
        return False
    substituted = len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1
    return not substituted or (len(a) >= 6 and a[0] == b[0])


def near_miss(name: str, known: Iterable[str]) -> tuple[str, str] | None:
    """The known predicate that ``name`` (normalised, not itself known) is most likely a
    misspelling of, and how: ``"inflection"`` (the same words but for an English ending or an
    underscore: LIVE_IN, LIVESIN for LIVES_IN) or ``"typo"`` (one edit: LIVES_ON for
    LIVES_IN); None when no known predicate is that close."""
    found = [(0 if _inflection_of(name, k) else 1, abs(len(k) - len(name)), k)
             for k in known if k != name and (_inflection_of(name, k) or _typo_of(name, k))]
    if not found:
        return None
    rank, _, best = min(found)
    return best, ("inflection" if rank == 0 else "typo")


class Vocabulary:
    """Predicate specs by name: the built-ins, or one group's predicates at one time
    (``Memory.vocabulary(group)``). ``declare`` changes this value only, not a store."""

    def __init__(self, specs: Iterable[PredicateSpec] = DEFAULT_PREDICATES) -> None:
        self._specs: dict[str, PredicateSpec] = {s.name: s for s in specs}

    def declare(
        self, name: str, functional: bool, description: str = "", symmetric: bool = False
    ) -> PredicateSpec:
        key = normalize_predicate(name)
        spec = PredicateSpec(key, F if functional else M, description, symmetric, "declared")
        self._specs[key] = spec
        return spec

    def get(self, name: str) -> PredicateSpec:
        """The spec of ``name``; an unknown predicate is multi-valued."""
        key = normalize_predicate(name)
        return self._specs.get(key) or PredicateSpec(key, M, source="undeclared")

    def __contains__(self, name: str) -> bool:
        return name in self._specs

    def is_functional(self, name: str) -> bool:
        return self.get(name).functional

    def names(self) -> list[str]:
        return sorted(self._specs)

    def specs(self) -> list[PredicateSpec]:
        return [self._specs[k] for k in sorted(self._specs)]
