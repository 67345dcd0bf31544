"""The OpenAPI document is complete and docs/api.md covers every endpoint and error type."""

from __future__ import annotations

import re
from pathlib import Path

from api.app import create_app

from .conftest import make_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
SCHEMA = create_app(make_settings()).openapi()
OPS = [(path, method, op) for path, item in SCHEMA["paths"].items()
       for method, op in item.items()]


def test_every_operation_is_described_and_typed() -> None:
    tags = {t["name"] for t in SCHEMA["tags"]}
    for path, method, op in OPS:
        where = f"{method.upper()} {path}"
        assert op.get("tags") and set(op["tags"]) <= tags, where
        assert op.get("summary") and op.get("description"), where
        ok = [c for c in op["responses"] if c.startswith("2")]
        assert len(ok) == 1, where
        assert "$ref" in str(op["responses"][ok[0]]["content"]["application/json"]["schema"]), (
            where)
        for code, resp in op["responses"].items():
            if code.startswith(("4", "5")):
                assert resp["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/ErrorResponse"}, (where, code)
        codes = set(op["responses"])
        assert "500" in codes, where
        if path.startswith("/v1/"):
            assert {"401", "403", "422", "503"} <= codes, where
            assert op.get("security"), where
        if "requestBody" in op:
            assert "413" in codes, where
        if "{" in path:
            assert "404" in codes, where


def test_reads_take_valid_at_known_at_and_group() -> None:
    for path, method, op in OPS:
        names = {p["name"] for p in op.get("parameters", [])}
        if path.startswith("/v1/"):
            assert "X-Group" in names, path
        if method == "get" and path.startswith("/v1/"):
            assert {"valid_at", "known_at", "X-Valid-At", "X-Known-At"} <= names, path


def test_docs_cover_every_endpoint_and_error_type() -> None:
    text = DOC.read_text()
    for path, method, _ in OPS:
        row = re.compile(rf"\|\s*{method.upper()}\s*\|\s*`{re.escape(path)}`")
        assert row.search(text), f"docs/api.md lacks {method.upper()} {path}"
    from api.errors import _STATUS_TYPES

    documented = set(re.findall(r"\|\s*\d{3}\s*\|\s*`([a-z_]+)`", text))
    used = {"unauthorized", "forbidden", "not_found", "method_not_allowed", "conflict",
            "clock_went_backwards", "request_too_large", "invalid_input", "invalid_time",
            "invalid_interval", "internal_error", "store_unavailable", "bad_request"}
    assert used <= documented, used - documented
    assert {_STATUS_TYPES[c] for c in (401, 403, 404, 413, 422, 500, 503)} <= documented
