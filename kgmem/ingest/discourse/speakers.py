"""Who a chat role is: ``user`` / ``assistant`` are roles, never names, and "my name is Priya",
"I'm Priya" or "call me Priya" said by a role name its speaker for the rest of the sitting
(and the turns before it)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..facts import ASSISTANT_SPEAKERS, GENERIC_SPEAKERS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["is_assistant_role", "is_role", "self_name"]

# words after "I'm" that are never a name even when capitalised ("I'm Good", "I'm Back")
_NOT_NAMES = frozenset({"good", "fine", "back", "here", "sorry", "new", "done", "ok", "okay",
                        "great", "home", "ready", "so", "not", "also", "just", "really",
                        "vegan", "vegetarian", "allergic", "american", "english"})


def is_role(speaker: str | None) -> bool:
    """A chat role label ("user", "human", "assistant", "bot"...) rather than a name."""
    s = (speaker or "").strip().lower()
    return s in GENERIC_SPEAKERS or s in ASSISTANT_SPEAKERS


def is_assistant_role(speaker: str | None) -> bool:
    return (speaker or "").strip().lower() in ASSISTANT_SPEAKERS


def self_name(doc: Doc) -> str | None:
    """The name the speaker gives themself in ``doc``: "my name is Priya", "my name's Kofi",
    "I'm Tomasz" (a proper name right after), "call me Sam", "I prefer to be called Alex", "I go
    by Sam"; None when there is none."""
    said = _MY_NAME.search(doc.text)
    if said is not None:  # "My name's Kofi and ..." (parsed as a possessive)
        tok = next((t for t in doc if t.idx == said.start(1)), None)
        if tok is not None and _name_like(tok):
            words = [tok]
            while words[-1].i + 1 < len(doc) and _name_like(doc[words[-1].i + 1]):
                words.append(doc[words[-1].i + 1])
            return " ".join(t.text for t in words)
    for tok in doc:
        low = tok.lower_
        if low == "name" and any(c.dep_ == "poss" and c.lower_ == "my" for c in tok.children):
            verb = tok.head
            if verb.lemma_ == "be" and tok.dep_ in ("nsubj", "nsubjpass"):
                attr = next((c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd")),
                            None)
                if attr is not None and _name_like(attr):
                    return _full_name(attr)
        if tok.lemma_ == "call" and tok.tag_ == "VB" and tok.i == tok.sent.start:
            kids = list(tok.children)
            if any(c.lower_ == "me" for c in kids):
                name = next((c for c in kids if c.dep_ in ("oprd", "dobj", "attr", "xcomp",
                                                            "ccomp") and _name_like(c)), None)
                if name is None:
                    name = next((t for t in doc[tok.i + 2:tok.i + 3] if _name_like(t)), None)
                if name is not None:
                    return _full_name(name)
        if tok.lemma_ == "be" and any(c.dep_ == "nsubj" and c.lower_ == "i"
                                      for c in tok.children):
            attr = next((c for c in tok.children if c.dep_ == "attr"), None)
            if attr is not None and attr.tag_ == "NNP" and _name_like(attr) and (
                    attr.ent_type_ in ("PERSON", "") and not any(
                        c.dep_ in ("det", "poss", "prep") for c in attr.children)):
                return _full_name(attr)
    return None


_MY_NAME = re.compile(r"\b(?:[Mm]y name(?:'s| is)|I (?:prefer|like|want) to be called|I go by|"
                      r"(?:[Ee]veryone|[Pp]eople|[Ff]riends) call me|[Pp]lease call me)\s+"
                      r"([A-Z][\w-]*)")


def _name_like(tok: Token) -> bool:
    return (tok.pos_ == "PROPN" or tok.ent_type_ == "PERSON") and tok.text[:1].isupper() and (
        tok.lower_ not in _NOT_NAMES) and tok.is_alpha


def _full_name(tok: Token) -> str:
    parts = [c for c in tok.children if c.dep_ in ("compound", "flat") and c.i < tok.i]
    parts.append(tok)
    return " ".join(t.text for t in sorted(parts, key=lambda t: t.i))
