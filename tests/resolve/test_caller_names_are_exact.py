"""Names a caller gives resolve by exact normalised name, alias or id only (issue 13, point
1); fuzzy rules are for mentions found in text, and even there never across a letter, a
token, a digit or a version."""

from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kgmem.cli.main import app as cli_app
from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory
from kgmem.names import normalize_name
from tests.api.conftest import client_for
from tests.conftest import fresh_group
from tests.resolve.helpers import said


def test_issue_example_project_a_and_project_b_stay_apart(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_fact("Alice", "WORKS_ON", "ProjectA", valid_at="2024-01-01",
                  invalid_at="2024-07-01", group=g)
    m.assert_fact("Alice", "WORKS_ON", "ProjectB", valid_at="2024-07-01", group=g)
    assert [f.object for f in m.facts("Alice", valid_at="2024-09-15", group=g)] == ["ProjectB"]
    assert [f.object for f in m.facts("Alice", valid_at="2024-03-01", group=g)] == ["ProjectA"]
    assert m.resolutions(group=g) == []


def test_team_rex_never_becomes_team_red(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    rex = m.assert_fact("Bob", "MEMBER_OF", "TeamRex", group=g).object_id
    red = m.assert_fact("Carol", "MEMBER_OF", "TeamRed", group=g).object_id
    assert rex != red
    assert [f.object for f in m.facts("Carol", group=g)] == ["TeamRed"]


def test_caller_names_get_no_fuzzy_rule_but_keep_exact_keys_and_aliases(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    smith = m.assert_fact("Jonathan Smith", "WORKS_AT", "Acme Corp", group=g).subject_id
    assert m.assert_fact("jonathan  SMITH.", "LIVES_IN", "Boston", group=g).subject_id == smith
    assert m.assert_fact("Jonathan Smtih", "LIVES_IN", "Paris", group=g).subject_id != smith
    assert m.assert_fact("Jonathan", "HAS_ROLE", "chef", group=g).subject_id != smith
    acme = m.assert_fact("Bob", "WORKS_AT", "Acme Corporation", group=g).object_id
    assert acme != m.facts("Jonathan Smith", "WORKS_AT", group=g)[0].object_id
    m.add_alias("Jonathan Smith", "Jon", group=g)
    assert m.assert_fact("Jon", "KNOWS", "Bob", group=g).subject_id == smith
    assert m.assert_fact(smith, "KNOWS", "Carol", group=g).subject_id == smith
    assert m.resolutions(group=g) == []


def test_bulk_assertions_are_exact_too(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_facts([{"subject": "Alice", "predicate": "WORKS_ON", "object": "ProjectA"},
                    {"subject": "Alice", "predicate": "WORKS_ON", "object": "ProjectB"},
                    {"subject": "Jonathan Smith", "predicate": "KNOWS", "object": "Alice"},
                    {"subject": "Jonathan Smtih", "predicate": "KNOWS", "object": "Alice"}],
                   group=g)
    assert len(m.entities(group=g)) == 5


@pytest.mark.parametrize("known,mention", [
    ("TeamRex", "TeamRed"), ("ProjectA", "ProjectB"), ("Room 101", "Room 102"),
    ("iPhone 15", "iPhone 16"), ("Louis XVII", "Louis XVIII"), ("Project", "Projects"),
    ("Gonzales Holdings", "Gonzalez Holdings"),
])
def test_mentions_in_text_never_merge_across_a_letter_token_digit_or_version(
        make_memory, known: str, mention: str) -> None:
    m, g = make_memory(), fresh_group()
    a = said(m, "Bob", "USES", known, group=g).object_id
    assert said(m, "Carol", "USES", mention, group=g).object_id != a
    assert m.resolutions(group=g) == []


def _fixed_extractor(facts: list[ExtractedFact]) -> ExtractionPipeline:
    class Fixed:
        def extract_many(self, items: Any) -> list[list[ExtractedFact]]:
            return [facts for _ in items]

    return ExtractionPipeline(Fixed())


def test_extracted_mentions_still_merge_a_typo_and_record_it(tmp_path: Path) -> None:
    typo = [ExtractedFact("Jonathan Smtih", "LIVES_IN", "Boston", rule="test")]
    with Memory(tmp_path, extractor=_fixed_extractor(typo)) as m:
        smith = m.assert_fact("Jonathan Smith", "WORKS_AT", "Acme").subject_id
        m.add_episode("Jonathan Smtih moved to Boston.", "2024-01-01")
        [f] = m.facts(predicate="LIVES_IN")
        assert f.subject_id == smith
        [r] = m.resolutions()
        assert (r.name, r.method, r.entity_id) == ("Jonathan Smtih", "fuzzy", smith)
        m.split_alias("Jonathan Smith", "Jonathan Smtih")  # and it is reversible
        assert m.facts(predicate="LIVES_IN")[0].subject_id != smith


def test_rest_mcp_and_cli_give_exact_names(tmp_path: Path) -> None:
    with Memory(tmp_path / "rest", extractor=None) as m:
        c = client_for(m)
        ids = [c.post("/v1/facts", json={"subject": "Alice", "predicate": "WORKS_ON",
                                         "object": o}).json()["object_id"]
               for o in ("ProjectA", "ProjectB")]
        assert ids[0] != ids[1]
    with Memory(tmp_path / "mcp", extractor=None) as m:
        server = create_server(memory=m)

        async def call(obj: str) -> Any:
            return await server.call_tool("assert_fact", {
                "subject": "Alice", "predicate": "MEMBER_OF", "object": obj})

        anyio.run(call, "TeamRex")
        anyio.run(call, "TeamRed")
        assert sorted(e.name for e in m.entities()) == ["Alice", "TeamRed", "TeamRex"]
    home = tmp_path / "cli"
    for obj in ("ProjectA", "ProjectB"):
        r = CliRunner().invoke(cli_app, ["--home", str(home), "--extractor", "none",
                                         "assert", "Alice", "WORKS_ON", obj])
        assert r.exit_code == 0, r.output
    with Memory(home, extractor=None) as m:
        assert sorted(e.name for e in m.entities()) == ["Alice", "ProjectA", "ProjectB"]


# ----------------------------------------------------------------- property: exactness
def _mutations(name: str) -> st.SearchStrategy[str]:
    """Names a fuzzy matcher would be tempted by: one edit, case, punctuation, accents."""
    i = st.integers(0, len(name) - 1)
    letter = st.sampled_from(string.ascii_lowercase)
    return st.one_of(
        st.just(name), st.just(name.upper()), st.just(name.lower() + "."),
        st.builds(lambda k, c: name[:k] + c + name[k + 1:], i, letter),  # substitution
        st.builds(lambda k, c: name[:k] + c + name[k:], i, letter),  # insertion
        st.builds(lambda k: name[:k] + name[k + 1:], i),  # deletion
        st.builds(lambda k: name[:k] + name[k + 1:k + 2] + name[k:k + 1] + name[k + 2:], i),
        st.just(name.replace("e", "é")), st.just(name + " " + name.split()[-1]),
    )


BASES = ["Jonathan Smith", "Caroline", "Microsoft", "TeamRex", "ProjectA", "Acme Corp"]
names = st.lists(st.sampled_from(BASES).flatmap(_mutations), min_size=2, max_size=8)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory(tmp_path_factory.mktemp("exact"), extractor=None) as m:
        yield m


@settings(max_examples=60, deadline=None)
@given(names)
def test_caller_names_resolve_to_one_entity_exactly_when_their_keys_are_equal(
        memory: Memory, batch: list[str]) -> None:
    g = fresh_group()
    ids = {n: memory.assert_fact(n, "KNOWS", "Zed Quux", group=g).subject_id for n in batch}
    for a in batch:
        for b in batch:
            assert (ids[a] == ids[b]) is (normalize_name(a) == normalize_name(b)), (a, b)
