"""Preferences: LIKES / DISLIKES from love/like/enjoy/hate..., "obsessed with", "can't
stand"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..mentions import subjects
from ..objects import pref_object_ok
from ..phrases import noun_phrase, verb_phrase
from ..tree import child, coord, preps
from .plans import plan

if TYPE_CHECKING:
    from spacy.tokens import Token


def like(c: Context, v: Token) -> None:
    """"I love hiking", "I hate country music", "I enjoy cooking Thai food": LIKES / DISLIKES ("I'd
    love to" is a plan)."""
    lemma = v.lemma_.lower()
    if any(ch.lower_ in ("would", "'d") for ch in v.children):
        plan(c, v)  # "I'd love to visit Iceland" is a plan
        return
    if v.dep_ in ("xcomp",) and v.head.lemma_.lower() in ("seem", "look", "feel", "sound"):
        return
    subs, dropped = subjects(c, v)
    if not subs:
        return
    pred = "LIKES" if lemma in L.LIKE_VERBS else "DISLIKES"
    flip = "DISLIKES" if pred == "LIKES" else "LIKES"
    fl = c.flags(v)
    if fl.future or fl.modal:
        return  # "I'll enjoy writing them": not a standing preference
    if v.tag_ == "VBD" and not fl.perfect and not fl.neg:
        return  # "I loved just chilling there": one past occasion
    targets: list[tuple[str, Any, bool]] = []
    dobj = child(v, "dobj")
    if dobj is not None:
        if dobj.pos_ == "PRON" or dobj.lower_ in L.NOT_LIKES or not pref_object_ok(dobj):
            return
        if c.owner_of(dobj) is not None and (
            dobj.lemma_.lower() in L.RELATION_NOUNS or dobj.lemma_.lower() in L.PET_NOUNS
        ):
            return
        for obj, negated in coord(dobj):
            if obj is dobj or pref_object_ok(obj):
                targets.append((noun_phrase(c, obj), obj, negated))
    else:
        x = child(v, ("xcomp", "ccomp"))
        if x is not None and (x.tag_ == "VBG" or (x.tag_ == "VB" and child(x, "aux", "to"))):
            light = x.lemma_.lower() in ("make", "do", "get", "have", "take", "go", "be") and not [
                t for t in x.children if t.dep_ in ("dobj", "prep", "xcomp", "attr")]
            if light or x.lemma_.lower() in L.CONVERSATIONAL_VERBS or any(
                t.lower_ in ("it", "them", "you", "your", "this", "that", "these", "those")
                for t in x.subtree if t.i != x.i
            ):
                return
            targets.append((verb_phrase(c, x), x, False))
    for text, tok, negated in targets:
        for s in subs:
            c.emit(s, pred, text, v, flip=flip, kind="retract" if negated else "assert",
                   confidence=0.8 - 0.15 * dropped, rule=f"{lemma}_obj", timed=False,
                   tokens=[tok])


def like_adj(c: Context, v: Token) -> None:
    """"I'm obsessed with X" parsed as a passive verb."""
    low = v.lower_
    if low not in L.LIKE_ADJ:
        return
    subs, _ = subjects(c, v)
    for prep, o in preps(v, (L.LIKE_ADJ[low], "with", "on", "to")):
        for obj, _neg in coord(o):
            if obj.pos_ == "PRON" or not pref_object_ok(obj):
                continue
            for s in subs:
                c.emit(s, "LIKES", noun_phrase(c, obj), v, flip="DISLIKES", rule=f"{low}_prep",
                       tokens=[obj], timed=False)


def stand(c: Context, v: Token) -> None:
    """"I can't stand country music": DISLIKES."""
    if not child(v, "neg"):
        return
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    if dobj is None:  # "I can't stand cilantro" with the object tagged an adverb
        dobj = next((ch for ch in v.rights if ch.dep_ in ("advmod", "acomp", "oprd")
                     and ch.pos_ in ("ADJ", "NOUN", "PROPN") and ch.i == v.i + 1
                     and ch.lower_ not in L.NOT_LIKES and not ch.lower_.endswith("ly")), None)
    if dobj is None or dobj.pos_ == "PRON":
        return
    for s in subs:
        c.emit(s, "DISLIKES", noun_phrase(c, dobj), v, negatable=False, rule="cant_stand",
               timed=False, tokens=[dobj])
