"""Who tells a text nobody is said to speak: an email with a "From:" header, or an email or
letter signed at its end ("Best,\\nJonas Lund"), is told by its sender or signer, so its "I"
and "my" are that person. Lines quoted from an earlier message ("> ...") are someone else's
words (:func:`quoted_spans`)."""

from __future__ import annotations

import re

_SIGN_OFF = re.compile(
    r"\n[ \t]*(?:best|best regards|kind regards|warm regards|regards|cheers|thanks|many thanks|"
    r"thank you|sincerely|yours sincerely|yours truly|yours|all the best|love|take care)"
    r"[ \t]*[,!.]?[ \t]*\n+[ \t]*(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’-]+){0,2})[ \t]*\s*$",
    re.I,
)


_FROM = re.compile(
    r"\A(?:[ \t]*\S[^\n]*\n){0,4}?[ \t]*From:[ \t]*\"?(?P<name>[A-Z][\w'’-]+"
    r"(?:[ \t]+[A-Z][\w'’-]+){0,3})\"?[ \t]*(?:<[^>\n]*>)?[ \t]*\n")
_QUOTED = re.compile(r"^[ \t]*>.*$", re.M)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The character spans of the lines quoted from another message (they start with ">")."""
    return [m.span() for m in _QUOTED.finditer(text)]


def signed_by(text: str) -> str | None:
    """The sender a "From:" header at the top names, else the name a text is signed with
    after a sign-off on its last lines, or None."""
    head = _FROM.search(text[:600])
    if head is not None:
        return head.group("name").strip()
    m = _SIGN_OFF.search(text[-200:] if len(text) > 200 else "\n" + text)
    if m is None:
        return None
    name = m.group("name").strip()
    return name if name[:1].isupper() else None
