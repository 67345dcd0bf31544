"""Who owns or operates an organisation (or a thing an organisation holds: a railway line, a
ship, a painting), told in narrative prose (documents only):

* "British Midland acquired Kestrel in 1999", "Lufthansa bought out the other shareholdings"
  (not a company), "Deutsche Flugdienst took over its rival Condor-Luftreederei";
* "In 1987 Kestrel was bought by Bristol Holdings", "the line was sold to X", "a channel
  owned by X", "Built and operated by the Norwegian State Railways";

give ``OWNS`` (the owner is the subject) or, for operating, ``RUNS``, dated by the clause.
Both sides must be organisations the text names (a proper name, or "the company" the
discourse layer resolved); the thing owned may also be the document's subject. A clause
that is announced, planned, wished or asked states nothing (the discourse layer drops it:
"agreed to acquire", "would acquire").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..entities import ent_type
from ..mentions import Mention
from ..tree import child, preps
from .careers import full_org_name, is_org, org_name

if TYPE_CHECKING:
    from spacy.tokens import Token

    from ..context import Context

_BUY = frozenset({"acquire", "buy", "purchase"})
_OWN = frozenset({"own", "acquire", "buy", "purchase", "operate", "control", "run"})
_RUNS = frozenset({"operate", "run"})


def ownership(c: Context, v: Token) -> None:
    """OWNS / RUNS from verb ``v`` (see the module docstring)."""
    if not c.narrative or c.flags(v).neg:
        return
    lemma = v.lemma_.lower()
    passive = any(ch.dep_ in ("auxpass", "nsubjpass") for ch in v.children) or (
        v.dep_ == "acl" and v.tag_ == "VBN")
    if passive:
        _passive(c, v, lemma)
    elif lemma in _BUY or (lemma == "take" and _particle(v, "over")):
        _active(c, v, lemma)


def _particle(v: Token, word: str) -> bool:
    return any(ch.dep_ == "prt" and ch.lower_ == word for ch in v.children)


def _active(c: Context, v: Token, lemma: str) -> None:
    obj = child(v, "dobj")
    if obj is None or not is_org(c, obj):
        return
    for owner in _owners(c, [ch for ch in v.children if ch.dep_ == "nsubj"]):
        _emit(c, owner, "OWNS", full_org_name(c, org_name(c, obj)), v, lemma, obj)


def _passive(c: Context, v: Token, lemma: str) -> None:
    if v.dep_ == "acl" and v.tag_ == "VBN":
        owned = [v.head]  # "a channel owned by X"
    else:
        owned = [ch for ch in v.children if ch.dep_ == "nsubjpass"]
        if not owned and v.dep_ == "conj":  # "Built and operated by X": the head's subject
            owned = [ch for ch in v.head.children if ch.dep_ == "nsubjpass"]
    if lemma == "sell":
        owners = [o for _p, o in preps(v, ("to",))]
    elif lemma in _OWN or (lemma == "take" and _particle(v, "over")):
        owners = [o for _p, o in preps(v, ("by",))]
        if not owners and v.dep_ == "conj":
            owners = [o for _p, o in preps(v.head, ("by",))]
    else:
        return
    pred = "RUNS" if lemma in _RUNS else "OWNS"
    for thing in owned:
        name = _owned_name(c, thing)
        if name is None:
            continue
        # the document's subject (a painting, a building) may be owned by a person too
        for owner in _owners(c, owners, people=name == c.title):
            _emit(c, owner, pred, name, v, lemma, thing)


def _owned_name(c: Context, tok: Token) -> str | None:
    """What is owned: an organisation, or the document's subject named by its title."""
    if is_org(c, tok):
        return full_org_name(c, org_name(c, tok)) or None
    if c.title and (tok.pos_ == "PROPN" and tok.text in c.title.split() or (
            tok.pos_ == "NOUN" and tok.lower_ in c.title_nouns and any(
                ch.dep_ == "det" and ch.lower_ == "the" for ch in tok.children))):
        return c.title  # "the line" in the article "Numedal Line"
    return None


def _owners(c: Context, toks: list[Token], people: bool = False) -> list[Mention]:
    out = []
    for t in toks:
        for o in [t, *(ch for ch in t.children if ch.dep_ == "conj")]:
            if o.lower_ in ("it", "they"):
                continue
            if people and o.pos_ == "PROPN" and ent_type(o) == "PERSON":
                out += [m for m in c.resolve(o)[:1] if m.label == "PERSON"]
            elif is_org(c, o) or _compound_name(o):
                name = full_org_name(c, org_name(c, o))
                if name:
                    out.append(Mention(name, label="ORG", token=o))
    return out


def _compound_name(tok: Token) -> bool:
    """"British Midland": a name of two or more proper nouns the tagger took for a place."""
    return tok.pos_ == "PROPN" and tok.ent_type_ in ("GPE", "NORP", "LOC") and any(
        ch.dep_ == "compound" and ch.pos_ == "PROPN" for ch in tok.children)


def _emit(c: Context, owner: Mention, pred: str, name: str, v: Token, lemma: str,
          tok: Token) -> None:
    if owner.text.lower() == name.lower():
        return
    c.emit(owner, pred, name, v, rule=f"ownership_{lemma}", tokens=[tok], confidence=0.75)
