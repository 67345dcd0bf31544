"""The offline extractor and the time resolver stay in small rooms: no module over 1,000 lines,
no function over 120 (issue 14)."""

from __future__ import annotations

import ast
from pathlib import Path

import kgmem.ingest

INGEST = Path(kgmem.ingest.__file__).parent
CHECKED = sorted((INGEST / "offline").rglob("*.py")) + sorted((INGEST / "temporal").rglob("*.py"))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_offline_extractor_modules_stay_under_1000_lines() -> None:
    long = {p.name: n for p in CHECKED if (n := len(p.read_text().splitlines())) > 1000}
    assert long == {}


def test_offline_extractor_functions_stay_under_120_lines() -> None:
    long = {
        f"{p.relative_to(INGEST)}:{f.name}": f.end_lineno - f.lineno + 1
        for p in CHECKED
        for f in _functions(ast.parse(p.read_text()))
        if f.end_lineno is not None and f.end_lineno - f.lineno + 1 > 120
    }
    assert long == {}
