"""Plans: PLANS from plan/want/hope/intend/think about (a destination or an activity's verb
phrase), with the planned date in ``attributes["planned_for"]``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ...temporal import resolve_time
from ..context import Context
from ..entities import ent_type
from ..flags import Flags
from ..mentions import subjects
from ..phrases import noun_phrase, verb_phrase
from ..tree import child, pobj, preps

if TYPE_CHECKING:
    from spacy.tokens import Token


def plan(c: Context, v: Token) -> None:
    """"I plan to learn Spanish", "I'm thinking about a trip to Japan", "I want to run a marathon":
    PLANS."""
    lemma = v.lemma_.lower()
    if lemma == "think" and not (preps(v, ("about", "of"))):
        return
    if lemma in ("look",) and not preps(v, ("forward",)):
        return
    if lemma in ("like", "love") and not any(ch.lower_ in ("would", "'d") for ch in v.children):
        return
    f = c.flags(v)
    if f.hypothetical or f.neg:
        return
    if (v.tag_ == "VBD" or f.past) and not f.perfect and lemma != "decide":
        return  # "we planned to ...", "I just wanted to ...": not a current plan
    auxes = [ch.lower_ for ch in v.children if ch.dep_ == "aux"]
    if "been" in auxes and any(a in ("had", "'d") for a in auxes):
        return  # "I'd been wanting to try yoga ... and finally took the plunge": done
    subs, dropped = subjects(c, v)
    if not subs:
        return
    comps: list[Token] = []
    x = child(v, "xcomp")
    if x is not None:
        comps.append(x)
    for prep, o in preps(v, ("about", "of", "on", "to")):
        if o.pos_ in ("VERB",):
            comps.append(o)
        elif o.lemma_.lower() in L.TRIP_NOUNS:
            comps.append(o)
    dobj = child(v, "dobj")
    if dobj is not None and dobj.lemma_.lower() in L.TRIP_NOUNS:
        comps.append(dobj)
    planned = planned_time(c, v, comps)
    strict = lemma in ("want", "hope", "wish", "love", "like", "aim", "try", "dream")
    for comp in comps:
        obj = plan_object(c, comp, strict=strict)
        if obj is None:
            continue
        text, tok = obj
        for s in subs:
            c.emit(s, "PLANS", text, v, rule=f"plan_{lemma}", timed=False, allow_in_plan=True,
                   tokens=[tok], confidence=0.75 - 0.15 * dropped,
                   attributes={"planned_for": planned} if planned else None)


def planned_time(c: Context, v: Token, comps: list[Token]) -> str | None:
    """When the plan is for (its clause's time, read towards the future), as ISO text."""
    hit = c.time_for(v, Flags(future=True), extra=comps)
    if hit is None:
        return None
    rt, text = hit
    fut = resolve_time(text, c.ref, prefer="future") or rt
    return fut.start.isoformat()


def plan_object(c: Context, comp: Token, strict: bool = False) -> tuple[str, Any] | None:
    """What a plan is about: a destination, or the complement's verb phrase.

    ``strict`` (want / hope / would love / wish) accepts only activity verbs; any plan is
    dropped when it is conversational ("check it out", "tell you more") or its phrase
    points back into the conversation (it, them, you, your)."""
    lemma = comp.lemma_.lower()
    if comp.pos_ in ("NOUN", "PROPN") and lemma in L.TRIP_NOUNS:
        for prep, o in preps(comp, ("to", "in", "around", "through")):
            if o.pos_ in ("PROPN",) or ent_type(o) in ("GPE", "LOC"):
                return noun_phrase(c, o), o
        return None
    if comp.pos_ not in ("VERB", "AUX"):
        return None
    if lemma in L.TRAVEL_VERBS:
        dobj = child(comp, "dobj")
        if dobj is not None and (dobj.pos_ == "PROPN" or ent_type(dobj) in ("GPE", "LOC")):
            return noun_phrase(c, dobj), dobj
        for prep, o in preps(comp, ("to", "into")):
            if o.pos_ == "PROPN" or ent_type(o) in ("GPE", "LOC"):
                return noun_phrase(c, o), o
        back = child(comp, ("advmod", "prt"), "back")
        if back is not None:
            for prep, o in preps(back, ("to",)):
                return noun_phrase(c, o), o
    if lemma in L.CONVERSATIONAL_VERBS:
        return None
    if strict and lemma not in L.PLAN_ACTIVITY_VERBS:
        return None
    sub = [t for t in comp.subtree if t.i != comp.i]
    if any(t.lower_ in ("it", "them", "that", "this", "you", "your", "yours", "these",
                        "those", "him", "her", "us") and t.dep_ not in ("det",) for t in sub):
        return None
    if lemma in ("make", "get", "take", "try", "go", "do", "have", "start", "see", "join",
                 "work") and not [
        t for t in comp.children if t.dep_ in ("dobj", "prep", "xcomp", "ccomp", "attr",
                                               "acomp", "oprd")
        and not (t.dep_ == "prep" and ((p := pobj(t)) is None or p.lower_ == "future"))
    ]:
        return None  # "join in", "work in the future"
    dobj = child(comp, "dobj")
    if lemma in ("take", "have", "get", "give", "make", "grab") and dobj is not None and (
        dobj.lemma_.lower() in L.LIGHT_PLAN_OBJECTS
        or any(t.lower_ in ("there", "here") for t in comp.children)
    ):
        return None  # "I'd love to take a look", "take the dogs there"
    text = verb_phrase(c, comp)
    if not text or len(text.split()) > 8 or len(text.split()) < 1:
        return None
    if len(text.split()) == 1 and lemma not in L.SINGLE_WORD_PLANS:
        return None
    return text, comp
