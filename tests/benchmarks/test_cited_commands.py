"""The smoke tier of the cited benchmark commands (issue 32): every ``python -m benchmarks ...``
command that benchmarks/RESULTS.md, benchmarks/README.md, README.md or docs/*.md cite is read
from those files; each must name a module that exists and options its parser knows (a cited
figure can be reproduced with the command printed beside it), and a few run whole on a tiny
input under a time cap (``python -m benchmarks neo4j-scale --skip-load``, cited for the 1M
Neo4j as-of figure, crashed with ParameterMissing and nothing noticed)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.__main__ import SUITES

ROOT = Path(__file__).resolve().parents[2]
CITING = [ROOT / "README.md", ROOT / "benchmarks" / "RESULTS.md",
          ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_CMD = re.compile(r"python -m benchmarks(?:\.(?P<mod>[A-Za-z_][\w.]*)|[ ]+(?P<suite>[a-z][\w-]*))"
                  r"(?P<rest>[^`\n|]*)")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


def cited() -> dict[str, set[str]]:
    """Module -> the options cited with it, over every citing file."""
    out: dict[str, set[str]] = {}
    for path in CITING:
        if not path.is_file():
            continue
        for m in _CMD.finditer(path.read_text(encoding="utf-8")):
            if m["mod"]:
                module = f"benchmarks.{m['mod']}".rstrip(".")
            elif m["suite"] in SUITES:
                module = SUITES[m["suite"]][0]
            else:  # "<suite>", "--help": the entry point's own usage lines
                continue
            out.setdefault(module, set()).update(_FLAG.findall(m["rest"]))
    return out


CITED = cited()


class _Parsed(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _options(parser: argparse.ArgumentParser) -> set[str]:
    found = set(parser._option_string_actions)
    for action in parser._actions:  # sub-commands' options too ("retrieve synthetic --reuse")
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
    return found


def test_the_citations_are_found() -> None:
    assert "benchmarks.neo4j_scale" in CITED and "--skip-load" in CITED["benchmarks.neo4j_scale"]
    assert len(CITED) >= 20


@pytest.mark.parametrize("module", sorted(CITED))
def test_a_cited_command_names_a_module_and_options_that_exist(
        module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The module imports, and its parser (taken at ``parse_args``, before any work) knows
    every option cited with it."""
    mod = importlib.import_module(module)
    main = getattr(mod, "main", None)
    assert callable(main), f"{module} has no main(argv)"

    def capture(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", capture)
    with pytest.raises(_Parsed) as got:
        main([])
    unknown = sorted(CITED[module] - _options(got.value.parser) - {"--help"})
    assert not unknown, f"{module}: cited options its parser does not know: {unknown}"


def _run(args: list[str], tmp: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT),
                                                         os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "benchmarks", *args], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.neo4j
@pytest.mark.timeout(400)
def test_neo4j_scale_loads_then_measures_with_skip_load(tmp_path: Path) -> None:
    from tests.conftest import neo4j_store_or_skip

    store = neo4j_store_or_skip()
    facts = 211  # its own group on the shared server: scale211
    common = ["neo4j-scale", "--facts", str(facts), "--queries", "5", "--graphiti", "0",
              "--out", str(tmp_path / "out")]
    try:
        load = _run([*common, "--keep"], tmp_path, 180)
        assert load.returncode == 0, load.stdout[-2000:] + load.stderr[-2000:]
        again = _run([*common, "--skip-load", "--label", "skip"], tmp_path, 180)
        assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
        res = json.loads(next((tmp_path / "out").glob("*skip*.json")).read_text())
        assert res["facts_in_store"] == facts and res["as_of_lookup"]
    finally:
        from benchmarks.neo4j_scale import drop_group

        drop_group(store, f"scale{facts}")


@pytest.mark.timeout(300)
def test_request_bound_runs_on_a_tiny_input(tmp_path: Path) -> None:
    r = _run(["request-bound", "--chars", "3000", "--groups", "2", "--searches", "1",
              "--locomo-turns", "0", "--out", str(tmp_path / "out")], tmp_path, 280)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    rows = json.loads((tmp_path / "out" / "request_bound.json").read_text())
    assert [x["scenario"] for x in rows] == ["one-episode", "many-groups"]
