"""Where the benchmark data is found by default (no KGMEM_BENCH_DATA)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.datasets._common import _local_origin


def _repo(tmp_path: Path, url: str) -> Path:
    repo = tmp_path / "clone"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {url}\n')
    return repo


def test_a_clone_of_a_local_checkout_knows_its_origin(tmp_path: Path) -> None:
    origin = tmp_path / "work" / "main"
    origin.mkdir(parents=True)
    assert _local_origin(_repo(tmp_path, f"{origin}/.")) == origin.resolve()


def test_remote_or_missing_origins_are_ignored(tmp_path: Path) -> None:
    assert _local_origin(_repo(tmp_path, "https://github.com/x/kgmem.git")) is None
    assert _local_origin(_repo(tmp_path / "b", "git@github.com:x/kgmem.git")) is None
    assert _local_origin(_repo(tmp_path / "c", str(tmp_path / "gone"))) is None
    assert _local_origin(tmp_path / "no-repo") is None
