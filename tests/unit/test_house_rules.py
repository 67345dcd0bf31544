"""House rules that a reader of the tree can check without running it (docs/architecture.md):
no function over 120 lines and no module over 1,000 lines in kgmem/ and api/, time
comparisons only in the time module and the stores' visibility seam, no Protocol that
re-declares private methods, a top level of kgmem/ a newcomer reads in a minute, and a
ceiling on the reaches into other modules' private names (scripts/private_reaches.py) and
on ``Any`` in public signatures (scripts/any_in_signatures.py)."""

from __future__ import annotations

import ast
import graphlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("kgmem", "api") for p in (ROOT / d).rglob("*.py"))
MAX_FUNCTION_LINES = 120
MAX_MODULE_LINES = 1000
TIME_COMPARISON = re.compile(r"(created_at|expired_at|valid_at|invalid_at|reference_time)\s*[<>]")
TIME_HOMES = {"kgmem/timeline.py", "kgmem/store/visibility.py"}
MAX_TOP_LEVEL_MODULES = 15  # kgmem/*.py: ground, the factory and the public face
MAX_PRIVATE_REACHES = 30  # scripts/private_reaches.py: 126 on c0ffb91, 23 after issue 28
MAX_ANY_IN_PUBLIC_SIGNATURES = 100  # scripts/any_in_signatures.py: 176 on c0ffb91, 180 -> 95


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


def private_protocol_members(source: str) -> list[str]:
    """``Class.member`` of every private member (``_name``, not a dunder) a Protocol declares:
    a Protocol that re-declares another module's private methods hides a reach into them."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id == "Protocol")
                or (isinstance(b, ast.Attribute) and b.attr == "Protocol") for b in node.bases):
            for item in node.body:
                name = (item.name if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                        else item.target.id if isinstance(item, ast.AnnAssign)
                        and isinstance(item.target, ast.Name) else "")
                if name.startswith("_") and not name.startswith("__"):
                    out.append(f"{node.name}.{name}")
    return out


def test_private_protocol_members_finds_a_private_method_and_attribute() -> None:
    source = ("from typing import Protocol\n"
              "class F(Protocol):\n    _p: int\n    store: int\n"
              "    def _tick(self) -> None: ...\n    def __len__(self) -> int: ...\n")
    assert private_protocol_members(source) == ["F._p", "F._tick"]


def test_no_protocol_redeclares_private_members() -> None:
    found = {_rel(p): names for p in SOURCES
             if (names := private_protocol_members(p.read_text(encoding="utf-8")))}
    assert found == {}


def test_top_level_of_kgmem_holds_at_most_15_modules() -> None:
    top = sorted(p.name for p in (ROOT / "kgmem").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def _script(name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _private_reaches() -> object:
    return _script("private_reaches")


def test_private_reaches_counts_an_import_and_an_attribute_but_not_self() -> None:
    reaches = _private_reaches().reaches  # type: ignore[attr-defined]
    source = ("import os\nfrom kgmem.x import _a, b\n"
              "class C:\n    def __init__(self):\n        self._own = 1\n"
              "    def m(self, o):\n        return self._own, o._other, o._own, os._exit\n")
    assert reaches(source) == [(2, "_a"), (7, "_other")]


def test_reaches_into_other_modules_private_names_stay_under_the_ceiling() -> None:
    found = [f"{_rel(p)}:{line} {name}" for p in SOURCES
             for line, name in _private_reaches().reaches(  # type: ignore[attr-defined]
                 p.read_text(encoding="utf-8"))]
    assert len(found) <= MAX_PRIVATE_REACHES, found


RAW_ENV_READ = re.compile(r"(environ|getenv)\b[^\n]*KGMEM_")


def test_kgmem_variables_are_read_only_through_the_settings() -> None:
    """One Settings class reads every KGMEM_* variable (kgmem/settings.py)."""
    assert RAW_ENV_READ.search('name = os.environ.get("KGMEM_SPACY_MODEL")')
    found = [f"{_rel(p)}:{i}" for p in SOURCES if _rel(p) != "kgmem/settings.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if RAW_ENV_READ.search(line)]
    assert found == []


def test_any_counts_in_public_signatures_only() -> None:
    count = _script("any_in_signatures").count_module  # type: ignore[attr-defined]
    source = ("from typing import Any\n"
              "def f(a: Any, b: 'dict[str, Any]') -> Any: ...\n"
              "def _g(a: Any) -> Any: ...\n"
              "class C:\n    def m(self, a: object) -> list[Any]: ...\n"
              "class _D:\n    def m(self, a: Any) -> None: ...\n")
    assert count(source) == 4


def test_any_in_public_signatures_stays_under_the_ceiling() -> None:
    """``Any`` where a type is known hides what a function takes and gives (issue 28)."""
    script = _script("any_in_signatures")
    per = {_rel(p): script.count_module(p.read_text(encoding="utf-8"))  # type: ignore[attr-defined]
           for p in SOURCES if not (p.is_relative_to(ROOT / "kgmem" / "api"))
           and script.public_module(_rel(p))}  # type: ignore[attr-defined]
    total = sum(per.values())
    most = sorted(((n, f) for f, n in per.items() if n), reverse=True)[:10]
    assert total <= MAX_ANY_IN_PUBLIC_SIGNATURES, (total, most)


GROUND = {"timeline", "model", "vocabulary", "timeutil", "names", "errors", "settings",
          "entity_types", "trust", "auth", "asgi", "request_bounds", "lifeline", "version"}
ROOM_PACKAGES = {"cli", "mcp", "jobs", "integrations", "memory", "archive", "interop",
                 "retrieve", "ingest", "reason", "core", "store", "embed", "llm", "data"}


def _room(module: str) -> str | None:
    """The room of docs/architecture.md a dotted module lives in (None: the ground)."""
    parts = module.split(".")
    if parts[0] != "kgmem":
        return None
    if len(parts) == 1:
        return "face"
    if parts[1] == "api":
        return "api"
    if parts[1] == "factory":
        return "factory"
    if parts[1] in ROOM_PACKAGES:
        return parts[1]
    assert parts[1] in GROUND, f"{module}: a new top-level module; give it a floor"
    return None


def _module_of(path: Path) -> tuple[str, str]:
    """(dotted module, its package) of a source file; api/ installs as kgmem.api."""
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    if parts[0] == "api":
        parts = ["kgmem", *parts]
    if parts[-1] == "__init__":
        module = ".".join(parts[:-1])
        return module, module
    module = ".".join(parts)
    return module, module.rsplit(".", 1)[0]


def _imported(path: Path) -> list[str]:
    """The dotted kgmem modules a source file imports (``from . import x``: ``pkg.x``), the
    type checker's imports included."""
    _, package = _module_of(path)
    out: list[str] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            found = ".".join(base + ([node.module] if node.module else []))
            out += [found] if node.module else [f"{found}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kgmem"):
            out += ([node.module] if node.module != "kgmem"  # type: ignore[list-item]
                    else [f"kgmem.{a.name}" for a in node.names])
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith("kgmem")]
    return out


