"""Predicates can be listed and declared from the CLI, REST and MCP (issue 13, point 2), and a
near-miss predicate is refused with its suggestion on every path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from kgmem.cli.main import app as cli_app
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory
from tests.api.conftest import client_for


def cli(home: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli_app, ["--home", str(home), "--extractor", "none", *args])
    return r.exit_code, r.output


def test_cli_lists_with_a_symmetric_column_and_declares(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "predicates")
    assert code == 0 and "symmetric" in out and "MARRIED_TO" in out
    assert cli(tmp_path, "assert", "Dan", "DRIVES", "Volvo", "--valid-at", "2020")[0] == 0
    code, out = cli(tmp_path, "predicates", "declare", "drives", "--functional")
    assert code == 0 and "DRIVES: functional (change " in out
    assert cli(tmp_path, "assert", "Dan", "DRIVES", "Tesla", "--valid-at", "2023")[0] == 0
    code, out = cli(tmp_path, "--json", "facts", "--subject", "Dan", "--valid-at", "2021")
    assert [(f["object"], f["invalid_at"][:4]) for f in json.loads(out)] == [("Volvo", "2023")]
    code, out = cli(tmp_path, "--json", "predicates")
    rows = {r["name"]: r for r in json.loads(out)}
    assert (rows["DRIVES"]["cardinality"], rows["DRIVES"]["source"]) == ("functional",
                                                                           "declared")
    assert rows["MARRIED_TO"]["symmetric"] is True
    code, out = cli(tmp_path, "assert", "Dan", "DRIVE", "Fiat")
    assert code == 2 and "did you mean 'DRIVES'" in " ".join(out.split())
    code, out = cli(tmp_path, "undo", rows["DRIVES"]["change_id"])
    assert code == 0
    code, out = cli(tmp_path, "--json", "predicates")
    assert {r["name"]: r for r in json.loads(out)}["DRIVES"]["source"] == "first use"


def test_rest_get_and_post_predicates(tmp_path: Path) -> None:
    with Memory(tmp_path) as m:
        c = client_for(m)
        h = {"X-Group": "g1"}
        r = c.post("/v1/predicates", json={"name": "drives", "cardinality": "functional"},
                   headers=h)
        assert r.status_code == 201, r.text
        body = r.json()
        assert (body["name"], body["cardinality"], body["source"]) == (
            "DRIVES", "functional", "declared")
        assert body["change_id"] and body["declared_at"]
        items = {p["name"]: p for p in c.get("/v1/predicates", headers=h).json()["items"]}
        assert items["DRIVES"]["cardinality"] == "functional"
        assert items["KNOWS"]["symmetric"] is True and items["KNOWS"]["source"] == "built-in"
        other = {p["name"] for p in c.get("/v1/predicates", headers={"X-Group": "g2"}).json()[
            "items"]}
        assert "DRIVES" not in other  # declarations belong to their group
        r = c.post("/v1/facts", json={"subject": "Eve", "predicate": "LIVE_IN",
                                      "object": "Paris"}, headers=h)
        assert r.status_code == 422
        err = r.json()["error"]
        assert err["type"] == "unknown_predicate" and err["details"]["suggestion"] == "LIVES_IN"
        r = c.post("/v1/predicates", json={"name": "x", "cardinality": "sometimes"}, headers=h)
        assert r.status_code == 422


def test_mcp_lists_and_declares(tmp_path: Path) -> None:
    with Memory(tmp_path) as m:
        server = create_server(memory=m)

        def call(tool: str, args: dict[str, Any]) -> Any:
            async def go() -> Any:
                return await server.call_tool(tool, args)
            return anyio.run(go)

        call("declare_predicate", {"name": "DRIVES", "functional": True})
        assert m.predicate("DRIVES").functional
        listed = call("list_predicates", {})
        text = " ".join(getattr(c, "text", "") for c in listed.content)
        assert '"DRIVES"' in text and '"first use"' not in text
        with pytest.raises(ToolError, match="unknown_predicate: .*did you mean 'DRIVES'"):
            call("assert_fact", {"subject": "Dan", "predicate": "DRIVE", "object": "Fiat"})
