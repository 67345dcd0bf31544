"""``kgmem neo4j import`` / ``kgmem neo4j finish-import``: the initial bulk load of an
embedded store's fact groups into a dedicated Neo4j server, vectors copied
(:mod:`kgmem.store.neo4j.bulk`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

neo4j_app = typer.Typer(help="Bulk loading into a dedicated Neo4j server.", no_args_is_help=True)
err = Console(stderr=True, soft_wrap=True)


def _source(ctx: typer.Context) -> tuple[Any, list[str]]:
    from ..settings import Settings
    from ..store.neo4j.importer import embedded_groups
    from ..store.sqlite import EmbeddedStore

    parent = ctx.find_root().params
    home = parent.get("home") or Settings().home
    src = EmbeddedStore(Path(home))
    return src, embedded_groups(src)


@neo4j_app.command("import")
def import_(
    ctx: typer.Context,
    neo4j_home: Annotated[Path, typer.Option(
        "--neo4j-home", envvar="KGMEM_NEO4J_HOME", help="the stopped server's NEO4J_HOME")],
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="required: the server's whole 'neo4j' database is replaced")] = False,
    groups: Annotated[list[str] | None, typer.Option(
        "--only", help="groups to load (repeatable; default: every group)")] = None,
    no_vectors: Annotated[bool, typer.Option("--no-vectors")] = False,
    csv_dir: Annotated[Path | None, typer.Option(help="default: NEO4J_HOME/import/kgmem")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, max=2, help="processes writing the CSV (default: 2 on 2+ cores)")
    ] = None,
) -> None:
    """Step 1, server stopped: write the embedded store's groups (--home) as CSV with their
    search vectors and run neo4j-admin database import. Then start the server and run
    `kgmem neo4j finish-import`."""
    from ..store.neo4j.bulk import write_and_import

    if not overwrite:
        err.print("[red]error:[/red] pass --overwrite: the server's whole 'neo4j' database is "
                  "replaced (use a dedicated server)")
        raise typer.Exit(2)
    src, found = _source(ctx)
    chosen = groups or found
    # rows to write: entities, lineages, versions, changes and one effect per change (aliases
    # and erasures come on top: the bar may end a little past its total)
    total = 0
    for g in chosen:
        c = src.counts(g)
        total += c["entities"] + c["lineages"] + c["versions"] + 2 * c["changes"]
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err) as prog:
        task = prog.add_task("writing CSV (rows)", total=total or None)
        res = write_and_import(src, chosen, neo4j_home, csv_dir, not no_vectors,
                               progress=lambda kind, n: prog.advance(task, n), workers=workers)
    err.print(f"CSV {res['csv_seconds']:.0f} s, neo4j-admin import "
              f"{res['admin_import_seconds']:.0f} s: {res['counts']}")
    print(json.dumps(res))


@neo4j_app.command("finish-import")
def finish_import(
    ctx: typer.Context,
    neo4j_home: Annotated[Path, typer.Option("--neo4j-home", envvar="KGMEM_NEO4J_HOME")],
    csv_dir: Annotated[Path | None, typer.Option()] = None,
) -> None:
    """Step 2, server started (KGMEM_NEO4J_URI): create and populate kgmem's indexes (shown
    as they fill), write the counters and each group's transaction clock."""
    from ..store.neo4j import Neo4jStore
    from ..store.neo4j.bulk import dedicated_home, finish

    src, _ = _source(ctx)
    out = csv_dir or dedicated_home(neo4j_home) / "import" / "kgmem"
    dst = Neo4jStore(ensure_indexes=False)
    try:
        res = finish(src, dst, out, report=lambda line: err.print(line, highlight=False))
    finally:
        dst.close()
    err.print(f"indexes online after {res['schema_and_index_population_seconds']:.0f} s "
              f"(load {os.getloadavg()[0]:.1f})")
    print(json.dumps(res))
