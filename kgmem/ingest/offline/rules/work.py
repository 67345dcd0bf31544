"""Work: WORKS_AT from work/join/start/get/hire/land/sign/teach and "my job at IBM", its end
from quit/leave/laid off/fired/retired, and HAS_ROLE from "as <role>"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ...facts import ANY_OBJECT
from ..context import Context
from ..entities import ent_type, is_pet_noun, named
from ..mentions import subjects
from ..objects import employer_of, entity_ok, is_role, is_school
from ..phrases import noun_phrase, role_text
from ..tree import child, children, coord, governor, preps
from .business import acquire, open_business
from .events import back_from
from .pets import pet_object
from .relationships import divorce, marry

if TYPE_CHECKING:
    from spacy.tokens import Token


def work(c: Context, v: Token) -> None:
    """"I work at Google" (WORKS_AT), "work as a nurse" (HAS_ROLE), "working on the app"
    (WORKS_ON)."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    for prep, o in preps(v, ("at", "for", "with")):
        if prep.lower_ == "with" and ent_type(o) != "ORG":
            continue
        if prep.lower_ == "for" and (o.pos_ != "PROPN" and not ent_type(o) == "ORG"):
            if not o.is_title and o.lemma_.lower() not in ("company", "startup", "firm") and (
                named(o) is None
            ):
                continue
        for obj, negated in coord(o):
            obj = named(obj) or obj
            if not entity_ok(c, obj, "org") or (
                obj.lemma_.lower() in L.TEAM_NOUNS and obj.pos_ != "PROPN"
            ):
                continue
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, obj, keep_preps=("of",)), v,
                       kind="retract" if negated else "assert",
                       confidence=0.9 - 0.15 * dropped, rule="work_at", tokens=[obj])
    for prep, o in preps(v, ("as",)):
        if is_role(o) or o.pos_ == "NOUN":
            for s in subs:
                c.emit(s, "HAS_ROLE", role_text(c, o), v, confidence=0.85,
                       rule="work_as", tokens=[o])
    for prep, o in preps(v, ("on",)):
        if o.pos_ in ("NOUN", "PROPN") and o.i not in c.time_tokens and entity_ok(c, 
                                                                                  o, "any"
        ) and not any(ch.dep_ == "det" and ch.lower_ in ("this", "that", "it")
                      for ch in o.children):
            for s in subs:
                c.emit(s, "WORKS_ON", noun_phrase(c, o), v, confidence=0.6, rule="work_on",
                       tokens=[o])


def join(c: Context, v: Token) -> None:
    """"I joined Stripe" (WORKS_AT), "joined the data team" (MEMBER_OF_TEAM), "joined a book club"
    (MEMBER_OF)."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    obj = child(v, "dobj")
    if obj is None:
        return
    obj = named(obj) or obj
    lemma = obj.lemma_.lower()
    if lemma == "team" or (obj.dep_ and lemma in ("squad", "crew", "pod")):
        for s in subs:
            c.emit(s, "MEMBER_OF_TEAM", noun_phrase(c, obj), v, rule="join_team", tokens=[obj])
    elif lemma in L.MEMBERSHIP_NOUNS:
        for s in subs:
            c.emit(s, "MEMBER_OF", noun_phrase(c, obj, keep_preps=("for", "of")), v,
                   rule="join_club", tokens=[obj])
    elif entity_ok(c, obj, "org") and (obj.pos_ == "PROPN" or ent_type(obj) == "ORG"):
        if ent_type(obj) == "PERSON":
            return
        for s in subs:
            c.emit(s, "WORKS_AT", noun_phrase(c, obj, keep_preps=("of",)), v, confidence=0.8,
                   rule="join_org", tokens=[obj])
    else:
        return
    for prep, o in preps(v, ("as",)):
        if is_role(o):
            for s in subs:
                c.emit(s, "HAS_ROLE", role_text(c, o), v, rule="join_as", tokens=[o])


def start(c: Context, v: Token) -> None:
    """"I started a new job at Spotify", "started at Shopify in January": WORKS_AT (and
    HAS_ROLE); "started a weekend yoga class" (MEMBER_OF); "started my own business" (RUNS)."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    open_business(c, v)
    dobj0 = child(v, "dobj")
    if dobj0 is not None and dobj0.lemma_.lower() in L.CLASS_NOUNS and c.flags(v).past:
        for s in subs:
            c.emit(s, "MEMBER_OF", noun_phrase(c, dobj0, keep_preps=("for", "of")), v,
                   rule="start_class", tokens=[dobj0])
    dobj = child(v, "dobj")
    targets = []
    if dobj is not None and dobj.lemma_.lower() in L.JOB_NOUNS:
        targets = employer_of(c, v, dobj)
        for prep, o in preps(dobj, ("as",)) + preps(v, ("as",)):
            if is_role(o):
                for s in subs:
                    c.emit(s, "HAS_ROLE", role_text(c, o), v, rule="start_as", tokens=[o])
    elif dobj is None:
        targets = [(p, o) for p, o in preps(v, ("at", "with")) if entity_ok(c, o, "org")
                   and ent_type(o) not in ("PERSON",)]
    for prep, o in targets:
        # "My son Leo just started at Westfield Elementary": a school started at is studied at
        # (a job at one is said as such: "started a job at the school")
        school = dobj is None and is_school(c, o)
        for s in subs:
            c.emit(s, "STUDIES_AT" if school else "WORKS_AT",
                   noun_phrase(c, o, keep_preps=("of",)), v,
                   confidence=0.85 - 0.15 * dropped, rule="start_at_school" if school
                   else "start_at", tokens=[o])


