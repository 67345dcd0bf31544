"""Count ``Any`` in the public signatures of kgmem/ and api/ at a git revision.

    python scripts/any_in_signatures.py [--all] [REV ...]   # default: HEAD; e.g. 1953ce8 HEAD

``--all`` counts every function's signature, private ones too (a split that turns private
methods into module functions then leaves the figure as it was).

A public signature: a function or method whose name has no leading underscore (dunders such
as ``__init__`` count), not nested in a function, in a class and module without one (a
package's ``__init__.py`` counts). Every ``Any`` (``Any`` or ``typing.Any``, also inside a
quoted annotation) in its parameters' annotations and its return annotation is counted once.
The files are read from git (``git show REV:path``), so an old revision needs no checkout.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter

ROOTS = ("kgmem", "api")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def _anys(node: ast.AST | None) -> int:
    if node is None:
        return 0
    n = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any":
            n += 1
        elif isinstance(sub, ast.Attribute) and sub.attr == "Any":
            n += 1
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                n += _anys(ast.parse(sub.value, mode="eval"))
            except SyntaxError:
                pass
    return n


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _signature_anys(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
              *([a.kwarg] if a.kwarg else [])]
    return sum(_anys(p.annotation) for p in params) + _anys(fn.returns)


def count_module(source: str, everything: bool = False) -> int:
    total = 0

    def visit(body: list[ast.stmt]) -> None:
        nonlocal total
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if everything:
                    total += _signature_anys(node)
                    visit(node.body)
                elif _public(node.name):
                    total += _signature_anys(node)
            elif isinstance(node, ast.ClassDef) and (everything or not node.name.startswith("_")):
                visit(node.body)

    visit(ast.parse(source).body)
    return total


def public_module(path: str) -> bool:
    parts = path.split("/")
    return all(not p.startswith("_") or p == "__init__.py" or p == "__main__.py" for p in parts)


def count(rev: str, everything: bool = False) -> tuple[int, Counter[str]]:
    files = [f for f in _git("ls-tree", "-r", "--name-only", rev, *ROOTS).split()
             if f.endswith(".py") and (everything or public_module(f))]
    per: Counter[str] = Counter()
    for f in files:
        n = count_module(_git("show", f"{rev}:{f}"), everything)
        if n:
            per[f] = n
    return sum(per.values()), per


def main(argv: list[str]) -> int:
    everything = "--all" in argv
    what = "all signatures" if everything else "public signatures"
    for rev in [a for a in argv if a != "--all"] or ["HEAD"]:
        total, per = count(rev, everything)
        top = ", ".join(f"{f} {n}" for f, n in per.most_common(5))
        print(f"{rev}: {total} Any in {what} ({len(per)} files; most: {top})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
