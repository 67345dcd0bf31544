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
from typing import Annotated, Any

import typer
from rich.table import Table

from ..errors import KgmemError
from ..names import check_group
from ..timeutil import format_with_precision
from .common import (
    app,
    cli_memory,
    console,
    emit,
    err,
    fact_table,
    fail,
    guard,
    settings_of_options,
    state,
)


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
        fail(f"--group {group!r}: {exc.message}")
    if extractor == "graphiti" and ctx.invoked_subcommand != "ingest":
        err.print("[red]error:[/red] --extractor graphiti applies to `kgmem ingest` only")
        raise typer.Exit(2)


# ---------------------------------------------------------------------- writes
@app.command()
def init() -> None:
    """Create the store (the embedded directory --home, or Neo4j's schema) if it does not
    exist yet; reads of a --home that does not exist are refused until then."""
    m = cli_memory(create=True)
    where = "neo4j" if settings_of_options().store == "neo4j" else str(settings_of_options().home)
    m.close()
    emit({"store": where}) if state.json else console.print(f"kgmem store ready at {where}")


USER_NAME_HELP = ("who the chat role 'user' is: its turns are stored as said by this person "
                  "(default KGMEM_USER_NAME)")


@app.command("add")
def add_episode(
    content: str,
    time: Annotated[str, typer.Option("--time", "-t", help="reference time (ISO-8601, or now)")],
    speaker: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "message",
    no_extract: Annotated[bool, typer.Option("--no-extract")] = False,
    user_name: Annotated[str | None, typer.Option("--user-name", help=USER_NAME_HELP)] = None,
) -> None:
    """Add an episode (stored verbatim; facts extracted offline unless --no-extract)."""
    m = cli_memory(extract=not no_extract, create=True)
    if time.strip().lower() == "now":  # the store's clock, as for every write
        time = m.now().isoformat()
    ep = guard(lambda: m.add_episode(content, time, source=source, speaker=speaker,
                                    group=state.group, extract=not no_extract,
                                    user_name=user_name))
    emit(ep) if state.json else console.print(f"episode {ep.id}")


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
    user_name: Annotated[str | None, typer.Option("--user-name", help=USER_NAME_HELP)] = None,
) -> None:
    """Ingest a file of episodes (batched, idempotent: re-ingesting adds nothing), then build
    the search index so that the first search is as fast as the next."""
    from rich.progress import Progress

    from ..ingest.formats import read_episodes

    if extractor is not None:
        state.extractor = extractor
    state.extract_workers = workers
    if record_time not in ("now", "reference"):
        fail(f"--record-time: 'now' or 'reference' (got {record_time!r})")
    items = guard(lambda: list(read_episodes(file, fmt, time, speaker)))  # type: ignore[arg-type]
    if state.extractor == "graphiti":
        return guard(lambda: _ingest_graphiti(items, no_extract))
    m = cli_memory(extract=not no_extract, create=True)
    from ..retrieve.backend import resolve_embedder

    semantic = resolve_embedder(m) is not None  # else keyword-only search: nothing to embed
    with _llm_figures_on_error(m), Progress(console=err, disable=state.json) as prog:
        task = prog.add_task(f"ingesting {len(items):,} episodes", total=len(items))
        report = guard(lambda: m.ingest(items, group=state.group, extract=not no_extract,
                                       batch_size=batch_size, index=semantic,
                                       on_batch=lambda n: prog.advance(task, n),
                                       record_time=record_time,  # type: ignore[arg-type]
                                       user_name=user_name))
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
            done = guard(lambda: be.index_pending(groups=groups))
        else:
            while n := guard(lambda: be.index_pending(256, 256)):
                done += n
                prog.advance(task, n)
        prog.update(task, description="loading the vector indexes", total=len(groups),
                    completed=0)
        for g in groups:
            guard(lambda g=g: retrieve.warm(m, g))
            prog.advance(task)
        retrieve.flush(m)
    return done