def get(c: Context, v: Token) -> None:
    """"I got a job at IBM" (WORKS_AT), "got a puppy" (HAS_PET), "got back from Peru" (VISITED),
    "got married" (MARRIED_TO), "got a new car" (OWNS)."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    acquire(c, v)
    dobj = child(v, "dobj")
    if dobj is not None:
        lemma = dobj.lemma_.lower()
        if lemma in L.JOB_NOUNS and not _unpaid_work(dobj):
            for prep, o in employer_of(c, v, dobj):
                for s in subs:
                    c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v,
                           confidence=0.85, rule="get_job", tokens=[o])
            for prep, o in preps(dobj, ("as",)) + preps(v, ("as",)):
                if is_role(o):
                    for s in subs:
                        c.emit(s, "HAS_ROLE", role_text(c, o), v, rule="job_as", tokens=[o])
        elif is_pet_noun(dobj) and dobj.lemma_.lower() not in ("fish", "chicken", "bird"):
            pet_object(c, v, dobj, subs, rule="get_pet")
    back = child(v, ("advmod", "prt"), "back")
    if back is not None:
        back_from(c, v, subs)
        for prep, o in preps(v, ("from",)) + preps(back, ("from",)):
            if entity_ok(c, o, "place") and ent_type(o) in ("GPE", "LOC", "FAC", ""):
                if not ent_type(o) and (o.pos_ != "PROPN" or not o.text[:1].isupper()
                                        or o.lemma_.lower() in L.TRIP_NOUNS):
                    continue  # "got back from a rad vacay" (a tagger's lowercase PROPN)
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, o), v, confidence=0.75, rule="back_from",
                           tokens=[o])
    # "got married/divorced/promoted/hired" with get as main verb + acomp/xcomp
    for comp in children(v, ("acomp", "xcomp", "ccomp", "oprd")):
        if comp.lemma_.lower() in ("marry", "married"):
            marry(c, comp)
        elif comp.lemma_.lower() in ("divorce", "divorced"):
            divorce(c, comp)


def hire(c: Context, v: Token) -> None:
    """"I got hired by Pfizer", "I was hired at Boeing as an analyst": WORKS_AT, HAS_ROLE."""
    if not child(v, ("auxpass", "nsubjpass")) and v.tag_ != "VBN":
        return
    subs, dropped = subjects(c, v)
    for prep, o in preps(v, ("by", "at", "as")):
        if prep.lower_ == "as":
            if is_role(o):
                for s in subs:
                    c.emit(s, "HAS_ROLE", role_text(c, o), v, rule="hired_as")
            continue
        # (a PERSON is kept: NER often tags the company in "hired by Pfizer" as one)
        if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC"):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v,
                       confidence=0.85, rule="hired_by", tokens=[o])


def employ(c: Context, v: Token) -> None:
    """"I'm employed at Deloitte": WORKS_AT."""
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("by", "at", "with")):
        if entity_ok(c, o, "org"):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v,
                       confidence=0.85, rule="employed_at", tokens=[o])


def land(c: Context, v: Token) -> None:
    """"I landed a job at Meta", "accepted an offer at X": WORKS_AT."""
    dobj = child(v, "dobj")
    if dobj is None or dobj.lemma_.lower() not in L.JOB_NOUNS:
        return
    subs, _ = subjects(c, v)
    for prep, o in employer_of(c, v, dobj):
        for s in subs:
            c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v, confidence=0.8,
                   rule="land_job", tokens=[o])


def sign(c: Context, v: Token) -> None:
    """"I signed a contract with Nike": WORKS_AT; "signed with the Wolves" (a team:
    MEMBER_OF_TEAM); "signed up for a pottery class" (MEMBER_OF)."""
    dobj = child(v, "dobj")
    if dobj is None and child(v, "prt", "up") is not None:
        subs, dropped = subjects(c, v)
        for _p, o in preps(v, ("for",)):
            if o.lemma_.lower() in L.MEMBERSHIP_NOUNS or o.lemma_.lower() in L.CLASS_NOUNS:
                for s in subs:
                    c.emit(s, "MEMBER_OF", noun_phrase(c, o, keep_preps=("for", "of")), v,
                           rule="sign_up_for", tokens=[o])
        return
    if dobj is None:
        subs, dropped = subjects(c, v)
        for _p, o in preps(v, ("with",)):
            named_team = o.pos_ == "PROPN" or (o.text[:1].isupper() and any(
                ch.dep_ == "compound" and ch.pos_ == "PROPN" for ch in o.children))
            if named_team and ent_type(o) not in ("PERSON", "GPE", "LOC", "DATE"):
                for s in subs:  # "I signed with the Minnesota Wolves"
                    c.emit(s, "MEMBER_OF_TEAM", noun_phrase(c, o), v, rule="sign_with_team",
                           tokens=[o], confidence=0.7 - 0.1 * dropped)
        return
    if dobj.lemma_.lower() not in ("contract", "offer", "deal"):
        return
    subs, dropped = subjects(c, v)
    for prep, o in preps(v, ("with",)) + preps(dobj, ("with",)):
        if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC"):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o), v, confidence=0.7 - 0.1 * dropped,
                       rule="sign_contract", tokens=[o])


def _unpaid_work(noun: Token) -> bool:
    """"some community work", "volunteer work", "charity work": work done, not a job held."""
    return noun.lemma_.lower() == "work" and any(
        (ch.dep_ == "det" and ch.lower_ in ("some", "any", "more", "much"))
        or (ch.dep_ in ("compound", "amod") and ch.lower_ not in ("full-time", "part-time",
                                                                "new", "first", "paid"))
        for ch in noun.children)


# a company described, not named ("the mechanical engineering company"): named enough for a job
# one lost or left, where the sentence says which one it was
_DESCRIBED_EMPLOYERS = frozenset({"company", "firm", "startup", "agency", "studio", "factory",
                                  "bank", "hospital", "restaurant", "store", "shop", "lab"})


def _described_employer(v: Token, dobj: Token) -> list[Token]:
    return [o for h in (v, dobj) for _p, o in preps(h, ("at", "with"))
            if o.lemma_.lower() in _DESCRIBED_EMPLOYERS and o.pos_ == "NOUN" and any(
                ch.dep_ in ("compound", "amod") and ch.pos_ in ("NOUN", "ADJ", "PROPN")
                for ch in o.children)]


def quit(c: Context, v: Token) -> None:
    """"I quit my job at IBM", "I left Google", "we left Boston": the fact ends."""
    subs, dropped = subjects(c, v)
    if not subs:
        return
    dobj = child(v, "dobj")
    xcomp = child(v, "xcomp")
    if xcomp is not None and xcomp.lemma_ == "use":
        return  # "quit using X" -> use rule with ending
    if dobj is None or (v.lemma_.lower() == "lose" and dobj.lemma_.lower() not in L.JOB_NOUNS):
        return
    lemma = dobj.lemma_.lower()
    if lemma in L.JOB_NOUNS:
        for _p, o in preps(dobj, ("as",)) + preps(v, ("as",)):
            if is_role(o):  # "lost my job as a banker yesterday"
                for s in subs:
                    c.emit(s, "HAS_ROLE", role_text(c, o), v, kind="end", confidence=0.85,
                           rule="quit_job_as", tokens=[o])
        emps = employer_of(c, v, dobj)
        for prep, o in emps:
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v, kind="end",
                       confidence=0.85, rule="quit_job_at", tokens=[o])
        described = [] if emps else _described_employer(v, dobj)
        for o in described:  # "I lost my job at the mechanical engineering company"
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v, kind="end",
                       confidence=0.75, rule="quit_job_at_described", tokens=[o])
        if not emps and not described and not preps(dobj, ("as",)) and any(
                ch.lower_ in ("my", "our") for ch in dobj.children):
            for s in subs:
                c.emit(s, "WORKS_AT", ANY_OBJECT, v, kind="end", confidence=0.6,
                       rule="quit_job", tokens=[dobj])
        return
    if ent_type(dobj) in ("GPE", "LOC") and v.lemma_ == "leave":
        for s in subs:
            c.emit(s, "LIVES_IN", noun_phrase(c, dobj), v, kind="end", confidence=0.7,
                   rule="leave_place", tokens=[dobj])
        return
    if dobj.pos_ == "PROPN" and ent_type(dobj) not in ("PERSON", "GPE", "LOC", "DATE"):
        for s in subs:
            c.emit(s, "WORKS_AT", noun_phrase(c, dobj, keep_preps=("of",)), v, kind="end",
                   confidence=0.75, rule="quit_org", tokens=[dobj])
    elif lemma in L.MEMBERSHIP_NOUNS and lemma != "team" and lemma not in L.EVENT_NOUNS:
        for s in subs:  # "I quit the choir", "left my book club"
            c.emit(s, "MEMBER_OF", noun_phrase(c, dobj, keep_preps=("for", "of")), v, kind="end",
                   rule=f"{v.lemma_.lower()}_club", tokens=[dobj])
    elif lemma == "team" and v.lemma_ == "leave":
        for s in subs:
            c.emit(s, "MEMBER_OF_TEAM", noun_phrase(c, dobj), v, kind="end", rule="leave_team",
                   tokens=[dobj])


def ended_employment(c: Context, v: Token) -> None:
    """laid off / fired / let go / retired / resigned (from X)."""
    lemma = v.lemma_.lower()
    if lemma == "lay" and not child(v, "prt", "off"):
        return
    if lemma == "fire" and (v.tag_ != "VBN" or child(v, ("prt", "advmod"), "up")):
        return  # "got us fired up" is no dismissal
    subs, dropped = subjects(c, v)
    if not subs:
        return
    emps = [(p, o) for p, o in preps(v, ("from", "at", "by"))
            if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC")]
    for _p, span in preps(v, ("after",)):  # "retired after 30 years at Boeing"
        emps += [(p, o) for p, o in preps(span, ("at", "with"))
                 if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC")]
    for prep, o in emps:
        for s in subs:
            c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v, kind="end",
                   confidence=0.85, rule=f"{lemma}_from", tokens=[o])
    if not emps and lemma in ("lay", "fire"):
        for s in subs:
            c.emit(s, "WORKS_AT", ANY_OBJECT, v, kind="end", confidence=0.6,
                   rule=f"{lemma}_any")


def teach(c: Context, v: Token) -> None:
    """"I teach at Lincoln High": WORKS_AT; "I keep teaching yoga" (a habit of now): HAS_ROLE
    yoga teacher."""
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    f = c.flags(v)
    if dobj is not None and dobj.pos_ == "NOUN" and not (f.past or f.future) and dobj.i not in (
            c.time_tokens) and not any(ch.dep_ in ("det", "poss") for ch in dobj.children) and (
            dobj.lower_ not in L.TAUGHT_PEOPLE):
        for s in subs:  # "teach yoga", not "taught my son to swim" / "teach them"
            c.emit(s, "HAS_ROLE", f"{noun_phrase(c, dobj)} teacher", v, timed=False,
                   confidence=0.65, rule="teach_subject", tokens=[dobj])
    for prep, o in preps(v, ("at",)):
        if entity_ok(c, o, "org") and (o.pos_ == "PROPN" or ent_type(o) == "ORG"):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)), v,
                       confidence=0.75, rule="teach_at", tokens=[o])


def job_noun(c: Context, noun: Token) -> None:
    """"my job at IBM", "Work at Intel has been crazy"."""
    owner = c.owner_of(noun)
    if owner is None:
        if not (noun.lemma_.lower() == "work" and noun.dep_ == "nsubj" and not any(
            ch.dep_ == "det" for ch in noun.children
        ) and noun.i == noun.sent.start):
            return
        owner = c.speaker_mention()
    gov = governor(noun)
    if gov is not None and gov.lemma_.lower() in ("quit", "leave", "lose", "start", "get",
                                                  "land", "take", "accept", "begin") and not (
        gov.lemma_.lower() in ("start", "begin") and noun.dep_ == "nsubj"
    ):
        return  # the verb rules handle these (but "my job at Acme starts Monday" is ours)
    targets = preps(noun, ("at", "with"))
    if not targets and noun.dep_ == "dobj":  # "I love my job at Nike" (PP on the verb)
        targets = [(p, o) for p, o in preps(noun.head, ("at", "with"))
                   if p.i == noun.right_edge.i + 1]
    for prep, o in targets:
        if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC", "PERSON"):
            glem = gov.lemma_.lower() if gov is not None else ""
            ended = glem in ("end", "finish", "stop") and noun.dep_ == "nsubj"
            timed = glem in ("start", "begin") or ended  # "my job at Acme ended in March"
            c.emit(owner, "WORKS_AT", noun_phrase(c, o, keep_preps=("of",)),
                   gov if timed else None, rule="my_job_at_ended" if ended else "my_job_at",
                   kind="end" if ended else "assert", timed=timed, tokens=[o],
                   confidence=0.8)
