"""Where one comes from (FROM, a lasting fact that a move does not end): "I'm from Brazil",
"I grew up in Leeds", "I was born in Lagos", "my hometown is Leeds", "my home country,
Sweden"; and a home one has left (LIVES_IN, ended, undated): "my old neighborhood, East
Side", "I used to have a dog back in Michigan"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..phrases import noun_phrase
from ..tree import child, children, governor, preps

if TYPE_CHECKING:
    from spacy.tokens import Token


def _named_place(tok: Token | None) -> bool:
    return tok is not None and ent_type(tok) in ("GPE", "LOC") and tok.pos_ == "PROPN"


def _people(c: Context, v: Token) -> list[Mention]:
    subs, _ = subjects(c, v)
    return [s for s in subs if s.speaker or s.label == "PERSON"]


def _emit_from(c: Context, subs: list[Mention], place: Token, anchor: Token | None,
               rule: str, timed: bool = False) -> None:
    for s in subs:
        c.emit(s, "FROM", noun_phrase(c, place), anchor, rule=rule, timed=timed,
               tokens=[place], confidence=0.8)


def be_from(c: Context, v: Token) -> None:
    """"I'm from Brazil", "she's originally from Ohio" (not "I'm back from Paris")."""
    if child(v, "advmod", ("back", "just", "home", "away")) is not None:
        return
    places = [o for _p, o in preps(v, ("from",)) if _named_place(o)]
    if places:
        _emit_from(c, _people(c, v), places[0], v, "be_from")


def grew_up(c: Context, v: Token) -> None:
    """"I grew up in Leeds", "I was raised in Ohio", "I was born in Lagos"."""
    lemma = v.lemma_.lower()
    if lemma == "grow" and (child(v, "prt", ("up",)) is None or any(
            ch.dep_ in ("advmod", "npadvmod") and ch.lemma_.lower() in L.GROWN_MUCH
            for ch in v.children)):
        return  # "I grew up a lot in Paris" is maturing, not where one is from
    if lemma in ("bear", "raise") and not any(ch.dep_ in ("nsubjpass", "auxpass")
                                              for ch in v.children):
        return
    # "born in Bergen": a proper noun one is born in is a place whatever the tagger says
    places = [o for _p, o in preps(v, ("in",)) if _named_place(o) or (
        lemma == "bear" and o.pos_ == "PROPN" and ent_type(o) in ("ORG", "FAC", ""))]
    if places:
        # "born in Lagos in 1990": dated by its own time (born then); raised or grown up in
        # a place has no start worth keeping
        _emit_from(c, _people(c, v), places[0], v, f"{lemma}_in", timed=lemma == "bear")


def origin_noun(c: Context, noun: Token) -> None:
    """"my hometown is Leeds", "my home country, Sweden", "Leeds, my hometown" (FROM); "my old
    neighborhood, East Side" (LIVES_IN, ended)."""
    lemma = noun.lemma_.lower()
    origin = lemma in L.ORIGIN_NOUNS or (
        lemma in L.PLACE_NOUNS | {"country"} and child(noun, "compound", ("home",)) is not None)
    former = lemma in L.PLACE_NOUNS and child(noun, "amod", ("old", "former")) is not None
    if not (origin or former):
        return
    owner = c.owner_of(noun)
    if owner is None or not (owner.speaker or owner.label == "PERSON"):
        return
    places = [a for a in children(noun, "appos") if _named_place(a)]
    if noun.dep_ == "appos" and _named_place(noun.head):
        places.append(noun.head)
    gov = governor(noun)
    anchor = None
    if not places and gov is not None and gov.lemma_ == "be" and noun.dep_ == "nsubj":
        places = [a for a in children(gov, "attr") if _named_place(a)]
        anchor = gov
    for place in places[:1]:
        if origin:
            _emit_from(c, [owner], place, anchor, "my_hometown")
        else:
            c.emit(owner, "LIVES_IN", noun_phrase(c, place), anchor, kind="end", timed=False,
                   rule="my_old_area", tokens=[place], confidence=0.7)


def used_to_back_in(c: Context, v: Token) -> None:
    """"I used to have a dog back in Michigan": a home left (LIVES_IN, ended)."""
    if v.dep_ != "xcomp" or v.head.lower_ != "used" or child(v, "aux", ("to",)) is None:
        return
    back = child(v, "advmod", ("back",))
    if back is None:
        return
    places = [o for _p, o in preps(back, ("in",)) if _named_place(o)]
    if not places:
        return
    for s in _people(c, v.head):
        c.emit(s, "LIVES_IN", noun_phrase(c, places[0]), None, kind="end", timed=False,
               rule="used_to_back_in", tokens=[places[0], v])
