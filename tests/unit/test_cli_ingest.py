"""`kgmem ingest` / `extract` / `stats` report per group, never other groups' counts, and
say when extractions failed (issue 13, points 3 and 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgmem.cli.main import app
from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from tests.conftest import fresh_group, neo4j_store_or_skip
from tests.ingest.test_extraction_state import Scripted

runner = CliRunner()


def _write(path: Path, group: str, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t, "time": f"2024-01-{i + 1:02d}",
                                        "speaker": "Ann", "group": group}) + "\n"
                            for i, t in enumerate(texts)))
    return path


@pytest.mark.neo4j
def test_ingest_on_neo4j_counts_only_the_group_it_wrote(tmp_path: Path) -> None:
    neo4j_store_or_skip()  # the server is shared: other groups hold data too
    g = fresh_group("cli")
    f = _write(tmp_path / "e.jsonl", g, ["hello", "I live in Boston", "bye"])
    r = runner.invoke(app, ["--store", "neo4j", "--extractor", "none", "--json", "ingest",
                            str(f)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert list(out["groups"]) == [g]
    assert out["groups"][g]["new"] == 3 and out["groups"][g]["stored"]["episodes"] == 3
    r = runner.invoke(app, ["--store", "neo4j", "-g", g, "--json", "stats"])
    stats = json.loads(r.stdout)
    assert stats["episodes"] == 3 and stats["extraction"] == {"skipped": 3}


def test_failed_extractions_exit_1_and_extract_failed_retries_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ex = Scripted({"I like tea": [ExtractedFact("Ann", "LIKES", "tea")]}, failing=["I like tea"])
    monkeypatch.setattr("kgmem.ingest.pipeline.make_extractor",
                        lambda settings=None: ExtractionPipeline(ex))
    f = _write(tmp_path / "e.jsonl", "g1", ["hello", "I like tea"])
    home = ["--home", str(tmp_path / "home")]
    r = runner.invoke(app, [*home, "--json", "ingest", str(f)])
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["groups"]["g1"]["failed"] == 1 and out["groups"]["g1"]["extracted"] == 1
    assert "kgmem --group g1 extract --failed" in r.stderr and "year 1" in r.stderr
    ex.heal()
    r = runner.invoke(app, [*home, "-g", "g1", "--json", "extract", "--failed"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["episodes"] == 1 and out["groups"]["g1"]["facts"] == 1
    r = runner.invoke(app, [*home, "-g", "g1", "--json", "stats"])
    assert json.loads(r.stdout)["extraction"] == {"done": 2}
    r = runner.invoke(app, [*home, "-g", "g1", "extract", "--failed"])
    assert r.exit_code == 0 and "nothing to do in group g1" in r.stdout


def test_episodes_stored_without_extraction_are_extracted_by_extract_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ex = Scripted({"I like tea": [ExtractedFact("Ann", "LIKES", "tea")]})
    monkeypatch.setattr("kgmem.ingest.pipeline.make_extractor",
                        lambda settings=None: ExtractionPipeline(ex))
    f = _write(tmp_path / "e.jsonl", "g1", ["hello", "I like tea"])
    home = ["--home", str(tmp_path / "home")]
    assert runner.invoke(app, [*home, "ingest", "--no-extract", str(f)]).exit_code == 0
    assert runner.invoke(app, [*home, "-g", "g1", "extract", "--failed"]).exit_code == 0
    assert ex.seen == []  # skipped episodes are not "failed"
    r = runner.invoke(app, [*home, "-g", "g1", "--json", "extract", "--skipped"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["groups"]["g1"]["facts"] == 1
    assert sorted(ex.seen) == ["I like tea", "hello"]
