"""House rules that a reader of the tree can check without running it (docs/architecture.md):
no function over 120 lines and no module over 1,000 lines in kgmem/ and api/, and time
comparisons only in the time module and the stores' visibility seam."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("kgmem", "api") for p in (ROOT / d).rglob("*.py"))
MAX_FUNCTION_LINES = 120
MAX_MODULE_LINES = 1000
TIME_COMPARISON = re.compile(r"(created_at|expired_at|valid_at|invalid_at|reference_time)\s*[<>]")
TIME_HOMES = {"kgmem/timeline.py", "kgmem/store/visibility.py"}


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function or method of ``source`` longer than ``limit`` lines,
    from its ``def`` (or first decorator) to its last line."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = (node.end_lineno or node.lineno) - first + 1
            if lines > limit:
                out.append((node.name, lines))
    return out


def test_the_sources_are_found() -> None:
    names = {_rel(p) for p in SOURCES}
    assert {"kgmem/memory/facade.py", "kgmem/store/sqlite/store.py", "api/app.py"} <= names


def test_long_functions_finds_a_function_one_line_over_the_limit() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    at_limit = f"def f():\n{body}\n"  # def + 119 lines = 120
    assert long_functions(at_limit) == []
    over = f"@decorated\ndef g():\n{body}\n    return 0\n"
    assert long_functions(over) == [("g", MAX_FUNCTION_LINES + 2)]
    nested = "class C:\n    def m(self):\n" + "\n".join(
        f"        y{i} = {i}" for i in range(MAX_FUNCTION_LINES)) + "\n"
    assert long_functions(nested) == [("m", MAX_FUNCTION_LINES + 1)]


def test_no_function_over_120_lines() -> None:
    found = {f"{_rel(p)}:{name}": n for p in SOURCES
             for name, n in long_functions(p.read_text(encoding="utf-8"))}
    assert found == {}


def test_no_module_over_1000_lines() -> None:
    found = {_rel(p): n for p in SOURCES
             if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert found == {}


def test_times_are_compared_only_in_the_time_module_and_the_seam() -> None:
    found = sorted(f"{_rel(p)}:{i}" for p in SOURCES if _rel(p) not in TIME_HOMES
                   for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                   if TIME_COMPARISON.search(line))
    assert found == []
