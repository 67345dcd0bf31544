"""Mentions: who a subject or owner token refers to ("I" is the speaker, he/she the last named
person, "my sister Sarah" is Sarah), and the subjects of a verb (inherited through xcomp/conj,
or dropped: "Started at Shopify in January")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import lexicon as L
from ..discourse.speakers import is_role
from ..discourse import Coreference
from .entities import ENT_KEEP, clean_ent, ent_type, looks_like_name, strip_det
from .sitting import Sitting
from .tree import child, join_tokens

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token


@dataclass
class Mention:
    """Who a token refers to: a name (``speaker`` when it is the one talking), its entity
    label if known, and the token it was read from (for the evidence span)."""

    text: str
    speaker: bool = False
    label: str | None = None
    token: Token | None = None


class Mentions:
    """Who the people of one utterance are: the speaker, named people (for he/she),
    entity spans; resolves subject and owner tokens to :class:`Mention`s."""

    def __init__(self, doc: Doc, speaker: str, speaker_is_assistant: bool,
                 user: str | None, sitting: Sitting | None = None) -> None:
        self.doc = doc
        self.sitting = sitting
        self.relatives: dict[str, str] = {}  # relation lemma -> the name the speaker gave
        self.speaker = speaker
        self.assistant = speaker_is_assistant
        self.user = user
        # token index -> entity span
        self.ent_of: dict[int, Any] = {}
        for ent in doc.ents:
            for t in ent:
                self.ent_of[t.i] = ent
        self.time_tokens: set[int] = set()  # tokens inside a time expression
        self.persons: list[tuple[int, str]] = []  # (token index, name) for he/she
        self.coref: Coreference | None = None  # set by the rules' context

    def name_of(self, tok: Token) -> str:
        """The name a token is part of: its entity span (with a title), else the token and its
        compound/flat modifiers."""
        ent = self.ent_of.get(tok.i)
        if ent is not None and ent.label_ in ENT_KEEP and clean_ent(ent):
            text = strip_det(ent.text)
            prev = tok.doc[ent.start - 1] if ent.start > 0 else None
            if prev is not None and prev.lower_.rstrip(".") in L.NAME_TITLES:
                text = f"{prev.text} {text}"
            return text
        toks = [tok]
        stack = [tok]
        while stack:
            cur = stack.pop()
            for c in cur.children:
                if c.dep_ in ("compound", "flat", "nmod") and c.i not in self.time_tokens:
                    if c.pos_ == "NOUN" and (c.is_lower or c.lemma_.lower() in L.RELATION_NOUNS
                                             or c.lemma_.lower() in L.PET_NOUNS):
                        continue
                    toks.append(c)
                    stack.append(c)
        return join_tokens(toks)

    def speaker_mention(self, tok: Token | None = None) -> Mention:
        """The one talking ("I", "my", a dropped subject)."""
        return Mention(self.speaker, speaker=True, token=tok)

    def person_before(self, i: int) -> Mention | None:
        """he/she/his/her at token ``i``: whom the discourse layer resolved it to (nobody
        when it abstained); a token it did not look at: the last person named before."""
        if self.coref is not None and self.coref.decided(i):
            name = self.coref.name_at(i)
            return Mention(name, label="PERSON") if name else None
        best = None
        for j, name in self.persons:
            if j < i:
                best = name
        if best is None and self.sitting is not None and self.sitting.people:
            best = self.sitting.people[-1]  # named earlier in the sitting
        return Mention(best, label="PERSON") if best else None

    def known_relative(self, noun: Token, owner: Mention | None) -> str | None:
        """"my partner" when the speaker named their partner earlier in the sitting."""
        lemma = noun.lemma_.lower()
        if owner is None or not owner.speaker or self.sitting is None or (
                lemma not in L.RELATION_NOUNS and lemma not in L.PET_NOUNS) or noun.tag_ == "NNS":
            return None
        return self.sitting.relatives.get((self.speaker, lemma))

    def note_person(self, tok: Token, name: str) -> None:
        """Remember a named person at ``tok`` (for a later he/she)."""
        if name and not any(j == tok.i for j, _ in self.persons):
            self.persons.append((tok.i, name))
            self.persons.sort()

    def rel_name(self, noun: Token) -> Any | None:
        """The name token of a relation/pet noun: appos, "named X", compound head, attr."""
        for c in noun.children:
            if c.dep_ == "appos" and c.pos_ in ("PROPN", "NOUN") and c.i not in self.time_tokens:
                if c.pos_ == "PROPN" or ent_type(c) == "PERSON":
                    return c
        for c in noun.children:
            if c.dep_ == "acl" and c.lemma_ in ("name", "call"):
                for cc in c.children:
                    if cc.dep_ in ("oprd", "dobj", "attr", "xcomp", "npadvmod", "appos"):
                        return cc
        if noun.tag_ in ("NNS", "NNPS"):  # "two kids, Max and Lily" (parsed as conj)
            for c in noun.children:
                if c.dep_ == "conj" and c.pos_ == "PROPN" and ent_type(c) in ("PERSON", "", "ORG"):
                    return c
        if noun.dep_ == "compound" and noun.head.pos_ == "PROPN":
            return noun.head
        if noun.dep_ == "appos" and noun.head.pos_ == "PROPN" and noun.head.i < noun.i and (
                noun.head.i not in self.time_tokens) and not any(
                ch.dep_ == "compound" for ch in noun.head.children):
            return noun.head  # "Oscar, my guinea pig", "Sarah, my sister" (a one-word name)
        # right-adjacent proper noun that the parser attached elsewhere ("my sister Sarah")
        nxt = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
        if nxt is not None and nxt.pos_ == "PROPN" and nxt.dep_ != "poss" and (
            nxt.head == noun or noun.head == nxt or nxt.head == noun.head
        ) and ent_type(nxt) not in ("GPE", "LOC", "DATE", "ORG"):
            return nxt
        if nxt is not None and nxt.pos_ == "PROPN" and nxt.dep_ == "poss" and (
                nxt.head.dep_ == "appos" and nxt.head.head == noun) and ent_type(nxt) not in (
                "GPE", "LOC", "DATE", "ORG"):
            return nxt  # "my son Leo's birthday": the parser hung the name on "birthday"
        return None

    def owner_of(self, noun: Token) -> Mention | None:
        """Whose noun it is: "my dog" -> the speaker, "Anna's brother" -> Anna."""
        orig = noun
        if noun.dep_ == "compound" and noun.head.pos_ == "PROPN" and not any(
            c.dep_ == "poss" for c in noun.children
        ):
            noun = noun.head  # "Our dog Rex": poss sits on Rex
        for c in noun.children:
            if c.dep_ == "poss":
                return self._poss_owner(c)
        noun = orig
        # "My ex-husband Carl": the parser scattered the phrase; look left
        j = noun.i - 1
        doc = noun.doc
        while j >= 0 and j >= noun.i - 4:
            t = doc[j]
            if t.lower_ in ("my", "our", "his", "her") or (t.dep_ == "poss" and t.pos_ == "PROPN"):
                return self._poss_owner(t)
            if t.lower_ not in L.RELATION_PREMODIFIERS and t.pos_ not in ("ADJ",):
                break
            j -= 1
        return None

    def _poss_owner(self, c: Any) -> Mention | None:
        """The owner named by a possessive token (my/our, his/her, a proper noun)."""
        low = c.lower_
        if low in L.SPEAKER_PRONOUNS:
            return self.speaker_mention(c)
        if low in ("his", "her"):
            return self.person_before(c.i)
        if low == "your":  # "How have your turtles been?": the one spoken to, by name
            return self._addressee_mention(c)
        if c.pos_ == "PROPN":
            return Mention(self.name_of(c), label=ent_type(c) or "PERSON", token=c)
        return None

    def _addressee_mention(self, tok: Any) -> Mention | None:
        """The other speaker of a two-party chat sitting, when they go by a name (never a
        role, never from the assistant's turns, where "your" is the user's advice)."""
        if self.sitting is None or self.assistant:
            return None
        to = self.sitting.addressee(self.speaker)
        others = {s for s in self.sitting.speakers if s != self.speaker}
        if not to or len(others) != 1 or is_role(to):
            return None
        return Mention(to, label="PERSON", token=tok)

    def resolve(self, tok: Token, collective: bool = False) -> list[Mention]:
        """Resolve a subject (or person-object) token to mentions (conjuncts included)."""
        out: list[Mention] = []
        for t in [tok] + [c for c in tok.children if c.dep_ == "conj"]:
            m = self._resolve_one(t, collective)
            if m is not None:
                out.append(m)
        return out

    def _resolve_one(self, tok: Token, collective: bool) -> Mention | None:
        """One token: a pronoun, a name, or a relation noun with its name ("my sister Kate");
        ``collective``: "my team" speaks for the speaker."""
        low = tok.lower_
        if low in L.SPEAKER_PRONOUNS:
            return self.speaker_mention(tok)
        if tok.i in self.time_tokens:
            return None  # "5 November 1886": part of a date, nobody
        if low in ("you", "your") and self.assistant and self.user:
            return Mention(self.user, token=tok)
        if low in L.THIRD_PERSON_PRONOUNS:
            return self.person_before(tok.i)
        if low in L.UNRESOLVABLE_PRONOUNS or tok.pos_ == "PRON":
            return None
        lemma = tok.lemma_.lower()
        ref = self.coref.referent_of_name(tok.i) if self.coref is not None else None
        if ref is not None and ref.name and ref.kind == "person":
            self.note_person(tok, ref.name)  # "Ruiz" after "Marco Ruiz"
            return Mention(ref.name, label="PERSON", token=tok)
        if ref is not None and ref.name and ref.kind == "org" and tok.pos_ == "PROPN":
            return Mention(self.name_of(tok), label="ORG", token=tok)  # "Levante UD"
        if ent_type(tok) == "PERSON" and lemma not in L.RELATION_NOUNS and lemma not in L.PET_NOUNS:
            n = self.name_of(tok)
            self.note_person(tok, n)
            return Mention(n, label="PERSON", token=tok)
        if ent_type(tok) in ("ORG", "NORP") and tok.is_title and lemma not in L.RELATION_NOUNS and (
            lemma not in L.PET_NOUNS
        ) and not any(c.dep_ in ("det", "poss") for c in tok.children):
            return Mention(self.name_of(tok), label=ent_type(tok), token=tok)
        if looks_like_name(tok):
            n = self.name_of(tok)
            self.note_person(tok, n)
            return Mention(n, label="PERSON", token=tok)
        if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS or tok.pos_ == "NOUN":
            owner = self.owner_of(tok)
            name = self.rel_name(tok)
            if name is not None:
                n = self.name_of(name)
                self.note_person(name, n)
                return Mention(n, label="PERSON", token=name)
            if collective and owner is not None and owner.speaker and lemma in L.COLLECTIVE_NOUNS:
                return self.speaker_mention(tok)
            known = self.known_relative(tok, owner)
            if known is not None:
                return Mention(known, label="PERSON", token=tok)
            return None
        if tok.pos_ == "PROPN" or ent_type(tok) in ("PERSON", "ORG", "NORP"):
            if ent_type(tok) in ("DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT"):
                return None
            n = self.name_of(tok)
            if ent_type(tok) in ("", "PERSON"):
                self.note_person(tok, n)
            return Mention(n, label=ent_type(tok) or None, token=tok)
        return None


_GREETINGS = frozenset({"hey", "hi", "hello", "thanks", "thank", "oh", "wow", "yo", "dear",
                        "morning", "congrats", "sorry", "yes", "yeah", "no", "ok", "okay"})


def vocative(tok: Token, subjects_of_verb: Sequence[Any] = ()) -> bool:
    """A name addressed, not the subject: "Hey Maria, since we last spoke I went ...", "Maria,
    I joined ..." (the parser often makes the name a second subject of the verb)."""
    doc = tok.doc
    if tok.pos_ != "PROPN" or tok.i + 1 >= len(doc) or doc[tok.i + 1].lower_ not in (",", "!"):
        return False
    prev = doc[tok.i - 1] if tok.i > tok.sent.start else None
    if prev is not None and (prev.dep_ == "intj" or prev.lower_ in _GREETINGS):
        return True
    others = [t for t in subjects_of_verb if t is not tok and t.i > tok.i]
    return prev is None and bool(others)


