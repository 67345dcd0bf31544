"""One's own business (RUNS: "my clothing store", "opened my own bakery", "had to close my
shop") and things one owns (OWNS: "my old car", "my sneaker collection", "bought a new
Prius", "donated my old car", "shut down my bank account")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..phrases import noun_phrase
from ..tree import child, governor, preps
from .events import event_token

if TYPE_CHECKING:
    from spacy.tokens import Token


def _modifiers(noun: Token) -> set[str]:
    return {ch.lower_ for ch in noun.children if ch.dep_ in ("amod", "compound", "nmod")}


def is_business(noun: Token) -> bool:
    """A business noun that can be the speaker's own ("my dance studio", "my own store"; not
    "my favorite cafe")."""
    lemma = noun.lemma_.lower()
    if noun.pos_ == "NOUN" and lemma in L.BUSINESS_NEEDS_OWN:
        return any(ch.lower_ == "own" for ch in noun.children)  # "my own cooking show"
    if noun.pos_ != "NOUN" or lemma not in L.BUSINESS_NOUNS:
        return False
    mods = _modifiers(noun)
    if mods & L.NOT_OWN_BUSINESS_MODIFIERS:
        return False
    if lemma in L.BUSINESS_NEEDS_KIND:
        own = any(ch.lower_ == "own" for ch in noun.children)
        kind = any(ch.dep_ in ("compound", "amod") and ch.lower_ not in L.UNINFORMATIVE_ADJ
                   for ch in noun.children)
        return own or kind
    return True


def is_possession(noun: Token, acquired: bool = False) -> bool:
    """A thing one owns ("my old car", "my grandma's necklace": a keepsake); with ``acquired``
    also an everyday thing just bought or got ("a new laptop": :data:`~kgmem.ingest.lexicon.ACQUIRED_NOUNS`)."""
    lemma = noun.lemma_.lower()
    if noun.pos_ == "PROPN" and ent_type(noun) == "PRODUCT":
        return True
    if noun.pos_ not in ("NOUN", "PROPN") or lemma not in L.POSSESSION_NOUNS | L.KEEPSAKE_NOUNS and (
            not (acquired and lemma in L.ACQUIRED_NOUNS)):
        return False
    if lemma == "account":  # "my bank account", not "my Instagram account"
        return any(ch.lower_ in ("bank", "savings", "checking") for ch in noun.children)
    return not (_modifiers(noun) & {"dream", "future", "ideal", "favorite", "favourite"})


def _gov_lemma(noun: Token) -> tuple[Any | None, str]:
    gov = governor(noun)
    return gov, (gov.lemma_.lower() if gov is not None else "")


def _ends(gov: Token | None, noun: Token, verbs: frozenset[str]) -> bool:
    """The governing verb gives up the noun ("sold my car", "shut down my account")."""
    if gov is None or noun.dep_ != "dobj" or noun.head != gov:
        return False
    lemma = gov.lemma_.lower()
    if lemma not in verbs:
        return False
    if lemma in ("shut", "give") and not child(gov, ("prt", "advmod"), ("down", "away", "up")):
        return False
    return True


def own_noun(c: Context, noun: Token) -> None:
    """A possessed business or belonging ("my clothing store", "my old car") is the owner's;
    a verb that gives it up ends it."""
    business, thing = is_business(noun), is_possession(noun)
    if not (business or thing):
        return
    owner = c.owner_of(noun)
    if owner is None or (not owner.speaker and owner.label != "PERSON"):
        return
    gov, glemma = _gov_lemma(noun)
    if gov is not None and (c.flags(gov).future or c.flags(gov).in_plan):
        return  # "gonna start my own business", "want to sell my car"
    if gov is not None and noun.dep_ == "dobj" and glemma in L.OPEN_BUSINESS_VERBS | {
            "build", "buy", "create", "set"} and gov.tag_ == "VB" and not (
            c.flags(gov).past or c.flags(gov).perfect):
        return  # "searching for a place to open my dance studio": not opened yet
    pred = "RUNS" if business else "OWNS"
    text = noun_phrase(c, noun, drop_amod=not business and noun.lemma_.lower() != "collection",
                       drop_poss=True)  # "Bob's car": Bob OWNS car
    if business and noun.lemma_.lower() in ("business", "biz", "company", "startup", "venture"):
        text = noun_phrase(c, noun, drop_poss=True)
    if _ends(gov, noun, L.CLOSE_BUSINESS_VERBS if business else L.GIVE_UP_VERBS):
        c.emit(owner, pred, text, gov, kind="end", rule=f"{glemma}_my_{pred.lower()}",
               tokens=[noun])
        return
    # dated by its verb only when that verb starts it ("opened my own bakery in 2021")
    timed = noun.dep_ == "dobj" and glemma in L.OPEN_BUSINESS_VERBS | L.ACQUIRE_VERBS
    c.emit(owner, pred, text, gov, rule=f"my_{pred.lower()}", timed=timed, tokens=[noun],
           confidence=0.75)


def open_business(c: Context, v: Token) -> None:
    """"I opened a bakery in 2021", "started my own business", "launched an online store"."""
    dobj = child(v, "dobj")
    if dobj is None or not is_business(dobj) or c.owner_of(dobj) is not None:
        return  # a possessed one is own_noun's
    if not any(ch.lower_ == "own" for ch in dobj.children) and v.lemma_.lower() not in (
            "open", "launch", "found", "establish"):
        return  # "started a company" may be a job; "started my own company" is not
    subs, dropped = subjects(c, v)
    f = c.flags(v)
    if not (f.past or f.perfect) or f.future:
        return
    _emit_runs(c, v, dobj, subs, dropped)


def _emit_runs(c: Context, v: Token, dobj: Token, subs: list[Mention], dropped: bool) -> None:
    for s in subs:
        c.emit(s, "RUNS", noun_phrase(c, dobj), v, rule=f"{v.lemma_.lower()}_business",
               tokens=[dobj], confidence=0.8 - 0.1 * dropped)


def _bought_home(v: Token, dobj: Token) -> bool:
    """"We just bought a flat in Leeds": a home bought is owned (one rented or moved into is
    where one lives, the homes rules' business)."""
    return v.lemma_.lower() in ("buy", "purchase") and dobj.lemma_.lower() in (
        L.HOME_NOUNS - {"home", "place", "room", "residence", "dorm"})


def acquire(c: Context, v: Token) -> None:
    """"I bought a new Prius last month", "we got a boat": OWNS from then."""
    dobj = child(v, "dobj")
    if dobj is None or c.owner_of(dobj) is not None or not (
            is_possession(dobj, acquired=True) or _bought_home(v, dobj)):
        return
    f = c.flags(v)
    if not (f.past or f.perfect) or f.future:
        return
    subs, dropped = subjects(c, v)
    for s in subs:
        c.emit(s, "OWNS", noun_phrase(c, dobj, drop_amod=True), v, rule=f"{v.lemma_}_thing",
               tokens=[dobj], confidence=0.75 - 0.1 * dropped)


def volunteer(c: Context, v: Token) -> None:
    """"I volunteer at the animal shelter", "a homeless shelter I volunteer at": VOLUNTEERS_AT
    (a state; volunteering at an event is ATTENDED, through ``events.at_event``)."""
    subs, dropped = subjects(c, v)
    found = [o for _p, o in preps(v, ("at", "for", "with")) if o.i not in c.time_tokens]
    if any(event_token(o) is not None for o in found):
        return  # volunteering at an event ("at a career fair at a local school") is ATTENDED
    targets = list(found)
    stranded = [p for p in v.children if p.dep_ == "prep" and p.lower_ in ("at", "for", "with")
                and not any(ch.dep_ == "pobj" and ch.i not in c.time_tokens
                            for ch in p.children)]
    if v.dep_ == "relcl" and stranded and v.head.pos_ in ("NOUN", "PROPN"):
        targets.append(v.head)  # "the shelter I volunteer at"
    # a time the parser hung on a stranded preposition ("I volunteer at yesterday") is not
    # this clause's
    timed = not (v.dep_ == "relcl" and stranded)
    for o in targets:
        if o.pos_ not in ("NOUN", "PROPN") or ent_type(o) in ("PERSON", "DATE", "TIME"):
            continue
        for s in subs:
            c.emit(s, "VOLUNTEERS_AT", noun_phrase(c, o), v, rule="volunteer_at", tokens=[o],
                   confidence=0.8 - 0.1 * dropped, timed=timed)
