"""Who "he", "she", "his", "the company" and a bare surname refer to within one text, by
salience with gender and entity-type agreement; no answer when the text does not make it
clear (the rules then state nothing rather than guess).

One pass over the parse, sentence by sentence, keeps the **referents** met so far: people
(a PERSON name that does not end like a club or company, "Amara Okafor was born ...", the
name a relation noun gives: "his wife Ingrid Dahl"; an unnamed one: "his father") and
organisations. A later name whose words are all words of one person's name ("Ruiz",
"Lee Nogan") is that person; of two people's ("Hale" after Margaret and Peter Hale), nobody.

Gender comes from the text only: relation and title nouns ("his wife X", "X, her son",
"X is the elder brother of Y", "Mrs X") and the pronouns already tied to a person.

A third-person pronoun takes, in this order:

1. a possessive inside a clause whose subject is a person ("Ruiz began his career"): that
   subject;
2. else among the people of this and the two sentences before (and the text's first person,
   its topic, in narrative text) that agree in gender: the one with the matching gender
   known, unless a person of unknown gender was a subject more recently; the only one of
   unknown gender; else nobody. Ties (two candidates equally recent as subjects) give nobody.

"the company" (firm, club, team, ...) takes the organisation named most recently, unless the
sentence that named it named another too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})
FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
MALE_NOUNS = frozenset({
    "husband", "father", "dad", "son", "brother", "boyfriend", "grandfather", "grandson",
    "uncle", "nephew", "stepfather", "stepson", "king", "prince", "mr", "sir", "lord",
    "fiance", "widower", "duke", "emperor", "baron", "count", "earl",
})
FEMALE_NOUNS = frozenset({
    "wife", "mother", "mom", "mum", "daughter", "sister", "girlfriend", "grandmother",
    "granddaughter", "aunt", "niece", "stepmother", "stepdaughter", "queen", "princess", "mrs",
    "ms", "miss", "lady", "dame", "fiancee", "widow", "duchess", "empress", "baroness",
    "countess", "actress",
})
# last words of names that a tagger calls a person but that name a club or company
ORG_LAST_WORDS = frozenset({
    "fc", "cf", "ud", "afc", "sc", "ac", "cd", "sd", "rc", "fk", "sk", "if", "bk", "united",
    "town", "city", "county", "rovers", "athletic", "wanderers", "albion", "hotspur", "club",
    "inc", "ltd", "llc", "plc", "gmbh", "ag", "corp", "corporation", "company", "group",
    "labs", "university", "college", "school", "party", "council", "press", "records",
    "airlines", "airways", "bank", "foods", "robotics", "institute", "academy", "society",
    "association", "federation", "league", "union", "ministry", "department", "hospital",
})
ORG_HEADS = frozenset({
    "company", "firm", "club", "team", "airline", "business", "organisation", "organization",
    "startup", "corporation", "party", "band", "label", "school", "university", "college",
    "network", "newspaper", "side", "group", "carrier", "bank", "charity",
})
# verbs whose object is a person ("told Sofia Ruiz", "married Ingrid Dahl")
PERSON_OBJECT_VERBS = frozenset({
    "marry", "meet", "date", "divorce", "wed", "tell", "ask", "thank", "replace", "succeed",
    "hire", "fire", "help", "call", "invite", "beat", "defeat", "appoint", "elect", "join",
    "visit", "email", "text", "congratulate", "introduce", "mentor", "coach", "interview",
})
# verbs only a person is the subject of
PERSON_VERBS = frozenset({"bear", "grow", "raise", "marry", "wed", "divorce", "graduate",
                          "die", "retire", "study"})
# nouns a business is named after ("her own studio, Atelier Haddad")
BUSINESS_NOUNS = ORG_HEADS | {"studio", "agency", "practice", "shop", "restaurant", "bakery",
                              "store", "brand", "venture", "consultancy", "label", "publisher"}
_NAME_LABELS = ("PERSON", "ORG", "GPE", "NORP", "FAC", "LOC", "PRODUCT", "WORK_OF_ART", "")
_SUBJ = ("nsubj", "nsubjpass")


@dataclass
class Referent:
    """Someone or something the text refers to: ``name`` (None for an unnamed person such
    as "his father"), ``kind`` person / org, ``gender`` m / f / None."""

    name: str | None
    kind: str
    gender: str | None = None
    words: frozenset[str] = frozenset()
    last_sent: int = -1
    last_subject_sent: int = -1
    order: int = 0


@dataclass
class Decision:
    referent: Referent | None  # None: not clear, no fact


@dataclass
class Coreference:
    """The referents of one parsed text and what each pronoun, surname or definite
    description refers to (:meth:`at`)."""

    doc: Doc
    narrative: bool = False
    earlier_people: tuple[str, ...] = ()
    # the person an earlier piece of the same document is about (its topic)
    earlier_topic: tuple[str, str | None] | None = None
    # a document's subject and what it is ("Harlow Rovers F.C.", "club"): "the club" is it
    subject: tuple[str, str] | None = None
    referents: list[Referent] = field(default_factory=list)
    decisions: dict[int, Decision] = field(default_factory=dict)
    span_of: dict[int, Referent] = field(default_factory=dict)  # name token -> referent

    def __post_init__(self) -> None:
        self._genders = _gender_cues(self.doc)
        if self.narrative and self.earlier_topic is not None:
            name, gender = self.earlier_topic
            self.referents.append(Referent(name, "person", gender, frozenset(
                w.lower() for w in name.split()), order=-1))
        for si, sent in enumerate(self.doc.sents):
            self._sentence(si, sent)

    # ------------------------------------------------------------------ answers
    def decided(self, i: int) -> bool:
        """Whether token ``i`` (a pronoun or definite description) was resolved or
        abstained on."""
        return i in self.decisions

    def at(self, i: int) -> Referent | None:
        """The referent of token ``i``, or None (abstained, or unnamed)."""
        d = self.decisions.get(i)
        return d.referent if d is not None else None

    def name_at(self, i: int) -> str | None:
        r = self.at(i)
        return r.name if r is not None else None

    def referent_of_name(self, i: int) -> Referent | None:
        """The referent a name token belongs to ("Ruiz" -> Marco Ruiz)."""
        return self.span_of.get(i)

    @property
    def topic(self) -> Referent | None:
        people = [r for r in self.referents if r.kind == "person" and r.name]
        return min(people, key=lambda r: r.order) if people else None

    # ------------------------------------------------------------------ the pass
    def _sentence(self, si: int, sent: Span) -> None:
        spans = {e.start: e for e in self.doc.ents if sent.start <= e.start < sent.end}
        org_names: set[str] = set()
        i = sent.start
        while i < sent.end:
            tok = self.doc[i]
            ent = spans.get(i)
            if ent is not None and ent.label_ in _NAME_LABELS:
                ref = self._name(ent, si)
                if ref is not None and ref.kind == "org" and ref.name:
                    org_names.add(ref.name)
                i = ent.end
                continue
            low = tok.lower_
            if tok.pos_ == "PRON" or low in ("his", "her"):
                if low in MALE_PRONOUNS or low in FEMALE_PRONOUNS:
                    self._pronoun(tok, si, "m" if low in MALE_PRONOUNS else "f")
            elif tok.pos_ == "PROPN" and tok.ent_type_ == "" and tok.is_title:
                self._untagged(tok, si)
            elif tok.lemma_.lower() in ORG_HEADS and _bare_definite(tok):
                self._definite(tok, si)
            elif tok.lemma_.lower() in MALE_NOUNS | FEMALE_NOUNS and tok.pos_ == "NOUN":
                self._unnamed(tok, si)
            i += 1

    def _name(self, ent: Span, si: int) -> Referent | None:
        if "\n" in ent.text:
            return None  # a tagger's span across a heading and the text below
        words = frozenset(w.lower_ for w in ent if not w.is_punct and w.lower_ not in (
            "the", "'s"))
        if not words:
            return None
        # "Kestrel" after "Kestrel Airways" is the airline, whatever the tagger says
        # (a place stays a place: "Oslo" is not "the University of Oslo")
        alias = self._alias(words, ("person", "org") if ent.label_ in ("ORG", "PERSON")
                            else ("person",))
        if alias is _AMBIGUOUS:
            return None
        ref = alias if isinstance(alias, Referent) else None
        if ref is None and ent.label_ == "PERSON":
            # "Lee Martin Nogan" after the title "Lee Nogan": the full name of the one person
            shorter = [r for r in self.referents if r.kind == "person" and r.name
                       and len(r.words) >= 2 and r.words < words]
            ref = shorter[0] if len(shorter) == 1 else None
        if ref is None:
            kind = self._kind(ent)
            if kind is None:
                return None
            name = ent.text.strip()
            if name.lower().startswith("the "):
                name = name[4:]
            ref = Referent(name, kind, self._genders.get(ent.root.i), words,
                           order=len(self.referents))
            self.referents.append(ref)
        if ref.gender is None:
            ref.gender = self._genders.get(ent.root.i)  # "His wife Ingrid Dahl"
        for t in ent:
            self.span_of[t.i] = ref
        self._touch(ref, ent.root, si)
        return ref

    def _untagged(self, tok: Token, si: int) -> None:
        """A proper noun the tagger left unlabelled: part of a known name ("Ruiz"), or, as
        the head of a title-case compound in an argument position ("Ingrid Dahl married"),
        a person of its own."""
        ref = self._alias(frozenset({tok.lower_}))
        if isinstance(ref, Referent):
            self.span_of[tok.i] = ref
            self._touch(ref, tok, si)
            return
        if tok.dep_ not in _SUBJ and not (tok.dep_ in ("dobj", "dative") and (
                tok.head.lemma_ in PERSON_OBJECT_VERBS)):
            return
        parts = [c for c in tok.children if c.dep_ == "compound" and c.pos_ == "PROPN"
                 and c.is_title and c.ent_type_ == ""]
        if not parts or tok.lower_ in ORG_LAST_WORDS:
            return
        words = frozenset(t.lower_ for t in [*parts, tok])
        known = self._alias(words)
        if known is _AMBIGUOUS:
            return
        ref = known if isinstance(known, Referent) else None
        if ref is None:
            name = " ".join(t.text for t in sorted([*parts, tok], key=lambda t: t.i))
            ref = Referent(name, "person", self._genders.get(tok.i), words,
                           order=len(self.referents))
            self.referents.append(ref)
        for t in [*parts, tok]:
            self.span_of[t.i] = ref
        self._touch(ref, tok, si)

    def _kind(self, ent: Span) -> str | None:
        last = ent[-1].lower_.strip(".")
        head = ent.root.head
        if ent.root.dep_ == "appos" and head.lemma_.lower() in BUSINESS_NOUNS:
            return "org"  # "her own studio, Atelier Haddad"
        if ent.label_ == "PERSON" and last not in ORG_LAST_WORDS:
            return "person"
        if self._born(ent) or ent.root.i in self._genders:
            return "person"
        if ent.label_ in ("ORG", "PERSON") or last in ORG_LAST_WORDS:
            return "org"
        return None

    def _born(self, ent: Span) -> bool:
        """"Amara Okafor was born in Lagos", "Marco Ruiz ( born 3 April 1988 )", "Guy Aldred
        ( 5 November 1886 – 16 October 1963 )": a person's name."""
        root = ent.root
        if root.dep_ in _SUBJ and any(v.lemma_.lower() in PERSON_VERBS for v in (
                root.head, *(c for c in root.head.children if c.dep_ == "conj"))):
            return True  # "Nadia Haddad grew up in Beirut and was born there"
        if ent.end >= len(self.doc) or self.doc[ent.end].text != "(":
            return False
        inside = []
        for t in self.doc[ent.end + 1:min(ent.end + 30, len(self.doc))]:
            if t.text == ")":
                break
            inside.append(t)
        if any(t.lower_ == "born" for t in inside):
            return True
        dates = [t for t in inside if t.ent_type_ == "DATE" and t.like_num]
        return len(dates) >= 2 and any(t.text in ("–", "-", "—") for t in inside)

    def _alias(self, words: frozenset[str], kinds: tuple[str, ...] = ("person",)
               ) -> Referent | None | object:
        """The one known referent of ``kinds`` whose name contains all ``words``
        ("Ruiz", "Northwind"); ``_AMBIGUOUS`` for several."""
        hits = [r for r in self.referents if r.kind in kinds and r.name and words <= r.words
                and words != r.words]
        exact = [r for r in self.referents if r.words == words]
        if exact:
            return exact[0]
        if len(hits) == 1:
            return hits[0]
        return _AMBIGUOUS if hits else None

    def _touch(self, ref: Referent, tok: Token, si: int) -> None:
        ref.last_sent = si
        if _is_subject(tok):
            ref.last_subject_sent = si

    def _unnamed(self, tok: Token, si: int) -> None:
        """"His father married ...": an unnamed person who competes for a later pronoun."""
        if any(c.dep_ in ("appos", "compound") and c.pos_ == "PROPN" for c in tok.children):
            return  # named: the name is the referent
        if not any(c.dep_ == "poss" for c in tok.children):
            return
        gender = "m" if tok.lemma_.lower() in MALE_NOUNS else "f"
        ref = Referent(None, "person", gender, order=len(self.referents))
        self.referents.append(ref)
        self._touch(ref, tok, si)

    def _pronoun(self, tok: Token, si: int, gender: str) -> None:
        ref = self._choose(tok, si, gender)
        self.decisions[tok.i] = Decision(ref)
        if ref is None:
            # someone the text did not make clear: a later pronoun that continues it
            # must not fall to whoever else is left ("In 2019 she married Daniel. She ...")
            ref = Referent(None, "person", gender, order=len(self.referents))
            self.referents.append(ref)
            self._touch(ref, tok, si)
        else:
            if ref.gender is None:
                ref.gender = gender
            self._touch(ref, tok, si)

    def _choose(self, tok: Token, si: int, gender: str) -> Referent | None:
        bound = self._clause_subject(tok)
        if bound is not None and bound.gender in (None, gender):
            return bound
        window = [r for r in self.referents if r.kind == "person" and (
            r.last_sent >= si - 2 or (self.narrative and r is self.topic))]
        window = [r for r in window if r.gender in (None, gender)]
        if not window:
            return self._earlier(gender)
        known = [r for r in window if r.gender == gender]
        unknown = [r for r in window if r.gender is None]
        if known:
            best = max(known, key=_salience)
            if any(_salience(r) == _salience(best) for r in known if r is not best):
                return None
            if any(r.last_subject_sent > best.last_subject_sent for r in unknown):
                return None
            return best
        return unknown[0] if len(unknown) == 1 else None

    def _earlier(self, gender: str) -> Referent | None:
        """Someone named earlier in the sitting (chat), when the text itself names nobody."""
        if not self.earlier_people:
            return None
        name = self.earlier_people[-1]
        ref = Referent(name, "person", gender, frozenset(name.lower().split()),
                       order=len(self.referents))
        self.referents.append(ref)
        return ref

    def _clause_subject(self, tok: Token) -> Referent | None:
        """"Ruiz began his career": a possessive in a clause with a person as subject."""
        if tok.dep_ != "poss":
            return None
        head = tok.head
        if head.dep_ in _SUBJ:
            return None
        verb = head.head
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        for c in verb.children:
            if c.dep_ in _SUBJ and c.i < tok.i:
                ref = self.span_of.get(c.i)
                if ref is None and c.i in self.decisions:
                    ref = self.decisions[c.i].referent
                if ref is not None and ref.kind == "person":
                    return ref
        return None

    def _definite(self, tok: Token, si: int) -> None:
        if self.subject is not None and tok.lemma_.lower() == self.subject[1]:
            name = self.subject[0]
            ref = next((r for r in self.referents if r.kind == "org" and r.name == name), None)
            if ref is None:
                ref = Referent(name, "org", None, frozenset(name.lower().split()),
                               order=len(self.referents))
                self.referents.append(ref)
            self.decisions[tok.i] = Decision(ref)
            self._touch(ref, tok, si)
            return
        orgs = [r for r in self.referents if r.kind == "org" and r.name and r.last_sent >= 0]
        if not orgs:
            return
        best = max(orgs, key=lambda r: (r.last_sent, r.order))
        rivals = [r for r in orgs if r.last_sent == best.last_sent and r is not best]
        self.decisions[tok.i] = Decision(None if rivals else best)
        if not rivals:
            self._touch(best, tok, si)


