"""Things the speaker has and keeps (OWNS), told without "my" or a buying verb: "I have a
boat", "I still have the guitar my dad gave me", "this necklace is special to me", "these
figurines I bought yesterday", "they gave me a medal", "I won a trophy", "my prized
possession, a signed basketball". ("my old car" and "I bought a Prius" are
:mod:`.business`'s.)

A thing is a possession, keepsake or everyday thing (:func:`.business.is_possession`); after
"my prized possession," any noun is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..mentions import subjects
from ..phrases import noun_phrase
from ..tree import child
from .business import is_possession

if TYPE_CHECKING:
    from spacy.tokens import Token


def is_thing(noun: Token) -> bool:
    return noun.pos_ == "NOUN" and (is_possession(noun, acquired=True)
                                    or noun.lemma_.lower() in L.KEPT_ONLY_NOUNS)


def kept_thing(c: Context, noun: Token) -> None:
    """OWNS for a thing the speaker is told to have (see the module docstring)."""
    if noun.pos_ not in ("NOUN", "PROPN"):
        return
    if _prized_appos(c, noun):
        _emit(c, noun, None, "prized_possession")
        return
    if not is_thing(noun) or c.owner_of(noun) is not None:
        return  # a possessed one ("my necklace") is business.own_noun's
    head = noun.head
    hlemma = head.lemma_.lower()
    if noun.dep_ == "dobj" and head.pos_ in ("VERB", "AUX"):
        if hlemma in ("have", "keep") and _speaker_subject(c, head) and _present(c, head):
            _emit(c, noun, head, f"{hlemma}_thing", timed=False)
        elif (hlemma in L.RECEIVE_THING_VERBS and _speaker_subject(c, head) and _done(c, head)
              and hlemma != "get"):  # "I got a medal" is business.acquire's
            _emit(c, noun, head, f"{hlemma}_thing")
        elif hlemma in L.GIVE_THING_VERBS and _given_to_speaker(head) and _done(c, head):
            _emit(c, noun, head, "given_thing")
        return
    if not child(noun, "det", ("this", "these")):
        return
    kept = next((r for r in noun.children if r.dep_ == "relcl"
                 and r.lemma_.lower() in L.KEEP_THING_VERBS and _speaker_subject(c, r)), None)
    if kept is not None:  # "these figurines I bought yesterday", "this plaque I keep"
        _emit(c, noun, kept, "this_thing_i_kept",
              timed=kept.lemma_.lower() in L.RECEIVE_THING_VERBS | L.ACQUIRE_VERBS)
    elif noun.dep_ == "nsubj" and _treasured(head):  # "this necklace is special to me"
        _emit(c, noun, head, "this_thing_treasured", timed=False)


def _emit(c: Context, noun: Token, anchor: Token | None, rule: str, timed: bool = True) -> None:
    c.emit(c.speaker_mention(), "OWNS", noun_phrase(c, noun, drop_amod=True), anchor,
           rule=rule, timed=timed and anchor is not None, tokens=[noun], confidence=0.7)


def _prized_appos(c: Context, noun: Token) -> bool:
    """"my prized possession, a basketball signed by my favorite player"."""
    head = noun.head
    if noun.dep_ != "appos" or head.lemma_.lower() not in L.TREASURE_NOUNS:
        return False
    owner = c.owner_of(head)
    return owner is not None and owner.speaker


def _speaker_subject(c: Context, v: Token) -> bool:
    subs, _ = subjects(c, v)
    return bool(subs) and all(s.speaker for s in subs)


def _present(c: Context, v: Token) -> bool:
    f = c.flags(v)
    return not (f.past or f.neg or f.future or f.hypothetical or f.in_plan or f.modal)


def _done(c: Context, v: Token) -> bool:
    f = c.flags(v)
    return (f.past or f.perfect) and not (f.neg or f.future or f.hypothetical or f.in_plan)


def _given_to_speaker(v: Token) -> bool:
    """"they gave me a medal", "my aunt gave a quilt to me"."""
    for ch in v.children:
        if ch.dep_ in ("dative", "iobj") and ch.lower_ in ("me", "us"):
            return True
        if ch.dep_ == "dative" and any(g.lower_ in ("me", "us") for g in ch.children):
            return True
    return False


def _treasured(v: Token) -> bool:
    """The clause says the thing means something to the speaker: "is special to me", "is a
    constant reminder", "reminds me of home", "means the world to me"."""
    lemma = v.lemma_.lower()
    if lemma in ("remind", "mean"):
        return True
    if lemma != "be":
        return False
    return any(ch.dep_ in ("acomp", "attr") and ch.lemma_.lower() in L.TREASURED_WORDS
               for ch in v.children)
