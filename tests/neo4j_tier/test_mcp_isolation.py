"""The isolation probes on a Neo4j-backed MCP server (stdio, the official SDK client): what
one group wrote is never read, searched, walked or changed through another group, and an id
from another group is unknown. The server is shared with the rest of the suite, so the groups
are fresh and erased afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from tests.conftest import fresh_group, neo4j_settings, neo4j_store_or_skip
from tests.mcp.test_mcp_stdio import _error_text, _structured, stdio_params

pytestmark = pytest.mark.neo4j


async def _probe(tmp_path: Path, ga: str, gb: str) -> dict[str, Any]:
    params = stdio_params(tmp_path)
    assert params.env is not None
    params.env.update(KGMEM_STORE="neo4j", KGMEM_NEO4J_URI=str(neo4j_settings()["uri"]),
                      KGMEM_INDEX_INTERVAL="0")
    out: dict[str, Any] = {}
    with open(tmp_path / "server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                call = session.call_tool
                for g, city, firm in ((ga, "Boston", "Acme"), (gb, "Lisbon", "Globex")):
                    ep = _structured(await call("remember", {
                        "content": f"Alice lives in {city}.", "reference_time": "2021-01-05",
                        "group": g}))
                    fact = _structured(await call("assert_fact", {
                        "subject": "Alice", "predicate": "LIVES_IN", "object": city,
                        "valid_at": "2021", "group": g}))
                    await call("assert_fact", {"subject": "Alice", "predicate": "WORKS_AT",
                                               "object": firm, "valid_at": "2021", "group": g})
                    await call("assert_fact", {"subject": "Bob", "predicate": "WORKS_AT",
                                               "object": firm, "valid_at": "2021", "group": g})
                    out[g] = {"episode": ep["episode"]["id"], "fact": fact["fact"]["fact_id"]}
                for g, other in ((ga, gb), (gb, ga)):
                    q = "Where does Alice live? Boston Lisbon Acme Globex"
                    out[g]["reads"] = [
                        _structured(await call("facts_as_of", {"group": g})),
                        _structured(await call("facts_as_of", {"subject": "Alice", "group": g})),
                        _structured(await call("recall", {"query": q, "group": g})),
                        _structured(await call("recall", {"query": q, "mode": "search",
                                                          "group": g})),
                        _structured(await call("recall", {"query": q, "mode": "sessions",
                                                          "group": g})),
                        _structured(await call("history", {"entity_or_fact": "Alice",
                                                           "group": g})),
                        _structured(await call("paths", {"a": "Alice", "b": "Bob",
                                                         "group": g})),
                    ]
                    out[g]["foreign_history"] = _error_text(await call("history", {
                        "entity_or_fact": out[other]["fact"], "group": g}))
    return out


@pytest.mark.timeout(240)
def test_mcp_on_neo4j_never_crosses_groups(tmp_path: Path) -> None:
    store = neo4j_store_or_skip()
    ga, gb = fresh_group("mcp-a"), fresh_group("mcp-b")
    try:
        out = anyio.run(_probe, tmp_path, ga, gb)
    finally:
        from kgmem.memory.facade import Memory

        m = Memory(store=store, extractor=None)
        for g in (ga, gb):
            m.erase(group=g, whole_group=True)
    probes = 0
    for g, other, mine, theirs in ((ga, gb, "Boston", "Lisbon"), (gb, ga, "Lisbon", "Boston")):
        for read in out[g]["reads"]:
            read.pop("query", None)  # the question names both cities
            text = json.dumps(read)
            probes += 1
            assert theirs not in text and out[other]["fact"] not in text, text[:400]
            assert out[other]["episode"] not in text
        assert mine in json.dumps(out[g]["reads"][0])
        assert "not_found" in out[g]["foreign_history"]
        probes += 1
    assert probes == 16
