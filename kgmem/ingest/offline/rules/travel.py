"""Travel: VISITED from went to/visited/spent time in/came back from, PLANS from "going to
Italy", ATTENDED/STUDIES_AT from "go to <school>"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import subjects
from ..objects import is_school
from ..phrases import noun_phrase
from ..tree import child, coord, preps
from .events import attended, back_from, go_event, is_event, is_visit_place, took_place
from .plans import plan_object

if TYPE_CHECKING:
    from spacy.tokens import Token


def go(c: Context, v: Token) -> None:
    """go to X: VISITED (past), PLANS ("we're going to Italy"), ATTENDED (a school)."""
    f = c.flags(v)
    subs, dropped = subjects(c, v)
    if not subs:
        return
    x = child(v, "xcomp")
    if x is not None and child(x, "aux", "to") and v.tag_ == "VBG" and not f.past:
        # "I'm going to run the Boston Marathon" -> plan
        obj = plan_object(c, x)
        if obj is not None and x.lemma_.lower() not in ("be", "have", "do", "get", "say",
                                                        "need", "try", "make"):
            for s in subs:
                c.emit(s, "PLANS", obj[0], v, rule="going_to", timed=False,
                       allow_in_plan=True, tokens=[obj[1]], confidence=0.7)
        return
    if x is not None and x.tag_ == "VBG" and x.lower_ in L.GO_HOBBIES and not f.past and (
        v.tag_ in ("VBP", "VBZ") and not f.perfect
    ):
        for s in subs:
            c.emit(s, "HAS_HOBBY", x.lower_, v, rule="go_hobby", timed=False, tokens=[x])
        return
    go_event(c, v, subs, dropped)
    for prep, o in preps(v, ("to",)):
        if o.i in c.time_tokens:
            continue  # "the concert we went to last Friday": the parser's object is a time
        if is_event(o) and (v.tag_ == "VBG" or f.future) and not (f.past or f.perfect):
            for s in subs:  # "we're going to a concert on Friday"
                c.emit(s, "PLANS", noun_phrase(c, o), v, rule="going_to_event", timed=False,
                       allow_in_plan=True, tokens=[o], confidence=0.7)
            continue
        if is_school(c, o) and ent_type(o) not in ("GPE", "LOC"):
            pred = "ATTENDED" if (f.past or f.perfect) else "STUDIES_AT"
            for s in subs:
                c.emit(s, pred, noun_phrase(c, o, keep_preps=("of",)), v, rule="go_to_school",
                       tokens=[o])
            continue
        if not (ent_type(o) in ("GPE", "LOC", "FAC") or (o.pos_ == "PROPN" and ent_type(o)
                                                         not in ("PERSON", "ORG"))):
            continue
        if f.past or f.perfect:
            for place, negated in coord(o):  # "went to Turkey and Mexico"
                if negated or not (ent_type(place) in ("GPE", "LOC", "FAC")
                                   or place.pos_ == "PROPN"):
                    continue
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, place), v, rule="went_to",
                           tokens=[place], confidence=0.8)
        elif v.tag_ == "VBG" or f.future:
            for s in subs:
                c.emit(s, "PLANS", noun_phrase(c, o), v, rule="going_to_place", timed=False,
                       allow_in_plan=True, tokens=[o], confidence=0.7)


def visit(c: Context, v: Token) -> None:
    """"I visited Rome last year", "we travelled through Peru": VISITED (past only)."""
    anchor = v.head.head if v.dep_ == "acl" and v.head.dep_ == "attr" else v
    f = c.flags(anchor)
    if not (f.past or f.perfect) or f.in_plan:
        return
    subs, dropped = subjects(c, v)
    targets = []
    dobj = child(v, "dobj")
    if dobj is not None:
        targets.append(dobj)
    targets += [o for _p, o in preps(v, ("to", "in", "around", "through", "on", "along",
                                         "across"))]
    if v.lemma_.lower() == "trip" and subs:  # "we were road tripping out on the coast"
        road = any(ch.lower_ == "road" for ch in v.children) or (
            v.i > 0 and v.doc[v.i - 1].lower_ == "road")
        for s in subs:
            c.emit(s, "ATTENDED", "road trip" if road else "trip", anchor, rule="trip_verb")
    if dobj is None and child(v, "advmod", "home") is not None and v.lemma_.lower() == "visit":
        for s in subs:  # "Last week I visited home"
            c.emit(s, "VISITED", "home", v, rule="visited_home", confidence=0.7)
    for t in targets:
        if t.i in c.time_tokens:
            continue
        if is_visit_place(t) or is_event(t) or (  # "I visited a LGBTQ center"
                v.lemma_.lower() == "visit" and t.pos_ == "NOUN"
                and t.lemma_.lower() in L.VISITED_PLACE_NOUNS):  # "visited a travel agency"
            attended(c, v, t, subs, f"{v.lemma_.lower()}_place", 0.8 - 0.1 * dropped)
            continue
        the_name = t.pos_ == "PROPN" and any(d.dep_ == "det" and d.lower_ == "the"
                                              for d in t.children)  # "the Louvre" (not a person)
        if ent_type(t) in ("GPE", "LOC", "FAC") or (t.pos_ == "PROPN" and ent_type(t) not in (
            "PERSON", "DATE", "TIME"
        )) or (the_name and ent_type(t) not in ("DATE", "TIME")):
            for obj, _neg in coord(t):
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, obj), v, rule=f"{v.lemma_.lower()}_place",
                           confidence=0.8 - 0.1 * dropped, tokens=[obj])


def spend(c: Context, v: Token) -> None:
    """"I spent a week in Lisbon": VISITED; "spent the day volunteering at a homeless shelter"
    (the parser takes "volunteering" for a noun): VOLUNTEERS_AT."""
    f = c.flags(v)
    subs, dropped = subjects(c, v)
    doing = next((t for t in v.subtree if t.lower_ == "volunteering" and t.pos_ == "NOUN"
                  and t.head.i in (v.i, *(ch.i for ch in v.children))), None)
    if doing is not None and not f.future:
        # "spent the day volunteering at a food bank", "spent time at the shelter volunteering"
        # (parsed "[the shelter volunteering]": the place is its compound)
        places = [p for _prep, o in preps(v, ("at", "for")) for p in (
            [ch for ch in o.children if ch.dep_ == "compound"] if o.i == doing.i else [o])]
        if doing.dep_ == "dobj":
            places += [o for _prep, o in preps(doing, ("at", "for"))]
        for o in places:
            if o.pos_ == "NOUN" and o.i not in c.time_tokens:
                for s in subs:
                    c.emit(s, "VOLUNTEERS_AT", noun_phrase(c, o), v, rule="spent_volunteering",
                           tokens=[o], confidence=0.7 - 0.1 * dropped, timed=False)
    if not (f.past or f.perfect):
        return
    for prep, o in preps(v, ("in", "at")):
        if ent_type(o) in ("GPE", "LOC") or o.pos_ == "PROPN":
            for s in subs:
                c.emit(s, "VISITED", noun_phrase(c, o), v, rule="spent_in", tokens=[o],
                       confidence=0.75 - 0.1 * dropped)


def return_from(c: Context, v: Token) -> None:
    """"I just got back from Japan", "came back from Peru": VISITED."""
    subs, _ = subjects(c, v)
    if v.lemma_.lower() == "come" and not child(v, ("advmod", "prt"), "back"):
        return
    back = child(v, ("advmod", "prt"), "back")
    back_from(c, v, subs)
    for prep, o in preps(v, ("from",)) + (preps(back, ("from",)) if back is not None else []):
        if ent_type(o) in ("GPE", "LOC") or (o.pos_ == "PROPN" and o.text[:1].isupper()
                                             and o.lemma_.lower() not in L.TRIP_NOUNS):
            for s in subs:
                c.emit(s, "VISITED", noun_phrase(c, o), v, rule="back_from", tokens=[o],
                       confidence=0.75)


def photo_taken_at(c: Context, v: Token) -> None:
    """"I took it at the beach last month", "took this pic in Lisbon": the speaker was there
    (VISITED, dated by the clause)."""
    dobj = child(v, "dobj")
    if v.lemma_.lower() != "take" or dobj is None or not (
            dobj.lower_ in ("it", "this", "that") or dobj.lemma_.lower() in L.PHOTO_NOUNS):
        return
    if not took_place(c, v):
        return
    places = [o for _p, o in preps(v, ("at", "in", "on")) if o.i not in c.time_tokens and (
        is_visit_place(o) or ent_type(o) in ("GPE", "LOC", "FAC"))]
    subs = [s for s in subjects(c, v)[0] if s.speaker]
    for place in places[:1]:
        for s in subs:
            c.emit(s, "VISITED", noun_phrase(c, place, keep_preps=("of",)), v,
                   rule="photo_taken_at", tokens=[place], confidence=0.7)
