"""Homes and moves: LIVES_IN from live/settle/move/based, "my apartment in Brooklyn"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import subjects
from ..objects import entity_ok
from ..phrases import noun_phrase
from ..tree import child, children, coord, governor, preps

if TYPE_CHECKING:
    from spacy.tokens import Token


def live(c: Context, v: Token) -> None:
    """"I live in Chicago", "we live near Boston", "I live with Sam in Denver": LIVES_IN."""
    subs, dropped = subjects(c, v)
    places = preps(v, ("in", "at", "near", "outside", "on"))
    if not places:  # "I live with my boyfriend Sam in Chicago" (PP attached to the noun)
        for _p, companion in preps(v, ("with",)):
            places = preps(companion, ("in", "near", "outside"))
            if not places:
                for ap in children(companion, "appos"):
                    places = preps(ap, ("in", "near", "outside"))
    for prep, o in places:
        for obj, negated in coord(o):
            if not entity_ok(c, obj, "place"):
                continue
            text = noun_phrase(c, obj, keep_preps=("near", "outside", "of"))
            for s in subs:
                c.emit(s, "LIVES_IN", text, v, kind="retract" if negated else "assert",
                       confidence=0.9 - 0.15 * dropped, rule="live_in", tokens=[obj])
        break


def settle(c: Context, v: Token) -> None:
    """"we settled in Lisbon" (a plain "settle" is not a home)."""
    if v.lemma_.lower() == "settle" and not preps(v, ("in",)):
        return
    live(c, v)


def move(c: Context, v: Token) -> None:
    """"moved to Denver" (LIVES_IN), "moved out of Boston" (its end), "moved from Jira to Linear"
    (USES switched)."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    prt = child(v, ("prt", "advmod", "prep"), ("out", "away"))
    src = None
    for prep, o in preps(v, ("from", "out", "away")):
        src = o
    if prt is not None and src is None:
        for prep, o in preps(prt, ("of", "from")):
            src = o
    dests = [o for _p, o in preps(v, ("to", "into"))]
    if not dests:
        for adv in children(v, ("advmod", "prt")):
            if adv.lower_ in ("back", "home", "away", "over", "out", "abroad"):
                dests += [o for _p, o in preps(adv, ("to", "into"))]
                for adv2 in children(adv, ("advmod",)):
                    dests += [o for _p, o in preps(adv2, ("to", "into"))]
    place_dest = [d for d in dests if entity_ok(c, d, "place") and d.lemma_ not in L.HOME_NOUNS]
    for d in dests:  # "moved into a flat in Glasgow"
        if d.lemma_.lower() in L.HOME_NOUNS:
            place_dest += [o for _p, o in preps(d, ("in", "near", "outside"))
                           if entity_ok(c, o, "place")]
    tools = False
    if src is not None and dests:
        place_like = (ent_type(src) in ("GPE", "LOC") or any(
            ent_type(d) in ("GPE", "LOC") for d in dests))
        tools = not place_like and (ent_type(src) in ("ORG", "PRODUCT", "") and all(
            ent_type(d) in ("ORG", "PRODUCT", "", "PERSON", "WORK_OF_ART") for d in dests))
    if tools and src is not None:  # tools: src is set
        for s in subs:
            c.emit(s, "USES", noun_phrase(c, src), v, kind="end", rule="switch_from", tokens=[src])
            for d in dests:
                c.emit(s, "USES", noun_phrase(c, d), v, rule="switch_to", tokens=[d])
        return
    if src is not None and entity_ok(c, src, "place"):
        for s in subs:
            c.emit(s, "LIVES_IN", noun_phrase(c, src), v, kind="end", confidence=0.85,
                   rule="move_out", tokens=[src])
    for d in place_dest:
        if d.lemma_.lower() in L.TEAM_NOUNS or d.lemma_.lower() in L.JOB_NOUNS:
            continue
        for obj, negated in coord(d):
            for s in subs:
                c.emit(s, "LIVES_IN", noun_phrase(c, obj, keep_preps=("near", "outside")), v,
                       kind="retract" if negated else "assert",
                       confidence=0.85 - 0.15 * dropped, rule="move_to", tokens=[obj])


def based(c: Context, v: Token) -> None:
    """"based in Berlin" parsed as a verb: LIVES_IN."""
    if v.lower_ not in ("based", "located"):
        return
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("in", "out", "near")):
        if entity_ok(c, o, "place"):
            for s in subs:
                c.emit(s, "LIVES_IN", noun_phrase(c, o), v, rule="based_in", tokens=[o])


def home_noun(c: Context, noun: Token) -> None:
    """"My apartment in Brooklyn is tiny", "my home is in Oakland"."""
    owner = c.owner_of(noun)
    if owner is None or not owner.speaker:
        return
    targets = [o for _p, o in preps(noun, ("in",))]
    gov = governor(noun)
    if gov is not None and gov.lemma_ == "be" and noun.dep_ == "nsubj":
        targets += [o for _p, o in preps(gov, ("in",))]
    for o in targets:
        if entity_ok(c, o, "place") and (ent_type(o) in ("GPE", "LOC") or o.pos_ == "PROPN"):
            c.emit(owner, "LIVES_IN", noun_phrase(c, o), gov, rule="my_home_in", timed=False,
                   confidence=0.75, negatable=gov is not None, tokens=[o])
