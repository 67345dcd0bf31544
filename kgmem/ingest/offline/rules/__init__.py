"""The rules, one module per domain, and the dispatch over a parse (:func:`run`).

Every verb (and copula) is handed to the rule keyed on its lemma in :data:`VERB_RULES`; nouns
with a possessive get the relation/job/home noun rules. A rule is a function
``rule(c: Context, token) -> None`` that reads the dependency tree around the token and calls
``c.emit(...)`` for each fact it finds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..tree import child
from .admission import accepted, find_new, get_or_out, hit_the_gym, my_group
from .business import acquire, open_business, own_noun, volunteer
from .careers import (
    appointed_by,
    career,
    member_copula,
    role_apposition,
    sport_teams,
    topic_leads,
)
from .copula import copula
from .education import attend, do, exam_taken, finish, graduate, study
from .events import (
    at_event,
    be_at,
    celebrate,
    event_object,
    own_event,
    partake,
    went_gerund_aux,
)
from .homes import based, home_noun, live, move, settle
from .keepsakes import kept_thing
from .life import (
    companions,
    friendship,
    injury,
    life_event_noun,
    own_wedding,
    relative_died,
    spouse_noun,
    trip_noun,
)
from .lists import read_lists
from .notes import RESCHEDULE_VERBS, date_moved, sentence_notes
from .origins import be_from, grew_up, origin_noun, used_to_back_in
from .ownership import ownership
from .personal import belong, play, speak, turn
from .pets import have, named_after, pet_away, pet_end
from .plans import plan
from .possessions import own
from .preferences import like, like_adj, stand
from .relationships import break_up, date, divorce, marry, relation_noun, see
from .roles import appoint, as_role_opening, become, lead, promote, report, step, take
from .tools import code, rely, stop, switch, tool_prep, use
from .travel import go, photo_taken_at, return_from, spend, visit
from .work import (
    employ,
    ended_employment,
    hire,
    job_noun,
    join,
    land,
    quit,
    sign,
    start,
    teach,
    work,
)

Rule = Callable[[Context, Any], None]

if TYPE_CHECKING:
    from spacy.tokens import Token


def pass_(c: Context, v: Token) -> None:
    """"my dog passed away" (pets.pet_end), "I passed the adoption agency interviews" (an
    event)."""
    pet_end(c, v)
    event_object(c, v)


def do_(c: Context, v: Token) -> None:
    """"doing a PhD at Stanford", "I do yoga" (education.do); "I did a charity event last
    Friday" (an event)."""
    do(c, v)
    dobj = child(v, "dobj")
    if dobj is not None and dobj.tag_ == "NN":  # one event done, not an activity ("doing
        event_object(c, v)                     # seminars": giving them, a role)


def help_(c: Context, v: Token) -> None:
    """"I helped out at the shelter", "I started helping out with a food drive": volunteering
    (``help`` with ``out``; plain "help" is too common to read)."""
    if any(ch.dep_ == "prt" and ch.lower_ == "out" for ch in v.children):
        volunteer(c, v)


def give(c: Context, v: Token) -> None:
    """"I gave up Twitter" (tools.stop), "I gave a presentation in class" (an event)."""
    stop(c, v)
    event_object(c, v)


# surface forms the lemmatizer gets wrong in this model ("hates" -> "hat")
LEMMA_FIX = {"hoping": "hope", "hoped": "hope", "hopes": "hope", "hates": "hate",
             "hated": "hate", "loves": "love", "likes": "like", "leads": "lead", "led": "lead",
             "uses": "use", "lived": "live", "lives": "live", "dating": "date",
             "dated": "date", "dates": "date", "quit": "quit", "left": "leave",
             "married": "marry", "moved": "move", "relocated": "relocate", "lost": "lose",
             "retook": "retake", "retaken": "retake"}

