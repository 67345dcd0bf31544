"""The README's library example runs as written, the public names are pinned, and the
newcomer demo gives three different answers for now / as of / as known."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import kgmem

ROOT = Path(__file__).resolve().parents[2]


def test_readme_library_example_runs(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Library\s+```python\n(.*?)```", text, re.S)
    assert block, "README has a Library python block"
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    code = block.group(1)
    cut = code.index('f = m.assert_fact("Bob"')  # the first part's claims, before erase
    exec(compile(code[:cut], "README.md", "exec"), ns)  # noqa: S102
    m = ns["m"]
    assert [f.object for f in m.facts("Alice")] == ["Denver"]
    assert [f.object for f in m.facts("Alice", valid_at="2022-06-01")] == ["Boston"]
    known = m.facts("Alice", known_at=ns["before_move"])  # "as known then: Boston, still open"
    assert [(f.object, f.invalid_at) for f in known] == [("Boston", None)]
    assert [(f.predicate, f.object) for f in m.facts("Maya")] == [("LIVES_IN", "Denver")]
    exec(compile(code[cut:], "README.md", "exec"), ns)  # noqa: S102
    assert m.paths("Bob", "Carol", max_hops=3, valid_at="2020-06-01") == []
    search = re.search(r"## Search and context\s+```python\n(.*?)```", text, re.S)
    assert search, "README has a Search python block"
    exec(compile(search.group(1), "README.md", "exec"), ns)  # noqa: S102  (same m)


def _cli_lines(block: str) -> list[tuple[list[str], str]]:
    """(arguments after `kgmem`, the comment) of each command line of a README bash block."""
    out = []
    for line in block.splitlines():
        cmd, _, comment = line.partition("  #")
        args = shlex.split(cmd.replace("> /dev/null", ""))
        if args and args[0] == "kgmem":
            out.append((args[1:], comment.strip()))
    return out


def test_readme_cli_examples_run_and_say_what_their_comments_say(tmp_path, monkeypatch
                                                                 ) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from kgmem.cli.main import app

    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"## CLI\s+```bash\n(.*?)```.*?```bash\n(.*?)```", text, re.S)
    assert blocks, "README has the CLI bash blocks"
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    said = {}
    for args, comment in _cli_lines(blocks[0][0] + blocks[0][1]):
        r = runner.invoke(app, args)
        assert r.exit_code == 0, (args, r.output)
        said[" ".join(args)] = (r.output, comment)
    checked = 0
    for out, comment in said.values():
        for word in re.findall(r"\b(Boston|Denver|Acme|Alice -> Acme -> Carol)\b", comment):
            assert word in out, (comment, out)
            checked += 1
        if comment.endswith("# Boston") or comment == "Boston":
            assert "Denver" not in out
    assert checked >= 5
    demo_known = [o for a, (o, c) in said.items() if "--known-at 2023-04-01" in a]
    assert demo_known and "Boston" in demo_known[0] and "Denver" not in demo_known[0]


def test_ingestion_doc_example_runs(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "docs" / "ingestion.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block, "docs/ingestion.md has a python block"
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "docs/ingestion.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.split() == ["done", "1", "0"]


def test_public_api_names_are_pinned() -> None:
    assert set(kgmem.__all__) == {
        "AsyncMemory", "Cardinality", "Change", "ClockError", "ConflictError", "Entity", "Episode", "Erasure",
        "ExtractionState", "FactVersion", "InvalidInputError", "InvalidIntervalError", "InvalidTimeError",
        "KgmemError", "Memory", "NotFoundError", "Path", "PathHop", "Precision",
        "PredicateSpec", "Settings", "StoreUnavailableError", "Vocabulary", "open_memory",
    }
    assert all(hasattr(kgmem, name) for name in kgmem.__all__)


def test_demo_answers_differ_between_now_as_of_and_as_known(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kgmem.cli.demo import answers, replay

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
    m.close()
    replay(tmp_path / "demo").close()  # its own store: replayed again from scratch


def test_the_demo_never_replaces_a_memory_it_did_not_make(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`kgmem demo` replaces its store; with KGMEM_HOME (or --home) naming the user's own
    memory it wiped that memory. It now refuses, and the memory is intact."""
    from typer.testing import CliRunner

    from kgmem.cli.main import app
    from kgmem.memory.facade import Memory

    mine = tmp_path / "mine"
    with Memory(mine, extractor=None) as m:
        m.assert_fact("Me", "LIKES", "pie")
    monkeypatch.setenv("KGMEM_HOME", str(mine))
    out = CliRunner().invoke(app, ["demo"])
    assert out.exit_code == 2 and "did not make" in out.output, out.output
    with Memory(mine, extractor=None) as m:
        assert [f.object for f in m.facts("Me")] == ["pie"]
