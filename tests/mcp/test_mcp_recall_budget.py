"""MCP ``recall`` costs what it says: the text a client hands its model is the context block
itself (at most ``budget_tokens``, and at most budget x 4 characters), the rest is
structured content; over stdio and streamable HTTP with the official client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from kgmem.embed import count_tokens

from .test_mcp_stdio import mcp_http_server, stdio_params

LINES = [f"On day {i} Maya told me about her trip to Lisbon and the pastel de nata number {i}."
         for i in range(40)]


async def _calls(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    for i, line in enumerate(LINES):
        await session.call_tool("remember", {"content": line, "speaker": "Sam",
                                             "reference_time": f"2023-05-{1 + i % 28:02d}"})
    await session.call_tool("assert_fact", {"subject": "Maya", "predicate": "VISITED",
                                            "object": "Lisbon", "valid_at": "2023-05"})
    out: dict[str, Any] = {}
    for budget in (120, 300):
        r = await session.call_tool("recall", {"query": "Where did Maya travel?",
                                               "budget_tokens": budget})
        out[budget] = r
    out["details"] = await session.call_tool("recall", {"query": "Where did Maya travel?",
                                                        "budget_tokens": 300, "details": True})
    return out


def _check(out: dict[str, Any]) -> None:
    for budget in (120, 300):
        r = out[budget]
        assert not r.is_error
        [content] = r.content
        text = content.text
        assert "Lisbon" in text and text.startswith("[kgmem memory")
        assert count_tokens(text) <= budget and len(text) <= 4 * budget
        data = r.structured_content
        assert data["context"] == text
        assert data["details"]["tokens"] == count_tokens(text)
        assert "facts" not in data["details"] and data["details"]["episode_ids"]
    full = out["details"].structured_content["details"]
    assert full["episodes"] and {"facts", "tokens"} <= set(full)
    assert len(out["details"].content[0].text) <= 4 * 300  # the text stays the block


@pytest.mark.timeout(180)
def test_recall_text_is_the_block_over_stdio(tmp_path: Path) -> None:
    async def run() -> dict[str, Any]:
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                return await _calls(session)

    _check(anyio.run(run))


@pytest.mark.timeout(180)
def test_recall_text_is_the_block_over_http(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    with mcp_http_server(tmp_path) as url:

        async def run() -> dict[str, Any]:
            async with streamable_http_client(url) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    return await _calls(session)

        out = anyio.run(run)
    _check(out)


@pytest.mark.timeout(180)
def test_a_client_states_dated_facts_with_the_episode_as_source(tmp_path: Path) -> None:
    """The path for a client with its own model: remember without extraction, assert the
    facts it read with the episode as their source; the prompt says how."""

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["prompts"] = [p.name for p in (await session.list_prompts()).prompts]
                prompt = await session.get_prompt("memory_protocol")
                out["prompt"] = " ".join(getattr(m.content, "text", "") for m in prompt.messages)
                ep = (await session.call_tool("remember", {
                    "content": "I moved to Denver in March.", "speaker": "Maya",
                    "reference_time": "2023-04-02", "extract": False})).structured_content
                out["remembered"] = ep
                fact = (await session.call_tool("assert_fact", {
                    "subject": "Maya", "predicate": "LIVES_IN", "object": "Denver",
                    "valid_at": "2023-03", "episode_id": ep["episode"]["id"]}))
                out["fact"] = fact.structured_content
                r = await session.call_tool("recall", {"query": "Where does Maya live?",
                                                       "budget_tokens": 200})
                out["recall"] = r.content[0].text
        return out

    out = anyio.run(run)
    assert "memory_protocol" in out["prompts"]
    assert "extract=false" in out["prompt"] and "valid_at" in out["prompt"]
    assert out["remembered"]["facts"] == []
    fact = out["fact"]["fact"]
    assert fact["episodes"] == [out["remembered"]["episode"]["id"]]
    assert '"Maya lives in Denver" (since 2023-03)' in out["recall"]
