"""Being let in and getting out: "got accepted for a fashion internship" (HAS_ROLE), "accepted
into a nursing program" (MEMBER_OF), "found a new gym" (MEMBER_OF), "got me out of my 9-5 as a
banker" (HAS_ROLE ends)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..mentions import subjects
from ..objects import is_role
from ..phrases import noun_phrase, role_text
from ..tree import child, governor, preps
from .work import get, land

if TYPE_CHECKING:
    from spacy.tokens import Token

# what one is accepted for and then holds as a role ("a fashion internship")
ROLE_PLACES = frozenset({"internship", "apprenticeship", "residency", "fellowship",
                         "placement", "traineeship", "scholarship"})
# "out of my 9-5": the parser splits the numbers; "9" stands for the job
_JOB_WORDS = L.JOB_NOUNS | {"9", "9-5", "nine-to-five", "desk"}


def accepted(c: Context, v: Token) -> None:
    """accept: "accepted an offer at X" (WORKS_AT, the land rule) and the passive "I got
    accepted for/into X": a role for an internship-like X, a membership for a program or club."""
    land(c, v)
    if child(v, ("auxpass", "nsubjpass")) is None:
        return
    if not (c.flags(v).past or c.flags(v).perfect):
        return
    subs, _dropped = subjects(c, v)
    for _prep, o in preps(v, ("for", "into", "to", "at", "in")):
        lemma = o.lemma_.lower()
        if lemma in ROLE_PLACES:
            for s in subs:
                c.emit(s, "HAS_ROLE", noun_phrase(c, o), v, confidence=0.75,
                       rule="accepted_for_role", tokens=[o])
        elif lemma in L.MEMBERSHIP_NOUNS or lemma in L.CLASS_NOUNS:
            for s in subs:
                c.emit(s, "MEMBER_OF", noun_phrase(c, o, keep_preps=("for", "of")), v,
                       confidence=0.75, rule="accepted_into", tokens=[o])


def hit_the_gym(c: Context, v: Token) -> None:
    """"Started hitting the gym last week": one goes to a gym (MEMBER_OF), not in a plan."""
    obj = child(v, "dobj")
    if obj is None or obj.lemma_.lower() != "gym" or c.flags(v).future or c.flags(v).neg:
        return
    subs, dropped = subjects(c, v)
    for s in subs:
        c.emit(s, "MEMBER_OF", noun_phrase(c, obj), v, confidence=0.6 - 0.1 * dropped,
               rule="hit_the_gym", tokens=[obj], timed=False)


def my_group(c: Context, noun: Token) -> None:
    """"shared it with people in my vegan diet group", "my book club meets on Fridays": the
    owner is a member (a group needs its kind: not "my group of friends")."""
    lemma = noun.lemma_.lower()
    if noun.pos_ != "NOUN" or lemma not in L.POSSESSED_GROUP_NOUNS:
        return
    kinds = [ch for ch in noun.children if ch.dep_ in ("compound", "amod", "nmod")]
    if any(ch.lower_ in L.PAST_ROLE_MODIFIERS or ch.lower_ in L.NOT_OWN_BUSINESS_MODIFIERS
           or ch.lower_ in ("friend", "friends") for ch in kinds) or (
            lemma == "group" and not kinds):  # not "my favourite band", "my old club"
        return
    owner = c.owner_of(noun)
    if owner is None or not (owner.speaker or owner.label == "PERSON"):
        return
    gov = governor(noun)
    if gov is not None and (c.flags(gov).future or c.flags(gov).in_plan or
                            c.flags(gov).hypothetical):
        return
    c.emit(owner, "MEMBER_OF", noun_phrase(c, noun), gov, rule="my_group", tokens=[noun],
           timed=False, negatable=False, confidence=0.6)


def find_new(c: Context, v: Token) -> None:
    """find: "I found a new gym" (a place one now belongs to: MEMBER_OF), past only."""
    if not c.flags(v).past or c.flags(v).future:
        return
    obj = child(v, "dobj")
    if obj is None or obj.lemma_.lower() not in L.MEMBERSHIP_NOUNS:
        return
    if child(obj, "amod", "new") is None:
        return  # "found the gym closed": finding is not joining
    subs, dropped = subjects(c, v)
    for s in subs:
        c.emit(s, "MEMBER_OF", noun_phrase(c, obj, keep_preps=("for", "of")), v,
               confidence=0.65 - 0.1 * dropped, rule="found_new", tokens=[obj])


def get_or_out(c: Context, v: Token) -> None:
    """get: the work rule's readings (a job, a pet, back from a trip...) and "it got me out of
    my secure 9-5 as a banker" (the speaker's role ends)."""
    get(c, v)
    got_out_of(c, v)


def got_out_of(c: Context, v: Token) -> None:
    """"it got me out of my secure 9-5 as a banker": the speaker's role ends."""
    me = child(v, "dobj")
    if me is None or me.lower_ != "me" or not (c.flags(v).past or c.flags(v).perfect):
        return
    out = child(v, "prep", "out")
    if out is None:
        return
    job = next((o for _p, o in preps(out, ("of",)) if o.lemma_.lower() in _JOB_WORDS), None)
    if job is None:
        return
    for _p, o in preps(v, ("as",)) + preps(job, ("as",)):
        if is_role(o):
            c.emit(c.speaker_mention(), "HAS_ROLE", role_text(c, o), v, kind="end",
                   confidence=0.7, rule="got_out_of_job_as", tokens=[o])
