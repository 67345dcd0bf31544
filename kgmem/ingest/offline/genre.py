"""What a narrative text is about, read once per parse: whether it tells a sporting career
(a club joined is then a team, and "moved to" a club is a transfer, not a home)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc

_SPORT = re.compile(
    r"\b(?:footballer|football|soccer|basketball|baseball|hockey|cricketer|cricket|rugby|"
    r"midfielder|forward|striker|defender|goalkeeper|winger|pitcher|quarterback|"
    r"league|season|loan|squad|player|coach|manager)\b", re.I)


def tells_sport(doc: Doc) -> bool:
    """Whether the text tells a sporting career."""
    return bool(_SPORT.search(doc.text))
