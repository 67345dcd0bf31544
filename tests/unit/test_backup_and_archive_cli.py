"""``kgmem backup`` copies a live embedded store (writers going on meanwhile) into a store
that opens and passes ``kgmem check``; ``kgmem export`` / ``import`` from the CLI, twice;
a truncated or foreign file is refused with one error line."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from typer.testing import CliRunner

from kgmem.archive import backup
from kgmem.jobs.check import check_store
from kgmem.memory.facade import Memory

runner = CliRunner()


def test_backup_of_a_store_being_written(tmp_path: Path) -> None:
    src = Memory(tmp_path / "live", extractor=None)
    src.assert_facts([{"subject": f"p{i}", "predicate": "LIKES", "object": "tea"}
                      for i in range(300)])
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            src.assert_fact(f"w{i}", "LIKES", "coffee")
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        copies = [backup(tmp_path / "live", tmp_path / f"copy{n}") for n in range(3)]
    finally:
        stop.set()
        t.join()
    sizes = []
    for c in copies:
        with Memory(c.target, extractor=None) as m:
            report = check_store(m.store)
            assert report.ok, report
            n = m.stats()["lineages"]
            assert n >= 300 and len(m.facts(object="tea", limit=None)) == 300
            sizes.append(n)
    assert sizes == sorted(sizes)  # later copies hold at least what earlier ones did
    r = runner.invoke(__import__("kgmem.cli.main", fromlist=["app"]).app,
                      ["--home", str(tmp_path / "live"), "backup", str(tmp_path / "copy0")])
    assert r.exit_code == 2 and "already holds a kgmem store" in r.output
    src.close()


def test_export_import_from_the_cli(tmp_path: Path) -> None:
    from kgmem.cli.main import app

    def cli(home: str, *args: str) -> tuple[int, str]:
        r = runner.invoke(app, ["--home", str(tmp_path / home), "--json", *args])
        return r.exit_code, r.output

    cli("a", "assert", "Ann", "LIVES_IN", "Oslo", "--valid-at", "2020")
    cli("a", "-g", "other", "assert", "Ben", "LIKES", "tea")
    code, out = cli("a", "export", str(tmp_path / "all.jsonl"))
    assert code == 0 and json.loads(out)["group"] == 2, out
    code, out = cli("a", "export", str(tmp_path / "one.jsonl"), "--only", "other")
    assert code == 0 and json.loads(out)["group"] == 1, out
    code, out = cli("b", "import", str(tmp_path / "all.jsonl"))
    assert code == 0 and json.loads(out)["written"]["lineage"] == 2, out
    code, out = cli("b", "import", str(tmp_path / "all.jsonl"))
    assert code == 0 and json.loads(out)["written"] == {} and json.loads(out)["skipped"][
        "lineage"] == 2, out
    assert json.loads(cli("b", "-g", "other", "facts")[1])[0]["object"] == "tea"
    lines = (tmp_path / "all.jsonl").read_text().splitlines(True)
    (tmp_path / "cut.jsonl").write_text("".join(lines[:-1]))
    code, out = cli("c", "import", str(tmp_path / "cut.jsonl"))
    assert code == 2 and json.loads(out)["error"]["type"] == "invalid_archive"
    (tmp_path / "x.jsonl").write_text('{"hello": 1}\n')
    code, out = cli("c", "import", str(tmp_path / "x.jsonl"))
    assert code == 2 and "not a record" in json.loads(out)["error"]["message"]


def test_archive_doc_example_runs(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "archive.md").read_text()
    [block] = re.findall(r"```python\n(.*?)```", doc, re.S)
    monkeypatch.chdir(tmp_path)
    with Memory("./memory", extractor=None) as m:
        m.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020")
    exec(compile(block, "docs/archive.md", "exec"), {})  # noqa: S102
    with Memory("./copy", extractor=None) as c, Memory("./memory-backup", extractor=None) as b:
        assert [f.object for f in c.facts("Ann")] == [f.object for f in b.facts("Ann")] == [
            "Oslo"]


def test_an_export_that_fails_leaves_the_earlier_archive_as_it_was(tmp_path: Path,
                                                                 monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An export writes its file whole or not at all: one that fails midway (the store gone,
    the disk full) used to leave a cut archive over yesterday's good one; a path it cannot
    write is one error line, not a traceback."""
    import kgmem.archive.export as export_mod
    from kgmem.cli.main import app

    home = tmp_path / "m"
    m = Memory(home, extractor=None)
    m.assert_fact("Ann", "LIVES_IN", "Oslo")
    good = tmp_path / "memory.jsonl"
    m.export(good)
    before = good.read_bytes()
    real = export_mod.records

    def failing(store, groups=None):  # type: ignore[no-untyped-def]
        it = real(store, groups)
        yield next(it)
        raise ConnectionError("the store went away")

    monkeypatch.setattr(export_mod, "records", failing)
    out = runner.invoke(app, ["--home", str(home), "export", str(good)])
    assert out.exit_code != 0
    assert good.read_bytes() == before and [p.name for p in tmp_path.iterdir()
                                            if p.name.startswith("memory")] == ["memory.jsonl"]
    monkeypatch.setattr(export_mod, "records", real)
    out = runner.invoke(app, ["--home", str(home), "export", str(tmp_path / "no" / "x.jsonl")])
    assert out.exit_code == 2 and "cannot write the archive" in out.output, out.output
