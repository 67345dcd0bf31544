"""Who tells a text nobody is said to speak: an email or letter signed at its end ("Best,\\n
Jonas Lund") is told by its signer, so its "I" and "my" are that person."""

from __future__ import annotations

import re

_SIGN_OFF = re.compile(
    r"\n[ \t]*(?:best|best regards|kind regards|warm regards|regards|cheers|thanks|many thanks|"
    r"thank you|sincerely|yours sincerely|yours truly|yours|all the best|love|take care)"
    r"[ \t]*[,!.]?[ \t]*\n+[ \t]*(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’-]+){0,2})[ \t]*\s*$",
    re.I,
)


def signed_by(text: str) -> str | None:
    """The name a text is signed with after a sign-off on its last lines, or None."""
    m = _SIGN_OFF.search(text[-200:] if len(text) > 200 else "\n" + text)
    if m is None:
        return None
    name = m.group("name").strip()
    return name if name[:1].isupper() else None
