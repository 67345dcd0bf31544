"""Unicode-aware names (issue 13, point 9): NFKC, control and format characters stripped,
invisible-only names and bidirectional controls refused, predicates keep every script's
letters; the same rules on every input path (library, REST, MCP, CLI, extractors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from api.app import create_app
from kgmem.cli.main import app as cli_app
from kgmem.errors import InvalidInputError, InvalidNameError
from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory
from kgmem.names import clean_name, normalize_name
from kgmem.vocabulary import normalize_predicate
from tests.api.conftest import client_for, make_settings

RLO_ALICE = "\u202eecilA"  # displays as "Alice"


def test_bidi_override_is_refused_with_a_clear_error() -> None:
    with pytest.raises(InvalidNameError, match="bidirectional control U\\+202E"):
        clean_name(RLO_ALICE, "subject")
    for ch in "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069":
        with pytest.raises(InvalidNameError):
            clean_name(f"Bob{ch}", "subject")


def test_names_made_only_of_control_or_format_characters_are_refused() -> None:
    for name in ("\u200b\u200b", "\x00\x01", "\ufeff", "\u00ad\u2060"):
        with pytest.raises(InvalidNameError, match="only of control or format"):
            clean_name(name, "subject")


def test_control_and_format_characters_are_stripped_and_nfkc_applied() -> None:
    assert clean_name("Ali\u200bce", "s") == "Alice"
    assert clean_name("Ali\x00ce\u00ad", "s") == "Alice"
    assert clean_name("Alice\nChen\t", "s") == "Alice Chen"
    assert clean_name("\uff21lice", "s") == "Alice"  # fullwidth A
    assert normalize_name("Ali\u200dce") == normalize_name("ALICE") == "alice"


def test_joiners_stay_inside_words_of_scripts_that_spell_with_them() -> None:
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "mi-khaham" with a ZWNJ
    assert clean_name(persian, "s") == persian
    assert normalize_name(persian) == persian.replace("\u200c", "")


def test_predicates_keep_letters_of_every_script() -> None:
    assert normalize_predicate("ÜBER") == "ÜBER"
    assert normalize_predicate("über") == "ÜBER"
    assert normalize_predicate("wohnt in") == "WOHNT_IN"
    assert normalize_predicate("живёт в") == "ЖИВЁТ_В"
    assert normalize_predicate("住在") == "住在"
    assert normalize_predicate("रहता है") == "रहता_है"  # vowel signs are marks, kept
    assert normalize_predicate("LivesIn") == normalize_predicate("lives in") == "LIVES_IN"
    assert normalize_predicate("ＬＩＶＥＳ＿ＩＮ") == "LIVES_IN"
    with pytest.raises(InvalidNameError):
        normalize_predicate("LIVES\u202eIN")
    with pytest.raises(InvalidInputError, match="start with a letter"):
        normalize_predicate("\u200b\u200b")


def test_the_library_refuses_bidi_names_everywhere_and_writes_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path, extractor=None) as m:
        with pytest.raises(InvalidNameError):
            m.assert_fact(RLO_ALICE, "KNOWS", "Bob")
        with pytest.raises(InvalidNameError):
            m.assert_fact("Bob", "KNOWS", "\u200b")
        with pytest.raises(InvalidNameError):
            m.add_episode("hi", "2024-01-01", speaker=RLO_ALICE)
        with pytest.raises(InvalidNameError):
            m.assert_facts([{"subject": "Bob", "predicate": "KNOWS", "object": "Carl"},
                            {"subject": "\x00", "predicate": "KNOWS", "object": "Bob"}])
        assert m.stats("default")["entities"] == 0 and m.episodes() == []
        v = m.assert_fact("Ali\u200bce", "über", "Bob")
        assert (v.subject, v.predicate) == ("Alice", "ÜBER")


def test_rest_answers_422_invalid_name(tmp_path: Path) -> None:
    with Memory(tmp_path, extractor=None) as m:
        c = client_for(m)
        r = c.post("/v1/facts", json={"subject": RLO_ALICE, "predicate": "KNOWS",
                                      "object": "Bob"})
        assert r.status_code == 422
        assert r.json()["error"]["type"] == "invalid_name"
        r = c.post("/v1/facts", json={"subject": "Bob", "predicate": "ÜBER", "object": "x"})
        assert r.status_code == 201 and r.json()["predicate"] == "ÜBER"


def test_mcp_tool_error_names_the_problem(tmp_path: Path) -> None:
    with Memory(tmp_path, extractor=None) as m:
        server = create_server(memory=m)

        async def call() -> Any:
            return await server.call_tool("assert_fact", {
                "subject": RLO_ALICE, "predicate": "KNOWS", "object": "Bob"})

        with pytest.raises(ToolError, match="invalid_name: subject contains the bidi"):
            anyio.run(call)


def test_cli_exits_2_with_the_message(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli_app, ["--home", str(tmp_path), "--extractor", "none",
                                     "assert", RLO_ALICE, "KNOWS", "Bob"])
    assert r.exit_code == 2 and "bidirectional control" in r.output


def test_extracted_names_go_through_the_same_rules(tmp_path: Path) -> None:
    class Fixed:
        def extract_many(self, items: Any) -> list[list[ExtractedFact]]:
            return [[ExtractedFact("Ali\u200bce", "LIVES_IN", "Boston", rule="test"),
                     ExtractedFact(RLO_ALICE, "LIVES_IN", "Paris", rule="test")]
                    for _ in items]

    with Memory(tmp_path, extractor=ExtractionPipeline(Fixed())) as m:
        m.add_episode("whatever", "2024-01-01")
        assert [(f.subject, f.object) for f in m.facts()] == [("Alice", "Boston")]


def test_openapi_documents_the_new_error_types() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert "`invalid_name`" in text
    assert json.dumps(create_app(make_settings()).openapi())  # still builds
