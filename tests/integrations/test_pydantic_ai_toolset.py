"""The kgmem toolset in a Pydantic AI agent: a FunctionModel scripting the calls (and
TestModel calling tools with generated arguments), on both stores; a kgmem error comes back
to the model as ModelRetry's message."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")  # kgmem[pydantic-ai]; the dev extra installs it

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from kgmem.integrations.pydantic_ai import kgmem_toolset  # noqa: E402


def test_an_agent_remembers_recalls_corrects_and_forgets(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor="offline")
    group = "t" + uuid.uuid4().hex[:10]
    seen: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(sorted(t.name for t in info.function_tools))
        step = len([x for x in messages if isinstance(x, ModelResponse)])
        if step == 0:
            return ModelResponse(parts=[ToolCallPart("remember", {
                "content": "I moved to Lisbon in 2021.", "speaker": "Ann"})])
        if step == 1:
            fid = m.facts("Ann", "LIVES_IN", group=group)[0].fact_id
            return ModelResponse(parts=[ToolCallPart("correct", {"fact_id": fid[:8],
                                                                 "object": "Porto"})])
        if step == 2:
            return ModelResponse(parts=[ToolCallPart("forget", {"fact_id": "ffffffff"})])
        if step == 3:
            return ModelResponse(parts=[ToolCallPart("recall", {"query": "Where does Ann live?",
                                                                "valid_at": "2022-01-01"})])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[kgmem_toolset(m, group, max_retries=2)])
    result = agent.run_sync("Remember that I moved to Lisbon in 2021.")
    assert result.output == "done"
    assert seen[0] == ["correct", "forget", "recall", "remember"]
    parts = [p for msg in result.all_messages() for p in getattr(msg, "parts", [])]
    returns = [p.content for p in parts if isinstance(p, ToolReturnPart)]
    retries = [p.content for p in parts if isinstance(p, RetryPromptPart)]
    assert "learnt: Ann LIVES_IN Lisbon [2021, now)" in returns[0]
    assert returns[1].startswith("corrected") and "Porto" in returns[1]
    # the kgmem error reached the model as the retry message (a retry prompt, or in this
    # Pydantic AI version the failed call's return)
    told = [str(x) for x in [*retries, *returns]]
    assert any(t.startswith("not_found: no fact 'ffffffff'") for t in told)
    assert "Ann LIVES_IN Porto" in returns[-1] and "valid now" not in returns[-1]
    assert [f.object for f in m.facts("Ann", "LIVES_IN", group=group)] == ["Porto"]


def test_test_model_calls_every_tool(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor=None)
    group = "t" + uuid.uuid4().hex[:10]
    agent = Agent(TestModel(call_tools=["remember", "recall"]),
                  toolsets=[kgmem_toolset(m, group)])
    result = agent.run_sync("hi")
    returns = [p.tool_name for msg in result.all_messages() for p in getattr(msg, "parts", [])
               if isinstance(p, ToolReturnPart)]
    assert sorted(returns) == ["recall", "remember"]
    assert m.stats(group)["episodes"] == 1
