"""Name normalisation and input validation shared by every write path."""

from __future__ import annotations

import re
import unicodedata

from .errors import InvalidInputError

MAX_NAME = 512
MAX_CONTENT = 1_000_000
_GROUP = re.compile(r"^[A-Za-z0-9_\-.:]{1,128}$")
_ARTICLES = ("the ", "a ", "an ")


def normalize_name(name: str) -> str:
    """Key used for exact entity matching: NFKC, casefold, punctuation-light, no article."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = re.sub(r"[\s_]+", " ", text)
    text = re.sub(r"[\"'`’.,;:!?()\[\]{}]", "", text).strip()
    for art in _ARTICLES:
        if text.startswith(art) and len(text) > len(art):
            text = text[len(art):]
            break
    return text


def clean_name(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string", field=field)
    name = " ".join(value.split())
    if not name:
        raise InvalidInputError(f"{field} must not be empty", field=field)
    if len(name) > MAX_NAME:
        raise InvalidInputError(f"{field} is longer than {MAX_NAME} characters", field=field)
    if not normalize_name(name):
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
