"""Writing run outputs: per-question JSONL and summary JSON (UTF-8, one trailing newline)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """One JSON object per line; values JSON cannot hold (datetimes, paths) as strings."""
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    return path


def write_json(path: Path, obj: Any, indent: int = 2) -> Path:
    path.write_text(json.dumps(obj, indent=indent, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path
