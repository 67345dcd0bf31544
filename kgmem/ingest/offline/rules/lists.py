"""Lists of a document (``kgmem.ingest.offline.layout``): who held an office of the
document's subject, and the offices the subject held, each with its years.

* **Holders**: under a heading that names an office ("Chairpersons .", "List of coaches .",
  "Mayors", "Commanders"), an item that is a person's name and a period ("- Bruno Racine
  ( 1993-1995 )", "- 2000-2016 : Christoph Palm ( CDU )", "- 1980-10-01 – 1983-09-30 : Erik
  Nygren", "- Pepe Mel ( 2019– )") says that person held the office over the document's
  subject (its title) then: ``LEADS`` the subject and ``HAS_ROLE`` the office, over the period.
* **Offices held**: under a heading about a career or positions ("Political career .",
  "Positions held"), an item that is an office and a period ("- Minister of Justice ( July
  2003 – December 2007 )") says the subject held it: ``HAS_ROLE``.

Only documents (narrative text) with a title are read; an item without a period, or whose
words are not a name (or an office), gives nothing.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ...temporal import ResolvedTime, resolve_time
from ..layout import Layout, Line, item_body
from ..mentions import Mention

if TYPE_CHECKING:
    from spacy.tokens import Span

    from ..context import Context

_REF = datetime(2000, 1, 1, tzinfo=timezone.utc)  # list periods are absolute dates
# offices that lead what they are held over (singular; a heading gives the plural)
OFFICES = frozenset({
    "director", "commander", "chairperson", "chairman", "chairwoman", "chair", "coach",
    "head coach", "manager", "mayor", "president", "leader", "governor", "principal",
    "headmaster", "headteacher", "rector", "dean", "chancellor", "ceo", "chief executive",
    "secretary-general", "general secretary", "secretary general", "commanding officer",
    "captain", "editor", "editor-in-chief", "abbot", "bishop", "premier", "prime minister",
    "chief", "head", "superintendent", "provost", "vice-chancellor", "general manager",
    "team manager", "managing director", "executive director", "conductor",
    "music director", "artistic director", "archbishop", "warden", "master", "owner",
})
_IRREGULAR = {"chairmen": "chairman", "chairwomen": "chairwoman", "chairmanship": "chair",
              "chairpersonship": "chairperson", "presidency": "president",
              "directorship": "director", "mayoralty": "mayor", "leadership": "leader",
              "coaching staff": "coach", "headmasters": "headmaster",
              "secretaries-general": "secretary-general", "secretaries general":
              "secretary general", "general secretaries": "general secretary",
              "commanding officers": "commanding officer"}
_HEADING_NOISE = re.compile(
    r"^(?:(?:a|the)\s+)?(?:(?:complete|full|chronological)\s+)?(?:list|lists|table)\s+of\s+"
    r"|^(?:former|past|previous|historical|all)\s+|\s+(?:history|list|by year|timeline)$",
    re.I)
_CAREER_HEADINGS = re.compile(
    r"\b(?:political career|positions?(?: held)?|offices?(?: held)?|career|"
    r"appointments|posts?(?: held)?|public service)\b", re.I)
# a period in a list item: "1993-1995", "2015–17", "2019–", "2015–present", "since 2016",
# "1980-10-01 – 1983-09-30", "July 2003 – December 2007", "( 2018 )"
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"\d{4}-\d{2}-\d{2}"
_POINT = rf"(?:{_DAY}|(?:\d{{1,2}}\s+)?(?:{_MON}\s+)?\d{{4}})"
_OPEN_END = r"(?:present|incumbent|today|now|date)"
_PERIOD = re.compile(
    rf"(?P<a>{_POINT})\s*(?:-|–|—|to|until)\s*(?P<b>{_POINT}|\d{{2}}(?!\d)|{_OPEN_END})?"
    rf"|(?:since|from)\s+(?P<s>{_POINT})"
    rf"|\(\s*(?P<y>\d{{4}})\s*\)", re.I)
_PARTICLES = frozenset({"de", "des", "van", "von", "der", "den", "da", "di", "del", "della", "la",
                        "le", "bin", "al", "af", "du", "dos", "das", "ter", "y", "zu", "ibn",
                        "mac", "st", "jr", "sr", "ii", "iii"})
_ROLE_WORDS = frozenset({
    "minister", "secretary", "president", "governor", "mayor", "senator", "member",
    "chairman", "chairwoman", "chair", "director", "ambassador", "judge", "commissioner",
    "speaker", "leader", "premier", "chancellor", "treasurer", "representative", "deputy",
    "councillor", "councilor", "chief", "head", "commander", "attorney", "consul", "envoy",
    "lieutenant", "advisor", "adviser", "spokesman", "spokesperson", "whip", "officer",
})


def office_of(heading: str | None) -> str | None:
    """The office a heading lists the holders of ("List of coaches" -> "coach",
    "Chairmanship" -> "chair"), or None."""
    if not heading:
        return None
    h = heading.strip().lower()
    for _ in range(2):
        h = _HEADING_NOISE.sub("", h).strip()
    if h in _IRREGULAR:
        return _IRREGULAR[h]
    for cand in (h, _singular(h)):
        if cand in OFFICES:
            return cand
    return None


def _singular(words: str) -> str:
    head, _, last = words.rpartition(" ")
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "sses", "xes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith("ss"):
        last = last[:-1]
    return f"{head} {last}".strip()


def period_of(body: str) -> tuple[ResolvedTime, str, tuple[int, int]] | None:
    """The period an item gives (resolved as "from X to Y" / "since X" / "in X") and where
    its text sits in ``body``."""
    m = _PERIOD.search(body)
    if m is None:
        return None
    if m.group("y"):
        text = f"in {m.group('y')}"
    elif m.group("s"):
        text = f"since {m.group('s')}"
    else:
        a, b = m.group("a"), m.group("b")
        if b is None or re.fullmatch(_OPEN_END, b, re.I):
            text = f"since {a}"
        else:
            if re.fullmatch(r"\d{2}", b):  # "2015–17"
                year = re.search(r"\d{4}", a)
                if year is None:
                    return None
                b = year.group(0)[:2] + b
                if int(b) < int(year.group(0)):
                    return None
            text = f"from {a} to {b}"
    rt = resolve_time(text, _REF)
    if rt is None:
        return None
    return rt, m.group(0), m.span()


def _name_words(rest: str) -> str | None:
    """The person's name left in an item once its period and notes are taken out, or None
    when the words are not a name."""
    rest = re.sub(r"\([^)]*\)", " ", rest)
    rest = re.sub(r"\s+[-–—:,]\s+|^\s*[-–—:,]\s*|\s*[-–—:,]\s*$", " ", rest)
    words = rest.split()
    if not 1 <= len(words) <= 5:
        return None
    caps = 0
    for w in words:
        if w.lower().strip(".") in _PARTICLES:
            continue
        if not w[:1].isupper() or any(ch.isdigit() for ch in w) or not re.search(r"\w", w):
            return None
        caps += 1
    return " ".join(words) if caps >= 1 else None


def read_lists(c: Context, layout: Layout, topic: str | None) -> None:
    """The facts of the text's lists (see the module docstring)."""
    if not c.narrative or not topic:
        return
    for line, heading in layout.items():
        office = office_of(heading)
        if office is not None:
            _holder(c, line, office, topic)
        elif heading is not None and _CAREER_HEADINGS.search(heading):
            _office_held(c, line, topic)


