"""Shared helpers for the dataset loaders: where the data lives and integrity checks.

Data is never copied into the repository. It is read at run time from
``$KGMEM_BENCH_DATA`` if set, else from ``<repo>/../shared/benchmarks/data``.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import warnings
from pathlib import Path

DATA_ENV_VAR = "KGMEM_BENCH_DATA"
REPO_ROOT = Path(__file__).resolve().parents[2]

_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


class DatasetNotFoundError(FileNotFoundError):
    """A benchmark file is not where the harness looks; the message says where to get it."""


class ChecksumMismatchWarning(UserWarning):
    """A data file's sha256 differs from the published value (numbers may not be comparable)."""


def default_data_dir() -> Path:
    """``$KGMEM_BENCH_DATA`` if set, else ``<repo>/../shared/benchmarks/data``; for a clone of a
    local checkout (e.g. CI's ``git clone . /tmp/x``), the same place beside the origin."""
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        return Path(env).expanduser()
    here = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
    origin = _local_origin(REPO_ROOT)
    if not here.is_dir() and origin is not None:
        beside_origin = origin.parent / "shared" / "benchmarks" / "data"
        if beside_origin.is_dir():
            return beside_origin
    return here


def _local_origin(repo: Path) -> Path | None:
    """The checkout this repository was cloned from, when ``origin`` is a local path."""
    try:
        config = configparser.ConfigParser(strict=False)
        config.read(repo / ".git" / "config", encoding="utf-8")
        url = config.get('remote "origin"', "url", fallback="")
    except (configparser.Error, OSError):
        return None
    if not url or "://" in url or (":" in url and not url.startswith("/")):
        return None  # a remote URL (https://, ssh://, user@host:path)
    path = Path(url).expanduser()
    path = path if path.is_absolute() else (repo / path)
    return path.resolve() if path.is_dir() else None


def sha256_file(path: Path, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def expected_sha256_from_source_md(source_md: Path, filename: str) -> str | None:
    """Find the sha256 published for ``filename`` in a SOURCE.md file.

    Two layouts occur in our SOURCE.md files: a table row naming the file and holding the hash,
    or a ``## <filename>`` section with a ``sha256:`` line. Returns None when not found.
    """
    if not source_md.is_file():
        return None
    text = source_md.read_text(encoding="utf-8")
    lines = text.splitlines()
    for line in lines:  # table layout
        cells = [c.strip().strip("`") for c in line.split("|")]
        if line.lstrip().startswith("|") and filename in cells:
            if m := _HEX64.search(line):
                return m.group(0)
    section: list[str] | None = None
    for line in lines:  # section layout
        if line.startswith("#"):
            if section is not None:
                break
            if filename in line:
                section = []
            continue
        if section is not None:
            section.append(line)
    if section:
        for i, line in enumerate(section):
            if "sha256" in line:
                for cand in section[i : i + 3]:
                    if m := _HEX64.search(cand):
                        return m.group(0)
    # single-file layout: the file is named somewhere and exactly one hash is published
    hashes = set(_HEX64.findall(text))
    if filename in text and len(hashes) == 1:
        return hashes.pop()
    return None


def verify_sha256(path: Path, expected: str | None, *, strict: bool = False) -> bool | None:
    """Compare a file's sha256 with ``expected``.

    Returns True/False, or None when no expected value is known. A mismatch warns
    (:class:`ChecksumMismatchWarning`), or raises ``ValueError`` when ``strict``.
    """
    if not expected:
        return None
    actual = sha256_file(path)
    if actual == expected.lower():
        return True
    msg = (
        f"{path}: sha256 {actual} differs from the published {expected}; "
        "results may not be comparable with published numbers"
    )
    if strict:
        raise ValueError(msg)
    warnings.warn(msg, ChecksumMismatchWarning, stacklevel=3)
    return False
