"""The MCP server as a subprocess over stdio, driven by the official SDK client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"remember", "assert_fact", "recall", "facts_as_of", "history", "paths", "list_predicates",
         "declare_predicate"}


def _structured(result: Any) -> dict[str, Any]:
    """The tool's JSON result (structured content; text content as a fallback)."""
    is_error = getattr(result, "is_error", None)
    if is_error is None:
        is_error = getattr(result, "isError", False)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert not is_error, text
    data = getattr(result, "structured_content", None)
    if data is None:
        data = getattr(result, "structuredContent", None)
    if data is None:
        data = json.loads(text)
    if set(data) == {"result"}:  # some SDK versions wrap non-object outputs
        data = data["result"]
    return data


def _error_text(result: Any) -> str:
    is_error = getattr(result, "is_error", None)
    if is_error is None:
        is_error = getattr(result, "isError", False)
    assert is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def stdio_params(tmp_path: Path) -> StdioServerParameters:
    """`python -m kgmem.mcp.server` over stdio on an embedded store in ``tmp_path/home``, no
    extraction (the set-up every stdio test of this folder uses)."""
    env = {
        "KGMEM_HOME": str(tmp_path / "home"),
        "KGMEM_EXTRACTOR": "none",
        "KGMEM_STORE": "embedded",
        "PYTHONPATH": str(REPO),
        "PATH": os.environ.get("PATH", ""),
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "kgmem.mcp.server"],
                                 env=env, cwd=str(REPO))


