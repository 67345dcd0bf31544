"""The layout of a document told as prose: its title, its headings and its list items, read
from the lines of the text (no parse needed).

* the **title** is the first line when it reads as one: short, no sentence end, not a list
  item ("Condor ( airline )" -> "Condor"; a trailing parenthesis is a disambiguation);
* a **heading** is a short line of its own, with no sentence end or with the " ." of
  encyclopedic dumps ("History .", "List of coaches .", "## Directors");
* a **list item** is a line that starts with a bullet ("- ", "* ", "• ").

Rules read the heading a list item sits under (``heading_above``): a list of office holders
under "Chairpersons ." names who chaired the document's subject, and when.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"^\s*(?:[-*•–]|\d{1,2}[.)])\s+")
_MARKDOWN_HEADING = re.compile(r"^\s*#{1,6}\s+")
_SENTENCE_END = re.compile(r"[.!?;:,]\s*$")
_DUMP_END = re.compile(r"\s\.\s*$")  # "History ." (encyclopedic dumps)
# "Harlow Rovers F.C.", "Acme Inc.": a name that ends in an abbreviation, not a sentence
_ABBREVIATION_END = re.compile(r"(?:\b(?:[A-Z]\.){2,}|\b(?:Inc|Ltd|Co|Corp|Jr|Sr|St|Bros)\.)$")
_DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")
# small words a name may hold ("Bank of America Plaza", "Alliance of Small Island States")
_NAME_PARTICLES = frozenset({"of", "the", "and", "de", "des", "du", "la", "le", "von", "van",
                             "der", "den", "da", "di", "del", "for", "in", "on", "at", "y",
                             "e", "et", "und", "am", "an", "&"})
_SENTENCE_OPENERS = frozenset({"he", "she", "it", "they", "i", "we", "you", "this", "that",
                               "there", "these", "those", "his", "her", "its", "their"})
MAX_HEADING_WORDS = 6
MAX_TITLE_WORDS = 8


@dataclass(frozen=True)
class Line:
    """One line of the text: its characters ``[start, end)`` and its text."""

    start: int
    end: int
    text: str


def lines_of(text: str) -> list[Line]:
    out: list[Line] = []
    pos = 0
    for raw in text.split("\n"):
        out.append(Line(pos, pos + len(raw), raw))
        pos += len(raw) + 1
    return out


def is_item(line: str) -> bool:
    """A list item: a line that starts with a bullet or a short number."""
    return bool(_BULLET.match(line))


def item_body(line: str) -> str:
    """The list item without its bullet."""
    return _BULLET.sub("", line, count=1).strip()


def heading_text(line: str) -> str | None:
    """The heading a line is ("Directors ." -> "Directors"), or None when it is not one."""
    s = line.strip()
    if not s or is_item(s):
        return None
    if _MARKDOWN_HEADING.match(s):
        return _MARKDOWN_HEADING.sub("", s).strip() or None
    dump = bool(_DUMP_END.search(s))
    if dump:
        s = _DUMP_END.sub("", s).strip()
    elif _SENTENCE_END.search(s):
        return None
    words = s.split()
    if not words or len(words) > MAX_HEADING_WORDS or not words[0][:1].isupper():
        return None
    if words[0].lower() in _SENTENCE_OPENERS:
        return None  # "He retired in 2004 .": a short sentence, not a heading
    return s


def title_of(text: str) -> str | None:
    """The document's title: its first non-empty line, when that reads as a title."""
    for ln in text.split("\n"):
        s = ln.strip()
        if not s:
            continue
        if is_item(s) or _DUMP_END.search(s) or (
                _SENTENCE_END.search(s) and not _ABBREVIATION_END.search(s)):
            return None
        s = _DISAMBIGUATION.sub("", _MARKDOWN_HEADING.sub("", s)).strip()
        if "," in s or ":" in s:
            return None  # "Design review, 4 March 2025": a heading with a date, no subject
        words = s.split()
        if not words or len(words) > MAX_TITLE_WORDS or not words[0][:1].isupper():
            return None
        if any(w[:1].islower() and w.lower() not in _NAME_PARTICLES for w in words):
            return None  # "Tidewater Energy appoints new finance chief": a headline
        return s
    return None


class Layout:
    """The lines of one text with the heading each one sits under."""

    def __init__(self, text: str) -> None:
        self.lines = lines_of(text)
        self.title = title_of(text)
        self._heading: list[str | None] = []
        current: str | None = None
        for ln in self.lines:
            h = heading_text(ln.text)
            self._heading.append(current)
            if h is not None:
                current = h

    def items(self) -> list[tuple[Line, str | None]]:
        """The list items with the heading above each (None when there is none)."""
        return [(ln, self._heading[k]) for k, ln in enumerate(self.lines) if is_item(ln.text)]
