"""The one-command measured run: every step's outputs, gzipped per-question JSONL, the
comparison table, the miss browsers and the held-out look log row (on the fixtures only)."""

from __future__ import annotations

import gzip
import json

from .conftest import FIXTURES

TINY = FIXTURES / "locomo_tiny" / "locomo10.json"


def test_final_writes_everything_results_md_needs_and_logs_the_look(tmp_path, monkeypatch):
    from benchmarks.final import LOG_BEGIN, LOG_END, main

    monkeypatch.setenv("KGMEM_LLM_CACHE_DIR", str(tmp_path / "llm"))
    results_md = tmp_path / "RESULTS.md"
    results_md.write_text(f"# r\n\n{LOG_BEGIN}\n| date | commit | purpose | scored |\n|---|---|---|---|\n"
                          f"| 2026-11-29 | abc | old look | locomo |\n{LOG_END}\n\nafter\n")
    out = tmp_path / "final"
    assert main(["--purpose", "test look", "--out", str(out), "--skip", "zyphra",
                 "--locomo-data", str(TINY), "--longmemeval",
                 str(FIXTURES / "longmemeval_fixture.json"), "--results-md", str(results_md)]) == 0
    with gzip.open(out / "locomo" / "original" / "kgmem-extract.jsonl.gz", "rt") as f:
        assert len(f.readlines()) == 5
    assert not list(out.rglob("*.jsonl"))  # all gzipped
    assert (out / "locomo" / "split.md").read_text().count("| kgmem-extract |") == 3
    assert (out / "longmemeval" / "kgmem-extract.jsonl.gz").is_file()
    assert (out / "ingest" / "ingest_locomo.json").is_file()
    assert "## Quoted from the peers" in (out / "comparison.md").read_text()
    headline = (out / "headline.md").read_text()
    assert "| kgmem, extraction on (product default) | dev (0-4) | 5 |" in headline
    for system in ("kgmem-extract", "kgmem"):
        assert (out / "locomo" / f"misses-original-{system}.html").is_file()
    machine = json.loads((out / "machine.json").read_text())
    assert set(machine) >= {"before", "after", "steps", "elapsed_s"}
    assert len(machine["before"]["load_average"]) == 3 and machine["before"]["commit"]
    row = (out / "look.md").read_text().strip()
    assert "test look" in row and machine["before"]["commit"] in row
    text = results_md.read_text()
    assert text.index("old look") < text.index(row) < text.index(LOG_END)
    assert text.endswith("after\n")