# verb lemma -> its rule (a copula also goes through rules.copula)
VERB_RULES: dict[str, Rule] = {
    "live": live, "reside": live, "settle": settle,
    "move": move, "relocate": move, "emigrate": move,
    "work": work, "join": join, "start": start, "begin": start,
    "get": get_or_out, "hire": hire, "employ": employ, "land": land,
    "accept": accepted, "find": find_new, "hit": hit_the_gym, "sign": sign, "quit": quit,
    "leave": quit,
    "lay": ended_employment, "fire": ended_employment,
    "retire": ended_employment, "resign": ended_employment,
    "promote": promote, "become": become,
    "lead": lead, "manage": lead, "run": lead, "head": lead,
    "oversee": lead, "supervise": lead, "direct": lead,
    "chair": lead, "own": own, "captain": lead,
    "take": take, "step": step,
    "marry": marry, "wed": marry, "divorce": divorce, "date": date,
    "see": see, "break": break_up, "split": break_up,
    "have": have, "adopt": have, "rescue": have, "foster": have,
    "die": pet_end, "pass": pass_,
    "obsess": like_adj, "hook": like_adj, "addict": like_adj,
    "love": like, "like": like, "enjoy": like, "adore": like,
    "prefer": like, "fancy": like, "dig": like,
    "hate": like, "dislike": like, "detest": like, "loathe": like,
    "despise": like, "abhor": like, "stand": stand,
    "use": use, "utilize": use, "utilise": use, "switch": switch,
    "migrate": switch, "rely": rely, "code": code,
    "program": code, "write": code, "develop": code,
    "give": give, "ditch": stop, "uninstall": stop, "abandon": stop,
    "plan": plan, "intend": plan, "hope": plan, "want": plan,
    "aim": plan, "consider": plan, "think": plan, "wish": plan,
    "go": go, "visit": visit, "travel": visit, "fly": visit,
    "tour": visit, "explore": visit, "spend": spend, "return": return_from,
    "come": return_from,
    "study": study, "do": do_, "graduate": graduate, "help": help_,
    "attend": attend, "speak": speak, "play": play,
    "practice": play, "practise": play, "report": report,
    "teach": teach, "finish": finish, "complete": finish,
    "name": appoint, "appoint": appoint, "elect": appoint,
    "put": pet_away, "delete": stop, "cancel": stop,
    "turn": turn, "belong": belong, "base": based,
    "locate": based,
    "participate": partake, "compete": partake, "perform": partake,
    "win": event_object, "celebrate": celebrate, "enter": event_object, "host": event_object,
    "organize": event_object, "organise": event_object, "throw": event_object,
    "hold": event_object, "trip": visit, "backpack": visit, "roadtrip": visit,
    "open": open_business, "launch": open_business, "found": open_business,
    "establish": open_business, "buy": acquire, "purchase": acquire, "lease": acquire,
    "inherit": acquire, "volunteer": volunteer, "lose": quit,
    "hustle": work, "freelance": work, "moonlight": work,
    "grow": grew_up, "bear": grew_up, "raise": grew_up,
}


def run(c: Context) -> None:
    """Run every rule that applies to the utterance's tokens; the facts go to ``c.facts``."""
    _note_people(c)
    for tok in c.doc:
        lemma = LEMMA_FIX.get(tok.lower_) or tok.lemma_.lower()
        if tok.pos_ in ("VERB", "AUX") and tok.dep_ not in ("aux", "auxpass"):
            handler = VERB_RULES.get(lemma)
            if handler is not None:
                handler(c, tok)
            elif tok.pos_ == "VERB":
                tool_prep(c, tok)
            if lemma == "be" or (tok.pos_ == "AUX" and child(tok, ("attr", "acomp"))):
                copula(c, tok)
            if c.narrative:
                career(c, tok)
                appointed_by(c, tok)
                ownership(c, tok)
            if lemma == "be":
                be_at(c, tok)
                be_from(c, tok)
                if c.narrative:
                    member_copula(c, tok)
            else:
                at_event(c, tok)
                companions(c, tok)
                went_gerund_aux(c, tok)
            as_role_opening(c, tok)
            used_to_back_in(c, tok)
            if lemma in L.INJURY_VERBS:
                injury(c, tok)
            if lemma in L.DEATH_VERBS:
                relative_died(c, tok)
            if lemma in L.EXAM_VERBS:
                exam_taken(c, tok)
            if lemma == "take":
                photo_taken_at(c, tok)
            if lemma in RESCHEDULE_VERBS:
                date_moved(c, tok)
        if tok.pos_ in ("NOUN", "PROPN"):
            if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS:
                relation_noun(c, tok)
            if lemma in L.JOB_NOUNS:
                job_noun(c, tok)
            if lemma in L.HOME_NOUNS:
                home_noun(c, tok)
            own_event(c, tok)
            own_noun(c, tok)
            kept_thing(c, tok)
            origin_noun(c, tok)
            my_group(c, tok)
            life_event_noun(c, tok)
            spouse_noun(c, tok)
            own_wedding(c, tok)
            trip_noun(c, tok)
            if lemma == "name":
                named_after(c, tok)
            if lemma in ("friendship", "friend"):
                friendship(c, tok)
            if c.narrative:
                role_apposition(c, tok)
    for sent in c.doc.sents:
        sentence_notes(c, sent)
    if c.layout is not None:
        read_lists(c, c.layout, c.title)
    topic_leads(c)
    sport_teams(c)


def _note_people(c: Context) -> None:
    """Register named people before any rule runs, so that he/she resolve across sentences."""
    for tok in c.doc:
        lemma = tok.lemma_.lower()
        if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS:
            name = c.rel_name(tok)
            if name is not None:
                c.note_person(name, c.name_of(name))
                owner = c.owner_of(tok)
                if owner is not None and owner.speaker and tok.tag_ != "NNS":
                    c.relatives[lemma] = c.name_of(name)  # "my partner Alex": later "my partner"
        elif ent_type(tok) == "PERSON" and tok.ent_iob_ == "B":
            c.note_person(tok, c.name_of(tok))
