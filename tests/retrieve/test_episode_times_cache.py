"""The embedded backend keeps a group's episode times between queries (session boundaries
without a full scan per query) and must see every write: new episodes, erasures, other
groups' writes never mixing in, and the ``known_at`` cut."""

from __future__ import annotations

from datetime import timedelta

from kgmem.memory.facade import Memory
from kgmem.retrieve.backend import get_backend
from kgmem.timeutil import to_micros

from .conftest import at


def test_cached_episode_times_follow_every_write(mem: Memory) -> None:
    be = get_backend(mem)
    t0 = at("2023-05-01T09:00:00")
    first = mem.add_episode("one", t0)
    known_1 = mem.now()
    assert be.episode_times("default", mem.now()) == [to_micros(t0)]
    second = mem.add_episode("two", t0 + timedelta(hours=5))
    mem.add_episode("elsewhere", t0 + timedelta(hours=1), group="other")
    assert be.episode_times("default", mem.now()) == [to_micros(t0),
                                                      to_micros(t0 + timedelta(hours=5))]
    # what was stored by an earlier known_at, from the same cached read
    assert be.episode_times("default", known_1) == [to_micros(t0)]
    assert be.episode_times("other", mem.now()) == [to_micros(t0 + timedelta(hours=1))]
    mem.erase(episode=first.id)
    assert be.episode_times("default", mem.now()) == [to_micros(second.reference_time)]


def test_a_write_by_another_process_is_seen(mem: Memory, tmp_path) -> None:
    be = get_backend(mem)
    mem.add_episode("one", at("2023-05-01T09:00:00"))
    assert len(be.episode_times("default", mem.now())) == 1
    other = Memory(mem.store.path, extractor=None)  # a second connection to the same file
    try:
        other.add_episode("two", at("2023-05-02T09:00:00"))
    finally:
        other.close()
    assert len(be.episode_times("default", at("2100-01-01T00:00:00"))) == 2
