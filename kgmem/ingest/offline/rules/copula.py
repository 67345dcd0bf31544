"""The copula ("be" and other linking verbs): "my favorite food is ramen", "Sarah is my
sister", "I'm a nurse", "I'm 34", "I'm married to Tom", "I'm a big fan of X", "I've been to
Japan", "I'm based in Berlin"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ...discourse.coordination import first_of_list, names_listed
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..objects import entity_ok, pref_object_ok, teamish
from ..phrases import noun_phrase, num_text, role_text
from ..tree import child, coord, join_tokens, preps, subtrees
from .life import allergic
from .relationships import divorce, marry, pair_relation
from .roles import role_or_lead

if TYPE_CHECKING:
    from spacy.tokens import Token

_FAVORITE = ("favorite", "favourite", "fave")


def copula(c: Context, v: Token) -> None:
    """A linking verb: the pattern of its subject, attribute (``attr``), complement
    (``acomp``) or prepositions; the first one that applies wins."""
    subj_tok = child(v, ("nsubj", "nsubjpass"))
    attr = child(v, "attr")
    acomp = child(v, "acomp")
    if subj_tok is not None and subj_tok.pos_ == "NOUN" and (
        attr is not None or acomp is not None
    ) and _owned_subject(c, v, subj_tok, attr, acomp):
        return
    subs = c.resolve(subj_tok, collective=False) if subj_tok is not None else []
    if subj_tok is None:
        subs, _ = subjects(c, v)
    if attr is not None and subj_tok is not None and _owned_attribute(c, v, subj_tok, attr):
        return
    if not subs:
        return
    if attr is not None and _attribute(c, v, subs, attr):
        return
    if acomp is not None and _complement(c, v, subs, acomp):
        return
    _prepositions(c, v, subs, subj_tok)


def _owned_subject(c: Context, v: Token, subj_tok: Token, attr: Token | None, acomp: Token | None
                   ) -> bool:
    """"My favorite food is ramen", "My job title is product manager", "My manager is Tom",
    "my sister's name is Kate"; True when the clause is settled (a fact or nothing)."""
    owner = c.owner_of(subj_tok)
    slem = subj_tok.lemma_.lower()
    if owner is None:
        return slem == "name" and _name_is(c, v, subj_tok, attr)
    if any(ch.lower_ in _FAVORITE for ch in subj_tok.children):
        val: Any = attr if attr is not None else acomp  # one of them is set (see copula)
        if not (val.pos_ == "NOUN" and any(ch.lower_ in ("a", "an") for ch in val.children)):
            # (not "my favorite one is a theme from a movie": too vague)
            c.emit(owner, "FAVORITE", noun_phrase(c, val), v, rule="favorite_is",
                   tokens=[val], attributes={"category": slem})
        return True
    if attr is None:
        return slem == "name"
    if slem in ("title", "role", "position", "job") or any(
        ch.lower_ == "job" for ch in subj_tok.children
    ):
        c.emit(owner, "HAS_ROLE", role_text(c, attr), v, rule="title_is", tokens=[attr])
        return True
    if slem in L.RELATION_NOUNS and attr.pos_ == "PROPN":
        pred, _ = L.RELATION_NOUNS[slem]
        name = c.name_of(attr)
        c.note_person(attr, name)
        c.emit(owner, pred, name, v, rule="relation_is", timed=False, negatable=True,
               tokens=[attr])
        return True
    return slem == "name" or slem in L.HOME_NOUNS


def _name_is(c: Context, v: Token, subj_tok: Token, attr: Token | None) -> bool:
    """"my sister's name is Kate" / "my dog's name is Max"."""
    rel = child(subj_tok, "poss")
    if rel is None or attr is None or attr.pos_ not in ("PROPN", "NOUN"):
        return False
    rlem = rel.lemma_.lower()
    rel_owner = c.owner_of(rel)
    if rel_owner is None or not (rlem in L.RELATION_NOUNS or rlem in L.PET_NOUNS):
        return False
    pred = "HAS_PET" if rlem in L.PET_NOUNS and rlem not in L.RELATION_NOUNS \
        else L.RELATION_NOUNS[rlem][0]
    name = c.name_of(attr)
    c.note_person(attr, name)
    c.emit(rel_owner, pred, name, v, rule="name_is", timed=False, tokens=[attr])
    return True


def _owned_attribute(c: Context, v: Token, subj_tok: Token, attr: Token) -> bool:
    """"Sarah is my sister" / "Tom is my manager" / "Jazz is my favorite genre"."""
    owner = c.owner_of(attr)
    if owner is None:
        return False
    alem = attr.lemma_.lower()
    if any(ch.lower_ in _FAVORITE for ch in attr.children):
        c.emit(owner, "FAVORITE", noun_phrase(c, subj_tok), v, rule="is_my_favorite",
               tokens=[subj_tok], attributes={"category": alem})
        return True
    pet = alem in L.PET_NOUNS and alem not in L.RELATION_NOUNS
    if (alem in L.RELATION_NOUNS or pet) and (subj_tok.pos_ == "PROPN"
                                               or ent_type(subj_tok) == "PERSON"):
        pred = "HAS_PET" if pet else L.RELATION_NOUNS[alem][0]
        # "Sarah is my sister"; "Pepper, Precious and Panda are my cats": one fact each
        names = names_listed(first_of_list(subj_tok)) if attr.tag_ == "NNS" else [subj_tok]
        for n in names:
            c.emit(owner, pred, c.name_of(n), v, rule="is_my_pet" if pet else "is_my_relation",
                   timed=False, tokens=[n])
        return True
    return False


def _attribute(c: Context, v: Token, subs: list[Mention], attr: Token) -> bool:
    """"I'm a big fan of X", "a member of", "I'm 34", "lead for the X team", "part of the
    club", "I'm a nurse" (a role)."""
    alem = attr.lemma_.lower()
    if alem == "fan":
        _fan(c, v, subs, attr)
        return True
    if alem == "member":
        _member(c, v, subs, attr, part=False)
        return True
    if attr.like_num or ent_type(attr) == "CARDINAL" or (
        ent_type(attr) == "DATE" and attr.like_num
    ):
        if all(s.label in (None, "PERSON") for s in subs) and age_clause_ok(c, v):
            for s in subs:
                c.emit(s, "AGE", num_text(attr), v, rule="age", timed=False, tokens=[attr])
        return True
    if alem in ("lead", "head", "leader", "manager", "director") and not preps(
        attr, ("of", "for")
    ):
        for prep, team in preps(v, ("for", "of")):
            if teamish(team):
                for s in subs:
                    c.emit(s, "LEADS", noun_phrase(c, team), v, rule="is_lead_for",
                           tokens=[team])
                return True
    if alem == "part":
        _member(c, v, subs, attr, part=True)
        return True
    return role_or_lead(c, subs, attr, v, rule="is_role")


