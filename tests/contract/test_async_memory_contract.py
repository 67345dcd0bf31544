"""AsyncMemory on every store: the same answers, types and errors as Memory, and the event
loop keeps running while a verb works (it runs in a worker thread)."""

from __future__ import annotations

import inspect
import time

import anyio
import pytest

from kgmem import AsyncMemory, Memory
from kgmem.errors import InvalidInputError, NotFoundError
from kgmem.model import Change, FactVersion
from tests.conftest import fresh_group


def test_every_public_verb_of_memory_is_awaitable() -> None:
    verbs = {n for n, v in inspect.getmembers(Memory)
             if not n.startswith("_") and callable(v) and n not in ("close", "now")}
    for name in verbs:
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)), name
        assert inspect.signature(getattr(AsyncMemory, name)).parameters.keys() == \
            inspect.signature(getattr(Memory, name)).parameters.keys(), name


def test_async_verbs_answer_as_memory_does(make_memory) -> None:  # type: ignore[no-untyped-def]
    g = fresh_group("aio")
    m = make_memory()
    am = AsyncMemory(memory=m)

    async def run() -> None:
        f = await am.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group=g)
        assert isinstance(f, FactVersion)
        c = await am.correct(f.fact_id[:8], object="Rome", group=g)
        assert isinstance(c, Change)
        inv = await am.invalidate(f.fact_id, "2023", group=g)
        assert [v.object for v in await am.facts("Ann", valid_at="2021", group=g)] == ["Rome"]
        assert await am.facts("Ann", valid_at="2024", group=g) == m.facts(
            "Ann", valid_at="2024", group=g) == []
        assert await am.history("Ann", group=g) == m.history("Ann", group=g)
        undone = await am.undo(inv.id, group=g)
        assert undone.undoes == inv.id
        assert [v.object for v in await am.facts("Ann", valid_at="2024", group=g)] == ["Rome"]
        with pytest.raises(NotFoundError):
            await am.history("Nobody", group=g)
        with pytest.raises(InvalidInputError):
            await am.assert_fact("", "LIVES_IN", "Oslo", group=g)
        assert (await am.stats(g))["lineages"] == 1

    anyio.run(run)


def test_the_event_loop_runs_while_a_verb_works(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    m = Memory(tmp_path / "m", extractor=None)
    real = Memory.facts

    def slow_facts(self, *a, **k):  # type: ignore[no-untyped-def]
        time.sleep(0.5)  # a slow store read: blocks its thread, not the loop
        return real(self, *a, **k)

    monkeypatch.setattr(Memory, "facts", slow_facts)
    am = AsyncMemory(memory=m)
    ticks: list[float] = []

    async def ticker() -> None:
        for _ in range(8):
            ticks.append(time.monotonic())
            await anyio.sleep(0.05)

    async def run() -> list[FactVersion]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            got = await am.facts("Ann")
        return got

    started = time.monotonic()
    assert anyio.run(run) == []
    assert len(ticks) == 8 and ticks[-1] - started < 0.5  # all ticks while facts slept
    m.close()
