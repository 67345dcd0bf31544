"""Clause flags: polarity, tense and mood of a verb group, which decide whether a clause
asserts, ends or retracts a fact, or states none (questions, conditionals, plans, modals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import lexicon as L
from .tree import child, governor, verb_group

if TYPE_CHECKING:
    from spacy.tokens import Span, Token


@dataclass
class Flags:
    """What a clause's verb group says about the fact it states (see :func:`clause_flags`)."""

    neg: bool = False  # negated ("not", "never", or an ending marker)
    never: bool = False
    ending: bool = False  # "anymore", "no longer", "any more": the fact stopped holding
    past: bool = False
    perfect: bool = False
    future: bool = False
    hypothetical: bool = False  # a question, condition, hedge or irrealis verb: no fact
    in_plan: bool = False  # under a plan verb ("I want to move to Paris")
    reported_neg: bool = False  # "I never said I lived in Boston"
    modal: bool = False
    yet: bool = False  # "yet" on the verb: negated, "not so far" ("I haven't done pottery yet")
    habitual: bool = False  # "I used to live in Chicago": held once, over now


def clause_flags(verb: Token) -> Flags:
    """Polarity, tense and mood of the clause headed by ``verb`` (with its xcomp chain)."""
    f = Flags()
    group = verb_group(verb)
    sent = verb.sent
    if asks(sent):
        f.hypothetical = True
    for v in group:
        _mark_own_words(f, v)
    _mark_ending(f, group, sent)
    _mark_governing_clauses(f, group[0])
    return f


def _mark_own_words(f: Flags, v: Token) -> None:
    """Hedges, negation, auxiliaries (tense, modality) and conditional marks on ``v``."""
    for c in v.children:
        low = c.lower_
        if c.dep_ == "advmod" and low in L.HEDGES:
            f.hypothetical = True
        if c.dep_ == "advmod" and low == "yet":
            f.yet = True
        if c.dep_ == "neg" or low == "never":
            f.neg = True
            if low == "never":
                f.never = True
        if c.dep_ in ("aux", "auxpass"):
            if c.tag_ == "VBD" or low in ("did", "was", "were", "had", "went"):
                f.past = True
            if c.lemma_ == "have":
                f.perfect = True
            if low in L.FUTURE_AUX or c.lemma_ in ("will", "shall"):
                f.future = True
            if low in L.MODALS or c.lemma_ in ("might", "may", "could", "would", "should",
                                               "must"):
                f.modal = True
        if c.dep_ == "mark" and low in ("if", "unless", "whether"):
            f.hypothetical = True
    bare = not any(c.dep_ in ("aux", "auxpass") for c in v.children)
    if v.tag_ == "VBD" or (v.tag_ in ("VBN", "VB") and v.dep_ == "ROOT" and bare and (
            v.tag_ == "VBN" or v.lower_ in L.PAST_FORMS)) or (
            v.tag_ == "VBP" and bare and v.lower_ in L.PAST_FORMS):  # the tagger's VBP "retook"
        f.past = True


def _mark_ending(f: Flags, group: list[Token], sent: Span) -> None:
    """An ending marker whose nearest verb is in the group ends the fact."""
    gi = {v.i for v in group}
    for t in sent:
        if t.lower_ in ("anymore",) or (
            t.lower_ == "longer" and any(c.lower_ in ("no", "any") for c in t.children)
        ) or (t.lower_ == "more" and t.i > 0 and t.doc[t.i - 1].lower_ == "any"):
            g = governor(t)
            if g is not None and g.i in gi:
                f.ending = True
                f.neg = True


def _guess_what(v: Token) -> bool:
    """"Guess what - I got a kitten!": the imperative opener announces news, it hedges
    nothing."""
    return v.lemma_.lower() == "guess" and v.tag_ == "VB" and v.i == v.sent.start and any(
        t.lower_ == "what" for t in v.doc[v.i + 1:v.i + 3])