def _span(c: Context, line: Line) -> Span | None:
    return c.doc.char_span(line.start, line.end, alignment_mode="expand")


def _holder(c: Context, line: Line, office: str, topic: str) -> None:
    body = item_body(line.text)
    got = period_of(body)
    if got is None:
        return
    rt, text, (a, b) = got
    name = _name_words(body[:a] + " " + body[b:])
    if name is None or len(name.split()) < 2 and not _person_in(c, line):
        return
    span = _span(c, line)
    if span is None:
        return
    who = Mention(name, label="PERSON", token=span.root)
    for pred, obj in (("LEADS", topic), ("HAS_ROLE", office)):
        c.emit(who, pred, obj, None, rule="list_holder", timed=False, tokens=list(span),
               at=(rt, text))


def _person_in(c: Context, line: Line) -> bool:
    return any(e.label_ == "PERSON" and line.start <= e.start_char < line.end
               for e in c.doc.ents)


def _office_held(c: Context, line: Line, topic: str) -> None:
    body = item_body(line.text)
    got = period_of(body)
    if got is None:
        return
    rt, text, (a, b) = got
    role = re.sub(r"\([^)]*\)", " ", body[:a] + " " + body[b:])
    role = re.sub(r"\s+", " ", re.sub(r"[-–—:,]\s*$|^\s*[-–—:,]", " ", role)).strip(" ,;:")
    words = role.split()
    if not 1 <= len(words) <= 12 or not words[0][:1].isupper():
        return
    if not any(w.lower().strip(",") in _ROLE_WORDS for w in words):
        return
    span = _span(c, line)
    if span is None:
        return
    who = Mention(topic, label="PERSON", token=span.root)
    c.emit(who, "HAS_ROLE", role, None, rule="list_office", timed=False, tokens=list(span),
           at=(rt, text))
