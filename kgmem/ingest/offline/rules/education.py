"""Education: STUDIES_AT and ATTENDED from study/do a degree/graduate/attend/finish; a test
or exam sat (EXPERIENCED)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import subjects
from ..objects import entity_ok, is_school
from ..phrases import noun_phrase
from ..tree import child, preps
from .events import event_object, is_event, took_place

if TYPE_CHECKING:
    from spacy.tokens import Token


def study(c: Context, v: Token) -> None:
    """"I study at MIT", "studying law in Oxford University": STUDIES_AT."""
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    heads = [v] + ([dobj] if dobj is not None else [])
    for h in heads:
        for prep, o in preps(h, ("at", "in")):
            if prep.lower_ == "in" and not is_school(c, o):
                continue
            if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC", "PERSON"):
                for s in subs:
                    c.emit(s, "STUDIES_AT", noun_phrase(c, o, keep_preps=("of",)), v,
                           rule="study_at", tokens=[o])
                return


def do(c: Context, v: Token) -> None:
    """"doing a PhD at Stanford" (STUDIES_AT; a residency or internship: WORKS_AT), "I do
    everything in Figma" (USES), "I do yoga" (HAS_HOBBY)."""
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    if dobj is None:
        return
    lemma = dobj.lemma_.lower()
    if lemma in ("phd", "master", "masters", "degree", "doctorate", "mba", "bachelor",
                 "undergrad", "postdoc", "residency", "internship") or dobj.lower_ in (
        "phd", "ph.d.", "masters", "mba"
    ):
        for prep, o in preps(v, ("at", "in")) + preps(dobj, ("at",)):
            if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC"):
                pred = "WORKS_AT" if lemma in ("residency", "internship", "postdoc") else \
                    "STUDIES_AT"
                for s in subs:
                    c.emit(s, pred, noun_phrase(c, o, keep_preps=("of",)), v, rule="do_degree_at",
                           tokens=[o])
        return
    for prep, o in preps(v, ("in", "with", "on")) + preps(dobj, ("in", "with", "on")):
        if o.i not in c.time_tokens and (o.pos_ == "PROPN" or ent_type(o) == "PRODUCT") and (
            ent_type(o) not in ("GPE", "LOC", "PERSON", "DATE", "TIME")
        ):
            for s in subs:
                c.emit(s, "USES", noun_phrase(c, o), v, confidence=0.6, rule="do_in_tool",
                       tokens=[o])
            return
    if lemma in L.HOBBY_DO and not c.flags(v).past:
        for s in subs:
            c.emit(s, "HAS_HOBBY", noun_phrase(c, dobj), v, rule="do_hobby", timed=False,
                   tokens=[dobj])


def graduate(c: Context, v: Token) -> None:
    """"I graduated from Yale": ATTENDED; "I graduated last week!" (no school named): the
    graduation, an event (EXPERIENCED)."""
    subs, _ = subjects(c, v)
    schools = [o for _prep, o in preps(v, ("from",))]
    for o in schools:
        if entity_ok(c, o, "org"):
            for s in subs:
                c.emit(s, "ATTENDED", noun_phrase(c, o, keep_preps=("of",)), v,
                       rule="graduated_from", tokens=[o])
    f = c.flags(v)
    if not schools and v.pos_ == "VERB" and (f.past or f.perfect) and not f.future:
        for s in subs:
            if s.speaker or s.label == "PERSON":
                c.emit(s, "EXPERIENCED", "graduation", v, rule="graduated", tokens=[v],
                       confidence=0.7)


def attend(c: Context, v: Token) -> None:
    """"I attend NYU" (STUDIES_AT), "I attended Stanford" / "attended the Web Summit" (ATTENDED)."""
    subs, _ = subjects(c, v)
    dobj = child(v, "dobj")
    if dobj is not None and is_event(dobj) and not is_school(c, dobj):
        event_object(c, v)  # "attended a workshop"
        return
    if dobj is not None and (is_school(c, dobj) or ent_type(dobj) in ("ORG", "EVENT")):
        f = c.flags(v)
        pred = "ATTENDED" if (f.past or f.perfect or ent_type(dobj) == "EVENT") else "STUDIES_AT"
        if not is_school(c, dobj):
            pred = "ATTENDED"
        for s in subs:
            c.emit(s, pred, noun_phrase(c, dobj, keep_preps=("of",)), v, rule="attend",
                   tokens=[dobj])


def finish(c: Context, v: Token) -> None:
    """"finished my degree at MIT": ATTENDED."""
    dobj = child(v, "dobj")
    if dobj is None or dobj.lemma_.lower() not in L.DEGREE_WORDS:
        return
    subs, _ = subjects(c, v)
    for prep, o in preps(v, ("at", "from")) + preps(dobj, ("at", "from")):
        if entity_ok(c, o, "org") and ent_type(o) not in ("GPE", "LOC", "PERSON"):
            for s in subs:
                c.emit(s, "ATTENDED", noun_phrase(c, o, keep_preps=("of",)), v,
                       rule="finished_degree_at", tokens=[o])


def exam_taken(c: Context, v: Token) -> None:
    """"I failed the driving test recently", "last week I retook the aptitude test", "I aced my
    final exam": the speaker went through it (EXPERIENCED, an event)."""
    dobj = child(v, "dobj")
    if dobj is None or dobj.lemma_.lower() not in L.EXAM_NOUNS or not took_place(c, v):
        return
    for s in subjects(c, v)[0]:
        if s.speaker:
            c.emit(s, "EXPERIENCED", noun_phrase(c, dobj), v, rule=f"{v.lemma_.lower()}_exam",
                   tokens=[dobj], confidence=0.7)
