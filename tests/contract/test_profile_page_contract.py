"""The profile page on every store: an edit of each kind (change a value, end a fact,
remove a wrong one, add one) applied as one change, undone as one, a dry run that writes
nothing, a stale page refused; also through the CLI, REST and MCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from kgmem.cli.main import app as cli_app
from kgmem.errors import ConflictError, InvalidInputError
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory
from tests.api.conftest import make_settings
from tests.conftest import ManualClock, fresh_group


def _memory_with_ann(make_memory, g: str) -> tuple[Memory, ManualClock]:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    m = make_memory(clock=clock)
    m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group=g)
    m.assert_fact("Ann", "WORKS_AT", "Acme", valid_at="2019-05", group=g)
    m.assert_fact("Ann", "LIKES", "jazz", group=g)
    m.assert_fact("Ann", "DECIDED", "a move to Rome", group=g)
    m.assert_fact("Bob", "MARRIED_TO", "Ann", valid_at="2015", group=g)
    clock.advance(days=1)
    return m, clock


def _line(page: str, word: str) -> str:
    [line] = [x for x in page.splitlines() if word in x]
    return line


def test_each_kind_of_edit_applied_and_undone_as_one_change(make_memory) -> None:  # type: ignore[no-untyped-def]
    g = fresh_group("page")
    m, clock = _memory_with_ann(make_memory, g)
    page = m.profile("Ann", group=g)
    assert "## Facts" in page and "## Preferences" in page and "## Decisions" in page
    assert "Ann LIVES_IN Oslo | from 2020 | until now | id " in page
    assert "Bob MARRIED_TO Ann | from 2015" in page  # facts pointing at Ann too
    assert _line(page, "jazz") in page.split("## Preferences")[1].split("##")[0]
    assert _line(page, "Rome") in page.split("## Decisions")[1]
    before = {v.id for v in m.history("Ann", group=g)}
    edited = (page.replace("Oslo", "Bergen")  # change a value
              .replace(_line(page, "WORKS_AT"),
                       _line(page, "WORKS_AT").replace("until now", "until 2024-02")))  # end
    edited = edited.replace(_line(page, "jazz") + "\n", "")  # remove a wrong one
    edited += "\n- Ann SPEAKS Norwegian | from 2010\n"  # add one
    plan = m.apply_profile(edited, dry_run=True)
    assert sorted(e.kind for e in plan.edits) == ["add", "correct", "correct", "retract"]
    assert plan.change is None and {v.id for v in m.history("Ann", group=g)} == before
    clock.advance(hours=1)
    done = m.apply_profile(edited)
    assert done.change is not None and done.change.kind == "correct"
    now = {(f.predicate, f.object) for f in m.facts("Ann", group=g)}
    assert now == {("LIVES_IN", "Bergen"), ("DECIDED", "a move to Rome"),
                   ("SPEAKS", "Norwegian"), ("MARRIED_TO", "Ann")}  # (symmetric: Bob's fact)
    [acme] = m.facts("Ann", "WORKS_AT", valid_at="2023-01-01", group=g)
    assert acme.invalid_at is not None and acme.invalid_at.isoformat().startswith("2024-02")
    assert [f.object for f in m.facts("Ann", "LIVES_IN", known_at=clock() - __import__(
        "datetime").timedelta(hours=2), group=g)] == ["Oslo"]  # the old belief kept
    clock.advance(hours=1)
    with pytest.raises(ConflictError, match="stale"):  # the memory moved on since
        m.apply_profile(edited)
    undo = m.undo(done.change.id, group=g)
    assert undo.undoes == done.change.id
    again = m.profile("Ann", group=g)
    strip = [x.split(" | id")[0] for x in page.splitlines() if x.startswith("- ")]
    assert [x.split(" | id")[0] for x in again.splitlines() if x.startswith("- ")] == strip


def test_pages_that_cannot_be_applied(make_memory) -> None:  # type: ignore[no-untyped-def]
    g = fresh_group("page")
    m, _ = _memory_with_ann(make_memory, g)
    page = m.profile("Ann", group=g)
    with pytest.raises(InvalidInputError, match="subject and predicate"):
        m.apply_profile(page.replace("Ann LIVES_IN", "Ann WORKS_AT"))
    with pytest.raises(InvalidInputError, match="not 'SUBJECT PREDICATE OBJECT"):
        m.apply_profile(page + "\n- just words\n")
    with pytest.raises(InvalidInputError, match="cannot parse|from"):
        m.apply_profile(page.replace("from 2020", "from last spring"))
    with pytest.raises(InvalidInputError, match="header"):
        m.apply_profile("# notes\n- Ann LIKES tea\n")
    assert m.apply_profile(page).edits == []  # unedited: nothing to do


def test_a_line_without_id_that_says_a_page_fact_is_that_fact(make_memory) -> None:  # type: ignore[no-untyped-def]
    """As an assertion said again is one fact, a page line saying what a fact of the page
    says is that fact: copied beside its own line, or with its id dropped, it adds nothing
    and retracts nothing (it used to make a second, duplicate fact)."""
    g = fresh_group("page")
    m, _ = _memory_with_ann(make_memory, g)
    page = m.profile("Ann", group=g)
    jazz = _line(page, "LIKES jazz")
    bare = jazz.rsplit(" | id ", 1)[0]
    assert m.apply_profile(page + "\n" + bare + "\n" + bare + "\n").edits == []
    assert m.apply_profile(page.replace(jazz, bare)).edits == []
    assert [v.object for v in m.facts("Ann", "LIKES", group=g)] == ["jazz"]
    moved = m.apply_profile(page.replace(jazz, jazz.replace("jazz", "blues")) + bare + "\n")
    assert [e.kind for e in moved.edits] == ["correct", "add"]  # jazz -> blues, then jazz
    assert sorted(v.object for v in m.facts("Ann", "LIKES", group=g)) == ["blues", "jazz"]


def test_cli_rest_and_mcp(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner()
    r = runner.invoke(cli_app, ["--home", str(home), "assert", "Ann", "LIVES_IN", "Oslo"])
    out = tmp_path / "ann.md"
    r = runner.invoke(cli_app, ["--home", str(home), "profile", "Ann", "--out", str(out)])
    assert r.exit_code == 0 and "Oslo" in out.read_text()
    out.write_text(out.read_text().replace("Oslo", "Bergen"))
    r = runner.invoke(cli_app, ["--home", str(home), "profile", "Ann", "--apply", str(out),
                                "--dry-run"])
    assert r.exit_code == 0 and "would correct fact" in r.output and "[from ?, until now]" in \
        r.output.replace("\n", " ")
    r = runner.invoke(cli_app, ["--home", str(home), "profile", "Ann", "--apply", str(out)])
    assert r.exit_code == 0 and "kgmem undo" in r.output.replace("\n", " ")
    r = runner.invoke(cli_app, ["--home", str(home), "profile", "Ann", "--apply", str(out)])
    assert r.exit_code == 2 and "stale" in r.output
    with Memory(home, extractor=None) as m:
        c = TestClient(create_app(make_settings(), memory=m))
        page = c.get("/v1/entities/Ann/page").json()["page"]
        assert "Ann LIVES_IN Bergen" in page
        assert c.get("/v1/entities/Ann/page?known_at=2020-01-01").status_code == 422
        r2 = c.post("/v1/entities/Ann/page",
                    json={"page": page.replace("Bergen", "Lima"), "dry_run": True})
        assert r2.status_code == 200 and r2.json()["change"] is None
        assert c.post("/v1/entities/Ann/page", json={"page": page},
                      headers={"X-Group": "other"}).status_code == 403
        r3 = c.post("/v1/entities/Ann/page", json={"page": page.replace("Bergen", "Lima")})
        assert r3.status_code == 200 and r3.json()["change"]["kind"] == "correct"
        assert c.post("/v1/entities/Ann/page", json={"page": page}).status_code == 409
        server = create_server(memory=m)

        async def call(tool: str, args: dict[str, Any]) -> Any:
            return await server.call_tool(tool, args)

        got = anyio.run(call, "profile_page", {"entity": "Ann"})
        text = str(got)
        assert "Ann LIVES_IN Lima" in text
        page = m.profile("Ann")
        applied = anyio.run(call, "apply_profile_page",
                            {"page": page.replace("Lima", "Quito"), "dry_run": False})
        assert "correct fact" in str(applied)
        assert [f.object for f in m.facts("Ann")] == ["Quito"]


def test_a_write_between_planning_and_applying_makes_the_page_stale(make_memory,  # type: ignore[no-untyped-def]
                                                                     monkeypatch) -> None:
    """The staleness check and the edits are one write: a correction made after the page
    was checked but before it was applied is not overwritten by the page."""
    import kgmem.memory.profile as profile_mod

    g = fresh_group("page")
    m, clock = _memory_with_ann(make_memory, g)
    page = m.profile("Ann", group=g)
    jazz = _line(page, "LIKES jazz")
    fid = m.facts("Ann", "LIKES", group=g)[0].fact_id
    real = profile_mod.plan
    calls: list[int] = []

    def plan_then_someone_writes(mem, text):  # type: ignore[no-untyped-def]
        out = real(mem, text)
        if not calls:  # another writer, between the check and the write
            clock.advance(minutes=1)
            m.correct(fid, object="rock", group=g)
        calls.append(1)
        return out

    monkeypatch.setattr(profile_mod, "plan", plan_then_someone_writes)
    with pytest.raises(ConflictError, match="stale"):
        m.apply_profile(page.replace(jazz, jazz.replace("jazz", "blues")))
    assert [v.object for v in m.facts("Ann", "LIKES", group=g)] == ["rock"]