def _fan(c: Context, v: Token, subs: list[Mention], attr: Token) -> None:
    """"a fan of jazz and blues", "a big Arsenal fan"."""
    for prep, o in preps(attr, ("of",)):
        for obj, negated in coord(o):
            if not pref_object_ok(obj) or obj.pos_ == "PRON":
                continue
            for s in subs:
                c.emit(s, "LIKES", noun_phrase(c, obj), v, flip="DISLIKES", rule="fan_of",
                       tokens=[obj], timed=False)
    comp = [ch for ch in attr.children if ch.dep_ == "compound"]
    if comp and not preps(attr, ("of",)):
        for s in subs:
            c.emit(s, "LIKES", join_tokens(subtrees(comp)), v, flip="DISLIKES", rule="x_fan",
                   tokens=comp, timed=False)


def _member(c: Context, v: Token, subs: list[Mention], attr: Token, part: bool) -> None:
    """"a member of the chess club"; "part of" only for a club, team or organisation (not
    "part of my life", "part of something bigger")."""
    found = preps(attr, ("of",))
    stranded = [p for p in attr.children if p.dep_ == "prep" and p.lower_ == "of"
                and not any(ch.dep_ == "pobj" for ch in p.children)]
    start = min(t.i for t in v.subtree)
    if v.dep_ == "relcl" and v.head.pos_ in ("NOUN", "PROPN") and v.head.i < v.i and (
            stranded or all(o.i > v.i for _p, o in found)):
        found = [(p, v.head) for p, _o in found] or [(stranded[0], v.head)]
        # "The book club I'm a member of meets on Mondays": the club, not "meets"
    elif stranded and not found and start > 0 and v.dep_ in ("relcl", "ccomp"):
        before = v.doc[start - 1]  # "the virtual support group I am a part of"
        if before.pos_ in ("NOUN", "PROPN"):
            found = [(stranded[0], before)]
    for prep, o in found:
        if part and not (o.lemma_.lower() in L.CLUB_NOUNS or o.lemma_.lower() in L.TEAM_NOUNS
                         or ent_type(o) in ("ORG", "NORP")):
            continue
        pred = "MEMBER_OF_TEAM" if o.lemma_.lower() == "team" else "MEMBER_OF"
        for s in subs:
            c.emit(s, pred, noun_phrase(c, o), v, rule="part_of" if part else "member_of",
                   tokens=[o])


