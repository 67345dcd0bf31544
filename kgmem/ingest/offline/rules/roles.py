"""Roles and leading: HAS_ROLE and LEADS from become/promote/appoint/step down, "head of the X
team", run/manage/lead/take over; REPORTS_TO from "report to"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type, named, strip_det
from ..mentions import Mention, subjects
from ..objects import employer_of, entity_ok, is_role, past_role, teamish
from ..phrases import noun_phrase, role_text
from ..tree import child, children, coord, join_tokens, pobj, preps
from .events import attended, event_object, is_event, partake, took_place, took_trip
from .travel import go
from .work import get

if TYPE_CHECKING:
    from spacy.tokens import Token


def promote(c: Context, v: Token) -> None:
    """"I got promoted to senior engineer": HAS_ROLE (or LEADS)."""
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("to",)):
        if o.pos_ in ("NOUN", "PROPN"):
            role_or_lead(c, subs, o, v, rule="promoted_to")
    x = child(v, "xcomp")  # "promoted to team lead", parsed as "to lead" with "team" its subject
    if x is not None and x.lower_ in ("lead", "head") and child(x, "aux", "to") is not None:
        who = child(x, "nsubj")
        if who is not None and who.pos_ == "NOUN":
            for s in subs:
                c.emit(s, "HAS_ROLE", f"{who.lower_} {x.lower_}", v, rule="promoted_to",
                       tokens=[who, x])


def become(c: Context, v: Token) -> None:
    """"she became CTO", "I became the head of the design team": HAS_ROLE / LEADS."""
    subs, _ = subjects(c, v)
    for o in children(v, ("attr", "acomp", "dobj", "oprd")):
        if o.pos_ in ("NOUN", "PROPN"):
            role_or_lead(c, subs, o, v, rule="become")


def role_or_lead(c: Context, subs: list[Mention], o: Token, anchor: Token, rule: str,
                 kind: str = "assert") -> bool:
    """HAS_ROLE for a job title; LEADS for "head/lead/manager of the X team"."""
    lemma = o.lemma_.lower()
    if o.pos_ not in ("NOUN", "PROPN"):
        return False
    if rule == "is_role" and any(ch.dep_ == "det" and ch.lower_ == "no" for ch in o.children):
        return True  # "I'm no writer like you": a denial, not a job title
    if any(ch.lower_ == "such" for ch in o.children) or any(
        ch.dep_ == "amod" and ch.lower_ in L.EVALUATIVE_ADJ for ch in o.children
    ) and kind == "assert" and rule == "is_role":
        return True  # "she is such an inspiring writer": an evaluation, not a job title
    if lemma in ("head", "lead", "leader", "manager", "director", "chief", "captain",
                 "charge", "owner", "president", "chair", "vp"):
        for prep, team in preps(o, ("of", "for")):
            if teamish(team) or ent_type(team) == "ORG":
                for s in subs:
                    c.emit(s, "LEADS", noun_phrase(c, team), anchor, kind=kind, rule=f"{rule}_lead",
                           tokens=[team])
                return True
    if is_role(o) and not past_role(o):
        if lemma == "student":
            for prep, org in preps(o, ("at", "of", "in")):
                if entity_ok(c, org, "org") and ent_type(org) not in ("GPE",):
                    for s in subs:
                        c.emit(s, "STUDIES_AT", noun_phrase(c, org, keep_preps=("of",)), anchor,
                               kind=kind, rule=f"{rule}_student", tokens=[org])
            return True
        org_of = [
            (p, named(x) or x) for p, x in preps(o, ("of",))
            if ((named(x) or x).pos_ == "PROPN" or ent_type(named(x) or x) == "ORG")
            and (named(x) or x).lower_ not in L.DEPARTMENTS
        ]
        role = role_text(c, o) if not org_of else strip_det(
            join_tokens(t for t in o.subtree if t.i < org_of[0][0].i and t.i >= o.left_edge.i
                        and t.dep_ not in ("det", "poss") and t.lower_ not in L.EVALUATIVE_ADJ))
        for s in subs:
            c.emit(s, "HAS_ROLE", role, anchor, kind=kind, rule=rule, tokens=[o])
        for _p, org in org_of:  # "the CEO of Lumen"
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, org), anchor, kind=kind, rule=f"{rule}_of",
                       tokens=[org])
        for prep, org in employer_of(c, o):
            if prep.lower_ in ("at", "for", "with"):
                for s in subs:
                    c.emit(s, "WORKS_AT", noun_phrase(c, org, keep_preps=("of",)), anchor,
                           kind=kind, rule=f"{rule}_at", tokens=[org])
        return True
    return False


def lead(c: Context, v: Token) -> None:
    """"I lead the platform team", "I manage the data team at Acme", "I run a bakery" (LEADS,
    WORKS_AT, OWNS); "heading to Tokyo" is travel."""
    lemma = v.lemma_.lower()
    if lemma == "head" and child(v, "dobj") is None and preps(v, ("to", "for")):
        go(c, v)  # "I'm heading to Tokyo next week"
        return
    if lemma == "run" and v.sent[0].lower_ in ("run",):
        return
    dobj = child(v, "dobj")
    if lemma == "run" and dobj is not None and is_event(dobj):
        event_object(c, v)  # "I ran a charity race"
        return
    passive = child(v, "nsubjpass")
    agent = None
    for prep, o in preps(v, ("by",)):
        agent = o
    target: Token | None
    if passive is not None and agent is not None:
        subs = c.resolve(agent)
        target = passive
    else:
        subs, dropped = subjects(c, v)
        target = dobj
    if target is None or not subs:
        return
    tl = target.lemma_.lower()
    if lemma in ("run", "manage", "oversee", "supervise", "direct", "head", "lead", "chair",
                 "own", "captain"):
        ok = teamish(target) or (ent_type(target) == "ORG" and lemma != "own")
        if lemma == "lead" and target.pos_ in ("NOUN", "PROPN"):
            ok = ok or tl in ("effort", "project", "initiative", "migration", "rollout")
        if lemma == "own":
            ok = tl in ("company", "business", "startup", "restaurant", "bakery", "shop",
                        "store", "cafe", "firm", "agency")
            if ok:
                for s in subs:
                    c.emit(s, "OWNS", noun_phrase(c, target), v, rule="own_business",
                           tokens=[target])
            return
        if not ok:
            return
        for obj, negated in coord(target):
            for s in subs:
                c.emit(s, "LEADS", noun_phrase(c, obj), v, kind="retract" if negated else "assert",
                       rule=f"{lemma}_team", tokens=[obj])
        for prep, org in employer_of(c, target, v):
            if prep.lower_ == "at":
                for s in subs:
                    c.emit(s, "WORKS_AT", noun_phrase(c, org, keep_preps=("of",)), v,
                           rule=f"{lemma}_team_at", tokens=[org])


def take(c: Context, v: Token) -> None:
    """"I took over the mobile team" (LEADS); "I took a job at X" is a job."""
    if v.dep_ == "relcl" and is_event(v.head) and child(v, "dobj") is None:
        subs, dropped = subjects(c, v)  # "a trip we took last year for my daughter's birthday"
        if took_place(c, v) and subs:
            attended(c, v, v.head, subs, "event_we_took", 0.7 - 0.1 * dropped)
        return
    if not child(v, ("prt", "advmod", "prep"), "over"):
        dobj = child(v, "dobj")
        if dobj is not None and dobj.lemma_.lower() in L.JOB_NOUNS:
            get(c, v)
        elif dobj is not None and dobj.lemma_.lower() == "part":
            partake(c, v)  # "took part in a 10K"
        elif dobj is not None:
            subs, dropped = subjects(c, v)
            took_trip(c, v, subs, dropped)
        return
    subs, _ = subjects(c, v)
    target = child(v, "dobj")
    if target is None:
        prt = child(v, "prep", "over")
        target = pobj(prt) if prt is not None else None
    if target is None:
        return
    if teamish(target) or target.lemma_.lower() in ("role", "position"):
        for s in subs:
            c.emit(s, "LEADS", noun_phrase(c, target), v, rule="take_over", tokens=[target])
    elif ent_type(target) == "ORG" or target.pos_ == "PROPN":
        for s in subs:
            c.emit(s, "LEADS", noun_phrase(c, target), v, confidence=0.6, rule="take_over",
                   tokens=[target])


def step(c: Context, v: Token) -> None:
    """"I stepped down as CTO": the role ends."""
    if not child(v, ("advmod", "prt"), "down"):
        return
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("as", "from")):
        role_or_lead(c, subs, o, v, rule="step_down", kind="end")


def appoint(c: Context, v: Token) -> None:
    """"Rosa was named head of sales", "I was appointed CTO"."""
    if not child(v, ("auxpass", "nsubjpass")):
        return
    subs, _ = subjects(c, v)
    for o in children(v, ("oprd", "attr", "xcomp", "dobj")):
        if o.pos_ in ("NOUN", "PROPN"):
            role_or_lead(c, subs, o, v, rule=f"{v.lemma_.lower()}_as")
    for prep, o in preps(v, ("as", "to")):
        role_or_lead(c, subs, o, v, rule=f"{v.lemma_.lower()}_as")


def report(c: Context, v: Token) -> None:
    """"I report to Dana": REPORTS_TO."""
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("to",)):
        if o.pos_ == "PROPN" or ent_type(o) == "PERSON":
            for s in subs:
                c.emit(s, "REPORTS_TO", c.name_of(o), v, rule="report_to",
                       tokens=[o])


def as_role_opening(c: Context, v: Token) -> None:
    """"As a writer, my laptop is half of my lifeline": a sentence opened by "As a <role>,"
    whose subject is the speaker or the speaker's (I, my ...): HAS_ROLE."""
    opening = child(v, "prep", "as")  # (called for every verb: the cheap test first)
    if opening is None:
        return
    first = next((t for t in v.sent if not t.is_punct and t.dep_ != "intj"), None)
    if first is None or first.i != opening.i:
        return
    role = pobj(opening)
    subj = child(v, ("nsubj", "nsubjpass"))
    if role is None or subj is None or not is_role(role) or past_role(role):
        return
    thing = subj.lemma_.lower() not in L.RELATION_NOUNS and subj.lemma_.lower() not in (
        L.PET_NOUNS) and ent_type(subj) != "PERSON"  # "my laptop", not "my sister"
    if subj.lower_ == "i" or thing and any(ch.dep_ == "poss" and ch.lower_ == "my"
                                           for ch in subj.children):
        c.emit(c.speaker_mention(), "HAS_ROLE", role_text(c, role), v, rule="as_role",
               timed=False, negatable=False, tokens=[role], confidence=0.7)
