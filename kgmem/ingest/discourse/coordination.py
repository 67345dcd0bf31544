"""Coordination read from the surface: "Pepper, Precious and Panda" is three names whatever
the parser made of it (the small model hangs such lists as appositions, adjectives and
conjuncts in turn), so each gives its own fact."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["names_listed", "first_of_list"]

_NOT_NAMES = frozenset({"i", "i'm", "my", "we", "our", "the", "a", "an"})


def _name(tok: Token) -> bool:
    return tok.is_alpha and tok.text[:1].isupper() and tok.lower_ not in _NOT_NAMES and (
        tok.ent_type_ not in ("DATE", "TIME", "GPE", "LOC", "ORG") or tok.pos_ == "PROPN")


def _name_end(tok: Token) -> int:
    """The index after a name that may run over several tokens ("Mary Jane")."""
    doc, j = tok.doc, tok.i + 1
    while j < len(doc) and _name(doc[j]) and doc[j].pos_ == "PROPN" and doc[j].ent_iob_ == "I":
        j += 1
    return j


def names_listed(first: Token) -> list[Token]:
    """``first`` and the names listed after it ("Pepper, Precious and Panda", "Ana & Eva"):
    capitalised words joined by commas, then "and", "or" or "&" before the last one. A
    name of several words is given by its first token."""
    doc = first.doc
    out = [first]
    j = _name_end(first)
    while j < len(doc):
        k, closing = j, False
        while k < len(doc) and doc[k].lower_ in (",", "and", "or", "&"):
            closing = closing or doc[k].lower_ != ","
            k += 1
        if k == j or k >= len(doc) or not _name(doc[k]):
            break
        out.append(doc[k])
        j = _name_end(doc[k])
        if closing:
            break
    return out


def first_of_list(tok: Token) -> Token:
    """The first name of a list ``tok`` is a later member of ("Precious" in "Pepper, Precious
    and Panda are my cats" -> "Pepper")."""
    doc, cur = tok.doc, tok
    while cur.i >= 2 and doc[cur.i - 1].lower_ in (",", "and", "&") and _name(doc[cur.i - 2]):
        cur = doc[cur.i - 2]
    return cur
