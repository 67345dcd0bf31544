"""The change feed pages (``Memory.changes(since, limit=, after=)``) on every store, against a
reference model: the list of changes in the order they were written, with the transaction
time each write got. Pages concatenated are the feed, whatever the page size, even when many
changes share one transaction time (a batch of ``assert_facts``) and when changes are written
between pages; nothing is lost or repeated."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from kgmem.errors import InvalidInputError, NotFoundError
from kgmem.model import Change
from tests.conftest import ManualClock, fresh_group

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Model:
    """What was written: (transaction time, fact ids) per change, in write order."""

    def __init__(self) -> None:
        self.log: list[tuple[datetime, list[str]]] = []

    def feed(self, since: datetime) -> list[tuple[datetime, list[str]]]:
        return [c for c in self.log if c[0] > since]


def write(m, g: str, clock: ManualClock, model: Model, rng: random.Random, step: int) -> None:  # type: ignore[no-untyped-def]
    clock.advance(seconds=rng.choice([1, 1, 60]))
    t = clock()
    if rng.random() < 0.5:  # a batch: several changes with one transaction time
        rows = [{"subject": f"p{step}_{i}", "predicate": "LIKES", "object": f"x{rng.randrange(5)}"}
                for i in range(rng.randrange(2, 6))]
        for fid in m.assert_facts(rows, group=g, batch_size=100):
            model.log.append((t, [fid]))
    else:
        f = m.assert_fact(f"q{step}", "LIVES_IN", f"city{rng.randrange(4)}", group=g)
        model.log.append((t, [f.fact_id]))


def read_all(m, g: str, since: datetime, limit: int) -> list[Change]:  # type: ignore[no-untyped-def]
    out: list[Change] = []
    after = None
    while True:
        page = m.changes(since, group=g, limit=limit, after=after)
        assert len(page) <= limit
        out += page
        if len(page) < limit:
            return out
        after = page[-1].id


def written(make_memory, seed: int, steps: int):  # type: ignore[no-untyped-def]
    """A memory with ``steps`` random writes in a fresh group, and the model of them."""
    rng = random.Random(seed)
    clock = ManualClock(datetime(2025, 3, 1, tzinfo=timezone.utc))
    m, g, model = make_memory(clock=clock), fresh_group(), Model()
    for step in range(steps):
        write(m, g, clock, model, rng, step)
    return m, g, clock, model, rng


def as_model(changes: list[Change]) -> list[tuple[datetime, list[str]]]:
    return [(c.created_at, c.fact_ids) for c in changes]


def test_pages_concatenate_to_the_feed(make_memory) -> None:  # type: ignore[no-untyped-def]
    m, g, clock, model, rng = written(make_memory, 5, 12)
    times = sorted({t for t, _ in model.log})
    for since in [EPOCH, times[0], times[len(times) // 2], times[-1] - timedelta(microseconds=1),
                  times[-1]]:
        full = m.changes(since, group=g)  # the default: every change, unpaged
        assert as_model(full) == model.feed(since)
        for limit in (1, 2, 3, 7, 1000):
            paged = read_all(m, g, since, limit)
            assert [c.id for c in paged] == [c.id for c in full]
            assert len({c.id for c in paged}) == len(paged)


def test_changes_written_between_pages_come_later(make_memory) -> None:  # type: ignore[no-untyped-def]
    m, g, clock, model, rng = written(make_memory, 9, 4)
    seen: list[Change] = []
    after = None
    for step in range(4, 10):
        page = m.changes(EPOCH, group=g, limit=2, after=after)
        seen += page
        if page:
            after = page[-1].id
        write(m, g, clock, model, rng, step)
    while page := m.changes(EPOCH, group=g, limit=2, after=after):
        seen += page
        after = page[-1].id
    assert as_model(seen) == model.feed(EPOCH)


def test_bad_page_arguments(make_memory) -> None:  # type: ignore[no-untyped-def]
    m, g = make_memory(), fresh_group()
    m.assert_fact("A", "LIKES", "B", group=g)
    other = fresh_group()
    c = m.changes(EPOCH, group=g)[0]
    m.assert_fact("C", "LIKES", "D", group=other)
    with pytest.raises(NotFoundError):
        m.changes(EPOCH, group=g, limit=5, after="no-such-change")
    with pytest.raises(NotFoundError):  # a change of another group is no cursor here
        m.changes(EPOCH, group=other, after=c.id)
    for bad in (0, -1, True, "3"):
        with pytest.raises(InvalidInputError):
            m.changes(EPOCH, group=g, limit=bad)
    assert m.changes(EPOCH, group=g, after=c.id) == []


def test_a_page_reads_the_versions_its_changes_wrote(make_memory) -> None:  # type: ignore[no-untyped-def]
    """versions_written_by(page) is the page's share of changed_versions(since), exactly (the
    MCP changes_since tool reads a page's versions so, in time proportional to the page):
    through supersession of a functional predicate, invalidate, correct, retract, undo, merge
    and its undo, and batches sharing one transaction time."""
    m, g, clock, model, rng = written(make_memory, 11, 6)
    m.declare_predicate("LIVES_IN", functional=True, group=g)
    clock.advance(seconds=1)
    a = m.assert_fact("Ann", "LIVES_IN", "Paris", valid_at="2020-01-01", group=g)
    clock.advance(seconds=1)
    m.assert_fact("Ann", "LIVES_IN", "Rome", valid_at="2022-01-01", group=g)  # supersedes
    clock.advance(seconds=1)
    b = m.assert_fact("Bob", "LIKES", "tea", group=g)
    clock.advance(seconds=1)
    m.invalidate(b.fact_id, at="2024-01-01", group=g)
    clock.advance(seconds=1)
    m.correct(a.fact_id, object="Lyon", group=g)
    clock.advance(seconds=1)
    gone = m.retract(m.assert_fact("Cy", "LIKES", "jazz", group=g).fact_id, group=g)
    clock.advance(seconds=1)
    m.undo(gone.id, group=g)
    clock.advance(seconds=1)
    m.assert_fact("Robert", "LIKES", "coffee", group=g)
    clock.advance(seconds=1)
    merge = m.merge_entities("Bob", "Robert", group=g)
    clock.advance(seconds=1)
    m.undo(merge.id, group=g)
    since = EPOCH
    changed = m.changed_versions(since, group=g)
    assert {c.kind for c in m.changes(since, group=g)} >= {
        "assert", "invalidate", "correct", "retract", "undo", "merge", "declare"}
    for limit in (1, 3, 8, 1000):
        after, pages = None, 0
        while True:
            page = m.changes(since, group=g, limit=limit, after=after)
            ids = {c.id for c in page}
            want = [v.id for v in changed if v.change_id in ids]
            assert [v.id for v in m.versions_written_by(page, group=g)] == want
            pages += 1
            if len(page) < limit:
                break
            after = page[-1].id
        assert pages >= 1
    assert m.versions_written_by([], group=g) == []
    # the group is part of the question: another group's page reads nothing here
    other = fresh_group()
    assert m.versions_written_by(m.changes(since, group=g), group=other) == []