def _complement(c: Context, v: Token, subs: list[Mention], acomp: Token) -> bool:
    """An adjective complement: "34 years old", "married to Tom", "divorced", "fluent in
    Spanish", "obsessed with X", "based in Berlin", "single"."""
    low = acomp.lower_
    if low == "old" or acomp.lemma_.lower() == "old":
        years = child(acomp, "npadvmod")
        num = child(years, "nummod") if years is not None else None
        if num is not None and all(s.label in (None, "PERSON") for s in subs) and (
            age_clause_ok(c, v)
        ):
            for s in subs:
                c.emit(s, "AGE", num_text(num), v, rule="age_old", timed=False, tokens=[num])
    elif acomp.like_num:
        if age_clause_ok(c, v):
            for s in subs:
                c.emit(s, "AGE", num_text(acomp), v, rule="age", timed=False, tokens=[acomp])
    elif low in ("married",) or acomp.lemma_.lower() == "marry":
        marry(c, acomp, subs_override=subs)
    elif low in ("divorced",):
        divorce(c, acomp, subs_override=subs)
    elif low == "allergic":
        allergic(c, acomp, subs, v)
    elif low == "intolerant":  # "I'm lactose intolerant", "gluten-intolerant"
        before = acomp.doc[acomp.i - 1] if acomp.i > 0 else None
        what = before if before is not None and before.is_alpha and before.pos_ in (
            "NOUN", "ADJ", "PROPN") else None  # "gluten-free and lactose intolerant": lactose
        what = what or next((ch for ch in acomp.children if ch.dep_ in (
            "amod", "compound", "npadvmod") and ch.pos_ in ("NOUN", "ADJ", "PROPN")), None)
        if what is not None:
            for s in subs:
                c.emit(s, "ALLERGIC_TO", what.lower_, v, rule="intolerant", tokens=[what],
                       timed=False)
    elif low == "fluent":
        _complement_objects(c, v, subs, acomp, ("in",), "SPEAKS", "fluent_in")
    elif low in L.LIKE_ADJ:
        _complement_objects(c, v, subs, acomp, (L.LIKE_ADJ[low], "with", "about", "on", "of"),
                            "LIKES", f"{low}_prep")
    elif low in ("based", "located"):
        for prep, o in preps(acomp, ("in", "out", "near")):
            if entity_ok(c, o, "place"):
                for s in subs:
                    c.emit(s, "LIVES_IN", noun_phrase(c, o), v, rule="based_in", tokens=[o])
    elif low in ("single",):
        for s in subs:
            c.emit(s, "HAS_STATUS", "single", v, rule="single", timed=True)
    else:
        return low == "together"
    return True


