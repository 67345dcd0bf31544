"""Pets: HAS_PET from have/adopt/rescue/get, its end from died/passed away/put down/gave away;
"have" also names family ("I have two kids, Max and Lily")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type, is_pet_noun
from ..mentions import Mention, subjects
from ..phrases import noun_phrase
from ..tree import child, preps
from .events import event_object, good_time_at, is_event

if TYPE_CHECKING:
    from spacy.tokens import Token


def pet_object(c: Context, v: Token, noun: Token, subs: list[Mention], rule: str,
               kind: str = "assert") -> None:
    """HAS_PET for a pet noun under a verb: its name(s) if given ("a dog named Rex"), else the
    noun. Not one got for someone else ("I got this new pup for you": a gift)."""
    if any(o.lower_ in L.OTHER_PERSON_PRONOUNS or ent_type(o) == "PERSON"
           for _p, o in preps(v, ("for",)) + preps(noun, ("for",))):
        return
    names = []
    name = c.rel_name(noun)
    if name is not None:
        names.append(name)
        names += [x for x in name.conjuncts if x.i > name.i]
    if names:
        for n in names:
            for s in subs:
                c.emit(s, "HAS_PET", c.name_of(n), v, kind=kind, rule=rule, tokens=[n])
    else:
        text = unnamed_pet(c, noun)
        if text is None:
            return
        for s in subs:
            c.emit(s, "HAS_PET", text, v, kind=kind, confidence=0.7, rule=rule,
                   tokens=[noun])


def unnamed_pet(c: Context, noun: Token) -> str | None:
    """A pet told without its name: the name the speaker gave it earlier in the sitting, else
    the animal in the singular ("my pups" and "my pup" are one fact); "pets" alone says
    nothing."""
    lemma = noun.lemma_.lower()
    if lemma in L.GENERIC_PET_NOUNS:
        return None
    known = c.known_relative(noun, c.owner_of(noun)) if noun.tag_ != "NNS" else None
    if known is not None:
        return known
    full = noun_phrase(c, noun)
    if full.lower() in L.PET_NOUNS:
        return full
    words = noun_phrase(c, noun, drop_amod=True).split()
    if not words:
        return None
    words[-1] = lemma if noun.tag_ in ("NNS", "NNPS") and words[-1].lower() == noun.lower_ else (
        words[-1])
    return " ".join(words)


def have(c: Context, v: Token) -> None:
    """"I have a dog named Rex" (HAS_PET), "I have two kids, Max and Lily" (their relation)."""
    dobj = child(v, "dobj")
    if dobj is not None and dobj.lemma_.lower() in L.GOOD_TIME_NOUNS and v.lemma_ == "have":
        good_time_at(c, v)  # "we had a blast at the pride event"
        return
    if dobj is not None and dobj.lemma_.lower() in L.RELATION_NOUNS and v.lemma_ == "have":
        # "I have two kids, Max and Lily" / "I have a sister named Kate"
        name = c.rel_name(dobj)
        if name is not None:
            subs, _ = subjects(c, v)
            pred = L.RELATION_NOUNS[dobj.lemma_.lower()][0]
            names = [name] + [x for x in name.conjuncts if x.i > name.i]
            for n in names:
                nm = c.name_of(n)
                c.note_person(n, nm)
                for s in subs:
                    c.emit(s, pred, nm, v, rule="have_relation", timed=False,
                           tokens=[n])
        return
    if dobj is not None and v.lemma_ == "have" and is_event(dobj) and not any(
            ch.dep_ == "compound" and ch.lemma_.lower() in L.GOOD_TIME_NOUNS
            for ch in dobj.children):  # not "had an incredible time meeting with a fan"
        event_object(c, v)  # "I had an interview for a design internship yesterday"
        return
    if dobj is None or not is_pet_noun(dobj):
        return
    subs, _ = subjects(c, v)
    if any(ch.lower_ in ("my", "our") for ch in dobj.children):
        return  # "I have my dog with me": the possessive rule covers it
    pet_object(c, v, dobj, subs, rule=f"{v.lemma_.lower()}_pet")


def pet_end(c: Context, v: Token) -> None:
    """"my dog Rex died", "our cat passed away": HAS_PET ends."""
    lemma = v.lemma_.lower()
    if lemma == "pass" and not child(v, ("prt", "advmod"), ("away", "on")):
        return
    subj = child(v, "nsubj")
    if subj is None or not is_pet_noun(subj):
        return
    owner = c.owner_of(subj)
    if owner is None:
        return
    name = c.rel_name(subj)
    if name is None and subj.pos_ == "PROPN":
        name = subj
    obj = c.name_of(name) if name is not None else noun_phrase(c, subj, drop_amod=True)
    c.emit(owner, "HAS_PET", obj, v, kind="end", rule="pet_died", tokens=[subj])


def pet_away(c: Context, v: Token) -> None:
    """"We had to put our cat Oliver down", "I gave my rabbit away"."""
    lemma = v.lemma_.lower()
    prt = child(v, ("prt", "advmod"), ("down", "away", "up"))
    if prt is None or (lemma == "put" and prt.lower_ != "down"):
        return
    dobj = child(v, "dobj")
    if dobj is None or not is_pet_noun(dobj):
        return
    subs, _ = subjects(c, v)
    owner = c.owner_of(dobj)
    who = [owner] if owner is not None else subs
    name = c.rel_name(dobj)
    if name is None and dobj.pos_ == "PROPN":
        name = dobj
    obj = c.name_of(name) if name is not None else noun_phrase(c, dobj, drop_amod=True)
    for s in who:
        c.emit(s, "HAS_PET", obj, v, kind="end", rule=f"{lemma}_{prt.lower_}_pet",
               tokens=[dobj])


def named_after(c: Context, noun: Token) -> None:
    """"I got a puppy two weeks ago! Her name's Coco": the pet the speaker was just said to
    have (a HAS_PET of this utterance) is called by the name told after it; "our one-year-old
    is so cute, his name is Kyle": so is the speaker's child (PARENT_OF)."""
    doc, i = noun.doc, noun.i
    if noun.lemma_.lower() != "name" or i == 0 or i + 2 >= len(doc):
        return
    if doc[i - 1].lower_ not in ("her", "his", "its") or doc[i + 1].lower_ not in (
            "'s", "is", "was"):
        return
    name = doc[i + 2]
    if not (name.pos_ == "PROPN" or ent_type(name) == "PERSON") or ent_type(name) in (
            "GPE", "LOC", "ORG", "DATE"):
        return  # (the tagger takes some names for nouns: "his name is Kyle")
    pets = [f for f in c.facts if f.predicate == "HAS_PET" and f.kind == "assert"
            and f.subject_is_speaker and f.object.lower() in L.PET_NOUNS]
    if not pets and doc[i - 1].lower_ in ("her", "his") and _child_just_told(doc, i - 1):
        c.emit(c.speaker_mention(), "PARENT_OF", c.name_of(name), None,
               rule="child_named_after", tokens=[name], confidence=0.7)
        return
    told = c.sitting.pets.get(c.speaker) if c.sitting is not None else None
    if not pets and told is not None and _only_pets_before(doc, i - 1):
        # "I got a puppy!" ... (a later turn) "His name is Rex": the same pet
        n = c.name_of(name)
        fact = c.emit(c.speaker_mention(), "HAS_PET", n, None, rule="pet_named_later",
                      tokens=[name], confidence=0.7, attributes={"kind_of": told})
        if fact is not None and c.sitting is not None:
            c.sitting.named_pets[(c.speaker, told)] = n
            c.relatives[told] = n
        return
    if pets:
        fact = c.emit(c.speaker_mention(), "HAS_PET", c.name_of(name), None,
                      rule="pet_named_after", tokens=[name], confidence=0.7)
        if fact is not None:  # from when the pet was got ("two weeks ago")
            fact.valid_at, fact.valid_precision = pets[-1].valid_at, pets[-1].valid_precision
            fact.time_text = pets[-1].time_text
            # one pet: the name replaces the noun it was told by, which stays its kind
            fact.attributes.setdefault("kind_of", pets[-1].object)
            c.facts.remove(pets[-1])


def _only_pets_before(doc: Any, end: int) -> bool:
    """Nothing but pets (or no noun at all) before ``doc[end]`` ("He's so cute! His name
    is Rex"), so a "his" can only be the pet told of before (not "I met a guy, his name")."""
    return all(t.pos_ not in ("NOUN", "PROPN") or t.lemma_.lower() in L.PET_NOUNS
               for t in doc[:end])


def _child_just_told(doc: Any, end: int) -> bool:
    """"my son ...", "our one-year-old ..." right before ``doc[end]`` ("his"), with no other
    noun between them (not "my son's teacher is great, her name is ...")."""
    for j in range(end - 1, -1, -1):
        t = doc[j]
        if t.lower_ in ("my", "our"):
            words = [x.lower_ for x in doc[j + 1:j + 6]]
            child_word = bool(words) and words[0] in L.CHILD_WORDS and (
                j + 2 >= len(doc) or doc[j + 2].lower_ != "'s")
            aged = "year" in words and "old" in words and "'s" not in words  # "one-year-old"
            return child_word or aged
        if t.pos_ in ("NOUN", "PROPN") and t.lower_ not in ("year", "old") and not (
                j > 0 and doc[j - 1].lower_ in ("my", "our")):
            return False
    return False
