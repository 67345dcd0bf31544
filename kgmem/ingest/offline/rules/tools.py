"""Tools: USES from use/switch/rely on/code in/"on Duolingo", its end from stop using/give up/
ditch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import subjects
from ..objects import entity_ok
from ..phrases import noun_phrase
from ..tree import child, coord, preps
from .pets import pet_away

if TYPE_CHECKING:
    from spacy.tokens import Token


def use(c: Context, v: Token) -> None:
    """"we use Jira", "I stopped using Slack": USES (a product or named tool, not "a knife")."""
    subs, dropped = subjects(c, v, collective=True)
    if not subs:
        return
    dobj = child(v, "dobj")
    if dobj is None or dobj.pos_ == "PRON" or dobj.i in c.time_tokens:
        return
    head = v.head if v.dep_ == "xcomp" else None
    kind = "assert"
    if head is not None and head.lemma_.lower() in ("stop", "quit", "give", "cease"):
        kind = "end"
    if dobj.lemma_.lower() in ("time", "bathroom", "toilet", "restroom", "word", "phrase",
                               "money", "help", "opportunity", "chance", "excuse"):
        return
    if not (dobj.pos_ == "PROPN" or ent_type(dobj) in ("PRODUCT", "ORG", "WORK_OF_ART") or
            noun_phrase(c, dobj).lower() in L.KNOWN_PRODUCTS or any(
                ch.dep_ == "compound" and ch.pos_ == "PROPN" for ch in dobj.children)):
        return  # "we used websites", "I use a knife": not a tool worth remembering
    for obj, negated in coord(dobj):
        for s in subs:
            c.emit(s, "USES", noun_phrase(c, obj), v,
                   kind="retract" if negated else kind, confidence=0.8 - 0.15 * dropped,
                   rule="use" if kind == "assert" else "stop_using", tokens=[obj],
                   negatable=kind == "assert")


_NOT_TOOLS = frozenset({"diet", "lifestyle", "schedule", "routine", "shift", "plan"})


def switch(c: Context, v: Token) -> None:
    """"we switched from Jira to Linear": USES ends and starts."""
    subs, dropped = subjects(c, v, collective=True)
    if not subs:
        return
    # a diet switched to is a diet (notes.diets), not a tool ("a plant-based diet")
    src = [o for _p, o in preps(v, ("from",)) if o.lemma_.lower() not in _NOT_TOOLS]
    dst = [o for _p, o in preps(v, ("to", "over")) if o.lemma_.lower() not in _NOT_TOOLS]
    for o in src:
        if entity_ok(c, o, "any") and o.pos_ in ("PROPN", "NOUN"):
            for s in subs:
                c.emit(s, "USES", noun_phrase(c, o), v, kind="end", rule="switch_from", tokens=[o])
    for o in dst:
        if entity_ok(c, o, "any") and o.pos_ in ("PROPN", "NOUN") and o.lemma_.lower() not in (
            "team", "role", "position", "job", "mode"
        ):
            for s in subs:
                c.emit(s, "USES", noun_phrase(c, o), v, rule="switch_to", tokens=[o])


def rely(c: Context, v: Token) -> None:
    """"I rely on Notion": USES."""
    subs, _ = subjects(c, v, collective=True)
    for prep, o in preps(v, ("on", "upon")):
        if o.pos_ == "PROPN" or ent_type(o) == "PRODUCT" or (
            noun_phrase(c, o).lower() in L.KNOWN_PRODUCTS
        ):
            for s in subs:
                c.emit(s, "USES", noun_phrase(c, o), v, rule="rely_on", tokens=[o])


def code(c: Context, v: Token) -> None:
    """"I code in Python with VS Code", "I write all my code in Emacs": USES."""
    lemma = v.lemma_.lower()
    if lemma == "write" and _write_for(c, v):
        return
    if lemma == "write":
        dobj = child(v, "dobj")
        if dobj is None or dobj.lemma_.lower() not in ("code", "program", "script", "app",
                                                       "software", "notes"):
            return
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    extra = preps(dobj, ("in", "with", "using")) if dobj is not None else []
    for prep, o in preps(v, ("in", "with", "using")) + extra:
        if o.i in c.time_tokens or o.pos_ == "PRON":
            continue
        if o.pos_ == "PROPN" or ent_type(o) or o.text[:1].isupper():
            for s in subs:
                c.emit(s, "USES", noun_phrase(c, o), v, confidence=0.7, rule=f"{lemma}_in",
                       tokens=[o])


def tool_prep(c: Context, v: Token) -> None:
    """"learning Japanese on Duolingo", "I edit everything in Figma": a known app or a
    PRODUCT entity after on/in/with/using is a tool the subject uses."""
    for prep, o in preps(v, ("on", "in", "with", "using", "via", "through")):
        if o.i in c.time_tokens or o.pos_ != "PROPN":
            continue
        if not (ent_type(o) == "PRODUCT" or c.name_of(o).lower() in L.KNOWN_PRODUCTS):
            continue
        subs, _ = subjects(c, v, collective=True)
        for s in subs:
            if s.speaker or s.label == "PERSON":
                c.emit(s, "USES", noun_phrase(c, o), v, confidence=0.55,
                       rule=f"{v.lemma_.lower()}_{prep.lower_}_tool", tokens=[o])


def stop(c: Context, v: Token) -> None:
    """"I gave up Twitter", "ditched Spotify for Tidal", "deleted Instagram": USES ends ("stopped
    using" is in use())."""
    lemma = v.lemma_.lower()
    if lemma == "give" and child(v, ("prt", "advmod"), "away"):
        pet_away(c, v)
        return
    if lemma == "give" and not child(v, ("prt",), "up"):
        return
    dobj = child(v, "dobj")
    if dobj is None or dobj.pos_ not in ("PROPN",):
        return
    subs, _ = subjects(c, v)
    for s in subs:
        c.emit(s, "USES", noun_phrase(c, dobj), v, kind="end", rule="give_up", tokens=[dobj],
               confidence=0.7)
        for prep, o in preps(v, ("for",)) + preps(dobj, ("for",)):  # "ditched X for Y"
            if o.pos_ == "PROPN":
                c.emit(s, "USES", noun_phrase(c, o), v, rule="ditch_for", tokens=[o],
                       confidence=0.7)


def _write_for(c: Context, v: Token) -> bool:
    """"I'm writing articles about fantasy novels for an online mag": WORKS_AT the publication
    (a writer's employer or client)."""
    f = c.flags(v)
    if f.future:
        return False
    subs, dropped = subjects(c, v)
    dobj = child(v, "dobj")
    done = False
    for _p, o in preps(v, ("for",)) + (preps(dobj, ("for",)) if dobj is not None else []):
        if o.lemma_.lower() in L.PUBLICATION_NOUNS or (
                o.pos_ == "PROPN" and ent_type(o) in ("ORG", "WORK_OF_ART")):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o), v, confidence=0.7 - 0.1 * dropped,
                       rule="write_for", tokens=[o])
            done = True
    return done

