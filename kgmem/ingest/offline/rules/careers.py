"""Careers told in narrative prose (documents: biographies, encyclopedic passages, company
news), read only when the text is narrative (``Context.narrative``: nobody is said to speak
it): "In 2007 he signed with Levante UD", "was sold to Watford", "moved on to Luton Town",
"joined Sevilla FC", "began his career at Oxford United", "spent six years at Volvo Cars",
"was educated at the University of Manchester", "graduated from ...", "was elected to Leeds
City Council", "was elected Member of Parliament for Leeds East", "served as Minister for
Housing from 2009 to 2010", "founded Fjord Labs" / "founded by Margaret Hale", "has run
Bluebell since 2001", "a prominent member of the ...".

One table (:data:`SLOTS`) says, per verb lemma and voice, where the organisation or the role
sits and which predicate it gives; the subject is resolved by the discourse layer (the
pronoun a person, "the company" an organisation), and time comes from the clause
(``kgmem.ingest.discourse.time``). An organisation joined, signed with or moved to is a team
(``MEMBER_OF_TEAM``) when the text is about a sport, else an employer (``WORKS_AT``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...discourse.coref import ORG_LAST_WORDS
from ..context import Context
from ..entities import ent_type, named
from ..mentions import subjects
from ..phrases import noun_phrase, role_text
from ..tree import child, preps

if TYPE_CHECKING:
    from spacy.tokens import Token

# what an organisation slot gives: a job (team or employer), a school, membership, founding,
# running; a role slot gives HAS_ROLE
JOB, SCHOOL, MEMBER, FOUNDED, RUNS, LEADS, ROLE = (
    "job", "school", "member", "founded", "runs", "leads", "role")

# lemma -> ((voice, slot, gives), ...); voice "active" / "passive" / "any"; slot "dobj",
# "prep:<word>", "attr" (the complement of a passive: "was elected Member of Parliament")
SLOTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "sign": (("active", "prep:with", JOB), ("active", "prep:for", JOB)),
    "join": (("active", "dobj", JOB), ("active", "prep:as", ROLE)),
    "rejoin": (("active", "dobj", JOB),),
    "move": (("active", "prep:to", JOB),),
    "transfer": (("any", "prep:to", JOB),),
    "sell": (("passive", "prep:to", JOB),),
    "loan": (("passive", "prep:to", JOB),),
    "play": (("active", "prep:for", JOB),),
    "spend": (("active", "prep:at", JOB), ("active", "prep:with", JOB)),
    "begin": (("active", "prep:at", JOB), ("active", "prep:with", JOB)),
    "start": (("active", "prep:with", JOB),),
    "serve": (("active", "prep:as", ROLE),),
    "work": (("active", "prep:as", ROLE),),
    "elect": (("passive", "prep:to", MEMBER), ("passive", "attr", ROLE)),
    "appoint": (("passive", "attr", ROLE), ("passive", "prep:as", ROLE)),
    "name": (("passive", "attr", ROLE),),
    "hire": (("passive", "prep:as", ROLE),),
    "replace": (("active", "prep:as", ROLE),),
    "succeed": (("active", "prep:as", ROLE),),
    "educate": (("passive", "prep:at", SCHOOL),),
    "graduate": (("active", "prep:from", SCHOOL),),
    "receive": (("active", "prep:from", SCHOOL), ("active", "prep:at", SCHOOL)),
    "earn": (("active", "prep:from", SCHOOL), ("active", "prep:at", SCHOOL)),
    "obtain": (("active", "prep:from", SCHOOL), ("active", "prep:at", SCHOOL)),
    "study": (("active", "prep:at", SCHOOL),),
    "enrol": (("active", "prep:at", SCHOOL), ("active", "prep:in", SCHOOL)),
    "enroll": (("active", "prep:at", SCHOOL), ("active", "prep:in", SCHOOL)),
    "found": (("active", "dobj", FOUNDED), ("passive", "agent", FOUNDED)),
    "establish": (("active", "dobj", FOUNDED), ("passive", "agent", FOUNDED)),
    "co-found": (("active", "dobj", FOUNDED),),
    "run": (("active", "dobj", RUNS),),
    "lead": (("active", "dobj", LEADS),),
    "head": (("active", "dobj", LEADS),),
}
# a role that heads what it is "of" ("manager of Enyimba", "chairman of the board")
_LEAD_ROLES = frozenset({"manager", "coach", "president", "chairman", "chairwoman", "chair",
                         "head", "director", "leader", "ceo", "captain", "principal", "dean",
                         "governor", "mayor", "commander", "chief"})
# "began his career at", "spent four years at", "moved on to": the verb needs this object
_DEGREES = ("degree", "bachelor", "master", "doctorate", "phd", "ba", "bsc", "ma", "msc",
            "diploma", "mba", "llb", "llm", "bachelors", "masters", "doctoral", "md", "jd")
_NEEDS_DOBJ = {"begin": ("career",), "start": ("career",), "receive": _DEGREES,
               "earn": _DEGREES, "obtain": _DEGREES}
# "joined the faculty of the University of Arizona": the body is of the organisation
_BODIES = frozenset({"faculty", "staff", "board", "department", "payroll", "ranks"})
_ORG_LABELS = ("ORG", "FAC", "NORP", "")
_SCHOOL_WORDS = ("school", "college", "university", "academy", "institute", "polytechnic",
                 "conservatory", "seminary", "gymnasium", "lyceum")
_ROLE_HEADS = frozenset({
    "member", "minister", "secretary", "president", "chairman", "chairwoman", "chair",
    "director", "governor", "mayor", "senator", "leader", "manager", "coach", "captain",
    "head", "chief", "officer", "executive", "ambassador", "judge", "editor", "professor",
    "lecturer", "dean", "chancellor", "commissioner", "speaker", "deputy", "treasurer",
    "councillor", "councilor", "representative", "bishop", "general", "admiral", "commander",
    "premier", "trustee", "assistant", "cfo", "cto", "principal",
    "consultant", "adviser", "advisor", "analyst", "engineer", "teacher", "associate",
    "founder", "ceo",
})


def career(c: Context, v: Token) -> None:
    """The career slots of verb ``v`` (narrative text only)."""
    if not c.narrative:
        return
    lemma = v.lemma_.lower()
    slots = SLOTS.get(lemma)
    if not slots:
        return
    need = _NEEDS_DOBJ.get(lemma)
    if need is not None:
        d = child(v, "dobj")
        if d is None or d.lemma_.lower() not in need:
            return
    passive = any(ch.dep_ in ("auxpass", "nsubjpass") for ch in v.children)
    for voice, slot, gives in slots:
        if voice != "any" and (voice == "passive") != passive:
            continue
        for obj in _slot_objects(v, slot):
            _emit(c, v, lemma, slot, gives, obj)


def _slot_objects(v: Token, slot: str) -> list[Token]:
    if slot == "dobj":
        d = child(v, "dobj")
        if d is not None and d.lemma_.lower() in _BODIES:
            return [o for _p, o in preps(d, ("of", "at"))]
        return [d] if d is not None else []
    if slot == "attr":
        return [ch for ch in v.children if ch.dep_ in ("oprd", "attr", "xcomp", "dobj")
                and ch.pos_ in ("NOUN", "PROPN")]
    if slot == "agent":
        return [o for _p, o in preps(v, ("by",))]
    word = slot.split(":", 1)[1]
    out = [o for _p, o in preps(v, (word,))]
    if word in ("to", "at", "with", "for"):  # "moved on to Luton Town", "spell at"
        for prt in v.children:
            if prt.dep_ == "prt":
                out += [o for _p, o in preps(prt, (word,))]
    return out


def _emit(c: Context, v: Token, lemma: str, slot: str, gives: str, obj: Token) -> None:
    if obj.i in c.time_tokens:
        return
    obj = named(obj) or obj  # "a company called Fjord Labs"
    if gives == ROLE:
        if obj.lemma_.lower() not in _ROLE_HEADS and not (
                obj.pos_ == "PROPN" and any(w.lower_ in _ROLE_HEADS for w in obj.subtree)):
            return
        text = role_text(c, obj) if obj.pos_ == "NOUN" else noun_phrase(
            c, obj, keep_preps=("for", "of"))
        led = [o for _p, o in preps(obj, ("of",)) if is_org(c, o) and (
            obj.pos_ == "NOUN" or obj.lemma_.lower() in _LEAD_ROLES)]  # "President of the ECB"
        if led:
            text = role_text(c, obj).split(" of ")[0]  # "manager of Enyimba": manager ...
        for s in _people(c, v):
            c.emit(s, "HAS_ROLE", text, v, rule=f"career_{lemma}_role", tokens=[obj])
            if obj.lemma_.lower() in _LEAD_ROLES:
                for org in led:  # ... and leads Enyimba
                    c.emit(s, "LEADS", org_name(c, org), v, rule=f"career_{lemma}_leads",
                           tokens=[org])
        # "worked as an associate at Clifford Chance": the employer hangs on the role
        for _p, org in preps(obj, ("at", "with")):
            if is_org(c, org) and not c.sport:
                for s in _people(c, v):
                    c.emit(s, "WORKS_AT", org_name(c, org), v, rule=f"career_{lemma}_role_at",
                           tokens=[org])
        return
    if gives == FOUNDED and slot == "agent":
        # "the cheesemaker founded by Margaret Hale": the founder is the agent, the thing
        # founded what the participle describes
        thing = v.head if v.dep_ == "acl" else child(v, "nsubjpass")  # "Harbor was founded by"
        if thing is not None and thing.dep_ == "attr" and not is_org(c, thing):
            # "Kestrel Airways was a regional airline founded by ...": what the copula's
            # subject is
            thing = next((t for t in thing.head.children if t.dep_ == "nsubj"), None)
        if thing is None or not is_org(c, thing):
            return
        founders = [o for o in [obj, *(t for t in obj.children if t.dep_ in ("conj", "appos"))]
                    if ent_type(o) == "PERSON"] if obj.pos_ == "NOUN" else [obj]
        people = [s for f in founders for s in c.resolve(f) if s.label == "PERSON"]
        family = {s.text.split()[-1] for s in people if len(s.text.split()) > 1}
        for s in people:
            if len(s.text.split()) == 1 and len(family) == 1:  # "Erik and Siri Aune"
                s = replace(s, text=f"{s.text} {next(iter(family))}")
            c.emit(s, "RUNS", full_org_name(c, org_name(c, thing)), v,
                   rule="career_founded_by", tokens=[thing])
        return
    if not is_org(c, obj):
        return
    name = org_name(c, obj)
    if gives == JOB:
        pred = "MEMBER_OF_TEAM" if c.sport and not _is_school(obj) else "WORKS_AT"
        if lemma == "spend" and not _spent_years(v):
            return
    elif gives == SCHOOL:
        if not _is_school(obj):
            return
        pred = "ATTENDED"
    elif gives == MEMBER:
        pred = "MEMBER_OF"
    elif gives == FOUNDED or gives == RUNS:
        pred = "RUNS"
    else:
        pred = "LEADS"
    for s in _people(c, v):
        c.emit(s, pred, name, v, rule=f"career_{lemma}", tokens=[obj], confidence=0.8)


def _people(c: Context, v: Token) -> list:
    subs, _dropped = subjects(c, v)
    return [s for s in subs if not s.speaker and s.label in ("PERSON", None)]


def is_org(c: Context, tok: Token) -> bool:
    """A named organisation: an ORG-like entity or title-case proper noun, or a definite
    description the discourse layer resolved to one ("the company")."""
    if c.coref is not None and c.coref.decided(tok.i):
        r = c.coref.at(tok.i)  # "the company"; never "he"
        return r is not None and r.name is not None and r.kind == "org"
    ref = c.coref.referent_of_name(tok.i) if c.coref is not None else None
    if ref is not None:
        return ref.kind == "org"
    label = ent_type(tok)
    if c.sport and label == "LOC" and tok.pos_ == "PROPN":
        return True  # "moved to Celta Vigo" in a footballer's career: a club, not a region
    if label in ("PERSON", "GPE", "LOC") and tok.lower_ not in ORG_LAST_WORDS:
        return False
    return tok.pos_ == "PROPN" and label in _ORG_LABELS + ("PERSON", "GPE", "LOC")


def org_name(c: Context, tok: Token) -> str:
    if c.coref is not None and c.coref.decided(tok.i):
        return c.coref.name_at(tok.i) or ""
    ref = c.coref.referent_of_name(tok.i) if c.coref is not None else None
    if ref is not None and ref.name:
        return ref.name
    return noun_phrase(c, tok, keep_preps=("of",))


def full_org_name(c: Context, name: str) -> str:
    """An organisation by the fullest name the text gives it ("Tidewater" -> "Tidewater
    Energy", named before): the one longer name that holds all its words."""
    words = set(name.lower().split())
    longer = {r.name for r in (c.coref.referents if c.coref is not None else ())
              if r.kind == "org" and r.name and words < r.words}
    if c.title and words < set(c.title.lower().split()):
        longer.add(c.title)
    return longer.pop() if len(longer) == 1 else name


def _is_school(tok: Token) -> bool:
    return any(w.lower_ in _SCHOOL_WORDS for w in tok.subtree if w.i <= tok.i)


def _spent_years(v: Token) -> bool:
    d = child(v, "dobj")
    return d is not None and d.lemma_.lower() in ("year", "season", "month", "decade")


def member_copula(c: Context, v: Token) -> None:
    """"X was a prominent member of the Anti-Parliamentary Communist Federation", "X is a
    British Labour Party politician": MEMBER_OF (narrative text only)."""
    if not c.narrative:
        return
    for attr in (ch for ch in v.children if ch.dep_ == "attr" and ch.pos_ == "NOUN"):
        lemma = attr.lemma_.lower()
        orgs: list[Token] = []
        if lemma == "member":
            orgs = [o for _p, o in preps(attr, ("of",))]
        elif lemma in ("politician", "activist", "candidate", "leader", "member"):
            orgs = [t for t in attr.children if t.dep_ in ("compound", "nmod")
                    and t.pos_ == "PROPN" and t.lower_ in ("party", "movement")]
        for org in orgs:
            if not is_org(c, org):
                continue
            for s in _people(c, v):
                c.emit(s, "MEMBER_OF", _party_name(c, org), v, rule="career_member",
                       tokens=[org])


def _party_name(c: Context, tok: Token) -> str:
    ent = c.ent_of.get(tok.i)
    if ent is not None and ent.label_ == "ORG":
        text = ent.text
        return text[4:] if text.lower().startswith("the ") else text
    return org_name(c, tok)


def role_apposition(c: Context, noun: Token) -> None:
    """"Oakridge's chief executive, Dana Whitfield": HAS_ROLE chief executive (narrative
    text only)."""
    if not c.narrative or noun.lemma_.lower() not in _ROLE_HEADS or noun.pos_ != "NOUN":
        return
    people = [ch for ch in noun.children if ch.dep_ == "appos" and ent_type(ch) == "PERSON"]
    if noun.dep_ == "appos" and ent_type(noun.head) == "PERSON":
        people.append(noun.head)
    # "Dana Whitfield, the chief executive": next to each other, never across a list of
    # names ("Rosa Mendes (chair), Dev Patel")
    people = [p for p in people if not _names_between(c, noun, p)]
    if noun.i > 0 and noun.doc[noun.i - 1].text == "(":
        # "Rosa Mendes (chair), Dev Patel": the name just before the parenthesis
        people = [p for p in people if p.i < noun.i and not any(
            t.ent_type_ != "PERSON" for t in noun.doc[p.i + 1:noun.i - 1])]
    for p in people:
        for s in c.resolve(p)[:1]:  # the person named, not a list after it
            if s.label == "PERSON":
                c.emit(s, "HAS_ROLE", role_text(c, noun), None, rule="career_role_appos",
                       tokens=[noun, p])


def _names_between(c: Context, a: Token, b: Token) -> bool:
    """Whether another person's name stands between two tokens."""
    ent = c.ent_of.get(b.i)
    own = range(ent.start, ent.end) if ent is not None else range(b.i, b.i + 1)
    return any(t.ent_type_ == "PERSON" and t.i not in own
               for t in a.doc[min(a.i, b.i) + 1:max(a.i, b.i)])


# what an article's first sentence calls an organisation (or a place) whose office-holders
# lead it: "Kestrel Airways was a British regional airline", "Fellbach is a town"
ORG_CLASSES = frozenset({
    "airline", "club", "team", "party", "company", "union", "organisation", "organization",
    "association", "bank", "federation", "council", "agency", "society", "league", "band",
    "network", "channel", "newspaper", "magazine", "museum", "library", "school",
    "university", "college", "hospital", "orchestra", "institute", "committee", "board",
    "ministry", "squadron", "wing", "division", "regiment", "brigade", "corporation", "firm",
    "publisher", "studio", "franchise", "charity", "foundation", "conglomerate", "carrier",
    "subsidiary", "bureau", "department", "commission", "authority", "court", "academy",
    "town", "city", "municipality", "village", "county", "island", "province", "district",
    "borough", "diocese", "staff", "group", "station", "broadcaster", "operator",
})


def topic_leads(c: Context) -> None:
    """In an article about an organisation or a place, a leading office held without saying
    of what ("Ruth Kemble was chief executive from 1990 to 1998", "Henn was appointed head
    coach in January 2018") is held over the article's subject: ``LEADS`` it, over the same
    time."""
    if not c.narrative or not c.title or c.title_class not in ORG_CLASSES:
        return
    title = c.title.lower()
    for f in list(c.facts):
        role = f.object.lower()
        if f.predicate != "HAS_ROLE" or f.kind != "assert" or f.subject_is_speaker:
            continue
        if " of " in role or " at " in role or not (
                role.split()[-1] in _LEAD_ROLES or role.endswith("chief executive")):
            continue
        if any(w in role.split() for w in ("assistant", "deputy", "vice", "former")):
            continue
        if f.subject.lower() in title or title in f.subject.lower():
            continue
        sent = c.doc.char_span(f.evidence[0], f.evidence[1], alignment_mode="expand")
        where = (sent.sent.start_char, sent.sent.end_char) if sent is not None else f.evidence
        if any(g.predicate == "LEADS" and g.subject == f.subject
               and where[0] <= g.evidence[0] < where[1] for g in c.facts):
            continue  # the sentence says what they lead ("Catania appointed ... as coach")
        c.facts.append(replace(f, predicate="LEADS", object=c.title, rule="career_role_topic",
                               object_type=None, attributes=dict(f.attributes)))


_APPOINTERS = frozenset({"appoint", "hire", "name", "sign", "announce", "confirm"})


def appointed_by(c: Context, v: Token) -> None:
    """"Catania appointed Marco Giampaolo as new head coach", "Inter appointed former Lazio
    coach Roberto Mancini as its new head coach": the person HAS_ROLE the office and, for a
    leading office, LEADS the organisation that appointed them (narrative text only)."""
    if not c.narrative or v.lemma_.lower() not in ("appoint", "hire", "name"):
        return
    if any(ch.dep_ in ("auxpass", "nsubjpass") for ch in v.children):
        return
    person = child(v, "dobj")
    if person is None or ent_type(person) != "PERSON":
        return
    roles = [o for _p, o in preps(v, ("as",)) if o.lemma_.lower() in _ROLE_HEADS]
    roles += [o for o in v.children if o.dep_ in ("oprd", "xcomp") and o.pos_ == "NOUN"
              and o.lemma_.lower() in _ROLE_HEADS]
    if not roles:
        return
    orgs = [s for s in v.children if s.dep_ == "nsubj" and is_org(c, s)]
    for who in c.resolve(person)[:1]:
        if who.label != "PERSON":
            continue
        for role in roles:
            c.emit(who, "HAS_ROLE", role_text(c, role), v, rule="career_appointed_by",
                   tokens=[role])
            if role.lemma_.lower() in _LEAD_ROLES:
                for org in orgs:
                    c.emit(who, "LEADS", org_name(c, org), v, rule="career_appointed_by_leads",
                           tokens=[org])


def sport_teams(c: Context) -> None:
    """In a sporting career, a player's club is a team whichever rule read it ("joined
    Darlington" read as a job): a ``WORKS_AT`` of someone with a ``MEMBER_OF_TEAM`` fact in
    the same text becomes ``MEMBER_OF_TEAM``, so one timeline orders their clubs."""
    if not c.sport:
        return
    players = {f.subject for f in c.facts if f.predicate == "MEMBER_OF_TEAM"}
    for f in c.facts:
        if f.predicate == "WORKS_AT" and f.subject in players and not f.subject_is_speaker:
            f.predicate = "MEMBER_OF_TEAM"
