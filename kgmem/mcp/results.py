"""Typed results of the MCP tools (each tool's ``outputSchema``; clients read them as
``structuredContent``). Fields reuse the library's models, so a tool result has the same
shape as the REST response of the same call.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ..model import Change, Entity, Episode, Erasure, FactVersion, Path


def described(facts: list[FactVersion]) -> list[str]:
    return [f.describe() for f in facts]


class RememberResult(BaseModel):
    episode: Episode
    facts: list[FactVersion] = Field(description="facts extracted from this episode")


class FactResult(BaseModel):
    fact: FactVersion


class FactsResult(BaseModel):
    facts: list[FactVersion]
    described: list[str] = Field(description="one line per fact: S P O [valid from, to)")


class ChangeResult(BaseModel):
    """A change to the memory (undo it with ``undo(change_id=change.id)``) and the facts it
    touched as they are believed now (``None``: no longer believed)."""

    change: Change
    facts: list[FactVersion | None] = Field(
        description="per id of change.fact_ids: its current version, or null when retracted")


class EraseResult(BaseModel):
    erasure: Erasure = Field(description="the audit record (no content)")


class ProfileResult(BaseModel):
    """What the memory holds about an entity at (valid_at, known_at)."""

    entity: Entity
    facts: list[FactVersion] = Field(description="facts with the entity as subject")
    incoming: list[FactVersion] = Field(description="facts with the entity as object")
    described: list[str]
    valid_at: datetime
    known_at: datetime


class ChangesResult(BaseModel):
    changes: list[Change]
    versions: list[FactVersion] = Field(
        description="fact versions created or expired after `since`")
    next_since: datetime | None = Field(
        description="the last change's time when the list was cut at `limit` (as `since` it "
        "skips later changes of that same transaction time: prefer next_after)")
    next_after: str | None = Field(
        None, description="pass as `after` (with the same `since`) to read on when the list "
        "was cut at `limit`")


class HistoryResult(BaseModel):
    versions: list[FactVersion]


class PathsResult(BaseModel):
    paths: list[Path]
    described: list[str]


class GroupsResult(BaseModel):
    groups: list[str] = Field(description="groups that hold data and that this caller may use")
    default_group: str = Field(description="the group used when a tool is given none")


class PredicateInfo(BaseModel):
    name: str
    cardinality: str = Field(description="functional: one object per subject at a time; "
                             "multi: many")
    symmetric: bool
    source: str = Field(description="built-in, declared or first use")
    description: str
    declared_at: datetime | None
    change_id: str | None


class PredicatesResult(BaseModel):
    predicates: list[PredicateInfo]


class PredicateResult(BaseModel):
    predicate: PredicateInfo


class MergeResult(BaseModel):
    change: Change = Field(description="undo(change_id=change.id) separates them again")


class RecallResult(BaseModel):
    context: str | None = None
    details: dict[str, Any] | None = None
    results: list[dict[str, Any]] | None = None
    sessions: list[dict[str, Any]] | None = None
