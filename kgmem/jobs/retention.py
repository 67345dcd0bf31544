"""Retention policies: how long episodes and facts are kept, applied by ``kgmem retain``.

A policy is a list of rules, each for episodes (optionally of one ``source``) or for facts
(optionally of one ``predicate``), optionally for one ``group`` only, with ``keep_days``
(``null``: forever). The first rule that matches an item decides; an item no rule matches is
kept. An expired episode is **erased** (physically, with its audit record
:class:`kgmem.model.Erasure`; docs/erase.md); an expired fact is **invalidated** at its
expiry (valid from ``valid_at``, or from when it was recorded when its start is unknown, plus
``keep_days``), a change whose reason names the rule, so it can be undone. ``dry_run`` lists
what would go and changes nothing. ``kgmem serve`` applies a policy on a schedule too
(:mod:`kgmem.jobs.retention_schedule`).

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

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from .. import timeline
from ..errors import InvalidInputError
from ..memory.facade import Memory
from ..model import Episode, FactVersion
from ..names import check_group
from ..vocabulary import normalize_predicate

PAGE = 500


class RetentionRule(BaseModel):
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
    rules: list[RetentionRule]

    @classmethod
    def load(cls, path: str | Path) -> RetentionPolicy:
        try:
            return cls.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as exc:
            raise InvalidInputError(f"retention policy {str(path)!r}: {exc}",
                                    field="policy") from exc

    def for_episode(self, ep: Episode, group: str) -> RetentionRule | None:
        for r in self.rules:
            if r.episodes and r.applies_to(group) and r.source in (None, ep.source):
                return r
        return None

    def for_fact(self, v: FactVersion, group: str) -> RetentionRule | None:
        for r in self.rules:
            if r.facts and r.applies_to(group) and (
                    r.predicate is None or normalize_predicate(r.predicate) == v.predicate):
                return r
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


class RetentionReport(BaseModel):
    group: str
    dry_run: bool
    at: datetime
    actions: list[RetentionAction]


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
         ) -> list[RetentionAction]:
    """What the policy expires in ``group`` at ``now``, oldest first per kind."""
    actions: list[RetentionAction] = []
    for ep in _all_episodes(m, group):
        rule = policy.for_episode(ep, group)
        end = None if rule is None else _expiry(rule, ep.reference_time, now)
        if rule is not None and end is not None:
            actions.append(RetentionAction(kind="episode", id=ep.id, action="erase",
                                           rule=rule.name(), expires_at=end,
                                           text=ep.content[:80]))
    for v in m.facts(group=group, valid_at=now, known_at=now):
        rule = policy.for_fact(v, group)
        end = None if rule is None else _expiry(rule, v.valid_at or v.created_at, now)
        if rule is not None and end is not None:
            actions.append(RetentionAction(kind="fact", id=v.fact_id, action="invalidate",
                                           rule=rule.name(), expires_at=end, text=v.fact))
    return actions


def retain(m: Memory, policy: RetentionPolicy, group: str = "default",
           dry_run: bool = False, should_stop: Callable[[], bool] | None = None
           ) -> RetentionReport:
    """Apply ``policy`` to ``group`` now (or, with ``dry_run``, only list what would go).
    Facts are invalidated before episodes are erased, so an invalidation is recorded even
    when erasing its episode then removes the fact. ``should_stop`` is asked before each
    action (each one its own transaction): when it says so, the report lists what was done."""
    now = m.now()
    actions = plan(m, policy, group, now)
    if dry_run:
        return RetentionReport(group=group, dry_run=True, at=now, actions=actions)
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
    return RetentionReport(group=group, dry_run=False, at=now, actions=done)
