"""The newcomer's first run: replay a real-looking conversation and ask bi-temporal questions.

Each message is ingested with its own time as the episode's reference time *and* as the
transaction time (an injected clock), so "as known on date T" means what the conversation
had told us by then.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import datetime
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..errors import InvalidInputError
from ..memory.facade import DEFAULT_GROUP, Memory
from ..timeutil import parse_instant, utcnow

DEMO_FILE = "demo_conversation.jsonl"

QUESTIONS = [
    ("Where does Maya live?", "Maya", "LIVES_IN"),
    ("Where does Maya work?", "Maya", "WORKS_AT"),
    ("Where does Sam live?", "Sam", "LIVES_IN"),
]
VIEWS = [
    ("now", None, None),
    ("true on 2022-06-01", "2022-06-01", None),
    ("on 2023-04-01, as known on 2023-04-01", "2023-04-01", "2023-04-01"),
    ("on 2023-04-01, as known now", "2023-04-01", None),
]


class ReplayClock:
    """A settable transaction clock (monotonic checks are done by Memory)."""

    def __init__(self) -> None:
        self.t: datetime = parse_instant("1970-01-01")

    def __call__(self) -> datetime:
        return self.t


def load_conversation() -> list[dict[str, str]]:
    text = resources.files("kgmem.data").joinpath(DEMO_FILE).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


MARK = "kgmem-demo"  # the file that says a directory is the demo's own store
DEFAULT_HOME = ".kgmem-demo"  # the demo's home without --home (its own, also before MARK)


def check_demo_home(home: Path) -> None:
    """Refuse a directory that holds anything but a store the demo made: with ``--home`` or
    ``KGMEM_HOME`` naming the user's own memory, the demo would wipe it (``fresh``) or
    replay its conversation into it."""
    if (home.exists() and not (home / MARK).is_file() and home.name != DEFAULT_HOME
            and any(home.iterdir())):
        raise InvalidInputError(
            f"{home} holds something the demo did not make (--home / KGMEM_HOME: your own "
            "memory?); the demo replaces its store, so it only runs in an empty directory or "
            "its own: pass another --home, e.g. `kgmem --home .kgmem-demo demo`", field="home")


def replay(home: Path, fresh: bool = True, progress: Callable[[], None] | None = None
           ) -> Memory:
    from ..ingest.pipeline import make_extractor

    check_demo_home(home)
    if fresh and home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True, exist_ok=True)
    (home / MARK).write_text("made by `kgmem demo`, which replaces this directory\n")
    clock = ReplayClock()
    m = Memory(home, clock=clock, extractor=make_extractor())
    last = m.store.last_tx_time(DEFAULT_GROUP)
    for msg in load_conversation():
        t = parse_instant(msg["time"])
        if last is not None and t < last:
            continue  # already replayed into this store
        clock.t = t
        m.add_episode(msg["text"], t, speaker=msg["speaker"], source="message",
                      source_description="demo conversation")
        if progress is not None:
            progress()
    clock.t = max(utcnow(), clock.t)
    return m


def answers(m: Memory) -> list[dict[str, str | list[str]]]:
    """Per question: the question, and the objects each view (label) answers with."""
    out = []
    for question, subject, predicate in QUESTIONS:
        row: dict[str, str | list[str]] = {"question": question}
        for label, valid_at, known_at in VIEWS:
            facts = m.facts(subject, predicate, valid_at=valid_at, known_at=known_at)
            row[label] = [f.object for f in facts]
        out.append(row)
    return out


def run_demo(home: Path, fresh: bool = True, console: Console | None = None,
             as_json: bool = False) -> list[dict[str, str | list[str]]]:
    console = console or Console()
    check_demo_home(home)
    conv = load_conversation()
    if not as_json:
        console.print(f"[bold]Replaying {len(conv)} messages[/bold] into {home} "
                      "(offline extraction, each message's time is its transaction time)")
        for msg in conv:
            console.print(f"  [dim]{msg['time'][:10]}[/dim] {msg['speaker']}: {msg['text']}")
    with console.status("extracting facts (loading spaCy the first time)...") if not as_json \
            else _null():
        m = replay(home, fresh=fresh)
    rows = answers(m)
    if as_json:
        print(json.dumps(rows, indent=2))
        return rows
    table = Table(title="Same question, different times", title_justify="left")
    table.add_column("question")
    for label, _, _ in VIEWS:
        table.add_column(label)
    for row in rows:
        table.add_row(str(row["question"]), *[", ".join(row[label]) or "(nothing)"
                                         for label, _, _ in VIEWS])
    console.print(table)
    hist = [v for v in m.history("Maya") if v.predicate == "LIVES_IN"]
    h = Table(title="History of 'Maya LIVES_IN' (both clocks)", title_justify="left")
    for col in ("object", "valid from", "valid to", "believed from", "believed until", "why"):
        h.add_column(col)
    from ..timeutil import format_with_precision as fmt

    for v in hist:
        h.add_row(v.object, fmt(v.valid_at, v.valid_precision),
                  fmt(v.invalid_at, v.invalid_precision) if v.invalid_at else "-",
                  fmt(v.created_at, "day"), fmt(v.expired_at, "day") if v.expired_at else "-",
                  v.reason[:70])
    console.print(h)
    console.print(f"Try: [bold]kgmem --home {home} facts --subject Maya "
                  f"--valid-at 2022-06-01[/bold]  or  [bold]kgmem --home {home} history "
                  "Maya[/bold]")
    m.close()
    return rows


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: object) -> None:
        return None
