"""Input the hardening round of issue 32 found accepted: a lone combining mark or an emoji as
a name, times with a NUL after them or 7 fractional digits, MCP recall with a budget REST
refuses; and time fields published without the pattern kgmem reads, so schema-valid requests
got 422."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.errors import InvalidInputError, InvalidTimeError
from kgmem.memory.facade import Memory
from kgmem.timeutil import TIME_PATTERN, parse_instant
from tests.api.conftest import client_for


@pytest.mark.parametrize("name", ["\u0301", "\u20dd", "\U0001F600", "\u2764\ufe0f", "#"])
def test_names_without_a_letter_or_digit_are_refused(tmp_path: Path, name: str) -> None:
    with Memory(tmp_path / "m", extractor=None) as m:
        with pytest.raises(InvalidInputError, match="no letters or digits"):
            m.assert_fact(name, "LIKES", "tea")
        assert m.facts() == []
        for ok in ("Zoë", "42", "李雷", "e\u0301"):
            m.assert_fact(ok, "LIKES", "tea")


@pytest.mark.parametrize("text", ["2024-01-01T00:00:00Z\x00", "2024-01-01T00:00:00.1234567Z",
                                  "2024-01-01\x00", "20240101", "2024-01-01T00:00:00+05:30:15"])
def test_times_kgmem_cannot_read_whole_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(InvalidTimeError):
        parse_instant(text)
    with Memory(tmp_path / "m", extractor=None) as m, client_for(m) as c:
        r = c.post("/v1/facts", json={"subject": "A", "predicate": "LIKES", "object": "B",
                                      "valid_at": text})
        assert r.status_code == 422
        assert c.get("/v1/facts", params={"valid_at": text}).status_code == 422


@given(st.from_regex(TIME_PATTERN, fullmatch=True))
@settings(max_examples=300, deadline=None)
def test_a_time_matching_the_published_pattern_is_read(text: str) -> None:
    """The pattern is what kgmem reads, but for the calendar (a 31 February) and the
    supported range (an offset past year 9999)."""
    try:
        parse_instant(text)
    except InvalidTimeError as exc:
        assert "range" in exc.message or "day" in exc.message, exc.message


def test_time_fields_publish_the_pattern(tmp_path: Path) -> None:
    with Memory(tmp_path / "m", extractor=None) as m, client_for(m) as c:
        spec = c.get("/openapi.json").json()
    comp = spec["components"]["schemas"]
    ref = comp["EpisodeIn"]["properties"]["reference_time"]
    assert ref["pattern"] == TIME_PATTERN
    fact_valid = comp["FactIn"]["properties"]["valid_at"]
    assert any(x.get("pattern") == TIME_PATTERN for x in fact_valid["anyOf"])
    params = {p["name"]: p for p in spec["paths"]["/v1/facts"]["get"]["parameters"]}
    for name in ("valid_at", "known_at", "valid_to", "known_to"):
        schema = params[name]["schema"]
        assert any(x.get("pattern") == TIME_PATTERN for x in schema.get("anyOf", [schema]))


def test_mcp_recall_refuses_the_budget_rest_refuses(tmp_path: Path) -> None:
    from kgmem.mcp.server import create_server
    from kgmem.settings import Settings

    with Memory(tmp_path / "m", extractor=None) as m:
        server = create_server(Settings(), memory=m)
        for args in ({"budget_tokens": 0}, {"budget_tokens": 15}, {"budget_tokens": 32_001},
                     {"mode": "search", "limit": 0}):
            with pytest.raises(Exception) as exc:
                asyncio.run(server.call_tool("recall", {"query": "tea", **args}))
            assert "budget_tokens" in str(exc.value) or "limit" in str(exc.value)
        asyncio.run(server.call_tool("recall", {"query": "tea", "budget_tokens": 16}))
