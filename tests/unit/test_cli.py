"""The kgmem CLI: human output by default, --json for scripts, non-zero exit on bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kgmem.cli.main import app

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[2] / "kgmem" / "data" / "demo_conversation.jsonl"


def cli(home: Path, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["--home", str(home), "--extractor", "none", *args])
    return r.exit_code, r.output


def test_assert_then_facts_as_of_in_json(tmp_path: Path) -> None:
    assert cli(tmp_path, "assert", "Alice", "LIVES_IN", "Boston", "--valid-at", "2021")[0] == 0
    assert cli(tmp_path, "assert", "Alice", "LIVES_IN", "Denver", "--valid-at", "2023-03")[0] == 0
    code, out = cli(tmp_path, "--json", "facts", "--subject", "Alice", "--valid-at", "2022-01-01")
    assert code == 0
    rows = json.loads(out)
    assert [(r["object"], r["invalid_at"][:7]) for r in rows] == [("Boston", "2023-03")]
    code, out = cli(tmp_path, "--json", "history", "Alice")
    assert code == 0 and any("superseded" in v["reason"] for v in json.loads(out))


def test_bad_input_exits_non_zero_with_message(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "assert", "Alice", "LIVES_IN", "Boston", "--valid-at", "nope")
    assert code == 2 and "cannot parse" in out
    code, out = cli(tmp_path, "retract", "no-such-fact")
    assert code == 2 and "no fact" in out
    code, _ = cli(tmp_path, "facts")
    assert code == 0  # an empty store is not an error


def test_ingest_is_idempotent(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "--json", "ingest", str(DEMO))
    assert code == 0, out
    first = json.loads(out)
    code, out = cli(tmp_path, "--json", "ingest", str(DEMO))
    second = json.loads(out)
    assert first["episodes"] == second["episodes"] == 13
    assert first["groups"]["default"]["new"] == second["groups"]["default"]["already_stored"] == 13
    assert second["groups"]["default"]["new"] == 0
    assert first["groups"]["default"]["stored"] == second["groups"]["default"]["stored"]


def test_paths_and_changes_commands(tmp_path: Path) -> None:
    cli(tmp_path, "assert", "Bob", "WORKS_AT", "Acme", "--valid-at", "2019")
    cli(tmp_path, "assert", "Carol", "WORKS_AT", "Acme", "--valid-at", "2020")
    code, out = cli(tmp_path, "paths", "Bob", "Carol", "--mode", "sequenced")
    assert code == 0 and "Bob -> Acme -> Carol" in out
    code, out = cli(tmp_path, "--json", "changes", "--since", "2000-01-01")
    assert code == 0 and len(json.loads(out)) == 2


def test_sessions_command_ranks_the_sittings_of_the_demo(tmp_path: Path) -> None:
    assert cli(tmp_path, "ingest", str(DEMO))[0] == 0
    code, out = cli(tmp_path, "--json", "sessions", "Denver", "--limit", "3")
    assert code == 0, out
    found = json.loads(out)
    assert 1 <= len(found) <= 3
    assert all(s["episode_ids"] and s["start"] <= s["end"] for s in found)
    # the human table, and a clear error for a bad limit
    code, out = cli(tmp_path, "sessions", "Denver")
    assert code == 0 and "episodes" in out
    code, out = cli(tmp_path, "sessions", "Denver", "--limit", "0")
    assert code == 2 and "limit" in out


def test_entity_as_of_says_what_held_then_and_changes_show_the_facts(tmp_path: Path) -> None:
    cli(tmp_path, "assert", "Maya", "LIVES_IN", "Boston", "--valid-at", "2019")
    cli(tmp_path, "assert", "Maya", "LIVES_IN", "Denver", "--valid-at", "2023-05")
    code, out = cli(tmp_path, "entity", "Maya", "--valid-at", "2023-04-01")
    assert code == 0, out
    assert "Now:" not in out and "what held at 2023-04-01" in out
    assert "Boston" in out and "Denver" not in out
    code, out = cli(tmp_path, "changes", "--since", "2000-01-01")
    assert code == 0, out
    assert "Maya" in out and "Denver" in out and "Boston" in out  # the facts, not only ids
