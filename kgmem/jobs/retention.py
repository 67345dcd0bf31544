"""Retention policies: how long episodes and facts are kept, applied by ``kgmem retain``.

A policy is a list of rules, each for episodes (optionally of one ``source``) or for facts
(optionally of one ``predicate``), optionally for one ``group`` only, with ``keep_days``
(``null``: forever). The first rule that matches an item decides; an item no rule matches is
kept. An expired episode is **erased** (physically, with its audit record
:class:`kgmem.model.Erasure`; docs/erase.md); an expired fact is **invalidated** at its
expiry (valid from ``valid_at``, or from when it was recorded when its start is unknown, plus
``keep_days``), a change whose reason names the rule, so it can be undone. ``dry_run`` lists
what would go and changes nothing; every report names, per rule, the items it matched and
which of them expire. A rule is read strictly: an unknown key (``"sorce"``) is an error, not
a rule for every episode, and a predicate that is a near miss of a known one (``"LIKE"``)
is refused with the suggestion :meth:`kgmem.Memory.assert_fact` gives. ``kgmem serve``
applies a policy on a schedule too (:mod:`kgmem.jobs.retention_schedule`).

Policy file (JSON)::

    {"rules": [
      {"episodes": true, "source": "session", "keep_days": 1},
      {"facts": true, "predicate": "LIKES", "keep_days": 365},
      {"facts": true, "predicate": "HAS_ALLERGY", "keep_days": null},
      {"episodes": true, "group": "support", "keep_days": 30},
      {"episodes": true, "keep_days": 90}
    ]}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .. import timeline
from ..errors import InvalidInputError, UnknownPredicateError
from ..memory.facade import Memory
from ..model import Episode, FactVersion
from ..names import check_group
from ..vocabulary import DEFAULT_PREDICATES, near_miss, normalize_predicate

PAGE = 500


def _suggestion(name: str, known: set[str]) -> str | None:
    """The known predicate ``name`` (normalised) is a near miss of (None: it is known, or
    not close to any)."""
    if name in known:
        return None
    near = near_miss(name, known)
    return None if near is None else near[0]


class RetentionRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episodes: bool = False
    facts: bool = False
    source: str | None = Field(default=None, description="episodes of this source only")
    predicate: str | None = Field(default=None, description="facts of this predicate only")
    group: str | None = Field(default=None, description="items of this group only")
    keep_days: int | None = Field(..., ge=1, le=3_650_000,
                                  description="days kept; null keeps forever")

    @field_validator("group")
    @classmethod
    def _group_name(cls, group: str | None) -> str | None:
        try:
            return None if group is None else check_group(group)
        except InvalidInputError as exc:
            raise ValueError(str(exc)) from exc

    @field_validator("predicate")
    @classmethod
    def _known_predicate(cls, predicate: str | None) -> str | None:
        if predicate is None:
            return None
        name = normalize_predicate(predicate)
        if not name:
            raise ValueError(f"predicate {predicate!r} is empty once normalised")
        near = _suggestion(name, {s.name for s in DEFAULT_PREDICATES})
        if near is not None:
            raise ValueError(f"predicate {predicate!r} is not a built-in predicate; did you "
                             f"mean {near!r}?")
        return name

    @model_validator(mode="after")
    def _one_kind(self) -> RetentionRule:
        if self.episodes == self.facts:
            raise ValueError("a rule is for episodes or for facts (set exactly one)")
        if self.episodes and self.predicate is not None:
            raise ValueError("predicate applies to fact rules")
        if self.facts and self.source is not None:
            raise ValueError("source applies to episode rules")
        return self

    def name(self) -> str:
        what = (f"episodes{'' if self.source is None else ' of source ' + self.source}"
                if self.episodes else
                f"facts{'' if self.predicate is None else ' ' + self.predicate}")
        keep = "forever" if self.keep_days is None else f"{self.keep_days} days"
        where = "" if self.group is None else f" in group {self.group}"
        return f"{what}{where}: keep {keep}"

    def applies_to(self, group: str) -> bool:
        return self.group is None or self.group == group


class RetentionPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[RetentionRule]

    def check_predicates(self, m: Memory, group: str) -> None:
        """Refuse a fact rule for ``group`` whose predicate is a near miss of one the group
        knows (declared there): it would match nothing, silently."""
        known = {s.name for s in m.predicates(group)}
        for i, r in enumerate(self.rules):
            if r.predicate is None or not r.applies_to(group):
                continue
            near = _suggestion(r.predicate, known)
            if near is not None:
                raise UnknownPredicateError(
                    f"retention rule {i} ({r.name()}): predicate {r.predicate!r} is not "
                    f"declared in group {group!r}; did you mean {near!r}?",
                    field="predicate", predicate=r.predicate, suggestion=near, group=group,
                    rule=i)

    @classmethod
    def load(cls, path: str | Path) -> RetentionPolicy:
        try:
            return cls.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as exc:
            raise InvalidInputError(f"retention policy {str(path)!r}: {exc}",
                                    field="policy") from exc

    def for_episode(self, ep: Episode, group: str) -> int | None:
        """The index of the rule deciding ``ep`` (None: no rule, kept)."""
        for i, r in enumerate(self.rules):
            if r.episodes and r.applies_to(group) and r.source in (None, ep.source):
                return i
        return None

    def for_fact(self, v: FactVersion, group: str) -> int | None:
        """The index of the rule deciding ``v`` (None: no rule, kept)."""
        for i, r in enumerate(self.rules):
            if r.facts and r.applies_to(group) and r.predicate in (None, v.predicate):
                return i
        return None


class RetentionAction(BaseModel):
    kind: Literal["episode", "fact"]
    id: str  # episode id or fact lineage id
    action: Literal["erase", "invalidate"]
    rule: str
    expires_at: datetime
    audit_id: str | None = Field(default=None, description="the Erasure or Change recording it "
                                 "(null in a dry run)")
    text: str = Field(default="", description="what goes (the fact, or the episode's first words)")


class RuleMatch(BaseModel):
    """What one rule of the policy decided in the group (the first rule matching an item
    decides it)."""

    index: int = Field(description="the rule's position in the policy")
    rule: str
    matched: int = Field(description="items this rule decides (expired or not)")
    expiring: int = Field(description="of them, expired: erased or invalidated")


class RetentionReport(BaseModel):
    group: str
    dry_run: bool
    at: datetime
    actions: list[RetentionAction]
    rules: list[RuleMatch] = Field(default_factory=list)


def _expiry(rule: RetentionRule, start: datetime, now: datetime) -> datetime | None:
    """When an item kept by ``rule`` since ``start`` expires, if that is already past."""
    if rule.keep_days is None:
        return None
    end = timeline.expires_at(start, timedelta(days=rule.keep_days))
    return end if end is not None and timeline.ended_by(now, end) else None


def _all_episodes(m: Memory, group: str) -> list[Episode]:
    out: list[Episode] = []
    while True:
        page = m.episodes(group, limit=PAGE, offset=len(out))
        out += page
        if len(page) < PAGE:
            return out


def plan(m: Memory, policy: RetentionPolicy, group: str, now: datetime
         ) -> tuple[list[RetentionAction], list[RuleMatch]]:
    """What the policy expires in ``group`` at ``now``, oldest first per kind, and what each
    rule matched."""
    policy.check_predicates(m, group)
    actions: list[RetentionAction] = []
    matched = [0] * len(policy.rules)
    expiring = [0] * len(policy.rules)
    for ep in _all_episodes(m, group):
        i = policy.for_episode(ep, group)
        if i is None:
            continue
        matched[i] += 1
        rule = policy.rules[i]
        end = _expiry(rule, ep.reference_time, now)
        if end is not None:
            expiring[i] += 1
            actions.append(RetentionAction(kind="episode", id=ep.id, action="erase",
                                           rule=rule.name(), expires_at=end,
                                           text=ep.content[:80]))
    for v in m.facts(group=group, valid_at=now, known_at=now):
        i = policy.for_fact(v, group)
        if i is None:
            continue
        matched[i] += 1
        rule = policy.rules[i]
        end = _expiry(rule, v.valid_at or v.created_at, now)
        if end is not None:
            expiring[i] += 1
            actions.append(RetentionAction(kind="fact", id=v.fact_id, action="invalidate",
                                           rule=rule.name(), expires_at=end, text=v.fact))
    rules = [RuleMatch(index=i, rule=r.name(), matched=matched[i], expiring=expiring[i])
             for i, r in enumerate(policy.rules) if r.applies_to(group)]
    return actions, rules


def retain(m: Memory, policy: RetentionPolicy, group: str = "default",
           dry_run: bool = False, should_stop: Callable[[], bool] | None = None
           ) -> RetentionReport:
    """Apply ``policy`` to ``group`` now (or, with ``dry_run``, only list what would go).
    Facts are invalidated before episodes are erased, so an invalidation is recorded even
    when erasing its episode then removes the fact. ``should_stop`` is asked before each
    action (each one its own transaction): when it says so, the report lists what was done."""
    now = m.now()
    actions, rules = plan(m, policy, group, now)
    if dry_run:
        return RetentionReport(group=group, dry_run=True, at=now, actions=actions, rules=rules)
    done: list[RetentionAction] = []
    for a in sorted(actions, key=lambda a: a.kind != "fact"):
        if should_stop is not None and should_stop():
            break
        if a.kind == "fact":
            change = m.invalidate(a.id, a.expires_at, reason=f"retention: {a.rule}",
                                  group=group)
            done.append(a.model_copy(update={"audit_id": change.id}))
        else:
            erasure = m.erase(episode=a.id, group=group)
            done.append(a.model_copy(update={"audit_id": erasure.id}))
    return RetentionReport(group=group, dry_run=False, at=now, actions=done, rules=rules)
