"""Papercuts a new user met on the CLI (issue 29): short fact ids, a bad --group, a mistyped
--home, facts about an unknown entity, ``add --time now``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kgmem.cli.main import app

runner = CliRunner()


def cli(home: Path, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["--home", str(home), *args])
    return r.exit_code, r.output


def test_correct_takes_the_short_id_the_table_prints(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "assert", "Bob", "LIVES_IN", "Paris", "--valid-at", "2020")
    assert code == 0, out
    code, table = cli(tmp_path, "facts")
    fid = json.loads(cli(tmp_path, "--json", "facts")[1])[0]["fact_id"]
    assert fid[:8] in table and fid not in table  # the table shows 8 characters
    code, out = cli(tmp_path, "correct", fid[:8], "--object", "Rome")
    assert code == 0 and out.startswith("change "), out
    got = json.loads(cli(tmp_path, "--json", "facts")[1])
    assert [(f["fact_id"], f["object"]) for f in got] == [(fid, "Rome")]


def test_a_bad_group_is_one_error_line(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "--group", "a b", "stats")
    assert code == 2 and out.startswith("error: --group 'a b': group must be"), out
    assert "Traceback" not in out and out.strip().count("\n") == 0


def test_a_mistyped_home_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    typo = tmp_path / "memroy"
    for args in (["stats"], ["facts"], ["history", "Bob"], ["search", "x"]):
        code, out = cli(typo, *args)
        assert code == 2 and out.startswith(f"error: no kgmem store at {typo}"), (args, out)
        assert "kgmem --home" in out and "init" in out
    assert not typo.exists()
    code, out = cli(typo, "init")
    assert code == 0 and typo.is_dir(), out
    code, out = cli(typo, "--json", "stats")
    assert code == 0 and json.loads(out)["entities"] == 0
    fresh = tmp_path / "new"  # a command that writes creates the store it writes to
    code, out = cli(fresh, "assert", "Bob", "LIVES_IN", "Paris")
    assert code == 0 and fresh.is_dir(), out


def test_facts_about_an_unknown_entity_say_so(tmp_path: Path) -> None:
    cli(tmp_path, "assert", "Bob", "LIVES_IN", "Paris")
    for args in (["facts", "--subject", "Unknown"], ["history", "Unknown"],
                 ["facts", "--object", "Unknown"]):
        code, out = cli(tmp_path, *args)
        assert code == 2 and "no entity 'Unknown' in group 'default'" in out, (args, out)
    code, out = cli(tmp_path, "facts", "--subject", "Bob", "--predicate", "WORKS_AT")
    assert code == 0  # a known entity without such facts: an empty table, no error


def test_add_time_now(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "--json", "add", "I like tea.", "--time", "now", "--no-extract")
    assert code == 0, out
    ep = json.loads(out)
    assert ep["reference_time"][:4] >= "2025" and ep["reference_time"] <= ep["created_at"]
