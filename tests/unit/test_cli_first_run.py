"""What a newcomer meets on the CLI: settings errors as one line, ingest that says what it
wrote and leaves nothing for search to build, groups with counts, stats as a table, sessions
with the text that matched, --json paths with the facts' sources, and replayed record times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgmem.cli.main import app
from kgmem.memory.facade import Memory

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[2] / "kgmem" / "data" / "demo_conversation.jsonl"


def cli(home: Path, *args: str, env: dict[str, str | None] | None = None) -> tuple[int, str]:
    r = runner.invoke(app, ["--home", str(home), *args], env=env)
    return r.exit_code, r.output


@pytest.mark.parametrize(("args", "env", "says"), [
    (["facts"], {"KGMEM_STORE": "neo4jx"}, "error: --store or KGMEM_STORE: Input should be"),
    (["--extractor", "foo", "facts"], None, "error: --extractor or KGMEM_EXTRACTOR:"),
    (["--extractor", "llm", "add", "hi", "--time", "2023-01-01"],
     {"KGMEM_LLM_API_KEY": None, "KGMEM_LLM_BASE_URL": None}, "error: the LLM extractor needs"),
    (["ingest", str(DEMO), "--workers", "0"], None,
     "error: --workers or KGMEM_EXTRACT_WORKERS: Input should be greater than or equal to 1"),
    (["facts"], {"KGMEM_EXTRACT_WORKERS": "many"},
     "error: --workers or KGMEM_EXTRACT_WORKERS: Input should be a valid integer"),
])
def test_settings_errors_are_one_error_line_and_a_non_zero_exit(
        tmp_path: Path, args: list[str], env: dict[str, str | None] | None, says: str) -> None:
    code, out = cli(tmp_path, *args, env=env)
    assert code != 0
    assert out.startswith(says) and out.strip().count("\n") == 0, out


def test_ingest_names_its_groups_counts_new_episodes_and_builds_the_index(
        tmp_path: Path) -> None:
    conv = [{"sample_id": "conv-x", "qa": [], "conversation": {
        "speaker_a": "Ann", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I moved to Denver."},
                      {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice, I adopted a cat."}],
    }}]
    file = tmp_path / "locomo.json"
    file.write_text(json.dumps(conv))
    home = tmp_path / "s"
    code, out = cli(home, "ingest", str(file))
    assert code == 0, out
    assert "group conv-x: 2 new episodes" in out and "kgmem groups" in out
    with Memory(home, extractor=None) as m:
        assert m.store.search_tables().search_queue_size() == 0  # nothing left for search
    code, out = cli(home, "ingest", str(file))
    assert "group conv-x: 0 new episodes, 2 already stored" in out
    code, out = cli(home, "--json", "--group", "conv-x", "index")
    assert code == 0 and json.loads(out) == {"group": "conv-x", "semantic": True, "embedded": 0}
    code, out = cli(home, "--json", "groups")
    assert code == 0 and [(g["group"], g["episodes"]) for g in json.loads(out)] == [
        ("conv-x", 2)]
    code, out = cli(home, "groups")
    assert code == 0 and "conv-x" in out
    code, out = cli(home, "stats")  # the default group is empty: a table and a pointer
    assert code == 0 and "│ episodes" in out and "1 other group(s)" in out
    code, out = cli(home, "facts")
    assert code == 0 and "kgmem groups" in out


def test_sessions_show_the_best_matching_turn_and_paths_json_keeps_sources(
        tmp_path: Path) -> None:
    assert cli(tmp_path, "ingest", str(DEMO))[0] == 0
    code, out = cli(tmp_path, "sessions", "Denver", "--limit", "2")
    assert code == 0 and "Maya:" in out and "Denver" in out
    code, out = cli(tmp_path, "--json", "paths", "Maya", "Denver")
    assert code == 0
    hops = [h for p in json.loads(out) for h in p["hops"]]
    assert hops and all(h["fact"]["episodes"] for h in hops)


def test_ingest_record_time_reference_makes_known_at_answer_as_of_the_conversation(
        tmp_path: Path) -> None:
    home = tmp_path / "s"
    code, out = cli(home, "ingest", str(DEMO), "--record-time", "reference")
    assert code == 0, out
    code, out = cli(home, "--json", "facts", "--subject", "Maya", "--predicate", "LIVES_IN",
                    "--valid-at", "2023-04-01", "--known-at", "2023-04-01")
    assert code == 0 and [f["object"] for f in json.loads(out)] == ["Boston"]
    code, out = cli(tmp_path / "t", "ingest", str(DEMO), "--record-time", "later")
    assert code == 2 and out.startswith("error: --record-time")


def test_error_messages_keep_square_brackets(tmp_path: Path) -> None:
    code, out = cli(tmp_path, "retract", "fact[bench]")  # rich markup would eat "[bench]"
    assert code == 2 and "fact[bench]" in out, out
