"""The whole lifecycle over MCP with the official SDK client: revise, undo, erase, profile,
changes, groups over stdio; API keys and groups over streamable HTTP (401 / 403)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from .test_mcp_stdio import _error_text, _structured, mcp_http_server, stdio_params

LIFECYCLE = {"invalidate", "retract", "correct", "undo", "erase", "entity_profile",
             "changes_since", "list_groups"}


async def _lifecycle(tmp_path: Path) -> dict[str, Any]:
    params = stdio_params(tmp_path)
    out: dict[str, Any] = {}
    with open(tmp_path / "server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                listed = (await s.list_tools()).tools
                out["tools"] = {t.name for t in listed}
                out["schemas"] = {t.name: t.output_schema for t in listed}

                async def call(name: str, **args: Any) -> dict[str, Any]:
                    return _structured(await s.call_tool(name, args))

                async def fail(name: str, **args: Any) -> str:
                    return _error_text(await s.call_tool(name, args))

                boston = (await call("assert_fact", subject="Alice", predicate="LIVES_IN",
                                     object="Boston", valid_at="2020"))["fact"]
                out["t0"] = boston["created_at"]
                denver = (await call("assert_fact", subject="Alice", predicate="LIVES_IN",
                                     object="Denver", valid_at="2023"))["fact"]
                acme = (await call("assert_fact", subject="Alice", predicate="WORKS_AT",
                                   object="Acme", valid_at="2021"))["fact"]
                out["invalidate"] = await call("invalidate", fact_id=acme["fact_id"],
                                               at="2024-05", reason="left Acme")
                out["retract"] = await call("retract", fact_id=denver["fact_id"])
                out["after_retract"] = await call("facts_as_of", subject="Alice",
                                                  predicate="LIVES_IN")
                out["undo"] = await call("undo", change_id=out["retract"]["change"]["id"])
                out["after_undo"] = await call("facts_as_of", subject="Alice",
                                               predicate="LIVES_IN")
                out["correct"] = await call("correct", fact_id=denver["fact_id"],
                                            object="Austin")
                out["profile_now"] = await call("entity_profile", entity="Alice")
                out["profile_2022"] = await call("entity_profile", entity="Alice",
                                                 valid_at="2022-06")
                out["profile_known_t0"] = await call("entity_profile", entity="Alice",
                                                     valid_at="2024", known_at=out["t0"])
                out["changes"] = await call("changes_since", since=out["t0"])
                out["changes_page"] = await call("changes_since", since=out["t0"], limit=2)
                out["changes_page2"] = await call("changes_since", since=out["t0"], limit=2,
                                                  after=out["changes_page"]["next_after"])
                out["history"] = await call("history", entity_or_fact=denver["fact_id"])
                ep = (await call("remember", content="Bob likes tea.", speaker="Bob",
                                 reference_time="2024-01-02"))["episode"]
                await call("assert_fact", subject="Zed", predicate="LIVES_IN", object="Oslo",
                           group="scratch")
                out["groups"] = await call("list_groups")
                out["erase_unconfirmed"] = await fail("erase", what="episode", target=ep["id"])
                out["kept"] = _structured(await s.call_tool("recall", {
                    "query": "tea", "mode": "search"}))
                out["erase_episode"] = await call("erase", what="episode", target=ep["id"],
                                                  confirm=True)
                out["erase_wrong_group"] = await fail("erase", what="group", target="default",
                                                      group="scratch", confirm=True)
                out["erase_group"] = await call("erase", what="group", target="scratch",
                                                group="scratch", confirm=True)
                out["groups_after"] = await call("list_groups")
                out["undo_twice"] = await fail("undo", change_id=out["retract"]["change"]["id"])
                out["bad_at"] = await fail("invalidate", fact_id=boston["fact_id"], at="soon")
                out["no_fact"] = await fail("retract", fact_id="nope")
                out["bad_args"] = await fail("invalidate", fact_id=boston["fact_id"])
                out["unknown_tool"] = _error_text(await s.call_tool("forget_all", {}))
    return out


@pytest.mark.timeout(180)
def test_mcp_lifecycle_tools_over_stdio(tmp_path: Path) -> None:
    out = anyio.run(_lifecycle, tmp_path)
    assert LIFECYCLE <= out["tools"]
    assert all(out["schemas"][t] for t in LIFECYCLE | {"remember", "assert_fact"})  # typed

    inv = out["invalidate"]
    assert inv["change"]["kind"] == "invalidate"
    assert inv["facts"][0]["invalid_at"].startswith("2024-05-01")
    assert [f["object"] for f in out["after_retract"]["facts"]] == ["Boston"]  # rejoined
    assert out["retract"]["facts"] == [None] or all(
        f is None or f["object"] != "Denver" for f in out["retract"]["facts"])
    assert out["undo"]["change"]["undoes"] == out["retract"]["change"]["id"]
    assert [f["object"] for f in out["after_undo"]["facts"]] == ["Denver"]
    assert out["correct"]["change"]["kind"] == "correct"

    now = {(f["predicate"], f["object"]) for f in out["profile_now"]["facts"]}
    assert ("LIVES_IN", "Austin") in now and ("WORKS_AT", "Acme") not in now
    then = {(f["predicate"], f["object"]) for f in out["profile_2022"]["facts"]}
    assert then == {("LIVES_IN", "Boston"), ("WORKS_AT", "Acme")}
    assert [f["object"] for f in out["profile_known_t0"]["facts"]] == ["Boston"]
    assert out["profile_2022"]["valid_at"].startswith("2022-06-01")
    # the summary as known at known_at (kgmem.memory.summaries): Boston only, before anything else
    assert out["profile_known_t0"]["entity"]["summary"] == "Now: Alice lives in Boston (since 2020)."
    assert "Alice lives in Austin (since 2023)" in out["profile_now"]["entity"]["summary"]

    kinds = [c["kind"] for c in out["changes"]["changes"]]
    assert kinds == ["assert", "assert", "invalidate", "retract", "undo", "correct"]
    assert out["changes"]["next_since"] is None
    assert {v["object"] for v in out["changes"]["versions"]} >= {"Denver", "Acme", "Austin"}
    page = out["changes_page"]
    assert len(page["changes"]) == 2 and page["next_since"] == page["changes"][-1]["created_at"]
    assert page["next_after"] == page["changes"][-1]["id"]
    both = page["changes"] + out["changes_page2"]["changes"]
    assert [c["id"] for c in both] == [c["id"] for c in out["changes"]["changes"][:4]]
    assert out["changes"]["next_after"] is None
    assert {v["object"] for v in out["history"]["versions"]} >= {"Denver", "Austin"}

    assert set(out["groups"]["groups"]) == {"default", "scratch"}
    assert out["groups"]["default_group"] == "default"
    assert out["erase_unconfirmed"].startswith("invalid_input: ") and "confirm" in \
        out["erase_unconfirmed"]
    assert "Bob likes tea." in json.dumps(out["kept"])  # nothing erased without confirm
    assert out["erase_episode"]["erasure"]["kind"] == "episode"
    assert out["erase_wrong_group"].startswith("invalid_input: ")
    assert out["erase_group"]["erasure"]["kind"] == "group"
    assert out["groups_after"]["groups"] == ["default"]

    assert out["undo_twice"].startswith("conflict: ")
    assert out["bad_at"].startswith("invalid_time: ")
    assert out["no_fact"].startswith("not_found: ")
    assert out["bad_args"].startswith("invalid_input: ") and "at" in out["bad_args"]
    assert out["unknown_tool"].startswith("not_found: ")


async def _http_calls(url: str, key: str) -> dict[str, Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"},
                                  timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                out["tools"] = {t.name for t in (await s.list_tools()).tools}
                fact = _structured(await s.call_tool("assert_fact", {
                    "subject": "Ann", "predicate": "LIVES_IN", "object": "Rome",
                    "group": "team"}))["fact"]
                out["retract"] = _structured(await s.call_tool("retract", {
                    "fact_id": fact["fact_id"], "group": "team"}))
                out["groups"] = _structured(await s.call_tool("list_groups", {}))
                if key == "admin-key":
                    out["other_before"] = _structured(await s.call_tool("facts_as_of", {
                        "group": "other"}))
                try:
                    out["other"] = await s.call_tool("assert_fact", {
                        "subject": "Eve", "predicate": "LIVES_IN", "object": "Nice",
                        "group": "other"})
                except Exception as exc:  # the SDK client surfaces the 403 as an exception
                    out["other"] = exc
    return out


@pytest.mark.timeout(150)
def test_mcp_http_enforces_api_keys_and_groups(tmp_path: Path) -> None:
    with mcp_http_server(tmp_path, KGMEM_API_KEYS="admin-key,team-key=team") as url:
        no_key = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=5)
        wrong_key = httpx.post(url, json={}, headers={"X-API-Key": "nope"}, timeout=5)
        call_other = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "facts_as_of", "arguments": {"group": "other"}}}
        forbidden = httpx.post(url, json=call_other, timeout=5,
                               headers={"Authorization": "Bearer team-key"})
        default_group = httpx.post(url, timeout=5, headers={"Authorization": "Bearer team-key"},
                                   json=[{**call_other, "params": {"name": "facts_as_of",
                                                                   "arguments": {}}}])
        out = anyio.run(_http_calls, url, "team-key")
        admin = anyio.run(_http_calls, url, "admin-key")
    assert no_key.status_code == 401 and no_key.json()["error"]["type"] == "unauthorized"
    assert wrong_key.status_code == 401
    assert forbidden.status_code == 403 and forbidden.json()["error"]["type"] == "forbidden"
    assert default_group.status_code == 403  # no group argument: the server's default
    assert LIFECYCLE <= out["tools"]
    assert out["retract"]["change"]["kind"] == "retract"
    assert out["groups"]["groups"] == ["team"]  # only the groups this key may use
    assert isinstance(out["other"], Exception) or out["other"].is_error
    assert admin["other_before"]["facts"] == []  # the refused call wrote nothing
    assert not isinstance(admin["other"], Exception) and not admin["other"].is_error
    assert admin["groups"]["groups"] == ["team"]  # "other" held nothing yet
