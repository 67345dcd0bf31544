"""Relationships and family: MARRIED_TO, DATING (and their ends) from marry/divorce/date/see/
break up, and possessive relation nouns ("my sister Sarah", "my ex-husband Carl", "my dog
Rex")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ...facts import ANY_OBJECT
from ...discourse.coordination import names_listed
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..tree import child, governor, preps
from .pets import unnamed_pet

if TYPE_CHECKING:
    from spacy.tokens import Token


def pair_relation(c: Context, v: Token, subj_tok: Token, pred: str, kind: str, rule: str,
                  obj_tok: Token | None = None) -> None:
    """A symmetric relation from "A and B <verb>" or "A <verb> (with) B"."""
    subs = c.resolve(subj_tok)
    if obj_tok is not None:
        others = c.resolve(obj_tok)
        if not others and obj_tok.lower_ in ("someone", "somebody", "guy", "girl", "man",
                                             "woman", "person"):
            return
        for s in subs[:1]:
            for o in others:
                c.emit(s, pred, o.text, v, kind=kind, rule=rule, tokens=[obj_tok])
        return
    if len(subs) >= 2:
        speaker = [s for s in subs if s.speaker]
        rest = [s for s in subs if not s.speaker]
        a = speaker[0] if speaker else rest.pop(0)
        for b in rest:
            c.emit(a, pred, b.text, v, kind=kind, rule=rule, tokens=[b.token])
        return
    if len(subs) == 1 and kind == "end" and subj_tok.lower_ in ("we", "us"):
        c.emit(subs[0], pred, ANY_OBJECT, v, kind=kind, confidence=0.6, rule=rule + "_any")


def marry(c: Context, v: Token, subs_override: list[Mention] | None = None) -> None:
    """"I married Tom in 2015", "Sam and I got married", "I'm married to Tom": MARRIED_TO.

    ``subs_override``: the subject the caller (the copula) resolved, for a clause without a
    subject token of its own ("... and am married to Tom", "Been married to Sam")."""
    obj = child(v, "dobj")
    if obj is None:
        for prep, o in preps(v, ("to",)):
            obj = o
    head = v
    anchor = v.head if v.dep_ in ("acomp", "xcomp", "oprd", "ccomp") and (
        c.clauses.own(v) is None) else v  # "married X in 1994 ; they divorced in 2009"
    subj_tok = child(v, ("nsubj", "nsubjpass"))
    if subj_tok is None and v.dep_ in ("acomp", "xcomp", "oprd") and v.head is not v:
        head = v.head
        subj_tok = child(head, ("nsubj", "nsubjpass"))
    if subj_tok is None:
        subs = subs_override if subs_override is not None else subjects(c, v)[0]
        if obj is not None and subs:
            for who in c.resolve(obj):
                c.emit(subs[0], "MARRIED_TO", who.text, anchor, rule="marry", tokens=[obj])
        return
    if obj is not None and obj.lower_ not in ("me", "us"):
        if not (obj.pos_ == "PROPN" or ent_type(obj) == "PERSON" or c.rel_name(obj) is not None
                or obj.lower_ in L.THIRD_PERSON_PRONOUNS):
            return
        pair_relation(c, anchor, subj_tok, "MARRIED_TO", "assert", "marry", obj_tok=obj)
    else:
        pair_relation(c, anchor, subj_tok, "MARRIED_TO", "assert", "married_pair")


def divorce(c: Context, v: Token, subs_override: list[Mention] | None = None) -> None:
    """"I divorced Mark", "we got divorced in 2019": MARRIED_TO ends (``subs_override`` as for
    :func:`marry`)."""
    obj = child(v, "dobj")
    if obj is None:
        for prep, o in preps(v, ("from",)):
            obj = o
    subj_tok = child(v, ("nsubj", "nsubjpass"))
    anchor = v.head if v.dep_ in ("acomp", "xcomp", "oprd", "ccomp") and (
        c.clauses.own(v) is None) else v  # "married X in 1994 ; they divorced in 2009"
    if subj_tok is None and v.head is not v:
        subj_tok = child(v.head, ("nsubj", "nsubjpass"))
    if subj_tok is None:
        if obj is not None and subs_override:
            for who in c.resolve(obj):
                c.emit(subs_override[0], "MARRIED_TO", who.text, anchor, kind="end",
                       rule="divorce", tokens=[obj])
        return
    pair_relation(c, anchor, subj_tok, "MARRIED_TO", "end", "divorce", obj_tok=obj)


def date(c: Context, v: Token) -> None:
    """"I'm dating Alex", "Sam and I started dating in 2021": DATING."""
    obj = child(v, "dobj")
    subj_tok = child(v, ("nsubj", "nsubjpass"))
    if obj is None:
        # "Sam and I started dating in 2021"
        if subj_tok is None and v.dep_ == "xcomp":
            subj_tok = child(v.head, ("nsubj", "nsubjpass"))
        if subj_tok is not None and v.tag_ in ("VBG", "VBD", "VBN"):
            pair_relation(c, v, subj_tok, "DATING", "assert", "dating_pair")
        return
    target = c.rel_name(obj) or obj
    if not (target.pos_ == "PROPN" or ent_type(target) == "PERSON"):
        return
    if subj_tok is None:
        subs, _ = subjects(c, v)
        for s in subs[:1]:
            for o in c.resolve(target):
                c.emit(s, "DATING", o.text, v, rule="date", tokens=[target])
        return
    pair_relation(c, v, subj_tok, "DATING", "assert", "date", obj_tok=target)


def see(c: Context, v: Token) -> None:
    """"I've been seeing Eli", "I started seeing Rachel": DATING."""
    progressive = v.tag_ == "VBG"
    if not progressive:
        return
    obj = child(v, "dobj")
    if obj is None:
        return
    target = c.rel_name(obj) or obj
    if not (target.pos_ == "PROPN" or ent_type(target) == "PERSON"):
        return
    subs, _ = subjects(c, v)
    for s in subs[:1]:
        for o in c.resolve(target):
            c.emit(s, "DATING", o.text, v, rule="seeing", tokens=[target])


def break_up(c: Context, v: Token) -> None:
    """"I broke up with Sam", "we broke up" (whoever it was): DATING ends."""
    if not child(v, ("prt", "advmod", "prep"), "up"):
        return
    subj_tok = child(v, "nsubj")
    obj = None
    for prep, o in preps(v, ("with",)):
        obj = o
    if obj is None:
        up = child(v, ("prep",), "up")
        if up is not None:
            for prep, o in preps(up, ("with",)):
                obj = o
    if subj_tok is None:
        subs, _ = subjects(c, v)
        if subs and obj is not None:
            for who in c.resolve(obj):
                c.emit(subs[0], "DATING", who.text, v, kind="end", rule="break_up")
        return
    pair_relation(c, v, subj_tok, "DATING", "end", "break_up", obj_tok=obj)


def relation_noun(c: Context, noun: Token) -> None:
    """A possessive relation or pet noun: "my sister Sarah" (SIBLING_OF), "my ex-husband Carl"
    (ended), "my dog Rex" (HAS_PET)."""
    lemma = noun.lemma_.lower()
    owner = c.owner_of(noun)
    if owner is None:
        return
    gov = governor(noun)
    # "Tom is my manager" / "My manager is Tom" are handled by the copula
    if gov is not None and gov.lemma_ == "be" and noun.dep_ in ("attr", "nsubj") and (
        child(gov, "attr") is not None and child(gov, "nsubj") is not None
    ):
        other = child(gov, "attr") if noun.dep_ == "nsubj" else child(gov, "nsubj")
        if other is not None and other.pos_ == "PROPN" and c.rel_name(noun) is None:
            return
    name = c.rel_name(noun)
    prev1 = noun.doc[noun.i - 1].lower_ if noun.i > 0 else ""
    prev2 = noun.doc[noun.i - 2].lower_ if noun.i > 1 else ""
    ended = any(ch.lower_ in L.ENDED_RELATION_MODIFIERS for ch in noun.children) or (
        prev1 in ("ex", "ex-", "former", "late") or (prev1 == "-" and prev2 == "ex")
    ) or noun.lower_.startswith("ex-")
    if lemma in L.PET_NOUNS and lemma not in L.RELATION_NOUNS:
        role_tok = noun.head if noun.dep_ == "compound" else noun
        if gov is not None and gov.lemma_.lower() in L.PET_END_VERBS and role_tok.dep_ in (
            "nsubj", "nsubjpass"
        ):
            return  # pet_end covers it
        if gov is not None and gov.lemma_ == "have" and noun.dep_ == "dobj" and c.flags(gov).neg:
            return
        if gov is not None and role_tok.dep_ == "dobj" and (
            gov.lemma_.lower() in L.PET_END_VERBS or (
                gov.lemma_.lower() in ("put", "give") and child(gov, ("prt", "advmod"),
                                                                ("down", "away", "up")))
        ):
            return  # pet_away covers it
        names = _listed(name)
        unnamed = unnamed_pet(c, noun) if not names and noun.dep_ in (
            "nsubj", "dobj", "pobj") else None
        objs = [(c.name_of(n), n) for n in names] or ([(unnamed, noun)] if unnamed else [])
        for o, tok in objs:
            c.emit(owner, "HAS_PET", o, None, rule="my_pet", timed=False,
                   confidence=0.85 if names else 0.6, tokens=[noun, tok])
        return
    if name is None:
        return
    pred, _direction = L.RELATION_NOUNS.get(lemma, ("RELATED_TO", "out"))
    if any(ch.dep_ == "amod" and ch.lower_ in ("furry", "four-legged", "feathered", "scaly")
           for ch in noun.children):
        pred = "HAS_PET"  # "my furry friend Daisy"
    n = c.name_of(name)
    c.note_person(name, n)
    c.emit(owner, pred, n, None, kind="end" if ended else "assert", rule="my_relation",
           timed=False, confidence=0.9, tokens=[noun, name])
    for extra in _listed(name)[1:]:
        c.emit(owner, pred, c.name_of(extra), None, kind="end" if ended else "assert",
               rule="my_relation", timed=False, confidence=0.8, tokens=[extra])


def _listed(name: Token | None) -> list[Token]:
    """The name and the ones coordinated with it, by the parse ("conj") and by the surface
    ("my dogs Pepper, Precious and Panda")."""
    if name is None:
        return []
    seen = {name.i: name}
    for x in [*(x for x in name.conjuncts if x.i > name.i and x.pos_ == "PROPN"),
              *names_listed(name)[1:]]:
        seen.setdefault(x.i, x)
    return [seen[i] for i in sorted(seen)]
