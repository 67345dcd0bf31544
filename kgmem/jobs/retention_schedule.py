"""Retention on a schedule: a background thread of the server process (``kgmem serve``) that
applies a retention policy file every ``interval`` seconds, the first time when it starts.

Each run is :func:`kgmem.jobs.retention.retain` per group, so it leaves exactly the audit records
``kgmem retain`` leaves (an :class:`~kgmem.model.Erasure` per erased episode, an undoable
change naming the rule per invalidated fact). The policy file is read again at every run, so
an edit takes effect at the next one; a run that fails (the file no longer parses, the store
is unreachable or busy, one group's write fails) is logged and the next run tries again: the
server keeps serving. ``stop`` ends the thread between two actions (each action is its own
transaction), so shutdown never leaves a half-applied action behind.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ..memory.facade import Memory
from .periodic import Periodic, parse_groups
from .retention import RetentionPolicy, RetentionReport, retain

log = logging.getLogger("kgmem.retention")
__all__ = ["RetentionScheduler", "parse_groups"]


class RetentionScheduler(Periodic):
    """Applies the policy at ``policy_path`` to ``groups`` (None: every group of the store)
    of the Memory ``memory()`` returns, every ``interval`` seconds, on its own thread."""

    name = "retention"

    def __init__(self, memory: Callable[[], Memory], policy_path: Path, interval: float,
                 groups: list[str] | None = None) -> None:
        super().__init__(interval, log)
        self._memory = memory
        self.policy_path = policy_path
        self.groups = groups
        self.last_reports: list[RetentionReport] = []  # of the last run, one per group
        self.reports: deque[RetentionReport] = deque(maxlen=1000)  # of every recent run
        RetentionPolicy.load(policy_path)  # a bad file fails the server's start, not later

    def describe(self) -> str:
        return (f"applying {self.policy_path} every {self.interval:g}s to "
                + ("every group" if self.groups is None else ", ".join(self.groups)))

    def run_once(self) -> list[RetentionReport]:
        """One run now: the policy (read again) over the groups; returns the reports."""
        try:
            policy = RetentionPolicy.load(self.policy_path)
        except Exception:
            self.failures += 1
            log.exception("retention: policy %s not applied", self.policy_path)
            return []
        m = self._memory()
        reports: list[RetentionReport] = []
        for group in self.groups if self.groups is not None else m.groups():
            if self.stopping():
                break
            try:
                report = retain(m, policy, group, should_stop=self.stopping)
            except Exception:
                self.failures += 1
                log.exception("retention: group %s failed", group)
                continue
            reports.append(report)
            self.reports.append(report)
            for a in report.actions:
                log.info("retention: group %s: %s %s %s (rule %r, expired %s, audit %s)",
                         group, a.action, a.kind, a.id, a.rule, a.expires_at.isoformat(),
                         a.audit_id)
        self.last_reports = reports
        return reports
