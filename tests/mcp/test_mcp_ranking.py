"""MCP recall takes the ranking options of Memory.search (``ranking``, ``half_life_days``) in
search and context mode, through the official client over stdio; bad values fail with the
stable error type."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from .test_mcp_stdio import _error_text, _structured, stdio_params


async def _run(tmp_path: Path) -> dict[str, Any]:
    params = stdio_params(tmp_path)
    out: dict[str, Any] = {}
    with open(tmp_path / "server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                tools = {t.name: t for t in (await s.list_tools()).tools}
                out["recall_schema"] = tools["recall"].input_schema
                # ages count from known_at (the server's now): said yesterday, 5 years ago
                now = datetime.now(timezone.utc)
                for name, when in (("old", (now - timedelta(days=5 * 365)).isoformat()),
                                   ("new", (now - timedelta(days=1)).isoformat())):
                    ep = _structured(await s.call_tool("remember", {
                        "content": f"A hiking trip with my sister ({name}).",
                        "speaker": "Ana", "reference_time": when}))["episode"]
                    out[name] = ep["id"]
                q = {"query": "hiking trip with my sister", "mode": "search"}
                out["on"] = _structured(await s.call_tool("recall", {**q, "half_life_days": 365}))
                out["off"] = _structured(await s.call_tool("recall", {**q, "half_life_days": 0}))
                out["ga"] = _structured(await s.call_tool("recall", {
                    **q, "ranking": "generative_agents", "half_life_days": 365}))
                out["ctx"] = _structured(await s.call_tool("recall", {
                    "query": "hiking trip with my sister", "ranking": "generative_agents"}))
                out["bad_ranking"] = _error_text(await s.call_tool("recall", {
                    **q, "ranking": "newest"}))
                out["bad_half_life"] = _error_text(await s.call_tool("recall", {
                    **q, "half_life_days": -2}))
    return out


@pytest.mark.timeout(180)
def test_recall_takes_ranking_and_half_life(tmp_path: Path) -> None:
    out = anyio.run(_run, tmp_path)
    props = out["recall_schema"]["properties"]
    assert "ranking" in props and "half_life_days" in props
    assert "generative_agents" in str(props["ranking"])
    on = [r for r in out["on"]["results"] if r["kind"] == "episode"]
    assert [r["id"] for r in on][:2] == [out["new"], out["old"]]
    assert all(r["parts"]["recency"] is not None for r in on)
    assert all(r["parts"]["recency"] is None for r in out["off"]["results"])
    assert all(r["parts"]["importance"] is not None for r in out["ga"]["results"])
    assert "hiking trip" in out["ctx"]["context"]
    assert out["bad_ranking"].startswith("invalid_input: ")
    assert out["bad_half_life"].startswith("invalid_input: ") and "half_life_days" in \
        out["bad_half_life"]
