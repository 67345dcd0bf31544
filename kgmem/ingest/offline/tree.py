"""Dependency-tree helpers over spaCy tokens: children by relation, prepositional objects,
coordination, the governing verb of a token, and token spans as text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token


def governor(tok: Token) -> Token | None:
    """The nearest verb at or above ``tok`` (not an auxiliary, not "named"/"called")."""
    cur = tok
    for _ in range(12):
        if cur.pos_ in ("VERB", "AUX") and cur.dep_ not in ("aux", "auxpass") and not (
            cur.dep_ == "acl" and cur.lemma_ in ("name", "call")
        ):
            return cur
        if cur.head is cur:
            return cur
        cur = cur.head
    return None


def verb_group(verb: Token) -> list[Token]:
    """The verb plus its xcomp chain up and down ("started working", "stopped using")."""
    group = [verb]
    cur = verb
    while cur.dep_ in ("xcomp",) and cur.head is not cur:
        cur = cur.head
        group.append(cur)
    stack = [verb]
    while stack:
        v = stack.pop()
        for c in v.children:
            if c.dep_ == "xcomp" and c not in group:
                group.append(c)
                stack.append(c)
    return group


def join_tokens(tokens: Iterable[Token]) -> str:
    """The tokens in text order, with their own spacing where adjacent (one space otherwise)."""
    toks = sorted({t.i: t for t in tokens}.values(), key=lambda t: t.i)
    if not toks:
        return ""
    parts = []
    for a, b in zip(toks, toks[1:] + [None]):
        parts.append(a.text)
        if b is not None:
            parts.append(a.whitespace_ if b.i == a.i + 1 else " ")
    return "".join(parts).strip()


def children(tok: Token, dep: str | tuple[str, ...]) -> list[Token]:
    """The children of ``tok`` attached by one of the relations ``dep``."""
    deps = (dep,) if isinstance(dep, str) else dep
    return [c for c in tok.children if c.dep_ in deps]


def child(tok: Token, dep: str | tuple[str, ...], lower: str | tuple[str, ...] | None = None
          ) -> Token | None:
    """The first child attached by ``dep`` (and, if given, whose lower-cased text is in
    ``lower``)."""
    lowers = (lower,) if isinstance(lower, str) else lower
    for c in tok.children:
        if c.dep_ in ((dep,) if isinstance(dep, str) else dep) and (
            lowers is None or c.lower_ in lowers
        ):
            return c
    return None


def pobj(prep: Token) -> Token | None:
    """The object of a preposition."""
    for c in prep.children:
        if c.dep_ in ("pobj", "pcomp"):
            return c
    # "out of Boston": out -> of -> Boston
    for c in prep.children:
        if c.dep_ == "prep":
            return pobj(c)
    return None


def preps(tok: Token, words: Iterable[str]) -> list[tuple[Token, Token]]:
    """``(preposition, object)`` pairs under ``tok`` for the prepositions ``words``."""
    ws = set(words)
    out = []
    for c in tok.children:
        if c.dep_ in ("prep", "agent", "dative") and c.lower_ in ws:
            o = pobj(c)
            if o is not None:
                out.append((c, o))
    return out


def coord(tok: Token) -> Iterator[tuple[Token, bool]]:
    """tok and its conjuncts; an appos/conj introduced by "not" is yielded as negated.

    A plain apposition ("Portland, Oregon") is not a second object, but a negated one further
    down ("Portland, Oregon, not Maine") is."""
    yield tok, False
    yield from _coord_children(tok, False, 0)


def _coord_children(tok: Token, negated_parent: bool, depth: int) -> Iterator[tuple[Token, bool]]:
    """The conjuncts and appositions under ``tok``, each with whether "not" negates it."""
    if depth > 4:
        return
    neg_positions = [c.i for c in tok.children if c.dep_ == "neg"]
    for c in tok.children:
        if c.dep_ not in ("conj", "appos"):
            continue
        negated = negated_parent or any(tok.i < p < c.i for p in neg_positions) or any(
            cc.dep_ == "neg" for cc in c.children if cc.i < c.i
        )
        if c.dep_ == "appos" and not negated:
            yield from _coord_children(c, False, depth + 1)
            continue
        yield c, negated
        yield from _coord_children(c, negated, depth + 1)


def subtrees(toks: list[Token]) -> list[Token]:
    """Every token under any of ``toks`` (themselves included)."""
    out: list[Token] = []
    for t in toks:
        out.extend(t.subtree)
    return out