def subjects(c: Mentions, verb: Token, collective: bool = False) -> tuple[list[Mention], bool]:
    """Subjects of a verb (inherited through xcomp/conj); bool = subject was dropped."""
    cur = verb
    for _ in range(6):
        subj_children = [ch for ch in cur.children if ch.dep_ in ("nsubj", "nsubjpass")] or [
            # the parser sometimes hangs the subject on the auxiliary ("I <- was remembering")
            g for a in cur.children if a.dep_ in ("aux", "auxpass") and a.i < cur.i
            for g in a.children if g.dep_ in ("nsubj", "nsubjpass")]
        subj_children = [ch for ch in subj_children if not vocative(ch, subj_children)]
        if subj_children:
            for ch in sorted(subj_children, key=lambda t: t.pos_ != "PROPN"):
                res = c.resolve(ch, collective)
                if res:
                    return res, False
            return [], False
        if cur.dep_ in ("dep", "parataxis") and cur.tag_ == "VBD" and cur.head is not cur:
            cur = cur.head
            continue
        if cur.dep_ == "attr" and cur.pos_ == "VERB" and cur.head.lemma_ == "be":
            cur = cur.head  # "Been busy volunteering at the shelter"
            continue
        if cur.dep_ == "acl" and cur.tag_ == "VBG" and cur.head.dep_ == "dobj" and (
                cur.head.head.lemma_ == "have"):
            cur = cur.head.head  # "we had a great time throwing a party"
            continue
        if cur.dep_ == "acl" and cur.head.lemma_.lower() in ("chance", "opportunity") and (
                cur.head.dep_ == "dobj" and cur.head.head.lemma_ in ("have", "get")):
            cur = cur.head.head  # "I had the chance to volunteer at a youth center"
            continue
        if cur.dep_ == "acl" and cur.head.dep_ == "attr" and cur.head.head != cur.head:
            cur = cur.head.head  # "we were road tripping": the parser hung it on "road"
            continue
        if cur.dep_ in ("xcomp", "conj", "pcomp", "advcl") and cur.head is not cur:
            nxt = cur.head
            if cur.dep_ == "pcomp" and nxt.pos_ == "ADP":
                nxt = nxt.head
            if cur.dep_ == "advcl" and not (cur.tag_ == "VBG") and not (
                nxt.lemma_.lower() in ("go", "come") and child(cur, "aux", "to") is not None
            ):  # "I went to work for Google": the subject of went works there
                break
            cur = nxt
            continue
        break
    # a name the tagger mistook for an adverb, right before the verb ("Raj joined ...")
    prev = cur.doc[cur.i - 1] if cur.i > 0 else None
    if prev is not None and prev.head == cur and prev.dep_ in ("advmod", "npadvmod") and (
        prev.i == cur.sent.start and looks_like_name(prev)
    ):
        return c.resolve(prev), False
    # a gerund that is the subject of a clause about the speaker: "Volunteering at the shelter
    # made me feel great", "Organizing a camp in my hometown was awesome" (the speaker did it)
    # (told as what happened, or with "my" in it: "Running a business isn't easy" is generic)
    if cur.tag_ == "VBG" and cur.dep_ in ("csubj", "nsubj") and not c.assistant and (
            cur.head.tag_ == "VBD" or any(t.lower_ in ("my", "our") for t in cur.subtree)
    ) and any(t.lower_ in ("me", "my", "i", "myself") for t in cur.sent) and not any(
            t.lower_ in ("you", "your", "he", "she", "they", "his", "her", "their", "we", "our")
            or t.ent_type_ == "PERSON" for t in cur.sent):
        return [c.speaker_mention()], True
    # dropped subject: "Started at Shopify in January", "moving to Chicago next month", "Just
    # got back from a road trip, it was fun" (a clause opening the sentence)
    root = cur
    opens = root.dep_ in ("advcl", "ccomp", "conj", "parataxis") and root.head.i > root.i
    if (root.dep_ == "ROOT" or opens) and (root.tag_ in ("VBD", "VBN", "VBG") or (
            root.tag_ == "VB" and root.lower_ in L.PAST_FORMS)):
        first = next((t for t in root.sent if not t.is_punct and t.dep_ not in (
            "advmod", "intj", "aux", "auxpass", "npadvmod", "prep", "pobj", "det", "amod"
        ) and t.i not in c.time_tokens), None)
        if first is not None and first.i == root.i:
            return [c.speaker_mention()], True
        if first is not None and first.lower_ in ("been", "just") and first.head == root:
            return [c.speaker_mention()], True
    return [], False
