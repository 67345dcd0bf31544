"""What every ``kgmem`` command shares: the Typer app, the global options (``state``), the
consoles, and the steps from options to settings, a Memory, output and errors.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import KgmemError
from ..factory import open_memory
from ..model import FactVersion
from ..settings import Settings
from ..timeutil import format_with_precision

T = TypeVar("T")

app = typer.Typer(help="kgmem: bi-temporal knowledge-graph memory for AI agents.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
console = Console()
err = Console(stderr=True, soft_wrap=True)  # an error is one line, however long


class _State:
    home: Path | None = None
    group: str = "default"
    json: bool = False
    store: str | None = None
    extractor: str | None = None
    extract_workers: int | None = None  # ingest --workers


state = _State()


OPTION_OF = {"home": "--home", "store": "--store", "extractor": "--extractor",
              "extract_workers": "--workers"}


def settings_of_options() -> Settings:
    kw: dict[str, Any] = {}
    if state.home is not None:
        kw["home"] = state.home
    if state.store:
        kw["store"] = state.store
    if state.extractor and state.extractor != "graphiti":  # graphiti: only `ingest`, below
        kw["extractor"] = state.extractor
    if state.extract_workers is not None:
        kw["extract_workers"] = state.extract_workers
    try:
        return Settings(**kw)
    except ValidationError as exc:  # a bad option or KGMEM_* variable: one line, no traceback
        problems = []
        for e in exc.errors():
            name = ".".join(str(x) for x in e["loc"])
            if not name:  # about the environment as a whole: an unknown KGMEM_* variable
                problems.append(str(e["msg"]).removeprefix("Value error, "))
                continue
            where = " or ".join(x for x in (OPTION_OF.get(name), f"KGMEM_{name.upper()}") if x)
            problems.append(f"{where}: {e['msg']} (got {e.get('input')!r})")
        fail("; ".join(problems), "invalid_settings")


def fail(message: str, kind: str = "invalid_input") -> NoReturn:
    """Print ``error: message`` (JSON on stderr with --json) and exit 2."""
    if state.json:
        print(json.dumps({"error": {"type": kind, "message": message}}), file=sys.stderr)
    else:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(2)


def check_home(s: Settings, create: bool) -> None:
    """An explicit home (--home / KGMEM_HOME) that does not exist is created only by the
    commands that write (``create``); the others refuse it, since a mistyped path must not
    become a new, empty memory. The default home is created on first use."""
    if create or s.store != "embedded" or state.home is None or Path(s.home).exists():
        return
    fail(f"no kgmem store at {s.home} (--home / KGMEM_HOME): check the path, or create "
          f"one with `kgmem --home {s.home} init`", "not_found")


def cli_memory(extract: bool = False, create: bool = False):  # type: ignore[no-untyped-def]
    s = settings_of_options()
    check_home(s, create)
    if not extract and state.extractor is None:
        s = s.model_copy(update={"extractor": "none"})
    return guard(lambda: open_memory(s))


def emit(data: object) -> None:
    """``data`` as indented JSON on stdout (pydantic models dumped as JSON)."""
    def conv(x: Any) -> Any:
        if isinstance(x, BaseModel):
            return x.model_dump(mode="json")
        if isinstance(x, list):
            return [conv(i) for i in x]
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        return x

    print(json.dumps(conv(data), indent=2, default=str))


def fact_table(facts: list[FactVersion], title: str, history: bool = False) -> Table:
    t = Table(title=title, title_justify="left")
    for col in ("subject", "predicate", "object", "valid from", "valid to"):
        t.add_column(col)
    if history:
        t.add_column("known from")
        t.add_column("known to")
        t.add_column("why")
    t.add_column("fact id", overflow="fold", style="dim")
    for f in facts:
        row = [f.subject, f.predicate, f.object,
               format_with_precision(f.valid_at, f.valid_precision) if f.valid_at else "(unknown)",
               format_with_precision(f.invalid_at, f.invalid_precision) if f.invalid_at else "-"]
        if history:
            row += [format_with_precision(f.created_at, "instant"),
                    format_with_precision(f.expired_at, "instant") if f.expired_at else "-",
                    f.reason[:60]]
        t.add_row(*row, f.fact_id[:8])
    return t


def guard(fn: Callable[..., T]) -> T:
    """``fn()``; a kgmem error becomes ``error: message`` (JSON with --json) and exit 2, or 1
    for a server-side error."""
    try:
        return fn()
    except KgmemError as exc:
        if state.json:
            print(json.dumps({"error": exc.to_dict()}), file=sys.stderr)
        else:
            err.print(f"[red]error:[/red] {escape(exc.message)}", highlight=False)
        raise typer.Exit(2 if exc.http_status < 500 else 1) from None
