"""The README's library example runs as written, the public names are pinned, and the
newcomer demo gives three different answers for now / as of / as known."""

from __future__ import annotations

import json
import re
from pathlib import Path

import kgmem

ROOT = Path(__file__).resolve().parents[2]


def test_readme_library_example_runs(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Library\s+```python\n(.*?)```", text, re.S)
    assert block, "README has a Library python block"
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), ns)  # noqa: S102
    m = ns["m"]
    assert [f.object for f in m.facts("Alice")] == ["Denver"]
    assert [f.object for f in m.facts("Alice", valid_at="2022-06-01")] == ["Boston"]
    assert m.paths("Bob", "Carol", max_hops=3, valid_at="2020-06-01") == []


def test_ingestion_doc_example_runs(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "docs" / "ingestion.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block, "docs/ingestion.md has a python block"
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "docs/ingestion.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.split() == ["done", "1", "0"]


def test_public_api_names_are_pinned() -> None:
    assert set(kgmem.__all__) == {
        "Cardinality", "Change", "ClockError", "ConflictError", "Entity", "Episode", "Erasure",
        "ExtractionState", "FactVersion", "InvalidInputError", "InvalidIntervalError", "InvalidTimeError",
        "KgmemError", "Memory", "NotFoundError", "Path", "PathHop", "Precision",
        "PredicateSpec", "Settings", "StoreUnavailableError", "Vocabulary", "open_memory",
    }
    assert all(hasattr(kgmem, name) for name in kgmem.__all__)


def test_demo_answers_differ_between_now_as_of_and_as_known(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kgmem.demo import answers, replay

    m = replay(tmp_path / "demo")
    rows = {r["question"]: r for r in answers(m)}
    maya = rows["Where does Maya live?"]
    assert maya["now"] == ["Denver"]
    assert maya["true on 2022-06-01"] == ["Boston"]
    assert maya["on 2023-04-01, as known on 2023-04-01"] == ["Boston"]
    assert maya["on 2023-04-01, as known now"] == ["Denver"]
    assert rows["Where does Maya work?"]["now"] == ["Medtronic"]
    assert rows["Where does Sam live?"]["now"] == ["Portland"]
    json.dumps(rows)  # serialisable for --json
