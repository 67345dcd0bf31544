"""`kgmem bench SUITE` runs the repository's benchmarks as their own program (the library never
imports benchmarks/), and says where they live when there are none."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from typer.testing import CliRunner

from kgmem.cli.main import app

REPO = Path(__file__).resolve().parents[2]


def test_outside_a_checkout_it_says_where_the_benchmarks_live(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "benchmarks" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["bench", "extraction"])
    assert res.exit_code == 2
    assert "python -m benchmarks SUITE" in res.output


def test_in_a_checkout_it_runs_the_suite(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(REPO)
    res = CliRunner().invoke(app, ["bench", "extraction", "--split", "test"])
    assert res.exit_code == 0, res.output