def _mark_governing_clauses(f: Flags, verb: Token) -> None:
    """Look up the tree: plans, modals, conditionals and negated reports above the clause."""
    cur = verb
    hops = 0
    while cur.dep_ in ("xcomp", "ccomp", "pcomp", "advcl", "conj", "acl", "relcl", "prep",
                       "pobj", "dobj", "csubj") and cur.head is not cur and hops < 8:
        sub, cur = cur, cur.head
        hops += 1
        if joined_before(sub, cur):
            break  # "I'm lactose intolerant, so please suggest ...": a statement of its own
        if sub.dep_ == "csubj":  # "Volunteering there made me ...": tense and mood of "made"
            _mark_subject_clause(f, cur)
        if cur.pos_ not in ("VERB", "AUX") and not (
                cur.i == cur.sent.start and cur.lower_ in L.IRREALIS_VERBS):
            continue  # ("Wish I had a vacation lined up": the tagger's PROPN "Wish")
        lemma = cur.lemma_.lower()
        if sub.dep_ in ("xcomp", "pcomp", "prep", "pobj", "dobj") and lemma in L.PLAN_VERBS:
            f.in_plan = True
        if sub.dep_ == "xcomp" and lemma in L.LIKE_VERBS and any(
            c.lower_ in ("would", "'d") for c in cur.children
        ):
            f.in_plan = True
        if lemma in L.IRREALIS_VERBS and sub.dep_ not in ("advcl", "conj", "relcl", "acl") and not (
                lemma in L.IRREALIS_ONLY_XCOMP and sub.dep_ != "xcomp") and not _guess_what(cur):
            f.hypothetical = True  # ("when we went ..., they make me keep going": not irrealis)
        if lemma == "use" and sub.dep_ == "xcomp" and child(sub, "aux", "to") and (
            child(cur, "dobj") is None
        ):
            f.hypothetical = True  # "I used to live in Chicago": over, but when?
            f.habitual = True
        if sub.dep_ == "advcl" and any(
            c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in sub.children
        ):
            f.hypothetical = True
        cneg = any(c.dep_ == "neg" or c.lower_ == "never" for c in cur.children)
        if cneg and sub.dep_ == "dobj" and sub.lemma_.lower() in ("chance", "opportunity"):
            f.neg = True  # "I never had the chance to volunteer there"
        if lemma in L.REPORT_VERBS and cneg and sub.dep_ == "ccomp":
            f.reported_neg = True
        if sub.dep_ in ("xcomp", "conj", "ccomp") and any(
            c.dep_ == "aux" and (c.lower_ in L.MODALS or c.lemma_ in ("might", "may",
                                                                      "could", "would"))
            for c in cur.children
        ):
            f.modal = True
        if sub.dep_ == "conj" and cur.tag_ == "VBD":
            f.past = f.past or sub.tag_ in ("VBD", "VBN")
        if sub.dep_ in ("xcomp", "pcomp", "prep", "pobj", "dobj") and any(
            c.dep_ == "aux" and (c.lower_ in L.FUTURE_AUX or c.lemma_ == "will")
            for c in cur.children
        ):
            f.future = True  # "I'll take a shot at starting my own business"
        if sub.dep_ == "ccomp" and lemma in _TELLING and sub.tag_ in ("VBD", "VBN", "VBZ",
                                                                       "VBP"):
            break  # "I wanted to tell ya I just joined a writers group": what is told holds
        if sub.dep_ == "xcomp" and cur.lemma_ == "go" and cur.tag_ == "VBG" and child(
                sub, "aux") is not None:
            f.future = True  # "I'm gonna take a shot at ...", "I'm going to sell my car"


def joined_before(sub: Token, head: Token) -> bool:
    """A clause the parser hung as the complement of a later one it is only joined to by
    "so" ("I'm a night owl, so don't call before noon"): not embedded, not governed by it."""
    return sub.dep_ == "ccomp" and sub.i < head.i and any(
        t.lower_ == "so" and t.head.i == head.i for t in head.doc[sub.i:head.i])


def _mark_subject_clause(f: Flags, head: Token) -> None:
    """A gerund that is a clause's subject ("Organizing the camp was awesome", "Adopting a dog
    would make me happy") happened when its clause says so, and is hypothetical under a
    modal; a future on the clause is its outcome's ("investing in my business will pay off")."""
    auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass")]
    if head.tag_ == "VBD" or any(a.tag_ == "VBD" for a in auxes):
        f.past = True
    if any(a.lemma_ == "have" for a in auxes):
        f.perfect = True
    if any(a.lower_ in L.MODALS or a.lemma_ in ("might", "may", "could", "would", "should")
           for a in auxes):
        f.modal = True


# what one tells is stated, whatever wrapped the telling ("I wanted to tell you I joined ...")
_TELLING = frozenset({"tell", "say", "mention", "share", "announce", "inform", "let"})
# ", huh?", ", right?": a statement with a tag that asks for agreement, not a question
_QUESTION_TAGS = frozenset({
    "huh", "right", "eh", "yeah", "no", "ok", "okay", "you know", "ya know", "y'know",
    "isn't it", "wasn't it", "don't you think", "wouldn't you say", "am i right", "innit",
    "ain't it", "isn't that right", "you think", "yes"})


def asks(sent: Span) -> bool:
    """The sentence is a question: it asks (:func:`is_question`) or ends with "?", unless the
    "?" closes a tag after a comma ("I started my own store - pretty cool, huh?")."""
    text = sent.text.rstrip()
    if is_question(sent):
        return True
    if not text.endswith("?"):
        return False
    head, comma, tag = text.rstrip("?!. ").rpartition(",")
    tag = " ".join(tag.lower().replace("’", "'").split())
    return not (comma and head.strip() and tag in _QUESTION_TAGS)


def is_question(sent: Span) -> bool:
    """A sentence that asks (wh-word first, or an inverted auxiliary before its subject)."""
    first = next((t for t in sent if not t.is_punct and t.dep_ != "intj"), None)
    if first is None:
        return False
    if first.tag_ in ("WP", "WRB", "WDT") and first.lower_ != "when":
        return True
    if first.lower_ in ("do", "does", "did", "is", "are", "was", "were", "can", "could",
                        "would", "should", "will", "have", "has", "shall", "may", "might"):
        nxt = first.doc[first.i + 1] if first.i + 1 < len(first.doc) else None
        return nxt is not None and nxt.dep_ in ("nsubj", "nsubjpass", "expl")
    return False


def future_progressive(verb: Token, flags: Flags) -> bool:
    """"I'm moving to Chicago", "I start at Google": present forms that talk about the future."""
    if flags.past or flags.perfect:
        return False
    if verb.tag_ == "VBG" and verb.lemma_ in ("move", "start", "leave", "join", "go", "relocate",
                                              "begin", "fly", "head", "get"):
        return True
    if verb.tag_ in ("VBZ", "VBP") and verb.lemma_ in ("start", "begin"):
        return True
    return False