_AMBIGUOUS = object()


def _bare_definite(tok: Token) -> bool:
    """"the company", "the club" - not "the battery software team" nor "the club of ..."."""
    kids = list(tok.children)
    return any(c.dep_ == "det" and c.lower_ == "the" for c in kids) and not any(
        c.dep_ in ("compound", "amod", "nmod", "prep", "acl", "relcl", "appos") for c in kids)


def _salience(r: Referent) -> tuple[int, int]:
    return r.last_subject_sent, r.last_sent


def _is_subject(tok: Token) -> bool:
    cur = tok
    for _ in range(3):
        if cur.dep_ in _SUBJ:
            return True
        if cur.dep_ == "compound" and cur.head.pos_ != "PROPN":
            return False  # "Guy Fawkes night": the name modifies a noun
        if cur.dep_ in ("compound", "flat", "appos", "conj") and cur.head.i != cur.i:
            cur = cur.head
            continue
        return False
    return False


def _gender_cues(doc: Doc) -> dict[int, str]:
    """Name tokens (entity roots) whose gender a relation or title noun gives: "his wife
    Ingrid Dahl", "Peter Hale, her son", "Mrs Hale", "X is the elder brother of Y"."""
    out: dict[int, str] = {}
    for tok in doc:
        low = tok.lemma_.lower().rstrip(".")
        gender = "m" if low in MALE_NOUNS else "f" if low in FEMALE_NOUNS else None
        if gender is None:
            continue
        for c in tok.children:
            if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN":
                out[_root(c).i] = gender
        if tok.dep_ == "appos" and tok.head.pos_ == "PROPN":
            out[_root(tok.head).i] = gender
        if tok.dep_ == "compound" and tok.head.pos_ == "PROPN":
            out[_root(tok.head).i] = gender
        nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
        if nxt is not None and nxt.pos_ == "PROPN" and nxt.ent_type_ == "PERSON":
            out[_root(nxt).i] = gender
        if tok.dep_ == "attr" and tok.head.lemma_ == "be":
            for s in tok.head.children:
                if s.dep_ == "nsubj" and s.pos_ == "PROPN":
                    out[_root(s).i] = gender
    return out


def _root(tok: Token) -> Token:
    """The root of the entity span a name token is part of (the token itself if none)."""
    for ent in tok.doc.ents:
        if ent.start <= tok.i < ent.end:
            return ent.root
    return tok
