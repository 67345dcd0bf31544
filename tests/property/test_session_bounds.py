"""Session boundaries (runs of episodes at most ``gap`` apart) against a deliberately plain
reference: walk the sorted times and cut wherever the step is longer than the gap."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.retrieve.timefilter import session_bounds


def reference(times: list[int], gap_us: int) -> list[tuple[int, int]]:
    runs: list[list[int]] = []
    for t in times:
        if runs and t - runs[-1][-1] <= gap_us:
            runs[-1].append(t)
        else:
            runs.append([t])
    return [(r[0], r[-1]) for r in runs]


@given(
    steps=st.lists(st.integers(0, 4 * 3_600_000_000), max_size=60),
    start=st.integers(-10**15, 10**15),
    gap_min=st.integers(0, 120),
)
@settings(max_examples=300, deadline=None)
def test_session_bounds_match_the_reference(steps, start, gap_min):
    times, t = [], start
    for s in steps:
        t += s
        times.append(t)
    gap = timedelta(minutes=gap_min)
    got = session_bounds(times, gap)
    assert got == reference(times, gap_min * 60_000_000)
    assert all(isinstance(a, int) and isinstance(b, int) for a, b in got)