async def _session_run(tmp_path: Path) -> dict[str, Any]:
    params = stdio_params(tmp_path)
    out: dict[str, Any] = {}
    with open(tmp_path / "server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["tools"] = {t.name for t in (await session.list_tools()).tools}
                call = session.call_tool
                out["remember"] = _structured(await call("remember", {
                    "content": "Alice moved to Boston.", "reference_time": "2021-01-05",
                    "speaker": "Alice"}))
                out["remember_again"] = _structured(await call("remember", {
                    "content": "Alice moved to Boston.", "reference_time": "2021-01-05",
                    "speaker": "Alice"}))
                out["a1"] = _structured(await call("assert_fact", {
                    "subject": "Alice", "predicate": "LIVES_IN", "object": "Boston",
                    "valid_at": "2021"}))
                out["a2"] = _structured(await call("assert_fact", {
                    "subject": "Alice", "predicate": "lives in", "object": "Denver",
                    "valid_at": "2023-03"}))
                await call("assert_fact", {"subject": "Alice", "predicate": "WORKS_AT",
                                           "object": "Acme", "valid_at": "2022"})
                await call("assert_fact", {"subject": "Bob", "predicate": "WORKS_AT",
                                           "object": "Acme", "valid_at": "2022"})
                await call("assert_fact", {"subject": "Zed", "predicate": "LIVES_IN",
                                           "object": "Oslo", "group": "other"})
                out["asof_2022"] = _structured(await call("facts_as_of", {
                    "subject": "Alice", "predicate": "LIVES_IN", "valid_at": "2022-06-01"}))
                out["asof_now"] = _structured(await call("facts_as_of", {
                    "subject": "Alice", "predicate": "LIVES_IN"}))
                out["asof_known_early"] = _structured(await call("facts_as_of", {
                    "subject": "Alice", "predicate": "LIVES_IN", "valid_at": "2024",
                    "known_at": out["a1"]["fact"]["created_at"]}))
                out["other_group"] = _structured(await call("facts_as_of", {"group": "other"}))
                out["history"] = _structured(await call("history", {
                    "entity_or_fact": out["a1"]["fact"]["fact_id"]}))
                out["paths"] = _structured(await call("paths", {"a": "Alice", "b": "Bob",
                                                                "max_hops": 2}))
                out["recall"] = _structured(await call("recall", {
                    "query": "Where does Alice live?", "budget_tokens": 300}))
                out["recall_search"] = _structured(await call("recall", {
                    "query": "Where does Alice live?", "mode": "search"}))
                out["recall_sessions"] = _structured(await call("recall", {
                    "query": "Where did Alice move?", "mode": "sessions"}))
                out["bad_time"] = _error_text(await call("facts_as_of", {"valid_at": "nope"}))
                out["missing"] = _error_text(await call("history", {"entity_or_fact": "Nobody"}))
    return out


@pytest.mark.timeout(180)
def test_mcp_tools_over_stdio(tmp_path: Path) -> None:
    out = anyio.run(_session_run, tmp_path)
    assert TOOLS <= out["tools"]

    ep = out["remember"]["episode"]
    assert ep["content"] == "Alice moved to Boston." and ep["speaker"] == "Alice"
    assert out["remember_again"]["episode"]["id"] == ep["id"]  # idempotent
    assert out["remember"]["facts"] == []  # extraction is off in this test

    assert out["a1"]["fact"]["object"] == "Boston"
    assert out["a2"]["fact"]["predicate"] == "LIVES_IN"
    assert [f["object"] for f in out["asof_2022"]["facts"]] == ["Boston"]
    assert [f["object"] for f in out["asof_now"]["facts"]] == ["Denver"]
    assert [f["object"] for f in out["asof_known_early"]["facts"]] == ["Boston"]
    assert out["asof_2022"]["described"][0].startswith("Alice LIVES_IN Boston [2021")
    assert [f["subject"] for f in out["other_group"]["facts"]] == ["Zed"]

    versions = out["history"]["versions"]
    assert len(versions) == 2 and {v["object"] for v in versions} == {"Boston"}
    assert any(v["invalid_at"] and v["invalid_at"].startswith("2023-03-01") for v in versions)

    paths = out["paths"]["paths"]
    assert len(paths) == 1 and len(paths[0]["hops"]) == 2
    assert "Acme" in out["paths"]["described"][0]

    recalled = json.dumps(out["recall"]) + json.dumps(out["recall_search"])
    assert "Denver" in recalled
    assert "Oslo" not in recalled  # another group
    sessions = out["recall_sessions"]["sessions"]
    assert [x["episode_ids"] for x in sessions] == [[ep["id"]]]
    assert sessions[0]["start"].startswith("2021-01-05")

    assert "invalid_time" in out["bad_time"]
    assert "not_found" in out["missing"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def mcp_http_server(tmp_path: Path, **env: str) -> Iterator[str]:
    """``kgmem.mcp.server.run('http')`` in its own process on an empty embedded store under
    ``tmp_path`` (``env``: more variables); yields its URL once it answers HTTP."""
    import subprocess
    import time

    import httpx

    port = _free_port()
    env = {**os.environ, "KGMEM_HOME": str(tmp_path / "home"), "KGMEM_EXTRACTOR": "none",
           "KGMEM_STORE": "embedded", "PYTHONPATH": str(REPO), **env}
    code = f"from kgmem.mcp.server import run; run('http', host='127.0.0.1', port={port})"
    url = f"http://127.0.0.1:{port}/mcp"
    with open(tmp_path / "server.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=str(REPO),
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()
                assert time.monotonic() < deadline, "MCP HTTP server did not start"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def _http_run(url: str) -> dict[str, Any]:
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = {t.name for t in (await session.list_tools()).tools}
            await session.call_tool("assert_fact", {"subject": "Alice", "predicate": "LIVES_IN",
                                                    "object": "Paris", "valid_at": "2020"})
            out["facts"] = _structured(await session.call_tool("facts_as_of", {}))
    return out


@pytest.mark.timeout(120)
def test_mcp_over_streamable_http(tmp_path: Path) -> None:
    with mcp_http_server(tmp_path) as url:
        out = anyio.run(_http_run, url)
    assert TOOLS <= out["tools"]
    assert [f["object"] for f in out["facts"]["facts"]] == ["Paris"]


def test_the_module_says_its_usage_for_help_and_typos() -> None:
    import subprocess
    import sys

    for arg in ("--help", "htpp"):
        r = subprocess.run([sys.executable, "-m", "kgmem.mcp.server", arg], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 1 and r.stderr.startswith("usage: python -m kgmem.mcp.server")
        assert "Traceback" not in r.stderr
