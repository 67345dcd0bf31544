"""Retention on both stores: a dry run lists what would go and changes nothing; applying it
erases expired episodes and invalidates expired facts (at their expiry, with audit records),
and touches nothing outside the policy."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone

import pytest

from kgmem.errors import InvalidInputError
from kgmem.jobs.retention import RetentionPolicy, retain
from kgmem.memory.facade import Memory

from ..conftest import fresh_group

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)
POLICY = RetentionPolicy.model_validate({"rules": [
    {"episodes": True, "source": "session", "keep_days": 1},
    {"facts": True, "predicate": "LIKES", "keep_days": 365},
    {"facts": True, "predicate": "ALLERGIC_TO", "keep_days": None},
    {"episodes": True, "keep_days": 90},
]})


class Clock:
    def __init__(self) -> None:
        self.t = NOW

    def __call__(self) -> datetime:
        from datetime import timedelta

        self.t += timedelta(microseconds=1)
        return self.t


def _mixed(m: Memory, g: str) -> dict[str, str]:
    ids = {
        "old_session": m.add_episode("scratch state", "2024-12-30T10:00:00Z", source="session",
                                     group=g).id,
        "new_session": m.add_episode("fresh state", "2024-12-31T18:00:00Z", source="session",
                                     group=g).id,
        "old_message": m.add_episode("we talked in spring", "2024-05-01T10:00:00Z", group=g).id,
        "new_message": m.add_episode("we talked last week", "2024-12-20T10:00:00Z",
                                     group=g).id,
        "old_doc": m.add_episode("an old document", "2020-01-01T00:00:00Z", source="json",
                                 group=g).id,
    }
    ids["old_like"] = m.assert_fact("Ann", "LIKES", "tea", valid_at="2023-06-01", group=g).fact_id
    ids["new_like"] = m.assert_fact("Ann", "LIKES", "jazz", valid_at="2024-06-01",
                                    group=g).fact_id
    ids["allergy"] = m.assert_fact("Ann", "ALLERGIC_TO", "nuts", valid_at="2001", group=g).fact_id
    ids["home"] = m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2010", group=g).fact_id
    return ids


def test_dry_run_then_apply_with_audit_records(make_memory: Callable[..., Memory]) -> None:
    m = make_memory(clock=Clock())
    g, other = fresh_group("ret"), fresh_group("ret-other")
    ids = _mixed(m, g)
    _mixed(m, other)
    before = (m.stats(g), [f.describe() for f in m.facts(group=g)])

    dry = retain(m, POLICY, g, dry_run=True)
    planned = {(a.kind, a.id, a.action) for a in dry.actions}
    assert planned == {("episode", ids["old_session"], "erase"),
                       ("episode", ids["old_message"], "erase"),
                       ("episode", ids["old_doc"], "erase"),
                       ("fact", ids["old_like"], "invalidate")}
    assert all(a.audit_id is None for a in dry.actions)
    assert (m.stats(g), [f.describe() for f in m.facts(group=g)]) == before  # unchanged

    done = retain(m, POLICY, g)
    assert {(a.kind, a.id) for a in done.actions} == {(k, i) for k, i, _ in planned}
    kept = {e.id for e in m.episodes(g)}
    assert kept == {ids["new_session"], ids["new_message"]}
    erasures = {e.id: e for e in m.erasures(g)}
    assert {a.audit_id for a in done.actions if a.kind == "episode"} <= set(erasures)
    like = next(a for a in done.actions if a.kind == "fact")
    change = next(c for c in m.changes("2000", group=g) if c.id == like.audit_id)
    assert change.kind == "invalidate" and change.reason == "retention: facts LIKES: keep 365 days"
    tea = m.fact(ids["old_like"], valid_at="2024-05-30", group=g)
    assert tea is not None and tea.invalid_at is not None
    assert tea.invalid_at.isoformat().startswith("2024-05-31")  # valid 2023-06-01 + 365 days
    assert m.fact(ids["old_like"], group=g) is None
    now_facts = {f.object for f in m.facts(group=g)}
    assert now_facts == {"jazz", "nuts", "Oslo"}  # outside the policy, or not yet expired
    # nothing of the other group touched
    assert len(m.episodes(other)) == 5 and len(m.facts(group=other)) == 4
    assert retain(m, POLICY, g, dry_run=True).actions == []  # nothing left to expire


def test_policy_file_is_validated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "policy.json"
    p.write_text(json.dumps({"rules": [{"episodes": True, "facts": True, "keep_days": 3}]}))
    with pytest.raises(InvalidInputError):
        RetentionPolicy.load(p)
    p.write_text(json.dumps({"rules": [{"facts": True, "keep_days": 0}]}))
    with pytest.raises(InvalidInputError):
        RetentionPolicy.load(p)
    p.write_text(json.dumps({"rules": [{"facts": True, "group": "no spaces", "keep_days": 3}]}))
    with pytest.raises(InvalidInputError):
        RetentionPolicy.load(p)
    p.write_text(json.dumps(POLICY.model_dump()))
    assert RetentionPolicy.load(p) == POLICY


def test_unknown_keys_are_refused_not_read_as_a_rule_for_everything(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """issue 32: "sorce" was ignored, leaving a rule that erases every episode."""
    p = tmp_path / "policy.json"
    p.write_text(json.dumps({"rules": [{"episodes": True, "sorce": "session", "keep_days": 1}]}))
    with pytest.raises(InvalidInputError, match="sorce"):
        RetentionPolicy.load(p)
    p.write_text(json.dumps({"rules": [], "rulez": []}))
    with pytest.raises(InvalidInputError, match="rulez"):
        RetentionPolicy.load(p)


def test_a_misspelt_predicate_is_refused_with_a_suggestion(
        make_memory: Callable[..., Memory], tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "policy.json"
    p.write_text(json.dumps({"rules": [{"facts": True, "predicate": "LIKE", "keep_days": 1}]}))
    with pytest.raises(InvalidInputError, match="did you mean 'LIKES'"):
        RetentionPolicy.load(p)
    # a predicate declared in the group, misspelt: refused when applied to that group
    m = make_memory(clock=Clock())
    g = fresh_group("ret")
    m.declare_predicate("MENTORS", functional=False, group=g)
    m.assert_fact("Ann", "MENTORS", "Bob", valid_at="2001", group=g)
    policy = RetentionPolicy.model_validate(
        {"rules": [{"facts": True, "predicate": "MENTOR", "keep_days": 1}]})
    with pytest.raises(InvalidInputError, match="did you mean 'MENTORS'"):
        retain(m, policy, g, dry_run=True)
    assert len(m.facts(group=g)) == 1


def test_dry_run_names_what_each_rule_matched(make_memory: Callable[..., Memory]) -> None:
    m = make_memory(clock=Clock())
    g = fresh_group("ret")
    _mixed(m, g)
    dry = retain(m, POLICY, g, dry_run=True)
    by_rule = {r.index: (r.rule, r.matched, r.expiring) for r in dry.rules}
    assert by_rule == {
        0: ("episodes of source session: keep 1 days", 2, 1),
        1: ("facts LIKES: keep 365 days", 2, 1),
        2: ("facts ALLERGIC_TO: keep forever", 1, 0),
        3: ("episodes: keep 90 days", 3, 2),
    }
