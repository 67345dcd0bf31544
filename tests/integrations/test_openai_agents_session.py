"""KgmemSession is an Agents SDK Session and the memory tools are SDK function tools: runs of
the SDK's own Runner with a scripted Model (no network, tracing off), on both stores."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

pytest.importorskip("agents")  # kgmem[openai-agents]; the dev extra installs it

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage  # noqa: E402
from agents.memory import Session  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from kgmem.integrations.openai_agents import KgmemSession, kgmem_function_tools  # noqa: E402


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id=uuid.uuid4().hex, type="message", role="assistant",
                                 status="completed", content=[ResponseOutputText(
                                     type="output_text", text=text, annotations=[])])


def call(name: str, **args: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(type="function_call", name=name, arguments=json.dumps(args),
                                    call_id=uuid.uuid4().hex, id=uuid.uuid4().hex)


class ScriptedModel(Model):
    """Answers each model call with the next scripted output; keeps what it was sent."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools,  # type: ignore[no-untyped-def, override]
                           output_schema, handoffs, tracing, **kw) -> ModelResponse:
        self.inputs.append(input)
        return ModelResponse(output=[self.script.pop(0)], usage=Usage(), response_id=None)

    def stream_response(self, *a: Any, **kw: Any) -> AsyncIterator[Any]:  # pragma: no cover
        raise NotImplementedError


def _run(agent: Agent, text: str, session: KgmemSession) -> Any:
    async def go() -> Any:
        return await Runner.run(agent, text, session=session,
                                run_config=RunConfig(tracing_disabled=True))
    return anyio.run(go)


def test_a_run_keeps_its_conversation_in_kgmem(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor="offline")
    group = "t" + uuid.uuid4().hex[:10]
    session = KgmemSession("chat-1", m, group=group, user="Ann")
    assert isinstance(session, Session)
    model = ScriptedModel([say("Congrats on the move!"), say("You moved to Denver.")])
    agent = Agent(name="assistant", model=model)
    assert _run(agent, "I moved to Denver last March.", session).final_output == \
        "Congrats on the move!"
    out = _run(agent, "Where did I move?", session)
    assert out.final_output == "You moved to Denver."
    sent = model.inputs[1]  # the second call saw the first exchange, from the session
    assert [x.get("role") for x in sent][:3] == ["user", "assistant", "user"]
    items = anyio.run(session.get_items)
    assert len(items) == 4 and items[0]["content"] == "I moved to Denver last March."
    assert anyio.run(session.get_items, 1) == items[-1:]
    assert [f.object for f in m.facts("Ann", "LIVES_IN", group=group)] == ["Denver"]
    other = KgmemSession("chat-2", m, group=group, user="Ann")
    assert anyio.run(other.get_items) == []  # sessions are apart; the facts are shared
    popped = anyio.run(session.pop_item)
    assert popped == items[-1] and anyio.run(session.get_items) == items[:-1]
    anyio.run(session.clear_session)
    assert anyio.run(session.get_items) == []
    assert m.facts("Ann", "LIVES_IN", group=group) == []  # erased with the episode


def test_function_tools_in_a_run(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor="offline")
    group = "t" + uuid.uuid4().hex[:10]
    model = ScriptedModel([
        call("remember", content="I work at Acme since 2020.", speaker="Ann"),
        call("recall", query="Where does Ann work?"),
        call("forget", fact_id="ffffffff"),
        say("ok"),
    ])
    agent = Agent(name="assistant", model=model, tools=kgmem_function_tools(m, group))
    session = KgmemSession("s", m, group=group, user="Ann", extract=False)
    assert _run(agent, "Remember where I work.", session).final_output == "ok"
    outputs = [x["output"] for x in anyio.run(session.get_items)
               if x.get("type") == "function_call_output"]
    assert "learnt: Ann WORKS_AT Acme [2020, now)" in outputs[0]
    assert "Ann works at Acme" in outputs[1] and "fact ids: Ann WORKS_AT Acme" in outputs[1]
    assert outputs[2].startswith("error: not_found: no fact 'ffffffff'")


def test_items_added_at_one_instant_keep_their_order(make_memory) -> None:  # type: ignore[no-untyped-def]
    """An injected clock that does not move between calls (a replay, a test): the items come
    back in the order added, a message said again is kept, and pop takes the last one."""
    from tests.conftest import ManualClock

    session = KgmemSession(uuid.uuid4().hex, make_memory(clock=ManualClock()), extract=False,
                           group="s" + uuid.uuid4().hex[:10])
    said = ["hi", "hello", "ok", "and?", "ok"]

    async def run() -> tuple[list[Any], Any]:
        for i, text in enumerate(said):
            await session.add_items([{"role": ("user", "assistant")[i % 2], "content": text}])
        items = [x["content"] for x in await session.get_items()]
        return items, await session.pop_item()

    items, popped = anyio.run(run)
    assert items == said
    assert popped == {"role": "user", "content": "ok"}
