"""Retention on a schedule inside the server: the app started with KGMEM_RETENTION_POLICY and a
short interval erases an expired episode and invalidates an expired fact, each with the audit
record ``kgmem retain`` leaves, touches nothing outside the policy, logs a failing run without
stopping, and stops its thread at shutdown; on both stores."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from kgmem.errors import InvalidInputError
from kgmem.jobs.retention_schedule import RetentionScheduler, parse_groups
from kgmem.memory.facade import Memory
from tests.conftest import fresh_group

from .conftest import client_for

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


class Clock:
    """Ticks 1 us a reading from 2025-01-01 (every change its own instant)."""

    def __init__(self) -> None:
        self.t = NOW

    def __call__(self) -> datetime:
        self.t += timedelta(microseconds=1)
        return self.t


def _policy(path: Path, group: str) -> Path:
    path.write_text(json.dumps({"rules": [
        {"episodes": True, "source": "session", "keep_days": 1},
        {"facts": True, "predicate": "LIKES", "keep_days": 365},
        {"facts": True, "predicate": "ALLERGIC_TO", "keep_days": None},
        {"episodes": True, "group": group, "keep_days": 90},
    ]}), encoding="utf-8")
    return path


def _mixed(m: Memory, g: str) -> dict[str, str]:
    return {
        "old_session": m.add_episode("scratch state", "2024-12-30T10:00:00Z", source="session",
                                     group=g).id,
        "new_session": m.add_episode("fresh state", "2024-12-31T18:00:00Z", source="session",
                                     group=g).id,
        "old_message": m.add_episode("we talked in spring", "2024-05-01T10:00:00Z", group=g).id,
        "old_like": m.assert_fact("Ann", "LIKES", "tea", valid_at="2023-06-01", group=g).fact_id,
        "new_like": m.assert_fact("Ann", "LIKES", "jazz", valid_at="2024-06-01",
                                  group=g).fact_id,
        "allergy": m.assert_fact("Ann", "ALLERGIC_TO", "nuts", valid_at="2001",
                                 group=g).fact_id,
    }


def _wait(cond: Callable[[], bool], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "the scheduled run did not happen in time"
        time.sleep(0.02)


@pytest.fixture
def groups(store_kind):  # type: ignore[no-untyped-def]
    return fresh_group("sched"), fresh_group("sched-other")


def test_scheduled_run_erases_and_invalidates_with_audit_records(
        make_memory, groups, tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(clock=Clock())
    g, other = groups
    ids, theirs = _mixed(m, g), _mixed(m, other)
    # groups named explicitly: on Neo4j the server is shared with other tests' groups
    policy = _policy(tmp_path / "policy.json", g)
    client = client_for(m, retention_policy=policy, retention_interval=0.05,
                        retention_groups=f"{g},{other}")
    with client as c:
        sched: RetentionScheduler = c.app.state.retention  # type: ignore[attr-defined]
        _wait(lambda: sched.runs >= 1)
        assert sched.failures == 0
        h = {"X-Group": g}
        assert c.get(f"/v1/episodes/{ids['old_session']}", headers=h).status_code == 404
        assert c.get(f"/v1/episodes/{ids['old_message']}", headers=h).status_code == 404
        assert c.get(f"/v1/episodes/{ids['new_session']}", headers=h).status_code == 200
        likes = c.get("/v1/facts", params={"subject": "Ann", "predicate": "LIKES"},
                      headers=h).json()["items"]
        assert [f["object"] for f in likes] == ["jazz"]
        changes = c.get("/v1/changes", params={"since": "2000"}, headers=h).json()["items"]
        _wait(lambda: sched.runs >= 2)  # a second run finds nothing left to do
        assert sched.failures == 0
        assert all(r.actions == [] for r in sched.last_reports)
    assert not sched.running  # stopped with the app

    # the audit records kgmem retain leaves: an Erasure per episode, an undoable change
    # naming the rule per fact; the run's report names each
    done = {(a.kind, a.id): a.audit_id for r in sched.reports if r.group == g
            for a in r.actions}
    assert set(done) == {("episode", ids["old_session"]), ("episode", ids["old_message"]),
                         ("fact", ids["old_like"])}
    erasures = {e.id: e for e in m.erasures(g)}
    assert {done[("episode", ids["old_session"])], done[("episode", ids["old_message"])]} == \
        set(erasures)
    assert all(e.kind == "episode" for e in erasures.values())
    [inv] = [ch for ch in changes if ch["kind"] == "invalidate"]
    assert inv["reason"] == "retention: facts LIKES: keep 365 days"
    assert inv["fact_ids"] == [ids["old_like"]] and inv["id"] == done[("fact", ids["old_like"])]
    # outside the policy: the other group's message (the 90-day rule names g only) and every
    # fact not expired stay; the other group's expired session episode and LIKES go there too
    assert {e.id for e in m.episodes(other)} == {theirs["new_session"], theirs["old_message"]}
    assert {f.object for f in m.facts(group=g)} == {"jazz", "nuts"}
    assert {f.object for f in m.facts(group=other)} == {"jazz", "nuts"}


def test_a_failing_run_is_logged_and_the_next_one_applies(
        make_memory, groups, tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(clock=Clock())
    g, _ = groups
    ids = _mixed(m, g)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"episodes": True, "keep_days": None}]}))
    client = client_for(m, retention_policy=policy, retention_interval=0.05,
                        retention_groups=g)
    caplog.set_level(logging.INFO, logger="kgmem.retention")
    with client as c:
        sched: RetentionScheduler = c.app.state.retention  # type: ignore[attr-defined]
        _wait(lambda: sched.runs >= 1)  # kept everything
        policy.write_text("{not json", encoding="utf-8")  # broken while the server runs
        _wait(lambda: sched.failures >= 2)
        assert c.get("/health").status_code == 200  # still serving
        h = {"X-Group": g}
        assert c.get(f"/v1/episodes/{ids['old_session']}", headers=h).status_code == 200
        assert any("not applied" in r.getMessage() for r in caplog.records)
        _policy(policy, g)  # fixed: the next run applies it
        _wait(lambda: c.get(f"/v1/episodes/{ids['old_session']}",
                            headers=h).status_code == 404)
    assert not sched.running
    assert any(f"erase episode {ids['old_session']}" in r.getMessage()
               for r in caplog.records)


def test_bad_policy_fails_the_start_and_no_policy_runs_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path / "s", extractor=None)
    try:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"rules": [{"episodes": True, "keep_days": 0}]}))
        with pytest.raises(InvalidInputError), client_for(m, retention_policy=bad):
            pass
        with client_for(m) as c:
            assert c.app.state.retention is None  # type: ignore[attr-defined]
    finally:
        m.close()


def test_groups_setting_is_checked() -> None:
    assert parse_groups(None) is None and parse_groups(" ") is None
    assert parse_groups("a, b.c") == ["a", "b.c"]
    with pytest.raises(InvalidInputError):
        parse_groups("ok,not ok")
