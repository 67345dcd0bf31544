"""The modality and polarity of a clause: whether it states a fact at all.

:func:`clause_modality` reads the clause headed by a verb and the clauses above it and says what
it does: **asserted** (a fact), **negated** (its polarity flips: the rules end, retract or drop
it), **habitual_past** ("I used to live in Chicago": a state that is over), or one of the
modalities that state nothing: **asked** (a question), **reported** (someone else's word:
"she said", "I heard that", "according to"), **wished** ("I wish", "I hope to", "can't wait
for the day", "I'd love to"), **hypothetical** (a condition and its consequence, a hedge, a
modal: "if I get the job, I'll move", "maybe", "might"), **planned** (under a plan verb, or
"going to"). Every fact a rule emits passes through it (``Context.emit``); a noun phrase's
fact ("my dog") takes the modality of the clause it sits in (:func:`phrase_modality`).
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from ..offline.flags import Flags, asks, clause_flags, joined_before

if TYPE_CHECKING:
    from spacy.tokens import Token


class Modality(str, Enum):
    ASSERTED = "asserted"
    NEGATED = "negated"
    HABITUAL_PAST = "habitual_past"
    HYPOTHETICAL = "hypothetical"
    WISHED = "wished"
    PLANNED = "planned"
    ASKED = "asked"
    REPORTED = "reported"

    @property
    def states_fact(self) -> bool:
        """Whether a clause of this modality states a fact (negated and over ones included)."""
        return self in (Modality.ASSERTED, Modality.NEGATED, Modality.HABITUAL_PAST)


# verbs whose complement is wished for, not stated ("I hope to visit Iceland", "dreaming of")
WISH_VERBS = frozenset({"wish", "hope", "dream", "long", "yearn", "fantasize", "fantasise",
                        "crave"})
# verbs whose own clause states a plan ("I'm considering a job at Meta")
SELF_PLAN_VERBS = frozenset({"plan", "intend", "consider", "contemplate"})
# verbs that report someone's word: their complement is that person's claim
REPORT_VERBS = frozenset({"say", "tell", "claim", "mention", "report", "hear", "read",
                          "insist", "admit", "announce", "write"})
# the speaker reporting what reached them ("I heard that ...", "I read that ...")
HEARSAY_VERBS = frozenset({"hear", "read"})
FIRST_PERSON = frozenset({"i", "we", "me", "us"})
_CLIMB = ("xcomp", "ccomp", "pcomp", "advcl", "conj", "acl", "relcl", "prep", "pobj", "dobj",
          "advmod", "npadvmod", "csubj")


def clause_modality(verb: Token, flags: Flags | None = None) -> Modality:
    """What the clause headed by ``verb`` does (``flags``: its clause flags, if computed)."""
    f = flags if flags is not None else clause_flags(verb)
    if asks(verb.sent):
        return Modality.ASKED
    chain = _governing_chain(verb)
    if _reported(verb, chain):
        return Modality.REPORTED
    if _wished(verb, chain):
        return Modality.WISHED
    if f.habitual:
        return Modality.HABITUAL_PAST
    if f.hypothetical or f.modal or _conditional_consequent(verb, chain):
        return Modality.HYPOTHETICAL
    if f.in_plan or _going_to(verb) or verb.lemma_.lower() in SELF_PLAN_VERBS:
        return Modality.PLANNED
    if f.neg:
        return Modality.NEGATED
    return Modality.ASSERTED


def phrase_modality(tok: Token) -> Modality:
    """The modality of the clause a noun phrase sits in ("a trip with my dog" in "can't wait
    for the day I go on a trip with my dog": wished)."""
    verb = _clause_verb(tok)
    return Modality.ASSERTED if verb is None else clause_modality(verb)


# what a possessive noun phrase presupposes survives negation, questions, modals and plans
# ("I didn't see my sister Sarah", "you should meet my dog Max"); not a wish or hearsay
PHRASE_DROPS = frozenset({Modality.WISHED, Modality.REPORTED})


def _clause_verb(tok: Token) -> Token | None:
    cur = tok
    for _ in range(12):
        if cur.pos_ in ("VERB", "AUX") and cur.dep_ not in ("aux", "auxpass"):
            return cur
        if cur.head is cur:
            return None
        cur = cur.head
    return None


def _governing_chain(verb: Token) -> list[tuple[Token, Token]]:
    """``(sub, head)`` pairs from the clause up to the sentence root, through the relations
    that embed one clause (or phrase) in another."""
    out = []
    cur = verb
    for _ in range(10):
        if cur.dep_ not in _CLIMB or cur.head is cur or joined_before(cur, cur.head):
            break
        out.append((cur, cur.head))
        cur = cur.head
    return out


def _subject(verb: Token) -> Token | None:
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


# verbs by which an organisation tells its own news (a company's announcement is its word)
_OWN_NEWS = frozenset({"announce", "confirm", "say", "state"})


def _reported(verb: Token, chain: list[tuple[Token, Token]]) -> bool:
    """Someone else's word: a complement of say/tell/claim whose sayer is not the speaker, or of
    "I heard (that)"; "according to X" on the clause or its root."""
    for sub, head in chain:
        lemma = head.lemma_.lower()
        if sub.dep_ == "ccomp" and lemma in REPORT_VERBS:
            who = _subject(head)
            if who is not None and who.ent_type_ == "ORG" and lemma in _OWN_NEWS:
                continue  # "Brightline Health announced that X has joined": its own news
            if lemma in HEARSAY_VERBS or (who is not None and who.lower_ not in FIRST_PERSON):
                return True
    for v in [verb] + [head for _sub, head in chain]:
        if any(c.lower_ == "according" for c in v.children):
            return True
    return False


def _can_not_wait(v: Token) -> bool:
    kids = {c.lower_ for c in v.children}
    return v.lemma_.lower() == "wait" and bool(kids & {"n't", "not", "nt"}) and bool(
        kids & {"ca", "can", "could"})


def _wished(verb: Token, chain: list[tuple[Token, Token]]) -> bool:
    """Under a wish ("I wish I had a cat", "I hope to", "can't wait for the day I go",
    "I'd love to"), or itself the wish verb with no subject ("Dreaming of a house")."""
    lemma = verb.lemma_.lower()
    comp = any(c.dep_ in ("xcomp", "ccomp") for c in verb.children)
    if lemma in WISH_VERBS and (_subject(verb) is None or comp):
        return True  # the wish itself: what it wishes for is not a plan ("I hope to ...")
    if _can_not_wait(verb) or (comp and lemma in ("love", "like") and any(
            c.lower_ in ("would", "'d") for c in verb.children)):
        return True
    for sub, head in chain:
        lemma = head.lemma_.lower()
        if lemma in WISH_VERBS or _can_not_wait(head):
            return True
        if sub.dep_ == "xcomp" and lemma in ("love", "like") and any(
                c.lower_ in ("would", "'d") for c in head.children):
            return True
    return False


def _conditional_consequent(verb: Token, chain: list[tuple[Token, Token]]) -> bool:
    """The main clause of a condition ("If I get the job, I'll move to Boston"): the clause,
    or one it is the complement of, has an if/unless clause attached."""
    heads = [verb] + [head for sub, head in chain if sub.dep_ in ("xcomp", "ccomp")]
    return any(_has_condition(v) for v in heads)


def _has_condition(verb: Token) -> bool:
    return any(c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in ("if", "unless")
                                         for m in c.children) for c in verb.children)


def _going_to(verb: Token) -> bool:
    """"I'm going to sell my car", "gonna": a plan stated as a future."""
    head = verb.head
    return verb.dep_ == "xcomp" and head.lemma_ == "go" and head.tag_ == "VBG" and any(
        c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)
