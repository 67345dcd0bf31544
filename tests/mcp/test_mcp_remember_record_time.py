"""MCP ``remember`` takes ``record_time``: ``"reference"`` replays history (the episode and
its facts are recorded as learnt when said), ``"now"`` (the default) records them now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory

from .test_mcp_stdio import _structured


def test_remember_records_at_the_reference_time_when_replaying(tmp_path: Path) -> None:
    with Memory(tmp_path / "m") as m:
        server = create_server(memory=m)

        async def call(tool: str, args: dict[str, Any]) -> Any:
            return await server.call_tool(tool, args)

        old = _structured(anyio.run(call, "remember", {
            "content": "I moved to Lisbon.", "speaker": "Ana",
            "reference_time": "2021-05-01T10:00:00Z", "record_time": "reference"}))
        assert old["episode"]["created_at"].startswith("2021-05-01T10:00:00")
        assert [f["object"] for f in old["facts"]] == ["Lisbon"]
        assert old["facts"][0]["created_at"].startswith("2021-05-01T10:00:00")
        now = _structured(anyio.run(call, "remember", {
            "content": "I moved to Porto.", "speaker": "Ana",
            "reference_time": "2022-05-01T10:00:00Z"}))
        assert now["episode"]["created_at"][:4] >= "2025"  # recorded now
        assert [f.object for f in m.facts("Ana", "LIVES_IN", known_at="2021-06-01",
                                          valid_at="2021-06-01")] == ["Lisbon"]
        with pytest.raises(ToolError, match="record_time"):
            anyio.run(call, "remember", {"content": "x", "record_time": "later"})