def room_arrows() -> set[tuple[str, str]]:
    """Every (room, room) pair some module of the first imports a module of the second."""
    arrows = set()
    for path in SOURCES:
        module, _ = _module_of(path)
        if module.startswith("kgmem.api.") and path.is_relative_to(ROOT / "kgmem"):
            continue  # a checkout's link to api/
        source = _room(module)
        for room in {_room(t) for t in _imported(path)}:
            if source is not None and room is not None and room != source:
                arrows.add((source, room))
    return arrows


def drawn_arrows() -> set[tuple[str, str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("```mermaid", 1)[1].split("```", 1)[0]
    return {(a, b) for a, b in re.findall(r"^\s*(\w+)(?:\[[^\]]*\])?\s*-->\s*(\w+)", block, re.M)}


def test_the_architecture_drawing_is_the_code() -> None:
    """Every arrow docs/architecture.md draws between rooms is an import, and every import
    between rooms is drawn (the ground floor is left out, as the page says)."""
    assert drawn_arrows() == room_arrows()


def test_the_ground_imports_only_the_ground() -> None:
    found = sorted(f"{_rel(p)} -> {room}" for p in SOURCES
                   if p.parent == ROOT / "kgmem" and p.stem in GROUND
                   for room in {_room(t) for t in _imported(p)} - {None})
    assert found == []



def test_no_import_circles() -> None:
    """No module imports, even lazily, a module that imports it back (a package's own
    ``__init__`` aside: Python runs it first), imports for the type checker included."""
    modules = {m: p for p in SOURCES for m, _ in [_module_of(p)]
               if not (m.startswith("kgmem.api.") and p.is_relative_to(ROOT / "kgmem"))}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        graph[module] = set()
        for target in _imported(path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module and not module.startswith(target + "."):
                graph[module].add(target)
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"modules import each other in a circle: {exc.args[1]}")
    assert sorted(order) == sorted(graph)


def test_no_circle_between_rooms() -> None:
    """The rooms of docs/architecture.md stack in floors: no arrow runs back up."""
    graph: dict[str, set[str]] = {}
    for a, b in room_arrows():
        graph.setdefault(a, set()).add(b)
    assert graph, "docs/architecture.md draws no arrows between rooms"
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"rooms import each other in a circle: {exc.args[1]}")
    rank = {room: i for i, room in enumerate(order)}
    # static_order puts what a room imports before the room: every arrow points down
    assert all(rank[b] < rank[a] for a, targets in graph.items() for b in targets)
