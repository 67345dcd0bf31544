"""Phrases: the text of a noun phrase (an object, a role, a liked thing), of a plan's verb
phrase, and ages in digits."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .. import lexicon as L
from .entities import ENT_KEEP, clean_ent, strip_det
from .mentions import Mentions
from .tree import join_tokens, pobj

if TYPE_CHECKING:
    from spacy.tokens import Token

_NP_DROP = {"det", "punct", "cc", "conj", "appos", "relcl", "acl", "advcl", "prep", "nummod",
            "quantmod", "predet", "preconj", "neg", "aux", "auxpass", "mark", "dep", "advmod",
            "npadvmod", "parataxis", "ccomp", "xcomp", "nsubj", "nsubjpass", "case_"}


def _title_of(head: Token, prep: Token) -> bool:
    """"Lord of the Rings", "Pirates of the Caribbean": a capitalised name whose "of" phrase
    is capitalised too is one title, kept whole."""
    if prep.lower_ != "of" or head.pos_ != "PROPN" or not head.text[:1].isupper():
        return False
    o = next((ch for ch in prep.children if ch.dep_ == "pobj"), None)
    return o is not None and o.pos_ == "PROPN" and o.text[:1].isupper()


def noun_phrase(c: Mentions, tok: Token, keep_preps: Iterable[str] = (), drop_amod: bool = False,
                keep_num: bool = False, drop_poss: bool = False) -> str:
    """The text of the noun phrase headed by ``tok``, as an object is stored: a kept entity
    whole, "a startup called Loomly" -> "Loomly", without determiners, possessives, clauses or
    prepositional phrases (except ``keep_preps``: "University of Michigan"), without time
    words; ``drop_amod`` drops adjectives ("my fluffy cat" -> "cat"), ``keep_num`` keeps
    numbers, ``drop_poss`` drops a named possessor too ("Bob's car" -> "car", when Bob is the
    owner)."""
    for ch in tok.children:  # "a startup called Loomly" -> "Loomly"
        if ch.dep_ == "acl" and ch.lemma_ in ("name", "call"):
            for cc in ch.children:
                if cc.dep_ in ("oprd", "dobj", "attr", "xcomp") and cc.pos_ == "PROPN":
                    return c.name_of(cc)
    ent = c.ent_of.get(tok.i)
    if ent is not None and not (ent.label_ in ENT_KEEP and clean_ent(ent)):
        ent = None  # only a kept entity is taken whole
    keep = set(keep_preps)
    toks: list[Token] = []

    def collect(t: Any, top: bool) -> None:
        if t.i in c.time_tokens and not top:
            return
        toks.append(t)
        for ch in t.children:
            dep = ch.dep_
            if ent is not None and ch.i in range(ent.start, ent.end):
                if dep not in ("cc", "conj", "appos"):
                    collect(ch, False)
                continue
            if ch.i == t.i - 2 and t.doc[t.i - 1].text == "-" and ch.pos_ in ("NOUN", "ADJ",
                                                                               "ADV"):
                collect(ch, False)  # "dairy-free", "emotionally-driven": the word before "-"
                continue
            if dep == "prep" and _title_of(t, ch):  # "Lord of the Rings", whole
                toks.extend(w for w in ch.subtree if w.i not in c.time_tokens)
                continue
            if dep == "prep" and ch.lower_ in keep:
                o = pobj(ch)
                if o is not None:
                    toks.append(ch)
                    collect(o, False)
                continue
            if dep == "poss" and drop_poss:
                continue
            if dep == "poss" and ch.lower_ in L.DETERMINERS | {"my", "our", "your", "his",
                                                               "her", "their", "its"}:
                continue
            if dep == "amod" and drop_amod:
                continue
            if dep == "nummod" and keep_num:
                collect(ch, False)
                continue
            if dep == "advmod" and t.pos_ == "ADJ":
                continue
            if dep == "punct" and ch.text in ("-", "'", "&", ".") and abs(ch.i - t.i) == 1:
                toks.append(ch)
                continue
            if dep == "advmod" and not top and t.dep_ in ("nmod", "compound") and (
                    ch.i == t.i + 1):
                toks.append(ch)  # "the study abroad program"
                continue
            if dep in _NP_DROP:
                continue
            if dep == "dobj" and t.pos_ != "VERB":
                continue
            collect(ch, False)

    collect(tok, True)
    if ent is not None:
        toks.extend(t for t in ent if t.lower_ not in ("the",))
    return strip_det(join_tokens(toks))


_REASON_PREPS = frozenset({"because", "due", "thanks", "owing"})


def verb_phrase(c: Mentions, verb: Token) -> str:
    """A plan's verb phrase: "learn Spanish", "run the Boston Marathon"."""
    toks: list[Token] = []

    def collect(t: Any, top: bool) -> None:
        if t.i in c.time_tokens:
            return
        toks.append(t)
        for ch in t.children:
            dep = ch.dep_
            if top and dep in ("aux", "auxpass", "neg", "nsubj", "nsubjpass", "mark", "advmod",
                               "npadvmod", "punct", "cc", "conj", "advcl", "parataxis",
                               "ccomp", "dep", "intj"):
                continue
            if dep == "npadvmod" or (dep == "advmod" and ch.lower_ in L.VAGUE_ADVERBS):
                continue
            if dep in ("punct", "relcl", "advcl", "cc", "conj") and not (
                dep == "punct" and ch.text in ("'", "-")
            ):
                continue
            if dep == "prep" and (ch.i in c.time_tokens or ch.lower_ in _REASON_PREPS):
                continue  # a time, or a reason ("going into policymaking because of my degree")
            if dep == "prep" and ((p := pobj(ch)) is None or p.i in c.time_tokens):
                continue
            collect(ch, False)

    collect(verb, True)
    return strip_det(join_tokens(toks))


def role_text(c: Mentions, tok: Token) -> str:
    """A job title as stored: "a really great senior engineer" -> "senior engineer"."""
    text = noun_phrase(c, tok, keep_preps=("of",))
    words = text.split()
    while len(words) > 1 and words[0].lower() in L.EVALUATIVE_ADJ:
        words = words[1:]
    return " ".join(words)


def num_text(tok: Token) -> str | None:
    """Digits for an age ("34", "five" -> "5"); None unless a plausible age (2..120)."""
    low = tok.lower_
    if low in L.NUMBER_WORDS:
        value = L.NUMBER_WORDS[low]
    elif low.isdigit():
        value = int(low)
    else:
        return None
    return str(value) if 2 <= value <= 120 else None
