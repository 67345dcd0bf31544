"""Explicit merges of entities, and their undo (issue 13, point 1), on both stores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from kgmem.cli.main import app as cli_app
from kgmem.errors import ConflictError, InvalidInputError, NotFoundError
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory
from tests.api.conftest import client_for
from tests.conftest import fresh_group


def spans(m: Memory, subject: str, predicate: str, g: str, **at: Any) -> list[tuple[str, str]]:
    found = m.facts(subject, predicate, group=g, valid_at="1900", valid_to="2999", **at)
    return sorted((f.object, f"[{f.valid_at:%Y}, {f.invalid_at:%Y})" if f.invalid_at
                   else f"[{f.valid_at:%Y}, now)") for f in found)


def test_merge_moves_facts_recomputes_timelines_and_undo_separates_them(make_memory, clock
                                                                        ) -> None:
    m, g = make_memory(clock=clock), fresh_group()
    robert = m.assert_fact("Robert Smith", "LIVES_IN", "Denver", valid_at="2022",
                           group=g).subject_id
    bob = m.assert_fact("Bob Smith", "LIVES_IN", "Boston", valid_at="2020", group=g).subject_id
    m.assert_fact("Carol", "KNOWS", "Bob Smith", valid_at="2021", group=g)
    before = clock.advance(days=1)
    clock.advance(days=1)

    change = m.merge_entities("Robert Smith", "Bob Smith", group=g)

    assert change.kind == "merge" and len(change.fact_ids) == 2
    # one functional timeline now: Boston is closed where Denver starts
    assert spans(m, "Robert Smith", "LIVES_IN", g) == [("Boston", "[2020, 2022)"),
                                                       ("Denver", "[2022, now)")]
    assert m.entity("Bob Smith", group=g)["entity"].id == robert  # b's name means a
    assert m.entity(bob, group=g)["entity"].id == robert  # and so does b's id
    assert [f.object_id for f in m.facts("Carol", "KNOWS", group=g)] == [robert]
    new = m.assert_fact("Bob Smith", "WORKS_AT", "Acme", group=g)
    assert new.subject_id == robert
    # the past is kept: as known before the merge, Robert only lived in Denver
    assert spans(m, "Robert Smith", "LIVES_IN", g, known_at=before) == [("Denver",
                                                                         "[2022, now)")]

    clock.advance(days=1)
    undo = m.undo(change.id, group=g)

    assert m.entity("Bob Smith", group=g)["entity"].id == bob
    assert m.entity("Bob Smith", group=g)["entity"].merged_into is None
    assert spans(m, "Bob Smith", "LIVES_IN", g) == [("Boston", "[2020, now)")]
    assert spans(m, "Robert Smith", "LIVES_IN", g) == [("Denver", "[2022, now)")]
    assert [f.object_id for f in m.facts("Carol", "KNOWS", group=g)] == [bob]
    # a fact told through the name "Bob Smith" while the two were one goes back with Bob
    # (issue 32; tests/contract/test_merge_undo_names.py pins the details)
    assert [f.object for f in m.facts("Bob Smith", "WORKS_AT", group=g)] == ["Acme"]
    assert m.facts("Robert Smith", "WORKS_AT", group=g) == []

    clock.advance(days=1)
    m.undo(undo.id, group=g)  # the undo can be undone: merged again
    assert m.entity("Bob Smith", group=g)["entity"].id == robert
    assert spans(m, "Robert Smith", "LIVES_IN", g) == [("Boston", "[2020, 2022)"),
                                                       ("Denver", "[2022, now)")]


def test_a_fact_told_of_both_is_kept_once(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_fact("Robert", "KNOWS", "Carol", valid_at="2020", group=g)
    m.assert_fact("Bob", "KNOWS", "Carol", valid_at="2020", group=g)
    m.assert_fact("Bob", "KNOWS", "Dan", valid_at="2021", group=g)
    m.merge_entities("Robert", "Bob", group=g)
    assert sorted(f.object for f in m.facts("Robert", "KNOWS", group=g)) == ["Carol", "Dan"]


def test_merge_refuses_one_entity_and_undo_waits_for_later_changes(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    v = m.assert_fact("Bob", "LIVES_IN", "Boston", group=g)
    m.assert_fact("Robert", "WORKS_AT", "Acme", group=g)
    m.add_alias("Robert", "Rob", group=g)
    with pytest.raises(InvalidInputError, match="already one entity"):
        m.merge_entities("Robert", "Rob", group=g)
    change = m.merge_entities("Robert", "Bob", group=g)
    m.invalidate(v.fact_id, "2024", group=g)  # a later change to a moved fact
    with pytest.raises(ConflictError, match="undo the later change first"):
        m.undo(change.id, group=g)


def test_erasing_the_merged_entity_erases_both_names(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_fact("Bob", "LIVES_IN", "Boston", group=g)
    m.assert_fact("Robert", "WORKS_AT", "Acme", group=g)
    m.merge_entities("Robert", "Bob", group=g)
    m.assert_fact("Carol", "KNOWS", "Dan", group=g)
    m.erase(entity="Bob", group=g)  # "Bob" is Robert now
    # both names go (Acme and Boston too: nothing else refers to them)
    assert sorted(e.name for e in m.entities(group=g)) == ["Carol", "Dan"]
    with pytest.raises(NotFoundError):
        m.entity("Bob", group=g)


def test_merge_from_rest_cli_and_mcp(tmp_path: Path) -> None:
    with Memory(tmp_path / "rest") as m:
        m.assert_fact("Bob", "LIVES_IN", "Boston")
        robert = m.assert_fact("Robert", "WORKS_AT", "Acme").subject_id
        c = client_for(m)
        r = c.post("/v1/entities/Robert/merge", json={"other": "Bob"})
        assert r.status_code == 200 and r.json()["kind"] == "merge", r.text
        assert c.get("/v1/entities/Bob").json()["entity"]["id"] == robert
        assert c.post(f"/v1/changes/{r.json()['id']}/undo").status_code == 200
        assert c.get("/v1/entities/Bob").json()["entity"]["id"] != robert
        assert c.post("/v1/entities/Robert/merge", json={"other": "Nobody"}).status_code == 404
    home = tmp_path / "cli"
    run = CliRunner().invoke
    args = ["--home", str(home), "--extractor", "none"]
    assert run(cli_app, [*args, "assert", "Bob", "LIVES_IN", "Boston"]).exit_code == 0
    assert run(cli_app, [*args, "assert", "Robert", "WORKS_AT", "Acme"]).exit_code == 0
    r = run(cli_app, [*args, "merge", "Robert", "Bob"])
    assert r.exit_code == 0 and "merged 'Bob'" in r.output
    with Memory(home) as m:
        assert m.entity("Bob")["entity"].name == "Robert"
        server = create_server(memory=m)
        m.assert_fact("Rob", "KNOWS", "Carol")

        async def call() -> Any:
            return await server.call_tool("merge_entities", {"a": "Robert", "b": "Rob"})

        anyio.run(call)
        assert m.entity("Rob")["entity"].name == "Robert"
