"""The per-utterance context the rules work in: mentions, the time expressions of the text and
the verb each one dates, clause flags, and :meth:`Context.emit`, which turns a rule's finding into
an :class:`ExtractedFact` (polarity, time, evidence span) or drops it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from kgmem.entity_types import signature_types
from kgmem.timeutil import Precision

from .. import lexicon as L
from ..discourse import ClauseTimes, Coreference, TimeSpan
from ..facts import ANY_OBJECT, ExtractedFact
from ..temporal import ResolvedTime, find_time_expressions, resolve_time
from .entities import strip_det
from ..discourse.modality import PHRASE_DROPS, Modality, clause_modality, phrase_modality
from .flags import Flags, asks, clause_flags, future_progressive
from .genre import tells_sport
from .layout import Layout
from .mentions import Mention, Mentions
from .objects import generic_object
from .sitting import Sitting
from .tree import governor, verb_group

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

# a negated clause of these states nothing ("I've never been to Boston" corrects nothing)
UNNEGATABLE = L.EVENT_PREDICATES | {"PLANS"}
# states a "used to" clause ends ("I used to live in Chicago", "I used to have a dog"); a past
# taste ("I used to love spending time there") ends nothing worth a fact
HABITUAL_ENDS = frozenset({"LIVES_IN", "WORKS_AT", "HAS_ROLE", "HAS_PET", "STUDIES_AT",
                           "MEMBER_OF", "MEMBER_OF_TEAM", "VOLUNTEERS_AT", "RUNS", "LEADS",
                           "OWNS", "DATING", "MARRIED_TO", "HAS_STATUS", "USES", "HAS_DIET",
                           "AVOIDS"})


# predicates whose object is an organisation: "Northwind" there is the "Northwind Robotics"
# named before
_ORG_OBJECT = frozenset({"WORKS_AT", "MEMBER_OF", "MEMBER_OF_TEAM", "RUNS", "LEADS",
                         "ATTENDED", "STUDIES_AT", "OWNS"})


class Context(Mentions):
    """Per-utterance state: the mentions, the reference time and the time mentions, clause
    flags, and the facts emitted so far."""

    def __init__(self, doc: Doc, ref: datetime, speaker: str, speaker_is_assistant: bool,
                 user: str | None, sitting: Sitting | None = None,
                 narrative: bool = False) -> None:
        super().__init__(doc, speaker, speaker_is_assistant, user, sitting)
        self.narrative = narrative  # a document told as prose, not a chat turn
        self.ref = ref
        self.facts: list[ExtractedFact] = []
        self.flag_cache: dict[int, Flags] = {}
        self.modality_cache: dict[int, Modality] = {}
        low = doc.text.lower().lstrip(" \"'([")
        self.correction = low.startswith(L.CORRECTION_CUES) or bool(
            re.search(r"\b(?:actually|correction|i meant|to clarify|i misspoke)\b", low)
        )
        # time mentions: (ResolvedTime, token set, governor index, text)
        self.times: list[tuple[ResolvedTime, set[int], int | None, str]] = []
        last = sitting.last_sitting if sitting is not None else None
        for text, s, e, rt in find_time_expressions(doc, ref, last_sitting=last):
            span = doc.char_span(s, e, alignment_mode="expand")
            if span is None:
                continue
            toks = {t.i for t in span}
            gov = governor(span.root)
            if gov is not None and gov.i in toks and gov.head != gov:
                gov = governor(gov.head)  # "since we last talked, I joined": joined
            self.times.append((rt, toks, gov.i if gov is not None else None, text))
            self.time_tokens |= toks
        self.clauses = ClauseTimes(doc, [TimeSpan(rt, frozenset(toks), gov, text)
                                         for rt, toks, gov, text in self.times], narrative)
        # "later that year" read against the running time, not the reference time
        self.times = [(sp.time, set(sp.tokens), sp.governor, sp.text)
                      for sp in self.clauses.spans]
        self.sport = narrative and tells_sport(doc)
        # a document's lines: its title (the subject its lists are about) and headings; the
        # words "the <noun>" names it by (its title's words and what its first sentence says
        # it is: "Condor is a German charter airline"); a later piece of a long document has
        # its first piece's
        self.layout = Layout(doc.text) if narrative else None
        self.title, self.title_class = _document_subject(doc, self.layout, narrative, sitting)
        self.title_nouns: frozenset[str] = frozenset()
        if self.title is not None:
            self.title_nouns = frozenset(
                {w.lower() for w in self.title.split() if w.isalpha()}
                | ({self.title_class} if self.title_class else set()))
        self.coref = Coreference(doc, narrative=narrative, earlier_people=tuple(
            sitting.people) if sitting is not None else (), earlier_topic=(
            sitting.topic if narrative and sitting is not None and sitting.continued
            else None), subject=(
            (self.title, self.title_class) if self.title and self.title_class else None))
        if narrative and sitting is not None and not sitting.continued:
            sitting.topic = None
        if narrative and sitting is not None and sitting.topic is None:
            topic = self.coref.topic
            if topic is not None and topic.name:
                sitting.topic = (topic.name, topic.gender)

    def flags(self, verb: Token) -> Flags:
        """The clause flags of ``verb`` (computed once per verb)."""
        f = self.flag_cache.get(verb.i)
        if f is None:
            f = self.flag_cache[verb.i] = clause_flags(verb)
        return f

    def time_for(self, verb: Token, flags: Flags, extra: Iterable[Any] = ()) -> tuple[
        ResolvedTime, str
    ] | None:
        """The time expression dating ``verb``'s clause (a since/range one first), resolved
        towards the future for a future-tense clause; None when there is none."""
        if not self.times:
            return None
        gi = {v.i for v in verb_group(verb)} | {t.i for t in extra}
        cands = [(rt, text) for rt, _toks, gov, text in self.times if gov is not None and gov in gi]
        if not cands:
            cands = self._nearby_time(verb)
        if not cands:
            borrowed = self.clauses.borrowed(verb)
            cands = [borrowed] if borrowed is not None else []
        if not cands:
            return None
        # the most precise "at" time ("since we last talked ... last Tuesday": Tuesday)
        rt, text = min(cands, key=lambda c: (c[0].relation != "at", _span(c[0])))
        for c in cands:
            if c[0].relation in ("since", "range"):
                rt, text = c
                break
        if rt.relation == "since" and text.lower().startswith("for ") and not (
            flags.perfect or (verb.tag_ == "VBG" and not flags.past)
        ):
            return None  # "I lived there for three years" gives no start
        if flags.future or future_progressive(verb, flags):
            fut = resolve_time(text, self.ref, prefer="future")
            if fut is not None:
                rt = fut
        return rt, text

    def _nearby_time(self, verb: Token) -> list[tuple[ResolvedTime, str]]:
        """A time the parser hung next to the clause: on a participle of it ("sprained my ankle
        playing tennis yesterday"), or, for a clause that opens the sentence, on the main verb
        between the two ("Just got back from a trip yesterday, it was fun")."""
        part = {ch.i for ch in verb.children if ch.dep_ == "advcl" and ch.tag_ == "VBG"}
        out = [(rt, text) for rt, _t, gov, text in self.times if gov in part]
        if not out and verb.dep_ in ("advcl", "ccomp") and verb.head.i > verb.i:
            out = [(rt, text) for rt, toks, gov, text in self.times
                   if gov == verb.head.i and all(verb.i < i < verb.head.i for i in toks)]
        return out

    def _story_time(self, verb: Token) -> tuple[ResolvedTime, str] | None:
        """An undated event told right after a dated sentence happened then ("Last weekend I
        did something new. I participated in a 5K charity run."): the past time of the
        sentence just before, if it has exactly one."""
        sent = verb.sent
        if sent.start == 0:
            return None
        prev = self.doc[sent.start - 1].sent
        found = [(rt, text) for rt, toks, _g, text in self.times
                 if all(prev.start <= i < prev.end for i in toks)]
        if len(found) != 1 or found[0][0].relation != "at" or found[0][0].start >= self.ref:
            return None
        return found[0]

    def emit(
        self,
        subj: Mention | None,
        predicate: str,
        obj: str | None,
        anchor: Token | None,
        *,
        kind: str = "assert",
        confidence: float = 0.8,
        rule: str = "",
        negatable: bool = True,
        timed: bool = True,
        flip: str | None = None,
        tokens: Iterable[Token | None] = (),
        allow_in_plan: bool = False,
        time_extra: Iterable[Any] = (),
        attributes: dict[str, Any] | None = None,
        at: tuple[ResolvedTime, str] | None = None,
    ) -> ExtractedFact | None:
        """Record a fact a rule found: ``subj predicate obj`` stated by the clause of ``anchor``
        (a verb, or None for a noun phrase such as "my sister Sarah").

        The clause's flags decide whether it is stated at all (not in a question, condition,
        modal or plan unless ``allow_in_plan``) and its polarity (a negated ``assert`` becomes an
        ``end``, a ``retract`` or the ``flip`` predicate; ``negatable=False`` keeps it as is);
        ``timed`` dates it from the clause's time expression (``at`` gives the time
        instead: a list item's period). ``tokens`` (with the anchor and the
        subject's token) give the evidence span. Returns the fact, or None when dropped."""
        if subj is None or not subj.text or not obj:
            return None
        tokens = list(tokens)
        obj = self._referred(predicate, obj, tokens)
        if obj is None:
            return None
        obj = self._without_vocative(predicate, obj)
        if obj is None:
            return None
        text = _object_text(subj, predicate, obj)
        if text is None:
            return None
        f = self._emit_flags(anchor, tokens, allow_in_plan)
        if f is None:
            return None
        if f.habitual:  # "I used to live in Chicago": the state is over (an event: nothing)
            if kind != "assert" or predicate not in HABITUAL_ENDS or not negatable:
                return None
            kind = "end"
        if self.narrative and f.future and not allow_in_plan:
            return None  # "will join the board": announced, not (yet) so
        hit = self.time_for(anchor, f, time_extra) if timed and anchor is not None else at
        if hit is None and timed and anchor is not None and predicate in L.EVENT_PREDICATES:
            hit = self._story_time(anchor)
        polarity = _polarity(kind, predicate, confidence, f, negatable=negatable, flip=flip,
                             hit=hit, correction=self.correction)
        if polarity is None:
            return None
        kind, predicate, confidence = polarity
        if self.narrative and predicate == "WORKS_AT" and _membership_body(text):
            predicate = "MEMBER_OF"  # "joined the All Progressives Congress": a member
        fact = ExtractedFact(subj.text, predicate, text, kind=kind,
                             confidence=round(confidence, 3), rule=rule,
                             subject_is_speaker=subj.speaker, attributes=dict(attributes or {}))
        if hit is not None:
            _date(fact, *hit)
        if predicate in L.EVENT_PREDICATES and kind == "assert":
            _as_event(fact, hit, self.ref)
        fact.subject_type, fact.object_type = _types(fact, subj, tokens)
        fact.evidence = self._evidence(subj, anchor, tokens)
        self.facts.append(fact)
        return fact

    def modality(self, verb: Token) -> Modality:
        """The modality of ``verb``'s clause (computed once per verb)."""
        m = self.modality_cache.get(verb.i)
        if m is None:
            m = self.modality_cache[verb.i] = clause_modality(verb, self.flags(verb))
        return m

    def _without_vocative(self, predicate: str, obj: str) -> str | None:
        """The object without the name of the one spoken to, which chat puts last ("I love
        the thought Nate!" -> "thought", too vague to like: None)."""
        if self.sitting is None or predicate in ("KNOWS", "FRIEND_OF", "DATING", "MARRIED_TO",
                                                 "SIBLING_OF", "PARENT_OF", "CHILD_OF"):
            return obj
        to = self.sitting.addressee(self.speaker)
        if not to or not obj.endswith(" " + to):
            return obj
        obj = obj[: -len(to) - 1].rstrip(" ,")
        head = obj.lower().split()[-1] if obj.split() else ""
        if predicate in ("LIKES", "DISLIKES", "HAS_HOBBY") and head in L.VAGUE_LIKES:
            return None
        return obj or None

    def _referred(self, predicate: str, obj: str, tokens: list[Token | None]) -> str | None:
        """The object as the discourse layer knows it: "the company" -> the organisation it
        refers to (None when that is not clear), "Northwind" -> "Northwind Robotics"; a
        place predicate whose object is an organisation in narrative text states nothing
        ("moved to Celta Vigo" in a footballer's career)."""
        for tok in tokens:
            if tok is None or self.coref is None:
                continue
            if self.coref.decided(tok.i) and tok.pos_ == "NOUN":
                return self.coref.name_at(tok.i)
            ref = self.coref.referent_of_name(tok.i)
            if self.narrative and predicate in _ORG_OBJECT and ref is not None and (
                    ref.kind == "org" and ref.name and " and " not in ref.name
                    and set(obj.lower().split()) < ref.words):
                obj = ref.name
            if self.narrative and predicate in ("LIVES_IN", "VISITED") and (
                    (ref is not None and ref.kind == "org") or (
                    self.sport and tok.ent_type_ != "GPE")):
                return None
            break
        if self.narrative and predicate == "HAS_ROLE":
            obj = _plain_role(obj)
        if self.narrative and predicate in _ORG_OBJECT:
            obj = _business_name(obj, tokens)
        return obj

    def _emit_flags(self, anchor: Token | None, tokens: list[Token | None],
                    allow_in_plan: bool) -> Flags | None:
        """The flags of the stating clause, or None when its modality states no fact
        (kgmem.ingest.discourse.modality): asked, reported, wished, hypothetical, or planned
        (unless the rule states the plan itself, ``allow_in_plan``; a plan told in the future
        tense, "I'm going to move to Denver", is a dated future fact). A habitual past comes
        back with ``habitual`` set (the caller ends the state)."""
        if anchor is None:
            first = next((t for t in tokens if t is not None), None)
            if first is None:
                return Flags()
            # what a question presupposes of the one asked holds ("How have your turtles
            # been?"); the asker's own thing may not exist yet ("What should I name my
            # dog?"); a wish or hearsay states nothing
            yours = any(t.lower_ == "your" for t in first.children) or (
                first.i > 0 and first.doc[first.i - 1].lower_ == "your")
            if (asks(first.sent) and not yours) or phrase_modality(first) in PHRASE_DROPS:
                return None
            return Flags()
        f = self.flags(anchor)
        m = self.modality(anchor)
        if m is Modality.PLANNED:
            return f if allow_in_plan or (f.future and not f.in_plan) else None
        if m is Modality.HABITUAL_PAST:
            return f
        if not m.states_fact:
            return None
        return f

    def _evidence(self, subj: Mention, anchor: Token | None, tokens: list[Token | None]
                  ) -> tuple[int, int]:
        """The character span from the first to the last supporting token (else the
        sentence)."""
        toks = [t for t in tokens if t is not None]
        if anchor is not None:
            toks.append(anchor)
        if subj.token is not None:
            toks.append(subj.token)
        if toks:
            return min(t.idx for t in toks), max(t.idx + len(t.text) for t in toks)
        sent = anchor.sent if anchor is not None else self.doc[:]
        return sent.start_char, sent.end_char


_BUSINESS_WORDS = frozenset({"firm", "company", "studio", "agency", "practice", "startup",
                             "business", "club", "team", "charity", "label", "consultancy"})


def _business_name(obj: str, tokens: list[Token | None]) -> str:
    """An organisation by its name: "the firm Lemay" -> "Lemay", "her own studio, Atelier
    Haddad" -> "Atelier Haddad", "Spanish La Liga club RCD Mallorca" -> "RCD Mallorca"."""
    words = obj.split()
    for k in range(len(words) - 2, 0, -1):
        if words[k] in _CLASSIFIERS and all(w[:1].isupper() for w in words[k + 1:]):
            return " ".join(words[k + 1:])
    if len(words) > 1 and words[0].lower() in _BUSINESS_WORDS and all(
            w[:1].isupper() for w in words[1:]):
        return " ".join(words[1:])
    if len(words) == 1 and words[0].lower() in _BUSINESS_WORDS:
        for tok in tokens:
            if tok is None:
                continue
            name = [c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
            if name:
                n = name[0]
                parts = sorted([n, *(c for c in n.children if c.dep_ == "compound")],
                               key=lambda t: t.i)
                return " ".join(t.text for t in parts)
            break
    return obj


# a common noun that classifies the name after it ("Hungarian side Ferencváros")
_CLASSIFIERS = _BUSINESS_WORDS | {"side", "outfit", "club", "team", "franchise"}


def _plain_role(role: str) -> str:
    """A role as a title, without whose it is or the names before it: "club's captain" ->
    "captain", "British Labour Party politician" -> "politician"; a title in capitals
    ("Member of Parliament for Leeds East") is kept whole."""
    role = re.sub(r"^\S+'s\s+", "", role)
    words = role.split()
    if words and words[-1].islower() and any(w[:1].isupper() for w in words):
        tail: list[str] = []
        for w in reversed(words):
            if w[:1].isupper():
                break
            tail.insert(0, w)
        role = " ".join(tail)
    return role


def _object_text(subj: Mention, predicate: str, obj: str) -> str | None:
    """The object as stored, or None when it cannot carry a fact (empty, generic, "it",
    the subject itself)."""
    obj = strip_det(obj) if obj != ANY_OBJECT else obj
    if not obj or obj.lower() in L.NOT_LIKES and predicate not in ("AGE",):
        return None
    if generic_object(obj, predicate):
        return None
    if subj.text.lower() == obj.lower():
        return None
    return obj


def _polarity(kind: str, predicate: str, confidence: float, f: Flags, *, negatable: bool,
              flip: str | None, hit: tuple[ResolvedTime, str] | None, correction: bool
              ) -> tuple[str, str, float] | None:
    """``(kind, predicate, confidence)`` of a fact stated by a clause with flags ``f``, or None
    when the clause states none. ``hit`` is the clause's time (for "not since 2019"),
    ``correction`` whether the utterance corrects something said before."""
    since_neg = False
    if kind == "assert" and negatable and f.neg and f.perfect and hit is not None:
        since_neg = hit[0].relation == "since" and not hit[1].lower().startswith("for ")
    if kind == "assert" and negatable and f.neg and (predicate in UNNEGATABLE or f.yet):
        # "I've never been to Boston", "I haven't done pottery yet": no correction of anything
        return None
    if kind == "assert" and negatable and f.neg:
        if f.ending or since_neg:
            kind = "end"  # "I haven't worked at IBM since 2019": ended in 2019
        elif flip:
            predicate = flip
        elif f.never or correction or f.past or f.perfect:
            kind = "retract"
        else:
            kind = "retract"
            confidence *= 0.6
    elif kind == "end" and f.neg and negatable:
        return None
    if f.reported_neg:
        kind = "retract"
    return kind, predicate, confidence


# what a body one joins as a member (not an employer) is called
_MEMBER_BODIES = frozenset({"party", "congress", "movement", "front", "alliance", "union",
                            "federation", "association", "society", "caucus", "coalition",
                            "league", "academy", "guild", "fellowship"})


def _membership_body(name: str) -> bool:
    words = name.lower().split()
    return bool(words) and words[-1] in _MEMBER_BODIES


def _document_subject(doc: Doc, layout: Layout | None, narrative: bool,
                      sitting: Sitting | None) -> tuple[str | None, str | None]:
    """A document's subject (its title, else the name its first sentence defines) and what
    it is; a later piece of a long document takes its first piece's (kept in the sitting)."""
    if not narrative:
        return None, None
    title = layout.title if layout is not None else None
    if sitting is not None and sitting.continued and sitting.title is not None:
        return sitting.title, sitting.title_class
    if title is None:
        title = _defined_subject(doc)  # "Kestrel Airways was a British airline"
    cls = _class_noun(doc) if title is not None else None
    if sitting is not None:
        sitting.title, sitting.title_class = title, cls
    return title, cls


def _defined_subject(doc: Doc) -> str | None:
    """The name a text's first sentence defines ("Kestrel Airways was a British regional
    airline ..."): the subject of its "is a", when that is a name."""
    sent = next(iter(doc.sents), None)
    if sent is None or sent.root.lemma_ != "be":
        return None
    if not any(t.dep_ == "attr" and t.pos_ == "NOUN" for t in sent.root.children):
        return None
    subj = next((t for t in sent.root.children if t.dep_ == "nsubj"), None)
    if subj is None or subj.pos_ != "PROPN":
        return None
    for ent in doc.ents:
        if ent.start <= subj.i < ent.end and ent.label_ in (
                "ORG", "PERSON", "GPE", "FAC", "NORP", "LOC", "PRODUCT"):
            return strip_det(ent.text) or None
    return None


def _class_noun(doc: Doc) -> str | None:
    """What the first sentence that says what something is calls it: "Condor ... is a German
    charter airline" -> airline."""
    for sent in list(doc.sents)[:4]:
        for tok in sent:
            if tok.dep_ == "attr" and tok.head.lemma_ == "be" and tok.pos_ == "NOUN":
                return tok.lower_
    return None


def _date(fact: ExtractedFact, rt: ResolvedTime, text: str) -> None:
    """Date a fact from its clause's time: an ``end`` ends then, "until T" ends at T, "from X
    to Y" holds over [X, Y), anything else starts then."""
    fact.time_text = text
    if fact.kind == "end" or rt.relation == "until":
        fact.invalid_at, fact.invalid_precision = rt.start, rt.precision
        return
    fact.valid_at, fact.valid_precision = rt.start, rt.precision
    if rt.relation == "range" and rt.end is not None:
        fact.invalid_at = rt.end
        fact.invalid_precision = rt.end_precision or rt.precision


def _as_event(fact: ExtractedFact, hit: tuple[ResolvedTime, str] | None, ref: datetime) -> None:
    """An event holds over the period its time names ("last year": that year, "yesterday": that
    day); undated, on the day it was told (from the reference time to the end of that day).
    "since T" (a state-like use) stays open."""
    fact.event = True
    if hit is not None and hit[0].relation == "at":
        rt = hit[0]
        if rt.end is not None and fact.invalid_at is None:
            fact.invalid_at, fact.invalid_precision = rt.end, rt.precision
        return
    if hit is None:
        fact.invalid_at = datetime.combine(ref.date(), time(), ref.tzinfo) + timedelta(days=1)
        fact.invalid_precision = Precision.DAY


_COARSE = {Precision.INSTANT: 0, Precision.DAY: 1, Precision.MONTH: 2, Precision.YEAR: 3}


def _span(rt: ResolvedTime) -> tuple[int, float]:
    """How coarse a resolved period is: its precision, then (for days) how many days it
    covers ("since we last talked" is coarser than "last Tuesday"; 2020 no coarser than
    2021)."""
    days = (rt.end - rt.start).days if rt.end is not None else float("inf")
    return _COARSE.get(rt.precision, 3), (days if rt.precision is Precision.DAY else 0)


_NER_TYPES = {"PERSON": "person", "ORG": "organisation", "GPE": "place", "LOC": "place",
              "FAC": "place", "EVENT": "event", "PRODUCT": "thing", "WORK_OF_ART": "thing",
              "NORP": "other", "LANGUAGE": "other"}


def _types(fact: ExtractedFact, subj: Mention, tokens: list[Token | None]
           ) -> tuple[str | None, str | None]:
    """The entity types of a fact: the predicate's signature (``HAS_PET``'s object is a pet
    whatever the tagger says), else an event for an event fact, else the named-entity label,
    else an activity for a gerund ("hiking"); None when nothing says."""
    s_sig, o_sig = signature_types(fact.predicate)
    s_type = "person" if subj.speaker else s_sig or _NER_TYPES.get(subj.label or "")
    if fact.object == ANY_OBJECT:
        return s_type, None
    if o_sig is not None:
        return s_type, o_sig
    if fact.event:  # "a blast at the Pride fest": an event, whatever the tagger says (ORG)
        return s_type, "event"
    tok = next((t for t in tokens if t is not None), None)
    if tok is not None and tok.ent_type_ in _NER_TYPES:
        return s_type, _NER_TYPES[tok.ent_type_]
    first = fact.object.split()[0].lower() if fact.object.split() else ""
    return s_type, "activity" if first.endswith("ing") and len(first) > 4 else None
