"""Count the reaches into another module's private names in kgmem/ and api/ at a git revision.

    python scripts/private_reaches.py [--list] [REV ...]   # default: HEAD; e.g. c0ffb91 HEAD
    python scripts/private_reaches.py .                    # the working tree

A private name is one with a single leading underscore (``_tick``; dunders such as
``__init__`` are not private). A module *defines* the private names it binds: functions,
classes, module-level assignments, and attributes it assigns on ``self`` or ``cls``. A
*reach* is a place in one module that names a private name the module does not define:

* ``from kgmem.x import _name`` (or a relative import of one), and
* ``obj._name`` on anything but ``self``, ``cls``, ``super()`` or a module imported from
  outside kgmem (``os._exit`` is the standard library's own).

A method a ``Protocol`` declares does not count as defined: a Protocol that re-declares
another module's private methods hides the reach, it does not remove it.

Each place counts once. A test of this count (tests/unit/test_house_rules.py) holds a ceiling
on HEAD's working tree; the files are read from git here so that an old revision needs no
checkout.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOTS = ("kgmem", "api")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _protocol(node: ast.ClassDef) -> bool:
    return any((isinstance(b, ast.Name) and b.id == "Protocol")
               or (isinstance(b, ast.Attribute) and b.attr == "Protocol") for b in node.bases)


def defined(tree: ast.Module) -> set[str]:
    """The private names a module binds (a Protocol's methods declare another's, not its own)."""
    declared = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and _protocol(c)
                for f in c.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in declared:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {n for n in names if private(n)}


def _own(value: ast.expr) -> bool:
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id == "super")


def reaches(source: str) -> list[tuple[int, str]]:
    """(line, name) of every reach into a private name this module does not define."""
    tree = ast.parse(source)
    own = defined(tree)
    outside = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
               if isinstance(n, ast.Import) for a in n.names if not a.name.startswith("kgmem")}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").startswith("kgmem"):
                found += [(node.lineno, a.name) for a in node.names if private(a.name)]
        elif (isinstance(node, ast.Attribute) and private(node.attr) and not _own(node.value)
              and node.attr not in own
              and not (isinstance(node.value, ast.Name) and node.value.id in outside)):
            found.append((node.lineno, node.attr))
    return found


def sources(rev: str) -> dict[str, str]:
    """Path -> text of every Python file of kgmem/ and api/ at ``rev`` ("." the working tree)."""
    if rev == ".":
        top = Path(_git("rev-parse", "--show-toplevel").strip())
        return {p.relative_to(top).as_posix(): p.read_text(encoding="utf-8")
                for root in ROOTS for p in sorted((top / root).rglob("*.py"))
                if not any(q.is_symlink() for q in p.relative_to(top).parents
                           if q != Path(".") and (top / q).is_symlink())}
    return {f: _git("show", f"{rev}:{f}")
            for f in _git("ls-tree", "-r", "--name-only", rev, *ROOTS).split() if f.endswith(".py")}


def count(rev: str) -> tuple[int, Counter[str], list[str]]:
    per: Counter[str] = Counter()
    places: list[str] = []
    for f, text in sources(rev).items():
        found = reaches(text)
        if found:
            per[f] = len(found)
            places += [f"{f}:{line} {name}" for line, name in found]
    return sum(per.values()), per, places


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    for rev in [a for a in argv if a != "--list"] or ["HEAD"]:
        total, per, places = count(rev)
        top = ", ".join(f"{f} {n}" for f, n in per.most_common(5))
        print(f"{rev}: {total} reaches into private names of other modules "
              f"({len(per)} files; most: {top})")
        if listing:
            print("\n".join(places))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
