"""Personal traits: SPEAKS (languages), HAS_HOBBY (play), AGE (turned N), MEMBER_OF (belong
to)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import subjects
from ..phrases import noun_phrase, num_text
from ..tree import child, children, coord, preps

if TYPE_CHECKING:
    from spacy.tokens import Token


def speak(c: Context, v: Token) -> None:
    """"I speak Spanish and a bit of French": SPEAKS."""
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    if dobj is None:
        return
    if dobj.lemma_.lower() in ("bit", "little", "some", "lot", "word") :
        inner = [o for _p, o in preps(dobj, ("of",))]
        if not inner:
            return
        dobj = inner[0]
    for obj, _neg in coord(dobj):
        if ent_type(obj) in ("NORP", "LANGUAGE") or obj.lower_ in L.LANGUAGES:
            for s in subs:
                c.emit(s, "SPEAKS", noun_phrase(c, obj, drop_amod=True), v, rule="speak",
                       timed=False, tokens=[obj])


def play(c: Context, v: Token) -> None:
    """"I play guitar": HAS_HOBBY (not a past occasion, not a person or team)."""
    if v.dep_ in ("xcomp", "ccomp", "pcomp") and v.head.lemma_.lower() in (
        L.LIKE_VERBS | L.DISLIKE_VERBS | L.PLAN_VERBS
    ):
        return
    f = c.flags(v)
    if f.past and not f.perfect:
        return
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    if dobj is None or dobj.pos_ == "PRON" or dobj.lemma_.lower() in L.NOT_HOBBIES:
        return
    if ent_type(dobj) in ("PERSON", "ORG") and dobj.pos_ == "PROPN":
        return
    for obj, _neg in coord(dobj):
        for s in subs:
            c.emit(s, "HAS_HOBBY", noun_phrase(c, obj, drop_amod=True), v, rule="play",
                   timed=False, tokens=[obj], confidence=0.7)


def turn(c: Context, v: Token) -> None:
    """"I just turned 30": AGE."""
    subs, _ = subjects(c, v)
    for o in children(v, ("dobj", "attr", "oprd", "npadvmod")):
        if o.like_num:
            for s in subs:
                c.emit(s, "AGE", num_text(o), v, rule="turned", timed=True,
                       tokens=[o])


def belong(c: Context, v: Token) -> None:
    """"I belong to a book club": MEMBER_OF."""
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("to",)):
        if o.lemma_.lower() in L.CLUB_NOUNS or ent_type(o) == "ORG":
            for s in subs:
                c.emit(s, "MEMBER_OF", noun_phrase(c, o), v, rule="belong_to", tokens=[o])
