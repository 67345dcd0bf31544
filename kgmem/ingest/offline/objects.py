"""Is this token a plausible object of a fact? Places, organisations, people, schools, roles,
teams, employers, liked things; and objects too generic to carry a fact."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import lexicon as L
from .entities import ent_type
from .mentions import Mentions
from .tree import children, preps

if TYPE_CHECKING:
    from spacy.tokens import Token

_NAME_PREDICATES = frozenset({"AGE", "HAS_PET", "KNOWS", "FRIEND_OF", "DATING", "MARRIED_TO",
                              "SIBLING_OF", "PARENT_OF", "CHILD_OF"})


# an object that ends on a pointing word names nothing the memory can keep
_DEICTIC = frozenset({"this", "that", "these", "those", "it", "them", "here", "there"})


def generic_object(obj: str, predicate: str) -> bool:
    """An object that cannot carry a fact: "kinds", "part", "something bigger", a bare
    "watching" liked or played."""
    if predicate in _NAME_PREDICATES:
        return False
    words = obj.lower().split()
    if words[-1] in _DEICTIC or any(w.startswith("-") or w.endswith("-") for w in words):
        return True  # "making this" (what "this" is lives in a photo), "painting -inspired ones"
    if words[0] in L.GENERIC_OBJECTS and (len(words) == 1 or words[0] in (
            "something", "anything", "everything", "nothing")):
        return True
    return (predicate in ("LIKES", "DISLIKES", "HAS_HOBBY") and len(words) == 1
            and words[0] in L.GENERIC_GERUNDS)


def entity_ok(c: Mentions, tok: Token, kind: str) -> bool:
    """Is tok plausible as an object of the given kind (org/place/person/any)?"""
    if tok is None or tok.i in c.time_tokens:
        return False
    low = tok.lower_
    if tok.pos_ == "PRON" or low in L.UNRESOLVABLE_PRONOUNS:
        return False
    if ent_type(tok) in ("DATE", "TIME", "CARDINAL", "MONEY", "PERCENT", "QUANTITY",
                         "ORDINAL"):
        return False
    lemma = tok.lemma_.lower()
    if kind == "org":
        if (low in L.NOT_EMPLOYERS or lemma in L.NOT_EMPLOYERS) and tok.pos_ != "PROPN":
            return False
        if ent_type(tok) in ("GPE", "LOC") and tok.pos_ == "PROPN":
            return True  # "the City of Boston" employs people too; keep
        return tok.pos_ in ("PROPN", "NOUN", "X") or bool(ent_type(tok))
    if kind == "place":
        if ent_type(tok) in ("GPE", "LOC", "FAC"):
            return True
        if lemma in L.NOT_PLACES and not children(tok, "prep"):
            return False
        if tok.pos_ == "PROPN":
            return ent_type(tok) not in ("PERSON",)
        if lemma in L.PLACE_NOUNS:
            return True
        # lowercase chat: "i live in nyc"
        return tok.pos_ in ("NOUN", "X") and tok.is_lower and len(tok.text) <= 4
    if kind == "person":
        return tok.pos_ == "PROPN" or ent_type(tok) == "PERSON"
    return True


def is_school(c: Mentions, tok: Token) -> bool:
    """A school, college or university by its name's words or a known name."""
    name = c.name_of(tok).lower()
    words = set(name.replace(".", "").split())
    return bool(words & L.SCHOOL_WORDS) or name in L.KNOWN_SCHOOLS or bool(
        words & L.KNOWN_SCHOOLS
    )


def is_role(tok: Token) -> bool:
    """A job title's head noun ("engineer", "nurse", "CTO", "pharmacist")."""
    lemma = tok.lemma_.lower()
    low = tok.lower_
    if lemma in L.NOT_ROLES or low in L.NOT_ROLES:
        return False
    if lemma in L.ROLE_NOUNS or low in L.ROLE_NOUNS:
        return True
    if tok.pos_ == "PROPN" and tok.text.isupper() and low in L.ROLE_NOUNS:
        return True
    if any(ch.dep_ == "compound" and ch.lemma_.lower() in L.ROLE_NOUNS for ch in tok.children):
        return tok.pos_ == "NOUN"
    return tok.pos_ == "NOUN" and low.endswith(L.ROLE_SUFFIXES) and len(low) > 5


def past_role(tok: Token) -> bool:
    """"former manager", "ex-CEO": a role no longer held."""
    return any(ch.dep_ == "amod" and ch.lower_ in L.PAST_ROLE_MODIFIERS
               for ch in tok.children) or (
        tok.i > 0 and tok.doc[tok.i - 1].lower_ in ("ex", "ex-", "former")
    )


def teamish(tok: Token) -> bool:
    """A team or a named organisation (what one leads)."""
    return tok.lemma_.lower() in L.TEAM_NOUNS or (
        ent_type(tok) == "ORG" and tok.pos_ == "PROPN"
    )


def employer_of(c: Mentions, *heads: Any) -> list[tuple[Any, Any]]:
    """ORG-like objects of at/for/with preps under any of the given tokens."""
    out = []
    for h in heads:
        if h is None:
            continue
        for prep, o in preps(h, ("at", "for", "with", "from")):
            if prep.lower_ == "for" and o.lemma_.lower() in ("living", "while", "year", "years",
                                                             "month", "months", "now"):
                continue
            if entity_ok(c, o, "org") and ent_type(o) != "PERSON" and (
                o.lemma_.lower() not in L.TEAM_NOUNS or o.pos_ == "PROPN"
            ):
                if o.pos_ == "NOUN" and o.is_lower and prep.lower_ == "for" and not ent_type(o):
                    continue
                out.append((prep, o))
    return out


def pref_object_ok(tok: Token) -> bool:
    """A liked thing should be a kind of thing, not "your icecream" or "this photo"."""
    modified = any((ch.dep_ == "amod" and ch.lower_ not in L.UNINFORMATIVE_ADJ
                    and ch.lower_ not in L.EVALUATIVE_ADJ)
                   or (ch.dep_ == "compound" and ch.pos_ == "NOUN") for ch in tok.children)
    if (tok.lemma_.lower() in L.VAGUE_LIKES or tok.lower_ in L.VAGUE_LIKES) and not modified:
        return False
    if tok.pos_ != "PROPN" and any(ch.dep_ == "det" and ch.lower_ == "the"
                                   for ch in tok.children):
        # "I love the beach" is a taste; "I love the dark sky", "the smell it adds",
        # "the structure of the language" react to something in front of the speaker
        if any(ch.dep_ in ("amod", "compound", "relcl", "acl", "prep", "nummod")
               for ch in tok.children) or tok.lemma_.lower() in L.VAGUE_LIKES:
            return False
    for ch in tok.children:
        if ch.dep_ == "poss" and ch.lower_ in ("your", "his", "her", "their", "its", "yours"):
            return False
        if ch.dep_ == "det" and ch.lower_ in ("this", "that", "these", "those"):
            return False
        if ch.dep_ == "nummod" and tok.pos_ != "PROPN":  # "The Witcher 3" is a title
            return False
    return True
