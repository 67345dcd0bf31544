"""The profile page as text (:mod:`kgmem.memory.profile`): a short Markdown page of what the
memory holds about one entity, and its lines read back.

A fact line is ``- SUBJECT PREDICATE OBJECT | from START | until END | id ABCD1234`` (START
``?`` when unknown, END ``now`` while it holds; dates at the precision they were told). The
page's header comment names the group, the entity and the instant it was written at, which is
what an edited page is compared with when it comes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import InvalidInputError
from ..model import FactVersion
from ..timeutil import format_with_precision, parse_instant

FORMAT = "kgmem profile v1"
PREFERENCES = frozenset({"LIKES", "DISLIKES", "FAVORITE", "PREFERS", "HAS_DIET", "AVOIDS",
                         "INSTRUCTION", "HAS_HOBBY"})
DECISIONS = frozenset({"DECIDED", "PLANS"})
SECTIONS = ("Facts", "Preferences", "Decisions")
ID_CHARS = 8
_HEADER = re.compile(r"<!-- kgmem profile v1 · group (\S+) · entity (\S+) · "
                     r"at (\S+) -->")
_TRIPLE = re.compile(r"^(.+?) ([A-Z][A-Z0-9_]*) (.+)$")


@dataclass(frozen=True)
class PageLine:
    """One fact line as written on the page (the texts, not parsed dates)."""

    subject: str
    predicate: str
    object: str
    start: str  # "?" when unknown
    end: str  # "now" while it holds
    fact_id: str | None  # None: a line the reader added
    number: int = 0  # its line number on the page (for messages)

    def same_fact_as(self, other: PageLine) -> bool:
        return (self.object, self.start, self.end) == (other.object, other.start, other.end)


@dataclass(frozen=True)
class Page:
    group: str
    entity_id: str
    at: datetime  # valid and known at: the instant the page was written
    lines: tuple[PageLine, ...]


def section_of(predicate: str) -> str:
    return ("Preferences" if predicate in PREFERENCES else
            "Decisions" if predicate in DECISIONS else "Facts")


def line_of(v: FactVersion) -> PageLine:
    return PageLine(v.subject, v.predicate, v.object,
                    format_with_precision(v.valid_at, v.valid_precision),
                    "now" if v.invalid_at is None else format_with_precision(
                        v.invalid_at, v.invalid_precision), v.fact_id)


def render(name: str, group: str, entity_id: str, at: datetime,
           facts: list[FactVersion]) -> str:
    lines = [line_of(v) for v in facts]
    out = [f"# What I remember about {name}", "",
           f"<!-- {FORMAT} · group {group} · entity {entity_id} · at {at.isoformat()} -->",
           "<!-- Edit a line to correct it (the object, `from`, `until`), set `until` to a date "
           "to end it, delete a line that was never true, add a line without `id` to add a "
           f"fact. Then: kgmem profile {name} --apply THIS_FILE (--dry-run first) -->", ""]
    for section in SECTIONS:
        mine = [x for x in lines if section_of(x.predicate) == section]
        out += [f"## {section}", ""]
        out += [f"- {x.subject} {x.predicate} {x.object} | from {x.start} | until {x.end} | "
                f"id {(x.fact_id or '')[:ID_CHARS]}" for x in mine] or ["(none)"]
        out.append("")
    return "\n".join(out)


def parse(text: str) -> Page:
    """The page's header and fact lines; a malformed line is refused with its number."""
    head = _HEADER.search(text)
    if head is None:
        raise InvalidInputError("not a kgmem profile page: its header comment "
                                f"(<!-- {FORMAT} ... -->) is missing", field="page")
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        row = raw.strip()
        if not row.startswith("- "):
            continue
        lines.append(_line(row[2:].strip(), n))
    return Page(head.group(1), head.group(2), parse_instant(head.group(3), "page time"),
                tuple(lines))


def _line(row: str, n: int) -> PageLine:
    parts = [p.strip() for p in row.split(" | ")]
    m = _TRIPLE.match(parts[0])
    if m is None:
        raise InvalidInputError(f"page line {n}: {row!r} is not 'SUBJECT PREDICATE OBJECT | "
                                "from DATE | until DATE'", line=n)
    fields = {"from": "?", "until": "now", "id": ""}
    for p in parts[1:]:
        word, _, value = p.partition(" ")
        if word not in fields or not value.strip():
            raise InvalidInputError(f"page line {n}: {p!r} is not 'from DATE', 'until DATE' "
                                    "or 'id ID'", line=n)
        fields[word] = value.strip()
    return PageLine(m.group(1).strip(), m.group(2), m.group(3).strip(), fields["from"],
                    fields["until"], fields["id"] or None, n)
