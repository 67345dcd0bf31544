"""Name normalisation and input validation shared by every write path.

Every name that reaches kgmem (library, REST, MCP, CLI, extractors) goes through
:func:`clean_name` (the name as stored) and :func:`normalize_name` (the key it is matched by);
predicates through :func:`kgmem.vocabulary.normalize_predicate`, which uses the same Unicode
rules (:func:`visible_text`, :func:`refuse_bidi_controls`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .errors import InvalidInputError, InvalidNameError

MAX_NAME = 512
MAX_CONTENT = 1_000_000
# an entity reference of this shape is tried as an id first, anything else as a name first
UUID_SHAPE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                        r"[0-9a-fA-F]{12}$")
_GROUP = re.compile(r"^[A-Za-z0-9_\-.:]{1,128}$")
_ARTICLES = ("the ", "a ", "an ")
_PUNCT = re.compile(r"[\"'`’.,;:!?()\[\]{}]")

# Explicit directional formatting: embeddings, overrides and isolates reorder what is
# displayed ("\u202eecilA" shows as "Alice"), so a name holding one is refused, not cleaned.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Zero-width non-joiner / joiner spell words in Persian and Indic scripts: kept between two
# non-ASCII letters in a displayed name, dropped everywhere else (and always from keys).
_JOINERS = frozenset("\u200c\u200d")
_INVISIBLE = frozenset({"Cc", "Cf", "Cs"})  # control, format, lone surrogates


def refuse_bidi_controls(value: str, field: str) -> None:
    for ch in value:
        if ch in BIDI_CONTROLS:
            raise InvalidNameError(
                f"{field} contains the bidirectional control U+{ord(ch):04X}, which makes text "
                "display differently from what it is; remove it",
                field=field, character=f"U+{ord(ch):04X}",
            )


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def visible_text(text: str, keep_joiners: bool = False) -> str:
    """NFKC with whitespace made spaces and control/format characters removed.

    With ``keep_joiners`` a ZWNJ/ZWJ between two non-ASCII letters stays (display names)."""
    if text.isascii() and text.isprintable():  # NFKC is the identity; no control, no tab
        return text
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            out.append(" ")
        elif unicodedata.category(ch) not in _INVISIBLE:
            out.append(ch)
        elif (keep_joiners and ch in _JOINERS and 0 < i < len(text) - 1
              and not text[i - 1].isascii() and _is_letter(text[i - 1])
              and not text[i + 1].isascii() and _is_letter(text[i + 1])):
            out.append(ch)
    # again: a removed character may have kept two others from composing ("A\u200b\u0300")
    return unicodedata.normalize("NFKC", "".join(out))


@functools.lru_cache(maxsize=65536)  # a pure function of the name, on every read's hot path
def normalize_name(name: str) -> str:
    """Key used for exact entity matching: NFKC, no control or format characters, casefold,
    punctuation-light, whitespace collapsed, no leading article. Idempotent."""
    text = _PUNCT.sub("", visible_text(name))
    text = unicodedata.normalize("NFKC", text.casefold())
    text = " ".join(text.replace("_", " ").split())
    while True:  # "the the x" -> "x": stripped until stable, so that the key is idempotent
        art = next((a for a in _ARTICLES if text.startswith(a) and len(text) > len(a)), None)
        if art is None:
            return text
        text = text[len(art):].lstrip()


def clean_name(value: object, field: str) -> str:
    """The name as stored: NFKC, control and format characters removed, whitespace collapsed.
    Refuses non-strings, bidirectional controls, empty and over-long names."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string", field=field)
    refuse_bidi_controls(value, field)
    name = " ".join(visible_text(value, keep_joiners=True).split())
    if not name:
        if value.strip():
            raise InvalidNameError(
                f"{field} {value!r} is made only of control or format characters",
                field=field)
        raise InvalidInputError(f"{field} must not be empty", field=field)
    if len(name) > MAX_NAME:
        raise InvalidInputError(f"{field} is longer than {MAX_NAME} characters", field=field)
    if not normalize_name(name) or not any(unicodedata.category(c)[0] in "LN" for c in name):
        # a lone combining mark or an emoji names nothing one could look up by typing it
        raise InvalidInputError(f"{field} {value!r} has no letters or digits", field=field)
    return name


def check_group(group: object) -> str:
    if not isinstance(group, str) or not _GROUP.match(group):
        raise InvalidInputError(
            "group must be 1-128 characters of letters, digits, '_', '-', '.', ':'",
            field="group",
            value=repr(group),
        )
    return group


def check_limit(limit: object) -> int | None:
    """A page size: None (no limit) or a positive integer."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError("limit must be a positive integer", field="limit",
                                value=repr(limit))
    return limit