def _complement_objects(c: Context, v: Token, subs: list[Mention], acomp: Token,
                        words: tuple[str, ...], predicate: str, rule: str) -> None:
    """The objects of the complement's prepositions ``words``: "fluent in Spanish and
    French", "obsessed with anime"."""
    flip = "DISLIKES" if predicate == "LIKES" else None
    for prep, o in preps(acomp, words):
        for obj, neg in coord(o):
            for s in subs:
                c.emit(s, predicate, noun_phrase(c, obj), v, flip=flip, rule=rule,
                       tokens=[obj], timed=False)


def _prepositions(c: Context, v: Token, subs: list[Mention], subj_tok: Token | None) -> None:
    """"I'm into X", "in charge of", "I was in Japan", "I've been to Japan", "I've been with
    Acme since 2019", "on the X team", "we are together"."""
    # ("I'm based in Berlin" is often parsed with VBN 'based' as ROOT; see homes.based)
    for prep, o in preps(v, ("into",)):
        if not pref_object_ok(o):
            continue
        for obj, neg in coord(o):
            if obj.pos_ == "PRON" or not pref_object_ok(obj):
                continue
            for s in subs:
                c.emit(s, "LIKES", noun_phrase(c, obj), v, flip="DISLIKES", rule="into",
                       tokens=[obj], timed=False)
    for prep, o in preps(v, ("in",)):
        if o.lemma_.lower() == "charge":
            for p2, team in preps(o, ("of",)):
                for s in subs:
                    c.emit(s, "LEADS", noun_phrase(c, team), v, rule="in_charge_of",
                           tokens=[team])
        elif o.pos_ == "NOUN" and o.lemma_.lower() in L.IN_GROUP_NOUNS and not c.flags(v).past:
            for s in subs:  # "I'm in a book club", "I'm finally in the study abroad program"
                if s.speaker or s.label == "PERSON":
                    c.emit(s, "MEMBER_OF", noun_phrase(c, o, keep_preps=("for", "of")), v,
                           confidence=0.7, rule="in_group", tokens=[o])
        elif ent_type(o) in ("GPE", "LOC") and (c.flags(v).past or c.flags(v).perfect):
            if any(s.speaker for s in subs) or all(s.label == "PERSON" for s in subs):
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, o), v, confidence=0.7, rule="was_in",
                           tokens=[o], negatable=False)
    for prep, o in preps(v, ("to",)):
        if ent_type(o) in ("GPE", "LOC") and (c.flags(v).perfect or v.lower_ == "been"):
            for place, negated in coord(o):  # "I've been to Spain, Italy and Greece"
                if negated or ent_type(place) not in ("GPE", "LOC"):
                    continue
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, place), v, confidence=0.7,
                           rule="been_to", tokens=[place])
    for prep, o in preps(v, ("with", "at")):
        fl = c.flags(v)
        if ent_type(o) == "ORG" and (fl.perfect or fl.ending or "since" in v.sent.text.lower()):
            for s in subs:
                c.emit(s, "WORKS_AT", noun_phrase(c, o), v, confidence=0.7, rule="been_with",
                       tokens=[o])
    for prep, o in preps(v, ("on",)):
        if o.lemma_.lower() == "team":
            for s in subs:
                c.emit(s, "MEMBER_OF_TEAM", noun_phrase(c, o), v, rule="on_team", tokens=[o])
    if any(ch.lower_ == "together" for ch in v.children) and subj_tok is not None:
        pair_relation(c, v, subj_tok, "DATING", "assert", rule="together")


def age_clause_ok(c: Context, v: Token) -> bool:
    """"I'm 34" states an age; "when I was 10" / "since I was ten" does not."""
    if c.flags(v).past:
        return False
    if any(ch.dep_ == "mark" for ch in v.children) or v.dep_ in ("advcl", "relcl", "pcomp"):
        return False
    return True
