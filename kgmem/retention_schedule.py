"""Retention on a schedule: a background thread of the server process (``kgmem serve``) that
applies a retention policy file every ``interval`` seconds, the first time when it starts.

Each run is :func:`kgmem.retention.retain` per group, so it leaves exactly the audit records
``kgmem retain`` leaves (an :class:`~kgmem.model.Erasure` per erased episode, an undoable
change naming the rule per invalidated fact). The policy file is read again at every run, so
an edit takes effect at the next one; a run that fails (the file no longer parses, the store
is unreachable or busy, one group's write fails) is logged and the next run tries again: the
server keeps serving. ``stop`` ends the thread between two actions (each action is its own
transaction), so shutdown never leaves a half-applied action behind.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from .memory import Memory
from .names import check_group
from .retention import RetentionPolicy, RetentionReport, retain

log = logging.getLogger("kgmem.retention")


def parse_groups(spec: str | None) -> list[str] | None:
    """``KGMEM_RETENTION_GROUPS`` ('a,b') as checked group names; None (unset): every group."""
    if spec is None or not spec.strip():
        return None
    return [check_group(g.strip()) for g in spec.split(",") if g.strip()]


class RetentionScheduler:
    """Applies the policy at ``policy_path`` to ``groups`` (None: every group of the store)
    of the Memory ``memory()`` returns, every ``interval`` seconds, on its own thread."""

    def __init__(self, memory: Callable[[], Memory], policy_path: Path, interval: float,
                 groups: list[str] | None = None) -> None:
        self._memory = memory
        self.policy_path = policy_path
        self.interval = interval
        self.groups = groups
        self.runs = 0  # runs finished (failed or not)
        self.failures = 0  # runs (or groups of a run) that raised
        self.last_reports: list[RetentionReport] = []  # of the last run, one per group
        self.reports: deque[RetentionReport] = deque(maxlen=1000)  # of every recent run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        RetentionPolicy.load(policy_path)  # a bad file fails the server's start, not later

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="kgmem-retention", daemon=True)
        self._thread.start()
        log.info("retention: applying %s every %gs to %s", self.policy_path, self.interval,
                 "every group" if self.groups is None else ", ".join(self.groups))

    def stop(self) -> None:
        """Ask the thread to stop and wait for it (at most the action under way)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # never fatal: the next run tries again
                self.failures += 1
                log.exception("retention: run failed")
            self.runs += 1
            self._stop.wait(self.interval)

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
            if self._stop.is_set():
                break
            try:
                report = retain(m, policy, group, should_stop=self._stop.is_set)
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