@app.command()
def index() -> None:
    """Build the search index of the group now (embed what was written since the last
    ingest); `kgmem serve` does it in the background, and a search embeds only a small part
    of its group's backlog (it finds the rest by keyword and time)."""
    m = cli_memory()
    done = _build_index(m, [state.group])
    if state.json:
        emit({"group": state.group, "semantic": done is not None, "embedded": done or 0})
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
        emit(summary)
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

    m = cli_memory(extract=True)
    with _llm_figures_on_error(m), Progress(console=err, disable=state.json) as prog:
        task = prog.add_task("extracting", total=None)
        report = guard(lambda: m.extract_failed(group=state.group, batch_size=batch_size,
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

    s = settings_of_options()
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
    emit(summary) if state.json else console.print(summary)


@app.command("assert")
def assert_fact(
    subject: str, predicate: str, object: str,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    invalid_at: Annotated[str | None, typer.Option("--invalid-at")] = None,
    episode: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Assert a fact: SUBJECT PREDICATE OBJECT."""
    m = cli_memory(create=True)
    f = guard(lambda: m.assert_fact(subject, predicate, object, valid_at=valid_at,
                                   invalid_at=invalid_at, group=state.group, episode=episode))
    emit(f) if state.json else console.print(f"fact {f.fact_id}: {f.describe()}")


@app.command()
def invalidate(fact_id: str, at: str, reason: Annotated[str | None, typer.Option()] = None
               ) -> None:
    """This stopped being true AT."""
    m = cli_memory()
    c = guard(lambda: m.invalidate(fact_id, at, reason=reason, group=state.group))
    emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def retract(fact_id: str, reason: Annotated[str | None, typer.Option()] = None) -> None:
    """This was never true (a correction)."""
    m = cli_memory()
    c = guard(lambda: m.retract(fact_id, reason=reason, group=state.group))
    emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def correct(
    fact_id: str,
    object: Annotated[str | None, typer.Option("--object")] = None,
    valid_at: Annotated[str | None, typer.Option("--valid-at")] = None,
    invalid_at: Annotated[str | None, typer.Option("--invalid-at")] = None,
) -> None:
    """Change the object or interval of a fact (new version, same lineage)."""
    m = cli_memory()
    c = guard(lambda: m.correct(fact_id, object=object, valid_at=valid_at,
                               invalid_at=invalid_at, group=state.group))
    emit(c) if state.json else console.print(f"change {c.id}")


@app.command()
def undo(change_id: str) -> None:
    """Reverse one change (as a new change)."""
    m = cli_memory()
    c = guard(lambda: m.undo(change_id, group=state.group))
    emit(c) if state.json else console.print(f"change {c.id} undoes {c.undoes}")


@app.command()
def merge(
    a: str, b: str, reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Merge entity B into A: B's facts become A's, B's names mean A (`kgmem undo` reverts)."""
    m = cli_memory()
    c = guard(lambda: m.merge_entities(a, b, group=state.group, reason=reason))
    emit(c) if state.json else console.print(f"change {c.id}: {c.reason}")


@app.command()
def erase(
    episode: Annotated[str | None, typer.Option()] = None,
    entity: Annotated[str | None, typer.Option()] = None,
    whole_group: Annotated[bool, typer.Option("--whole-group")] = False,
) -> None:
    """Physically delete an episode, an entity, or the whole group (privacy)."""
    m = cli_memory()
    e = guard(lambda: m.erase(episode=episode, entity=entity, whole_group=whole_group,
                             group=state.group))
    emit(e) if state.json else console.print(f"erased {e.kind}: {e.counts}")


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
    m = cli_memory()
    out = guard(lambda: m.facts(subject, predicate, object, valid_at=valid_at, known_at=known_at,
                               group=state.group, limit=limit))
    for name in (subject, object):  # no facts: say so when the entity itself is unknown
        if not out and name is not None:  # (as `history` does; resolutions: one cheap lookup)
            guard(lambda name=name: m.resolutions(name, group=state.group))
    emit(out) if state.json else console.print(fact_table(out, "facts"))
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
    m = cli_memory()
    out = guard(lambda: m.entity(name, valid_at=valid_at, known_at=known_at, group=state.group))
    if state.json:
        emit(out)
        return
    console.print(f"[bold]{out['entity'].name}[/bold] ({out['entity'].id})")
    if valid_at is None and known_at is None:
        if out["entity"].summary:  # the summary says what holds now
            console.print(out["entity"].summary, highlight=False, markup=False)
        console.print(fact_table(out["facts"] + out["incoming"], "facts"))
        return
    when = f"what held at {valid_at or 'now'}, as known at {known_at or 'now'}"
    console.print(fact_table(out["facts"] + out["incoming"], when))


@app.command()
def consolidate() -> None:
    """Bring every entity summary of the group up to date (kgmem.memory.summaries; profiles do it
    for their entity on their own); on Neo4j this fills the Entity nodes' summary."""
    m = cli_memory()
    n = guard(lambda: m.consolidate(group=state.group))
    emit({"changed": n}) if state.json else console.print(
        f"{n} entity summar{'y' if n == 1 else 'ies'} changed in group {state.group}")


@app.command()
def history(entity_or_fact: str) -> None:
    """Every version of a fact (or about an entity), with both intervals and reasons."""
    m = cli_memory()
    out = guard(lambda: m.history(entity_or_fact, group=state.group))
    emit(out) if state.json else console.print(fact_table(out, "history", history=True))


@app.command()
def changes(since: Annotated[str, typer.Option("--since")]) -> None:
    """Changes (learnt or revised) after --since."""
    m = cli_memory()
    out = guard(lambda: m.changes(since, group=state.group))
    if state.json:
        emit(out)
        return
    written: dict[str, list[str]] = {}
    for v in guard(lambda: m.versions_written_by(out, group=state.group)):
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
    m = cli_memory()
    out = guard(lambda: m.paths(a, b, max_hops=max_hops, valid_at=valid_at, known_at=known_at,
                               mode=mode, group=state.group))  # type: ignore[arg-type]
    if state.json:
        emit(out)
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

    m = cli_memory()
    kind_tuple = tuple(k.strip() for k in kinds.split(",") if k.strip())
    out = guard(lambda: retrieve.search(m, query, valid_at=valid_at, known_at=known_at,
                                       limit=limit, kinds=kind_tuple, group=state.group))
    if state.json:
        emit(out)
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

    m = cli_memory()
    report = guard(lambda: apply_retention(m, RetentionPolicy.load(policy), state.group,
                                          dry_run=dry_run))
    if state.json:
        emit(report)
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
    m = cli_memory()
    out = guard(lambda: m.search_sessions(query, valid_at=valid_at, known_at=known_at,
                                         limit=limit, group=state.group))
    if state.json:
        emit(out)
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

    m = cli_memory()
    block = guard(lambda: retrieve.context(m, query, budget_tokens=budget, valid_at=valid_at,
                                          known_at=known_at, group=state.group))
    emit(block) if state.json else print(block.text)


@app.command()
def stats() -> None:
    """Counts of the group's entities, episodes, facts and versions, and of its episodes by
    extraction status."""
    m = cli_memory()
    out: dict[str, Any] = {"group": state.group, **m.stats(state.group),
                           "extraction": m.store.extraction_counts(state.group)}
    if state.json:
        emit(out)
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
    m = cli_memory()
    out = guard(lambda: m.store.group_counts())
    if state.json:
        emit([{"group": g, **c} for g, c in out.items()])
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
    m = cli_memory()
    if apply is None:
        page = guard(lambda: m.profile(entity, group=state.group))
        if out is None:
            print(page)
        else:
            out.write_text(page, encoding="utf-8")
            err.print(f"wrote {out}; edit it, then: kgmem profile {entity!r} --apply {out}",
                      highlight=False)
        return
    if not apply.is_file():
        fail(f"no page at {apply}")
    r = guard(lambda: m.apply_profile(apply.read_text(encoding="utf-8"), dry_run=dry_run))
    emit({"dry_run": r.dry_run, "edits": [e.describe() for e in r.edits], "change": r.change}
          ) if state.json else console.print("\n".join(r.report()), highlight=False, markup=False)


from . import admin  # noqa: E402,F401 - export ... demo, registered after the commands above


def run() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
