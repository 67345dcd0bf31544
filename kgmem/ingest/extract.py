"""Offline fact extraction from chat text: spaCy parse + hand-written rules, no LLM.

``OfflineExtractor().extract(text, reference_time, speaker=..., user=...)`` returns a list of
:class:`ExtractedFact` (subject, predicate from ``kgmem.vocabulary``, object, valid time, kind).

How it works, per sentence of the spaCy parse:

* **speaker resolution**: I/me/my/we/us/our are the speaker: ``speaker`` if given (and not a
  generic role label such as "user"), else ``user``, else ``"user"``. he/she resolve to the last
  named person earlier in the same text. "you", "they", "it" are not resolved (no facts).
* **clauses**: for every verb (and copula) a rule keyed on its lemma looks at the dependency
  tree (subject, object, particles, prepositions) and maps it to a vocabulary predicate
  (``live in`` -> LIVES_IN, ``take over`` -> LEADS, ``stop using`` -> USES/end, ...). Nouns with a
  possessive give relation facts ("my sister Sarah" -> SIBLING_OF, "my dog Max" -> HAS_PET,
  "my boss Tom" -> REPORTS_TO, "my job at IBM" -> WORKS_AT).
* **polarity**: a negated clause with "anymore"/"no longer" ends the fact (kind ``"end"``);
  a negated clause with "never", a past-tense negation, or a correction cue ("actually",
  "sorry", "I meant", "correction", "X, not Y") retracts it (kind ``"retract"``); "don't like"
  flips LIKES to DISLIKES. Questions, conditionals ("if ..."), modals ("might", "would") and
  wishes/plans (other than PLANS itself) produce no facts.
* **time**: the temporal expression attached to the clause (see ``temporal.py``) dates the
  fact: ``valid_at`` for ``assert``/``retract`` (``since T`` and present-perfect ``for N
  years`` give the start), ``invalid_at`` for ``end``. Future-tense clauses resolve ambiguous
  expressions towards the future. PLANS facts carry no valid time (the planned date goes to
  ``attributes["planned_for"]``).

**valid_at = None means "no date in the text"**: the caller (``Memory.add_episode``) should then
use the episode's ``reference_time``, never "now". ``invalid_at = None`` on an ``end`` fact
likewise means "ended as of the reference time".

An ``end`` fact with object ``"*"`` (:data:`ANY_OBJECT`), e.g. from "we broke up", means "end
whatever the subject's current value of this (functional) predicate is".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from kgmem.timeutil import Precision, to_utc

from . import lexicon as L
from .temporal import ResolvedTime, find_time_expressions, resolve_time

__all__ = ["ANY_OBJECT", "ExtractedFact", "OfflineExtractor", "resolve_speaker"]

ANY_OBJECT = "*"
KINDS = ("assert", "end", "retract")
GENERIC_SPEAKERS = frozenset({"user", "human", "me", "you", "speaker", "customer", "client"})
ASSISTANT_SPEAKERS = frozenset({"assistant", "ai", "bot", "system", "agent", "model", "gpt"})


@dataclass
class ExtractedFact:
    """One extracted fact.

    ``kind``: ``"assert"`` (holds from ``valid_at``), ``"end"`` (stopped holding at
    ``invalid_at``: invalidate the matching fact), ``"retract"`` (a correction: it was never
    true). ``valid_at``/``invalid_at`` are ``None`` when the text gives no date: the caller uses
    the episode's reference time. ``evidence`` is the ``(start, end)`` character span in the
    input text that supports the fact; ``rule`` names the rule that fired.
    """

    subject: str
    predicate: str
    object: str
    valid_at: datetime | None = None
    valid_precision: Precision | None = None
    invalid_at: datetime | None = None
    invalid_precision: Precision | None = None
    kind: str = "assert"
    confidence: float = 0.8
    evidence: tuple[int, int] = (0, 0)
    rule: str = ""
    subject_is_speaker: bool = False
    time_text: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[str, str, str, str]:
        return (self.subject.lower(), self.predicate, self.object.lower(), self.kind)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("valid_at", "invalid_at"):
            d[k] = d[k].isoformat() if d[k] else None
        for k in ("valid_precision", "invalid_precision"):
            d[k] = d[k].value if d[k] else None
        d["evidence"] = list(self.evidence)
        return d


def resolve_speaker(speaker: str | None, user: str | None) -> str:
    """Who "I" is: the speaker's name; ``user`` if the speaker is missing or a generic role
    label ("user", "human"); else ``"user"``."""
    if speaker and speaker.strip() and speaker.strip().lower() not in GENERIC_SPEAKERS:
        return speaker.strip()
    if user and user.strip():
        return user.strip()
    return (speaker or "").strip() or "user"


# --------------------------------------------------------------------------- internals
@dataclass
class _Mention:
    text: str
    speaker: bool = False
    label: str | None = None
    token: Any = None


@dataclass
class _Flags:
    neg: bool = False
    never: bool = False
    ending: bool = False
    past: bool = False
    perfect: bool = False
    future: bool = False
    hypothetical: bool = False
    in_plan: bool = False
    reported_neg: bool = False
    modal: bool = False


_ENT_KEEP = {"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "NORP", "EVENT",
             "LANGUAGE", "LAW"}
_TIME_LABELS = {"DATE", "TIME"}
_SUBJ_DEPS = ("nsubj", "nsubjpass", "csubj")
_CLAUSE_DEPS = {"conj", "ccomp", "advcl", "parataxis", "relcl", "acl", "csubj"}
_WS = re.compile(r"\s+")
_LEAD_DET = re.compile(
    r"^(?:(?:the|a|an|my|our|your|his|her|their|its|some|any|this|that|these|those|another|"
    r"such|one|two|three|four|five|six|several|many|few|a few|couple of|a couple of|lots of|"
    r"a lot of|all|both|new|current|own)\s+)+",
    re.I,
)


def _strip_det(text: str) -> str:
    text = _WS.sub(" ", text).strip(" \t,.;:!?\"'()-")
    out = _LEAD_DET.sub("", text) if not text.lower().startswith(("the hague",)) else text
    return out.strip(" ,.;:!?\"'") or text


_NAME_PREDICATES = frozenset({"AGE", "HAS_PET", "KNOWS", "FRIEND_OF", "DATING", "MARRIED_TO",
                              "SIBLING_OF", "PARENT_OF", "CHILD_OF"})


def _generic_object(obj: str, predicate: str) -> bool:
    """An object that cannot carry a fact: "kinds", "part", "something bigger", a bare
    "watching" liked or played."""
    if predicate in _NAME_PREDICATES:
        return False
    words = obj.lower().split()
    if words[0] in L.GENERIC_OBJECTS and (len(words) == 1 or words[0] in (
            "something", "anything", "everything", "nothing")):
        return True
    return (predicate in ("LIKES", "DISLIKES", "HAS_HOBBY") and len(words) == 1
            and words[0] in L.GENERIC_GERUNDS)


class _Ctx:
    """Per-utterance state: the doc, speaker, time mentions, person mentions, results."""

    def __init__(self, doc: Any, ref: datetime, speaker: str, speaker_is_assistant: bool,
                 user: str | None) -> None:
        self.doc = doc
        self.ref = ref
        self.speaker = speaker
        self.assistant = speaker_is_assistant
        self.user = user
        self.facts: list[ExtractedFact] = []
        self.flag_cache: dict[int, _Flags] = {}
        low = doc.text.lower().lstrip(" \"'([")
        self.correction = low.startswith(L.CORRECTION_CUES) or bool(
            re.search(r"\b(?:actually|correction|i meant|to clarify|i misspoke)\b", low)
        )
        # token index -> entity span (only "clean" entities)
        self.ent_of: dict[int, Any] = {}
        for ent in doc.ents:
            for t in ent:
                self.ent_of[t.i] = ent
        # time mentions: (ResolvedTime, token set, governor index)
        self.times: list[tuple[ResolvedTime, set[int], int | None, str]] = []
        self.time_tokens: set[int] = set()
        for text, s, e, rt in find_time_expressions(doc, ref):
            span = doc.char_span(s, e, alignment_mode="expand")
            if span is None:
                continue
            toks = {t.i for t in span}
            gov = _governor(span.root)
            self.times.append((rt, toks, gov.i if gov is not None else None, text))
            self.time_tokens |= toks
        self.persons: list[tuple[int, str]] = []  # (token index, name) for he/she

    # ------------------------------------------------------------------ mentions
    def name_of(self, tok: Any) -> str:
        ent = self.ent_of.get(tok.i)
        if ent is not None and ent.label_ in _ENT_KEEP and _clean_ent(ent):
            text = _strip_det(ent.text)
            prev = tok.doc[ent.start - 1] if ent.start > 0 else None
            if prev is not None and prev.lower_.rstrip(".") in _TITLES:
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
        return _join(toks)

    def speaker_mention(self, tok: Any = None) -> _Mention:
        return _Mention(self.speaker, speaker=True, token=tok)

    def person_before(self, i: int) -> _Mention | None:
        best = None
        for j, name in self.persons:
            if j < i:
                best = name
        return _Mention(best, label="PERSON") if best else None

    def note_person(self, tok: Any, name: str) -> None:
        if name and not any(j == tok.i for j, _ in self.persons):
            self.persons.append((tok.i, name))
            self.persons.sort()

    def rel_name(self, noun: Any) -> Any | None:
        """The name token of a relation/pet noun: appos, "named X", compound head, attr."""
        for c in noun.children:
            if c.dep_ == "appos" and c.pos_ in ("PROPN", "NOUN") and c.i not in self.time_tokens:
                if c.pos_ == "PROPN" or _et(c) == "PERSON":
                    return c
        for c in noun.children:
            if c.dep_ == "acl" and c.lemma_ in ("name", "call"):
                for cc in c.children:
                    if cc.dep_ in ("oprd", "dobj", "attr", "xcomp", "npadvmod", "appos"):
                        return cc
        if noun.tag_ in ("NNS", "NNPS"):  # "two kids, Max and Lily" (parsed as conj)
            for c in noun.children:
                if c.dep_ == "conj" and c.pos_ == "PROPN" and _et(c) in ("PERSON", "", "ORG"):
                    return c
        if noun.dep_ == "compound" and noun.head.pos_ == "PROPN":
            return noun.head
        # right-adjacent proper noun that the parser attached elsewhere ("my sister Sarah")
        nxt = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
        if nxt is not None and nxt.pos_ == "PROPN" and nxt.dep_ != "poss" and (
            nxt.head == noun or noun.head == nxt or nxt.head == noun.head
        ) and _et(nxt) not in ("GPE", "LOC", "DATE", "ORG"):
            return nxt
        return None

    def owner_of(self, noun: Any) -> _Mention | None:
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
            if t.lower_ not in _PREMODIFIERS and t.pos_ not in ("ADJ",):
                break
            j -= 1
        return None

    def _poss_owner(self, c: Any) -> _Mention | None:
        low = c.lower_
        if low in L.SPEAKER_PRONOUNS:
            return self.speaker_mention(c)
        if low in ("his", "her"):
            return self.person_before(c.i)
        if c.pos_ == "PROPN":
            return _Mention(self.name_of(c), label=_et(c) or "PERSON", token=c)
        return None

    def resolve(self, tok: Any, collective: bool = False) -> list[_Mention]:
        """Resolve a subject (or person-object) token to mentions (conjuncts included)."""
        out: list[_Mention] = []
        for t in [tok] + [c for c in tok.children if c.dep_ == "conj"]:
            m = self._resolve_one(t, collective)
            if m is not None:
                out.append(m)
        return out

    def _resolve_one(self, tok: Any, collective: bool) -> _Mention | None:
        low = tok.lower_
        if low in L.SPEAKER_PRONOUNS:
            return self.speaker_mention(tok)
        if low in ("you", "your") and self.assistant and self.user:
            return _Mention(self.user, token=tok)
        if low in L.THIRD_PERSON_PRONOUNS:
            return self.person_before(tok.i)
        if low in L.UNRESOLVABLE_PRONOUNS or tok.pos_ == "PRON":
            return None
        lemma = tok.lemma_.lower()
        if _et(tok) == "PERSON" and lemma not in L.RELATION_NOUNS and lemma not in L.PET_NOUNS:
            n = self.name_of(tok)
            self.note_person(tok, n)
            return _Mention(n, label="PERSON", token=tok)
        if _et(tok) in ("ORG", "NORP") and tok.is_title and lemma not in L.RELATION_NOUNS and (
            lemma not in L.PET_NOUNS
        ) and not any(c.dep_ in ("det", "poss") for c in tok.children):
            return _Mention(self.name_of(tok), label=_et(tok), token=tok)
        if _looks_like_name(tok):
            n = self.name_of(tok)
            self.note_person(tok, n)
            return _Mention(n, label="PERSON", token=tok)
        if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS or tok.pos_ == "NOUN":
            owner = self.owner_of(tok)
            name = self.rel_name(tok)
            if name is not None:
                n = self.name_of(name)
                self.note_person(name, n)
                return _Mention(n, label="PERSON", token=name)
            if collective and owner is not None and owner.speaker and lemma in L.COLLECTIVE_NOUNS:
                return self.speaker_mention(tok)
            return None
        if tok.pos_ == "PROPN" or _et(tok) in ("PERSON", "ORG", "NORP"):
            if _et(tok) in ("DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT"):
                return None
            n = self.name_of(tok)
            if _et(tok) in ("", "PERSON"):
                self.note_person(tok, n)
            return _Mention(n, label=_et(tok) or None, token=tok)
        return None

    # ------------------------------------------------------------------ flags
    def flags(self, verb: Any) -> _Flags:
        f = self.flag_cache.get(verb.i)
        if f is not None:
            return f
        f = _Flags()
        group = _verb_group(verb)
        sent = verb.sent
        if sent.text.rstrip().endswith("?") or _is_question(sent):
            f.hypothetical = True
        for v in group:
            for c in v.children:
                low = c.lower_
                if c.dep_ == "advmod" and low in L.HEDGES:
                    f.hypothetical = True
                if c.dep_ == "neg" or low == "never":
                    f.neg = True
                    if low == "never":
                        f.never = True
                if c.dep_ in ("aux", "auxpass"):
                    if c.tag_ == "VBD" or low in ("did", "was", "were", "had"):
                        f.past = True
                    if c.lemma_ == "have" and c.tag_ != "VBD":
                        f.perfect = True
                    if c.lemma_ == "have" and c.tag_ == "VBD":
                        f.perfect = True
                    if low in L.FUTURE_AUX or c.lemma_ in ("will", "shall"):
                        f.future = True
                    if low in L.MODALS or c.lemma_ in ("might", "may", "could", "would",
                                                        "should", "must"):
                        f.modal = True
                if c.dep_ == "mark" and low in ("if", "unless", "whether", "when", "once",
                                                "until", "before", "after"):
                    if low in ("if", "unless", "whether"):
                        f.hypothetical = True
            if v.tag_ == "VBD" or (v.tag_ == "VBN" and v.dep_ == "ROOT" and not any(
                c.dep_ in ("aux", "auxpass") for c in v.children
            )):
                f.past = True
        # ending markers whose nearest verb is in the group
        gi = {v.i for v in group}
        for t in sent:
            if t.lower_ in ("anymore",) or (
                t.lower_ == "longer" and any(c.lower_ in ("no", "any") for c in t.children)
            ) or (t.lower_ == "more" and t.i > 0 and t.doc[t.i - 1].lower_ == "any"):
                g = _governor(t)
                if g is not None and g.i in gi:
                    f.ending = True
                    f.neg = True
        # look up the tree: plans, modals, conditionals, negated reports
        cur = group[0]
        hops = 0
        while cur.dep_ in ("xcomp", "ccomp", "pcomp", "advcl", "conj", "acl", "relcl", "prep",
                           "pobj", "dobj") and cur.head is not cur and hops < 8:
            child, cur = cur, cur.head
            hops += 1
            if cur.pos_ not in ("VERB", "AUX"):
                continue
            lemma = cur.lemma_.lower()
            if child.dep_ in ("xcomp", "pcomp", "prep", "pobj", "dobj") and lemma in L.PLAN_VERBS:
                f.in_plan = True
            if child.dep_ == "xcomp" and lemma in L.LIKE_VERBS and any(
                c.lower_ in ("would", "'d") for c in cur.children
            ):
                f.in_plan = True
            if lemma in L.IRREALIS_VERBS:
                f.hypothetical = True
            if lemma == "use" and child.dep_ == "xcomp" and _child(child, "aux", "to") and (
                _child(cur, "dobj") is None
            ):
                f.hypothetical = True  # "I used to live in Chicago": over, but when?
            if child.dep_ == "advcl" and any(
                c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in child.children
            ):
                f.hypothetical = True
            cneg = any(c.dep_ == "neg" or c.lower_ == "never" for c in cur.children)
            if lemma in L.REPORT_VERBS and cneg and child.dep_ == "ccomp":
                f.reported_neg = True
            if child.dep_ in ("xcomp", "conj", "ccomp") and any(
                c.dep_ == "aux" and (c.lower_ in L.MODALS or c.lemma_ in ("might", "may",
                                                                         "could", "would"))
                for c in cur.children
            ):
                f.modal = True
            if child.dep_ == "conj" and cur.tag_ == "VBD":
                f.past = f.past or child.tag_ in ("VBD", "VBN")
        self.flag_cache[verb.i] = f
        return f

    # ------------------------------------------------------------------ time
    def time_for(self, verb: Any, flags: _Flags, extra: Iterable[Any] = ()) -> tuple[
        ResolvedTime, str
    ] | None:
        if not self.times:
            return None
        gi = {v.i for v in _verb_group(verb)} | {t.i for t in extra}
        cands = [(rt, text) for rt, _toks, gov, text in self.times if gov is not None and gov in gi]
        if not cands:
            return None
        rt, text = cands[0]
        for c in cands:
            if c[0].relation in ("since", "range"):
                rt, text = c
                break
        if rt.relation == "since" and text.lower().startswith("for ") and not (
            flags.perfect or (verb.tag_ == "VBG" and not flags.past)
        ):
            return None  # "I lived there for three years" gives no start
        if flags.future or _future_progressive(verb, flags):
            fut = resolve_time(text, self.ref, prefer="future")
            if fut is not None:
                rt = fut
        return rt, text

    # ------------------------------------------------------------------ emit
    def emit(
        self,
        subj: _Mention | None,
        predicate: str,
        obj: str | None,
        anchor: Any,
        *,
        kind: str = "assert",
        confidence: float = 0.8,
        rule: str = "",
        negatable: bool = True,
        timed: bool = True,
        flip: str | None = None,
        tokens: Iterable[Any] = (),
        allow_in_plan: bool = False,
        time_extra: Iterable[Any] = (),
        attributes: dict[str, Any] | None = None,
    ) -> ExtractedFact | None:
        if subj is None or not subj.text or not obj:
            return None
        obj = _strip_det(obj) if obj != ANY_OBJECT else obj
        if not obj or obj.lower() in L.NOT_LIKES and predicate not in ("AGE",):
            return None
        if _generic_object(obj, predicate):
            return None
        if subj.text.lower() == obj.lower():
            return None
        if anchor is not None:
            f = self.flags(anchor)
        else:
            f = _Flags()
            sent = next((t.sent for t in tokens if t is not None), None)
            if sent is not None and (sent.text.rstrip().endswith("?") or _is_question(sent)):
                return None
        if f.hypothetical or (f.modal and not allow_in_plan):
            return None
        if f.in_plan and not allow_in_plan:
            return None
        since_neg = False
        if kind == "assert" and negatable and f.neg and f.perfect and timed and anchor is not None:
            hit0 = self.time_for(anchor, f, time_extra)
            since_neg = hit0 is not None and hit0[0].relation == "since" and not hit0[
                1
            ].lower().startswith("for ")
        if kind == "assert" and negatable and f.neg and predicate in _EVENT_PREDICATES:
            return None  # "I've never been to Boston" is not a correction of anything
        if kind == "assert" and negatable and f.neg:
            if f.ending or since_neg:
                kind = "end"  # "I haven't worked at IBM since 2019": ended in 2019
            elif flip:
                predicate = flip
            elif f.never or self.correction or f.past or f.perfect:
                kind = "retract"
            else:
                kind = "retract"
                confidence *= 0.6
        elif kind == "end" and f.neg and negatable:
            return None
        if f.reported_neg:
            kind = "retract"
        fact = ExtractedFact(subj.text, predicate, obj, kind=kind, confidence=round(confidence, 3),
                             rule=rule, subject_is_speaker=subj.speaker,
                             attributes=dict(attributes or {}))
        if timed and anchor is not None:
            hit = self.time_for(anchor, f, time_extra)
            if hit is not None:
                rt, text = hit
                fact.time_text = text
                if kind == "end":
                    fact.invalid_at, fact.invalid_precision = rt.start, rt.precision
                else:
                    if rt.relation == "until":
                        fact.invalid_at, fact.invalid_precision = rt.start, rt.precision
                    else:
                        fact.valid_at, fact.valid_precision = rt.start, rt.precision
                        if rt.relation == "range" and rt.end is not None:
                            fact.invalid_at = rt.end
                            fact.invalid_precision = rt.end_precision or rt.precision
        toks = [t for t in tokens if t is not None]
        if anchor is not None:
            toks.append(anchor)
        if subj.token is not None:
            toks.append(subj.token)
        if toks:
            start = min(t.idx for t in toks)
            end = max(t.idx + len(t.text) for t in toks)
            fact.evidence = (start, end)
        else:
            sent = anchor.sent if anchor is not None else self.doc[:]
            fact.evidence = (sent.start_char, sent.end_char)
        self.facts.append(fact)
        return fact


# --------------------------------------------------------------------------- tree helpers
def _governor(tok: Any) -> Any | None:
    cur = tok
    for _ in range(12):
        if cur.pos_ in ("VERB", "AUX") and cur.dep_ not in ("aux", "auxpass") and not (
            cur.dep_ == "acl" and cur.lemma_ in ("name", "call")
        ):
            return cur
        if cur.head is cur:
            return cur
        cur = cur.head
    return None


def _verb_group(verb: Any) -> list[Any]:
    """The verb plus its xcomp chain up and down ("started working", "stopped using")."""
    group = [verb]
    cur = verb
    while cur.dep_ in ("xcomp",) and cur.head is not cur:
        cur = cur.head
        group.append(cur)
    stack = [verb]
    while stack:
        v = stack.pop()
        for c in v.children:
            if c.dep_ == "xcomp" and c not in group:
                group.append(c)
                stack.append(c)
    return group


def _is_question(sent: Any) -> bool:
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


def _future_progressive(verb: Any, flags: _Flags) -> bool:
    if flags.past or flags.perfect:
        return False
    if verb.tag_ == "VBG" and verb.lemma_ in ("move", "start", "leave", "join", "go", "relocate",
                                              "begin", "fly", "head", "get"):
        return True
    if verb.tag_ in ("VBZ", "VBP") and verb.lemma_ in ("start", "begin"):
        return True
    return False


def _join(tokens: Iterable[Any]) -> str:
    toks = sorted({t.i: t for t in tokens}.values(), key=lambda t: t.i)
    if not toks:
        return ""
    parts = []
    for a, b in zip(toks, toks[1:] + [None]):
        parts.append(a.text)
        if b is not None:
            parts.append(a.whitespace_ if b.i == a.i + 1 else " ")
    return "".join(parts).strip()


_NP_DROP = {"det", "punct", "cc", "conj", "appos", "relcl", "acl", "advcl", "prep", "nummod",
            "quantmod", "predet", "preconj", "neg", "aux", "auxpass", "mark", "dep", "advmod",
            "npadvmod", "parataxis", "ccomp", "xcomp", "nsubj", "nsubjpass", "case_"}


def _children(tok: Any, dep: str | tuple[str, ...]) -> list[Any]:
    deps = (dep,) if isinstance(dep, str) else dep
    return [c for c in tok.children if c.dep_ in deps]


def _child(tok: Any, dep: str | tuple[str, ...], lower: str | tuple[str, ...] | None = None):
    lowers = (lower,) if isinstance(lower, str) else lower
    for c in tok.children:
        if c.dep_ in ((dep,) if isinstance(dep, str) else dep) and (
            lowers is None or c.lower_ in lowers
        ):
            return c
    return None


def _pobj(prep: Any) -> Any | None:
    for c in prep.children:
        if c.dep_ in ("pobj", "pcomp"):
            return c
    # "out of Boston": out -> of -> Boston
    for c in prep.children:
        if c.dep_ == "prep":
            return _pobj(c)
    return None


def _preps(tok: Any, words: Iterable[str]) -> list[tuple[Any, Any]]:
    ws = set(words)
    out = []
    for c in tok.children:
        if c.dep_ in ("prep", "agent", "dative") and c.lower_ in ws:
            o = _pobj(c)
            if o is not None:
                out.append((c, o))
    return out


def _coord(tok: Any) -> Iterator[tuple[Any, bool]]:
    """tok and its conjuncts; an appos/conj introduced by "not" is yielded as negated.

    A plain apposition ("Portland, Oregon") is not a second object, but a negated one further
    down ("Portland, Oregon, not Maine") is."""
    yield tok, False
    yield from _coord_children(tok, False, 0)


def _coord_children(tok: Any, negated_parent: bool, depth: int) -> Iterator[tuple[Any, bool]]:
    if depth > 4:
        return
    neg_positions = [c.i for c in tok.children if c.dep_ == "neg"]
    for c in tok.children:
        if c.dep_ not in ("conj", "appos"):
            continue
        negated = negated_parent or any(tok.i < p < c.i for p in neg_positions) or any(
            cc.dep_ == "neg" for cc in c.children if cc.i < c.i
        )
        if c.dep_ == "appos" and not negated:
            yield from _coord_children(c, False, depth + 1)
            continue
        yield c, negated
        yield from _coord_children(c, negated, depth + 1)


class _Rules:
    """The rule set; one instance per utterance context."""

    def __init__(self, ctx: _Ctx) -> None:
        self.c = ctx

    # ------------------------------------------------------------------ helpers
    def np(self, tok: Any, keep_preps: Iterable[str] = (), drop_amod: bool = False,
           keep_num: bool = False) -> str:
        c = self.c
        for ch in tok.children:  # "a startup called Loomly" -> "Loomly"
            if ch.dep_ == "acl" and ch.lemma_ in ("name", "call"):
                for cc in ch.children:
                    if cc.dep_ in ("oprd", "dobj", "attr", "xcomp") and cc.pos_ == "PROPN":
                        return c.name_of(cc)
        ent = c.ent_of.get(tok.i)
        if ent is not None and not (ent.label_ in _ENT_KEEP and _clean_ent(ent)):
            ent = None  # only a kept entity is taken whole
        keep = set(keep_preps)
        toks: list[Any] = []

        def collect(t: Any, top: bool) -> None:
            if t.i in c.time_tokens and not top:
                return
            toks.append(t)
            for ch in t.children:
                dep = ch.dep_
                if ent is not None and ch.i in range(ent.start, ent.end):
                    if dep not in ("cc", "conj", "appos"):
                        collect(ch, False)
                    continue
                if dep == "prep" and ch.lower_ in keep:
                    o = _pobj(ch)
                    if o is not None:
                        toks.append(ch)
                        collect(o, False)
                    continue
                if dep == "poss" and ch.lower_ in L.DETERMINERS | {"my", "our", "your", "his",
                                                                    "her", "their", "its"}:
                    continue
                if dep == "amod" and drop_amod:
                    continue
                if dep == "nummod" and keep_num:
                    collect(ch, False)
                    continue
                if dep == "advmod" and t.pos_ == "ADJ":
                    continue
                if dep == "punct" and ch.text in ("-", "'", "&", ".") and abs(ch.i - t.i) == 1:
                    toks.append(ch)
                    continue
                if dep in _NP_DROP:
                    continue
                if dep == "dobj" and t.pos_ != "VERB":
                    continue
                collect(ch, False)

        collect(tok, True)
        if ent is not None:
            toks.extend(t for t in ent if t.lower_ not in ("the",))
        return _strip_det(_join(toks))

    def vp(self, verb: Any) -> str:
        """A plan's verb phrase: "learn Spanish", "run the Boston Marathon"."""
        c = self.c
        toks: list[Any] = []

        def collect(t: Any, top: bool) -> None:
            if t.i in c.time_tokens:
                return
            toks.append(t)
            for ch in t.children:
                dep = ch.dep_
                if top and dep in ("aux", "auxpass", "neg", "nsubj", "nsubjpass", "mark", "advmod",
                                   "npadvmod", "punct", "cc", "conj", "advcl", "parataxis",
                                   "ccomp", "dep", "intj"):
                    continue
                if dep == "npadvmod" or (dep == "advmod" and ch.lower_ in _VAGUE_ADV):
                    continue
                if dep in ("punct", "relcl", "advcl", "cc", "conj") and not (
                    dep == "punct" and ch.text in ("'", "-")
                ):
                    continue
                if dep == "prep" and ch.i in c.time_tokens:
                    continue
                if dep == "prep" and ((p := _pobj(ch)) is None or p.i in c.time_tokens):
                    continue
                collect(ch, False)

        collect(verb, True)
        return _strip_det(_join(toks))

    def subjects(self, verb: Any, collective: bool = False) -> tuple[list[_Mention], bool]:
        """Subjects of a verb (inherited through xcomp/conj); bool = subject was dropped."""
        cur = verb
        for _ in range(6):
            subj_children = [ch for ch in cur.children if ch.dep_ in ("nsubj", "nsubjpass")]
            if subj_children:
                for ch in sorted(subj_children, key=lambda t: t.pos_ != "PROPN"):
                    res = self.c.resolve(ch, collective)
                    if res:
                        return res, False
                return [], False
            if cur.dep_ in ("dep", "parataxis") and cur.tag_ == "VBD" and cur.head is not cur:
                cur = cur.head
                continue
            if cur.dep_ in ("xcomp", "conj", "pcomp", "advcl") and cur.head is not cur:
                nxt = cur.head
                if cur.dep_ == "pcomp" and nxt.pos_ == "ADP":
                    nxt = nxt.head
                if cur.dep_ == "advcl" and not (cur.tag_ == "VBG") and not (
                    nxt.lemma_.lower() in ("go", "come") and _child(cur, "aux", "to") is not None
                ):  # "I went to work for Google": the subject of went works there
                    break
                cur = nxt
                continue
            break
        # a name the tagger mistook for an adverb, right before the verb ("Raj joined ...")
        prev = cur.doc[cur.i - 1] if cur.i > 0 else None
        if prev is not None and prev.head == cur and prev.dep_ in ("advmod", "npadvmod") and (
            prev.i == cur.sent.start and _looks_like_name(prev)
        ):
            return self.c.resolve(prev), False
        # dropped subject: "Started at Shopify in January", "moving to Chicago next month"
        root = cur
        if root.dep_ == "ROOT" and root.tag_ in ("VBD", "VBN", "VBG"):
            first = next((t for t in root.sent if not t.is_punct and t.dep_ not in (
                "advmod", "intj", "aux", "auxpass", "npadvmod", "prep", "pobj", "det", "amod"
            ) and t.i not in self.c.time_tokens), None)
            if first is not None and first.i == root.i:
                return [self.c.speaker_mention()], True
            if first is not None and first.lower_ in ("been", "just") and first.head == root:
                return [self.c.speaker_mention()], True
        return [], False

    def entity_ok(self, tok: Any, kind: str) -> bool:
        """Is tok plausible as an object of the given kind (org/place/person/any)?"""
        if tok is None or tok.i in self.c.time_tokens:
            return False
        low = tok.lower_
        if tok.pos_ == "PRON" or low in L.UNRESOLVABLE_PRONOUNS:
            return False
        if _et(tok) in ("DATE", "TIME", "CARDINAL", "MONEY", "PERCENT", "QUANTITY",
                             "ORDINAL"):
            return False
        lemma = tok.lemma_.lower()
        if kind == "org":
            if (low in L.NOT_EMPLOYERS or lemma in L.NOT_EMPLOYERS) and tok.pos_ != "PROPN":
                return False
            if _et(tok) in ("GPE", "LOC") and tok.pos_ == "PROPN":
                return True  # "the City of Boston" employs people too; keep
            return tok.pos_ in ("PROPN", "NOUN", "X") or bool(_et(tok))
        if kind == "place":
            if _et(tok) in ("GPE", "LOC", "FAC"):
                return True
            if lemma in L.NOT_PLACES and not _children(tok, "prep"):
                return False
            if tok.pos_ == "PROPN":
                return _et(tok) not in ("PERSON",)
            if lemma in L.PLACE_NOUNS:
                return True
            # lowercase chat: "i live in nyc"
            return tok.pos_ in ("NOUN", "X") and tok.is_lower and len(tok.text) <= 4
        if kind == "person":
            return tok.pos_ == "PROPN" or _et(tok) == "PERSON"
        return True

    def is_school(self, tok: Any) -> bool:
        name = self.c.name_of(tok).lower()
        words = set(name.replace(".", "").split())
        return bool(words & L.SCHOOL_WORDS) or name in L.KNOWN_SCHOOLS or bool(
            words & L.KNOWN_SCHOOLS
        )

    def is_role(self, tok: Any) -> bool:
        lemma = tok.lemma_.lower()
        low = tok.lower_
        if lemma in L.NOT_ROLES or low in L.NOT_ROLES:
            return False
        if lemma in L.ROLE_NOUNS or low in L.ROLE_NOUNS:
            return True
        if tok.pos_ == "PROPN" and tok.text.isupper() and low in L.ROLE_NOUNS:
            return True
        if any(c.dep_ == "compound" and c.lemma_.lower() in L.ROLE_NOUNS for c in tok.children):
            return tok.pos_ == "NOUN"
        return tok.pos_ == "NOUN" and low.endswith(L.ROLE_SUFFIXES) and len(low) > 5

    def role_text(self, tok: Any) -> str:
        text = self.np(tok, keep_preps=("of",))
        words = text.split()
        while len(words) > 1 and words[0].lower() in L.EVALUATIVE_ADJ:
            words = words[1:]
        return " ".join(words)

    def past_role(self, tok: Any) -> bool:
        return any(c.dep_ == "amod" and c.lower_ in L.PAST_ROLE_MODIFIERS for c in tok.children) or (
            tok.i > 0 and tok.doc[tok.i - 1].lower_ in ("ex", "ex-", "former")
        )

    def teamish(self, tok: Any) -> bool:
        return tok.lemma_.lower() in L.TEAM_NOUNS or (
            _et(tok) == "ORG" and tok.pos_ == "PROPN"
        )

    def employer_of(self, *heads: Any) -> list[tuple[Any, Any]]:
        """ORG-like objects of at/for/with preps under any of the given tokens."""
        out = []
        for h in heads:
            if h is None:
                continue
            for prep, o in _preps(h, ("at", "for", "with", "from")):
                if prep.lower_ == "for" and o.lemma_.lower() in ("living", "while", "year", "years",
                                                                 "month", "months", "now"):
                    continue
                if self.entity_ok(o, "org") and _et(o) != "PERSON" and (
                    o.lemma_.lower() not in L.TEAM_NOUNS or o.pos_ == "PROPN"
                ):
                    if o.pos_ == "NOUN" and o.is_lower and prep.lower_ == "for" and not _et(o):
                        continue
                    out.append((prep, o))
        return out

    # ------------------------------------------------------------------ dispatch
    def run(self) -> None:
        doc = self.c.doc
        # register named people early so that he/she resolve across sentences
        for tok in doc:
            lemma = tok.lemma_.lower()
            if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS:
                name = self.c.rel_name(tok)
                if name is not None:
                    self.c.note_person(name, self.c.name_of(name))
            elif _et(tok) == "PERSON" and tok.ent_iob_ == "B":
                self.c.note_person(tok, self.c.name_of(tok))
        for tok in doc:
            lemma = _LEMMA_FIX.get(tok.lower_) or tok.lemma_.lower()
            if tok.pos_ in ("VERB", "AUX") and tok.dep_ not in ("aux", "auxpass"):
                handler = _VERB_RULES.get(lemma)
                if handler is not None:
                    handler(self, tok)
                elif tok.pos_ == "VERB":
                    self.tool_prep(tok)
                if lemma == "be" or (tok.pos_ == "AUX" and _child(tok, ("attr", "acomp"))):
                    self.copula(tok)
            if tok.pos_ in ("NOUN", "PROPN"):
                if lemma in L.RELATION_NOUNS or lemma in L.PET_NOUNS:
                    self.relation_noun(tok)
                if lemma in L.JOB_NOUNS:
                    self.job_noun(tok)
                if lemma in L.HOME_NOUNS:
                    self.home_noun(tok)

    # ------------------------------------------------------------------ homes
    def live(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        places = _preps(v, ("in", "at", "near", "outside", "on"))
        if not places:  # "I live with my boyfriend Sam in Chicago" (PP attached to the noun)
            for _p, companion in _preps(v, ("with",)):
                places = _preps(companion, ("in", "near", "outside"))
                if not places:
                    for ap in _children(companion, "appos"):
                        places = _preps(ap, ("in", "near", "outside"))
        for prep, o in places:
            for obj, negated in _coord(o):
                if not self.entity_ok(obj, "place"):
                    continue
                text = self.np(obj, keep_preps=("near", "outside", "of"))
                for s in subs:
                    self.c.emit(s, "LIVES_IN", text, v, kind="retract" if negated else "assert",
                                confidence=0.9 - 0.15 * dropped, rule="live_in", tokens=[obj])
            break

    def settle(self, v: Any) -> None:
        if v.lemma_.lower() == "settle" and not _preps(v, ("in",)):
            return
        self.live(v)

    def move(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        prt = _child(v, ("prt", "advmod", "prep"), ("out", "away"))
        src = None
        for prep, o in _preps(v, ("from", "out", "away")):
            src = o
        if prt is not None and src is None:
            for prep, o in _preps(prt, ("of", "from")):
                src = o
        dests = [o for _p, o in _preps(v, ("to", "into"))]
        if prt is not None and prt.lower_ in ("back",):
            pass
        if not dests:
            for adv in _children(v, ("advmod", "prt")):
                if adv.lower_ in ("back", "home", "away", "over", "out", "abroad"):
                    dests += [o for _p, o in _preps(adv, ("to", "into"))]
                    for adv2 in _children(adv, ("advmod",)):
                        dests += [o for _p, o in _preps(adv2, ("to", "into"))]
        place_dest = [d for d in dests if self.entity_ok(d, "place") and d.lemma_ not in L.HOME_NOUNS]
        for d in dests:  # "moved into a flat in Glasgow"
            if d.lemma_.lower() in L.HOME_NOUNS:
                place_dest += [o for _p, o in _preps(d, ("in", "near", "outside"))
                               if self.entity_ok(o, "place")]
        tools = False
        if src is not None and dests:
            place_like = (_et(src) in ("GPE", "LOC") or any(
                _et(d) in ("GPE", "LOC") for d in dests))
            tools = not place_like and (_et(src) in ("ORG", "PRODUCT", "") and all(
                _et(d) in ("ORG", "PRODUCT", "", "PERSON", "WORK_OF_ART") for d in dests))
        if tools:
            for s in subs:
                c.emit(s, "USES", self.np(src), v, kind="end", rule="switch_from", tokens=[src])
                for d in dests:
                    c.emit(s, "USES", self.np(d), v, rule="switch_to", tokens=[d])
            return
        if src is not None and self.entity_ok(src, "place"):
            for s in subs:
                c.emit(s, "LIVES_IN", self.np(src), v, kind="end", confidence=0.85,
                       rule="move_out", tokens=[src])
        for d in place_dest:
            if d.lemma_.lower() in L.TEAM_NOUNS or d.lemma_.lower() in L.JOB_NOUNS:
                continue
            for obj, negated in _coord(d):
                for s in subs:
                    c.emit(s, "LIVES_IN", self.np(obj, keep_preps=("near", "outside")), v,
                           kind="retract" if negated else "assert",
                           confidence=0.85 - 0.15 * dropped, rule="move_to", tokens=[obj])

    # ------------------------------------------------------------------ jobs
    def work(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        for prep, o in _preps(v, ("at", "for", "with")):
            if prep.lower_ == "with" and _et(o) != "ORG":
                continue
            if prep.lower_ == "for" and (o.pos_ != "PROPN" and not _et(o) == "ORG"):
                if not o.is_title and o.lemma_.lower() not in ("company", "startup", "firm") and (
                    _named(o) is None
                ):
                    continue
            for obj, negated in _coord(o):
                obj = _named(obj) or obj
                if not self.entity_ok(obj, "org") or (
                    obj.lemma_.lower() in L.TEAM_NOUNS and obj.pos_ != "PROPN"
                ):
                    continue
                for s in subs:
                    c.emit(s, "WORKS_AT", self.np(obj, keep_preps=("of",)), v,
                           kind="retract" if negated else "assert",
                           confidence=0.9 - 0.15 * dropped, rule="work_at", tokens=[obj])
        for prep, o in _preps(v, ("as",)):
            if self.is_role(o) or o.pos_ == "NOUN":
                for s in subs:
                    c.emit(s, "HAS_ROLE", self.role_text(o), v, confidence=0.85,
                           rule="work_as", tokens=[o])
        for prep, o in _preps(v, ("on",)):
            if o.pos_ in ("NOUN", "PROPN") and o.i not in c.time_tokens and self.entity_ok(
                o, "any"
            ) and not any(ch.dep_ == "det" and ch.lower_ in ("this", "that", "it")
                          for ch in o.children):
                for s in subs:
                    c.emit(s, "WORKS_ON", self.np(o), v, confidence=0.6, rule="work_on",
                           tokens=[o])

    def join(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        obj = _child(v, "dobj")
        if obj is None:
            return
        obj = _named(obj) or obj
        lemma = obj.lemma_.lower()
        if lemma == "team" or (obj.dep_ and lemma in ("squad", "crew", "pod")):
            for s in subs:
                c.emit(s, "MEMBER_OF_TEAM", self.np(obj), v, rule="join_team", tokens=[obj])
        elif lemma in L.CLUB_NOUNS:
            for s in subs:
                c.emit(s, "MEMBER_OF", self.np(obj), v, rule="join_club", tokens=[obj])
        elif self.entity_ok(obj, "org") and (obj.pos_ == "PROPN" or _et(obj) == "ORG"):
            if _et(obj) == "PERSON":
                return
            for s in subs:
                c.emit(s, "WORKS_AT", self.np(obj, keep_preps=("of",)), v, confidence=0.8,
                       rule="join_org", tokens=[obj])
        else:
            return
        for prep, o in _preps(v, ("as",)):
            if self.is_role(o):
                for s in subs:
                    c.emit(s, "HAS_ROLE", self.role_text(o), v, rule="join_as", tokens=[o])

    def start(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        dobj = _child(v, "dobj")
        targets = []
        if dobj is not None and dobj.lemma_.lower() in L.JOB_NOUNS:
            targets = self.employer_of(v, dobj)
            for prep, o in _preps(dobj, ("as",)) + _preps(v, ("as",)):
                if self.is_role(o):
                    for s in subs:
                        c.emit(s, "HAS_ROLE", self.role_text(o), v, rule="start_as", tokens=[o])
        elif dobj is None:
            targets = [(p, o) for p, o in _preps(v, ("at", "with")) if self.entity_ok(o, "org")
                       and _et(o) not in ("PERSON",)]
        for prep, o in targets:
            for s in subs:
                c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v,
                       confidence=0.85 - 0.15 * dropped, rule="start_at", tokens=[o])
        # "started dating/seeing X" handled by their own verbs (xcomp)

    def get(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        dobj = _child(v, "dobj")
        if dobj is not None:
            lemma = dobj.lemma_.lower()
            if lemma in L.JOB_NOUNS:
                for prep, o in self.employer_of(v, dobj):
                    for s in subs:
                        c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v,
                               confidence=0.85, rule="get_job", tokens=[o])
                for prep, o in _preps(dobj, ("as",)) + _preps(v, ("as",)):
                    if self.is_role(o):
                        for s in subs:
                            c.emit(s, "HAS_ROLE", self.role_text(o), v, rule="job_as", tokens=[o])
            elif _pet_noun(dobj) and dobj.lemma_.lower() not in ("fish", "chicken", "bird"):
                self.pet_object(v, dobj, subs, rule="get_pet")
        back = _child(v, ("advmod", "prt"), "back")
        if back is not None:
            for prep, o in _preps(v, ("from",)) + _preps(back, ("from",)):
                if self.entity_ok(o, "place") and _et(o) in ("GPE", "LOC", "FAC", ""):
                    if not _et(o) and (o.pos_ != "PROPN" or not o.text[:1].isupper()
                                       or o.lemma_.lower() in L.TRIP_NOUNS):
                        continue  # "got back from a rad vacay" (a tagger's lowercase PROPN)
                    for s in subs:
                        c.emit(s, "VISITED", self.np(o), v, confidence=0.75, rule="back_from",
                               tokens=[o])
        # "got married/divorced/promoted/hired" with get as main verb + acomp/xcomp
        for comp in _children(v, ("acomp", "xcomp", "ccomp", "oprd")):
            if comp.lemma_.lower() in ("marry", "married"):
                self.marry(comp)
            elif comp.lemma_.lower() in ("divorce", "divorced"):
                self.divorce(comp)

    def hire(self, v: Any) -> None:
        # "I got hired by Pfizer", "I was hired at Boeing"
        if not _child(v, ("auxpass", "nsubjpass")) and v.tag_ != "VBN":
            return
        subs, dropped = self.subjects(v)
        for prep, o in _preps(v, ("by", "at", "as")):
            if prep.lower_ == "as":
                if self.is_role(o):
                    for s in subs:
                        self.c.emit(s, "HAS_ROLE", self.role_text(o), v, rule="hired_as")
                continue
            if _et(o) == "PERSON" and prep.lower_ == "by" and o.pos_ == "PROPN":
                pass  # NER often tags companies as PERSON here; accept
            if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC"):
                for s in subs:
                    self.c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v,
                                confidence=0.85, rule="hired_by", tokens=[o])

    def employ(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("by", "at", "with")):
            if self.entity_ok(o, "org"):
                for s in subs:
                    self.c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v,
                                confidence=0.85, rule="employed_at", tokens=[o])

    def land(self, v: Any) -> None:
        dobj = _child(v, "dobj")
        if dobj is None or dobj.lemma_.lower() not in L.JOB_NOUNS:
            return
        subs, _ = self.subjects(v)
        for prep, o in self.employer_of(v, dobj):
            for s in subs:
                self.c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v, confidence=0.8,
                            rule="land_job", tokens=[o])

    def sign(self, v: Any) -> None:
        dobj = _child(v, "dobj")
        if dobj is None or dobj.lemma_.lower() not in ("contract", "offer", "deal"):
            return
        subs, dropped = self.subjects(v)
        for prep, o in _preps(v, ("with",)) + _preps(dobj, ("with",)):
            if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC"):
                for s in subs:
                    self.c.emit(s, "WORKS_AT", self.np(o), v, confidence=0.7 - 0.1 * dropped,
                                rule="sign_contract", tokens=[o])

    def quit(self, v: Any) -> None:
        subs, dropped = self.subjects(v)
        if not subs:
            return
        c = self.c
        dobj = _child(v, "dobj")
        xcomp = _child(v, "xcomp")
        if xcomp is not None and xcomp.lemma_ == "use":
            return  # "quit using X" -> use rule with ending
        if dobj is None:
            return
        lemma = dobj.lemma_.lower()
        if lemma in L.JOB_NOUNS:
            emps = self.employer_of(v, dobj)
            for prep, o in emps:
                for s in subs:
                    c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v, kind="end",
                           confidence=0.85, rule="quit_job_at", tokens=[o])
            if not emps and any(ch.lower_ in ("my", "our") for ch in dobj.children):
                for s in subs:
                    c.emit(s, "WORKS_AT", ANY_OBJECT, v, kind="end", confidence=0.6,
                           rule="quit_job", tokens=[dobj])
            return
        if _et(dobj) in ("GPE", "LOC") and v.lemma_ == "leave":
            for s in subs:
                c.emit(s, "LIVES_IN", self.np(dobj), v, kind="end", confidence=0.7,
                       rule="leave_place", tokens=[dobj])
            return
        if dobj.pos_ == "PROPN" and _et(dobj) not in ("PERSON", "GPE", "LOC", "DATE"):
            for s in subs:
                c.emit(s, "WORKS_AT", self.np(dobj, keep_preps=("of",)), v, kind="end",
                       confidence=0.75, rule="quit_org", tokens=[dobj])
        elif lemma == "team" and v.lemma_ == "leave":
            for s in subs:
                c.emit(s, "MEMBER_OF_TEAM", self.np(dobj), v, kind="end", rule="leave_team",
                       tokens=[dobj])

    def ended_employment(self, v: Any) -> None:
        """laid off / fired / let go / retired / resigned (from X)."""
        lemma = v.lemma_.lower()
        if lemma == "lay" and not _child(v, "prt", "off"):
            return
        if lemma == "fire" and v.tag_ != "VBN":
            return
        subs, dropped = self.subjects(v)
        if not subs:
            return
        emps = [(p, o) for p, o in _preps(v, ("from", "at", "by"))
                if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC")]
        for _p, span in _preps(v, ("after",)):  # "retired after 30 years at Boeing"
            emps += [(p, o) for p, o in _preps(span, ("at", "with"))
                     if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC")]
        for prep, o in emps:
            for s in subs:
                self.c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v, kind="end",
                            confidence=0.85, rule=f"{lemma}_from", tokens=[o])
        if not emps and lemma in ("lay", "fire"):
            for s in subs:
                self.c.emit(s, "WORKS_AT", ANY_OBJECT, v, kind="end", confidence=0.6,
                            rule=f"{lemma}_any")

    # ------------------------------------------------------------------ roles
    def promote(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("to",)):
            if o.pos_ in ("NOUN", "PROPN"):
                self.role_or_lead(subs, o, v, rule="promoted_to")

    def become(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for o in _children(v, ("attr", "acomp", "dobj", "oprd")):
            if o.pos_ in ("NOUN", "PROPN"):
                self.role_or_lead(subs, o, v, rule="become")

    def role_or_lead(self, subs: list[_Mention], o: Any, anchor: Any, rule: str,
                     kind: str = "assert") -> bool:
        """HAS_ROLE for a job title; LEADS for "head/lead/manager of the X team"."""
        lemma = o.lemma_.lower()
        c = self.c
        if o.pos_ not in ("NOUN", "PROPN"):
            return False
        if rule == "is_role" and any(ch.dep_ == "det" and ch.lower_ == "no" for ch in o.children):
            return True  # "I'm no writer like you": a denial, not a job title
        if any(ch.lower_ == "such" for ch in o.children) or any(
            ch.dep_ == "amod" and ch.lower_ in L.EVALUATIVE_ADJ for ch in o.children
        ) and kind == "assert" and rule == "is_role":
            return True  # "she is such an inspiring writer": an evaluation, not a job title
        if lemma in ("head", "lead", "leader", "manager", "director", "chief", "captain",
                     "charge", "owner", "president", "chair", "vp"):
            for prep, team in _preps(o, ("of", "for")):
                if self.teamish(team) or _et(team) == "ORG":
                    for s in subs:
                        c.emit(s, "LEADS", self.np(team), anchor, kind=kind, rule=f"{rule}_lead",
                               tokens=[team])
                    return True
        if self.is_role(o) and not self.past_role(o):
            if lemma == "student":
                for prep, org in _preps(o, ("at", "of", "in")):
                    if self.entity_ok(org, "org") and _et(org) not in ("GPE",):
                        for s in subs:
                            c.emit(s, "STUDIES_AT", self.np(org, keep_preps=("of",)), anchor,
                                   kind=kind, rule=f"{rule}_student", tokens=[org])
                return True
            org_of = [
                (p, _named(x) or x) for p, x in _preps(o, ("of",))
                if ((_named(x) or x).pos_ == "PROPN" or _et(_named(x) or x) == "ORG")
                and (_named(x) or x).lower_ not in _DEPARTMENTS
            ]
            role = self.role_text(o) if not org_of else _strip_det(
                _join(t for t in o.subtree if t.i < org_of[0][0].i and t.i >= o.left_edge.i
                      and t.dep_ not in ("det", "poss") and t.lower_ not in L.EVALUATIVE_ADJ))
            for s in subs:
                c.emit(s, "HAS_ROLE", role, anchor, kind=kind, rule=rule, tokens=[o])
            for _p, org in org_of:  # "the CEO of Lumen"
                for s in subs:
                    c.emit(s, "WORKS_AT", self.np(org), anchor, kind=kind, rule=f"{rule}_of",
                           tokens=[org])
            for prep, org in self.employer_of(o):
                if prep.lower_ in ("at", "for", "with"):
                    for s in subs:
                        c.emit(s, "WORKS_AT", self.np(org, keep_preps=("of",)), anchor,
                               kind=kind, rule=f"{rule}_at", tokens=[org])
            return True
        return False

    def copula(self, v: Any) -> None:  # noqa: C901 - the copula carries many patterns
        c = self.c
        subj_tok = _child(v, ("nsubj", "nsubjpass"))
        attr = _child(v, "attr")
        acomp = _child(v, "acomp")
        # "My favorite food is ramen" / "My job title is product manager" / "My manager is Tom"
        if subj_tok is not None and subj_tok.pos_ == "NOUN" and (attr or acomp) is not None:
            owner = c.owner_of(subj_tok)
            slem = subj_tok.lemma_.lower()
            if owner is not None:
                fav = any(ch.lower_ in ("favorite", "favourite", "fave") for ch in subj_tok.children)
                if fav:
                    val = attr if attr is not None else acomp
                    if val.pos_ == "NOUN" and any(ch.lower_ in ("a", "an") for ch in val.children):
                        return  # "my favorite one is a theme from a movie": too vague
                    c.emit(owner, "FAVORITE", self.np(val), v, rule="favorite_is",
                           tokens=[val], attributes={"category": slem})
                    return
                if slem == "name" and attr is None:
                    return
            if owner is None and slem == "name":
                # "my sister's name is Kate" / "my dog's name is Max"
                poss = _child(subj_tok, "poss")
                rel = poss if poss is not None else None
                if rel is not None and attr is not None and attr.pos_ in ("PROPN", "NOUN"):
                    rlem = rel.lemma_.lower()
                    rel_owner = c.owner_of(rel)
                    if rel_owner is not None and (rlem in L.RELATION_NOUNS or rlem in L.PET_NOUNS):
                        pred = "HAS_PET" if rlem in L.PET_NOUNS and rlem not in L.RELATION_NOUNS \
                            else L.RELATION_NOUNS[rlem][0]
                        name = c.name_of(attr)
                        c.note_person(attr, name)
                        c.emit(rel_owner, pred, name, v, rule="name_is", timed=False,
                               tokens=[attr])
                        return
            if attr is not None and owner is not None:
                if slem in ("title", "role", "position", "job") or (
                    slem == "title" or any(ch.lower_ == "job" for ch in subj_tok.children)
                ):
                    c.emit(owner, "HAS_ROLE", self.role_text(attr), v, rule="title_is",
                           tokens=[attr])
                    return
                if slem in L.RELATION_NOUNS and attr.pos_ == "PROPN":
                    pred, _ = L.RELATION_NOUNS[slem]
                    name = c.name_of(attr)
                    c.note_person(attr, name)
                    c.emit(owner, pred, name, v, rule="relation_is", timed=False,
                           negatable=True, tokens=[attr])
                    return
                if slem == "name":
                    return
                if slem in L.HOME_NOUNS:
                    return
        subs = c.resolve(subj_tok, collective=False) if subj_tok is not None else []
        if subj_tok is None:
            subs, _ = self.subjects(v)
        # "Sarah is my sister" / "Tom is my manager" / "Jazz is my favorite genre"
        if attr is not None and subj_tok is not None:
            owner = c.owner_of(attr)
            alem = attr.lemma_.lower()
            if owner is not None:
                if any(ch.lower_ in ("favorite", "favourite", "fave") for ch in attr.children):
                    c.emit(owner, "FAVORITE", self.np(subj_tok), v, rule="is_my_favorite",
                           tokens=[subj_tok], attributes={"category": alem})
                    return
                if alem in L.RELATION_NOUNS and (subj_tok.pos_ == "PROPN"
                                                 or _et(subj_tok) == "PERSON"):
                    pred, _ = L.RELATION_NOUNS[alem]
                    c.emit(owner, pred, c.name_of(subj_tok), v, rule="is_my_relation",
                           timed=False, tokens=[subj_tok])
                    return
        if not subs:
            return
        if attr is not None:
            alem = attr.lemma_.lower()
            if alem == "fan":
                for prep, o in _preps(attr, ("of",)):
                    for obj, negated in _coord(o):
                        if not self.pref_object_ok(obj) or obj.pos_ == "PRON":
                            continue
                        for s in subs:
                            c.emit(s, "LIKES", self.np(obj), v, flip="DISLIKES",
                                   rule="fan_of", tokens=[obj], timed=False)
                comp = [ch for ch in attr.children if ch.dep_ == "compound"]
                if comp and not _preps(attr, ("of",)):  # "a big Arsenal fan"
                    for s in subs:
                        c.emit(s, "LIKES", _join(_subtree_left(comp)), v, flip="DISLIKES",
                               rule="x_fan", tokens=comp, timed=False)
                return
            if alem == "member":
                for prep, o in _preps(attr, ("of",)):
                    pred = "MEMBER_OF_TEAM" if o.lemma_.lower() == "team" else "MEMBER_OF"
                    for s in subs:
                        c.emit(s, pred, self.np(o), v, rule="member_of", tokens=[o])
                return
            if attr.like_num or _et(attr) == "CARDINAL" or (
                _et(attr) == "DATE" and attr.like_num
            ):
                if all(s.label in (None, "PERSON") for s in subs) and self.age_clause_ok(v):
                    for s in subs:
                        c.emit(s, "AGE", _num_text(attr), v, rule="age", timed=False,
                               tokens=[attr])
                return
            if alem in ("lead", "head", "leader", "manager", "director") and not _preps(
                attr, ("of", "for")
            ):
                for prep, team in _preps(v, ("for", "of")):
                    if self.teamish(team):
                        for s in subs:
                            c.emit(s, "LEADS", self.np(team), v, rule="is_lead_for",
                                   tokens=[team])
                        return
            if alem == "part":
                for prep, o in _preps(attr, ("of",)):
                    if not (o.lemma_.lower() in L.CLUB_NOUNS or o.lemma_.lower() in L.TEAM_NOUNS
                            or _et(o) in ("ORG", "NORP")):
                        continue  # "part of my life", "part of something bigger"
                    pred = "MEMBER_OF_TEAM" if o.lemma_.lower() == "team" else "MEMBER_OF"
                    for s in subs:
                        c.emit(s, pred, self.np(o), v, rule="part_of", tokens=[o])
                return
            if self.role_or_lead(subs, attr, v, rule="is_role"):
                return
        if acomp is not None:
            alem = acomp.lemma_.lower()
            low = acomp.lower_
            if low == "old" or alem == "old":
                years = _child(acomp, "npadvmod")
                num = _child(years, "nummod") if years is not None else None
                if num is not None and all(s.label in (None, "PERSON") for s in subs) and (
                    self.age_clause_ok(v)
                ):
                    for s in subs:
                        c.emit(s, "AGE", _num_text(num), v, rule="age_old", timed=False,
                               tokens=[num])
                return
            if acomp.like_num:
                if not self.age_clause_ok(v):
                    return
                for s in subs:
                    c.emit(s, "AGE", _num_text(acomp), v, rule="age", timed=False, tokens=[acomp])
                return
            if low in ("married",) or alem == "marry":
                self.marry(acomp, subs_override=subs)
                return
            if low in ("divorced",):
                self.divorce(acomp, subs_override=subs)
                return
            if low == "fluent":
                for prep, o in _preps(acomp, ("in",)):
                    for obj, neg in _coord(o):
                        for s in subs:
                            c.emit(s, "SPEAKS", self.np(obj), v, rule="fluent_in", timed=False,
                                   tokens=[obj])
                return
            if low in L.LIKE_ADJ:
                for prep, o in _preps(acomp, (L.LIKE_ADJ[low], "with", "about", "on", "of")):
                    for obj, neg in _coord(o):
                        for s in subs:
                            c.emit(s, "LIKES", self.np(obj), v, flip="DISLIKES",
                                   rule=f"{low}_prep", tokens=[obj], timed=False)
                return
            if low in ("based", "located"):
                for prep, o in _preps(acomp, ("in", "out", "near")):
                    if self.entity_ok(o, "place"):
                        for s in subs:
                            c.emit(s, "LIVES_IN", self.np(o), v, rule="based_in", tokens=[o])
                return
            if low in ("single",):
                for s in subs:
                    c.emit(s, "HAS_STATUS", "single", v, rule="single", timed=True)
                return
            if low == "together":
                return
        # "I'm based in Berlin" is often parsed with VBN 'based' as ROOT; see based()
        for prep, o in _preps(v, ("into",)):
            if not self.pref_object_ok(o):
                continue
            for obj, neg in _coord(o):
                if obj.pos_ == "PRON" or not self.pref_object_ok(obj):
                    continue
                for s in subs:
                    c.emit(s, "LIKES", self.np(obj), v, flip="DISLIKES", rule="into",
                           tokens=[obj], timed=False)
        for prep, o in _preps(v, ("in",)):
            if o.lemma_.lower() == "charge":
                for p2, team in _preps(o, ("of",)):
                    for s in subs:
                        c.emit(s, "LEADS", self.np(team), v, rule="in_charge_of", tokens=[team])
            elif _et(o) in ("GPE", "LOC") and (c.flags(v).past or c.flags(v).perfect):
                if any(s.speaker for s in subs) or all(s.label == "PERSON" for s in subs):
                    for s in subs:
                        c.emit(s, "VISITED", self.np(o), v, confidence=0.7, rule="was_in",
                               tokens=[o], negatable=False)
        for prep, o in _preps(v, ("to",)):
            if _et(o) in ("GPE", "LOC") and c.flags(v).perfect:
                for s in subs:
                    c.emit(s, "VISITED", self.np(o), v, confidence=0.7, rule="been_to",
                           tokens=[o])
        for prep, o in _preps(v, ("with", "at")):
            fl = c.flags(v)
            if _et(o) == "ORG" and (fl.perfect or fl.ending or "since" in v.sent.text.lower()):
                for s in subs:
                    c.emit(s, "WORKS_AT", self.np(o), v, confidence=0.7, rule="been_with",
                           tokens=[o])
        for prep, o in _preps(v, ("on",)):
            if o.lemma_.lower() == "team":
                for s in subs:
                    c.emit(s, "MEMBER_OF_TEAM", self.np(o), v, rule="on_team", tokens=[o])
        if any(ch.lower_ == "together" for ch in v.children) and subj_tok is not None:
            self.pair_relation(v, subj_tok, "DATING", "assert", rule="together")

    def age_clause_ok(self, v: Any) -> bool:
        """"I'm 34" states an age; "when I was 10" / "since I was ten" does not."""
        if self.c.flags(v).past:
            return False
        if any(ch.dep_ == "mark" for ch in v.children) or v.dep_ in ("advcl", "relcl", "pcomp"):
            return False
        return True

    def based(self, v: Any) -> None:
        if v.lower_ not in ("based", "located"):
            return
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("in", "out", "near")):
            if self.entity_ok(o, "place"):
                for s in subs:
                    self.c.emit(s, "LIVES_IN", self.np(o), v, rule="based_in", tokens=[o])

    # ------------------------------------------------------------------ leading
    def lead(self, v: Any) -> None:
        c = self.c
        lemma = v.lemma_.lower()
        if lemma == "head" and _child(v, "dobj") is None and _preps(v, ("to", "for")):
            self.go(v)  # "I'm heading to Tokyo next week"
            return
        if lemma == "run" and v.sent[0].lower_ in ("run",):
            return
        dobj = _child(v, "dobj")
        passive = _child(v, "nsubjpass")
        agent = None
        for prep, o in _preps(v, ("by",)):
            agent = o
        if passive is not None and agent is not None:
            subs = c.resolve(agent)
            target = passive
        else:
            subs, dropped = self.subjects(v)
            target = dobj
        if target is None or not subs:
            return
        tl = target.lemma_.lower()
        if lemma in ("run", "manage", "oversee", "supervise", "direct", "head", "lead", "chair",
                     "own", "captain"):
            ok = self.teamish(target) or (_et(target) == "ORG" and lemma != "own")
            if lemma == "lead" and target.pos_ in ("NOUN", "PROPN"):
                ok = ok or tl in ("effort", "project", "initiative", "migration", "rollout")
            if lemma == "own":
                ok = tl in ("company", "business", "startup", "restaurant", "bakery", "shop",
                            "store", "cafe", "firm", "agency")
                if ok:
                    for s in subs:
                        c.emit(s, "OWNS", self.np(target), v, rule="own_business",
                               tokens=[target])
                return
            if not ok:
                return
            for obj, negated in _coord(target):
                for s in subs:
                    c.emit(s, "LEADS", self.np(obj), v, kind="retract" if negated else "assert",
                           rule=f"{lemma}_team", tokens=[obj])
            for prep, org in self.employer_of(target, v):
                if prep.lower_ == "at":
                    for s in subs:
                        c.emit(s, "WORKS_AT", self.np(org, keep_preps=("of",)), v,
                               rule=f"{lemma}_team_at", tokens=[org])

    def own(self, v: Any) -> None:
        dobj = _child(v, "dobj")
        if dobj is not None and _pet_noun(dobj):
            self.have(v)
        else:
            self.lead(v)

    def take(self, v: Any) -> None:
        if not _child(v, ("prt", "advmod", "prep"), "over"):
            dobj = _child(v, "dobj")
            if dobj is not None and dobj.lemma_.lower() in L.JOB_NOUNS:
                self.get(v)
            return
        subs, _ = self.subjects(v)
        target = _child(v, "dobj")
        if target is None:
            prt = _child(v, "prep", "over")
            target = _pobj(prt) if prt is not None else None
        if target is None:
            return
        if self.teamish(target) or target.lemma_.lower() in ("role", "position"):
            for s in subs:
                self.c.emit(s, "LEADS", self.np(target), v, rule="take_over", tokens=[target])
        elif _et(target) == "ORG" or target.pos_ == "PROPN":
            for s in subs:
                self.c.emit(s, "LEADS", self.np(target), v, confidence=0.6, rule="take_over",
                            tokens=[target])

    def step(self, v: Any) -> None:
        if not _child(v, ("advmod", "prt"), "down"):
            return
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("as", "from")):
            self.role_or_lead(subs, o, v, rule="step_down", kind="end")

    # ------------------------------------------------------------------ relationships
    def pair_relation(self, v: Any, subj_tok: Any, pred: str, kind: str, rule: str,
                      obj_tok: Any = None) -> None:
        """A symmetric relation from "A and B <verb>" or "A <verb> (with) B"."""
        c = self.c
        subs = c.resolve(subj_tok)
        if obj_tok is not None:
            others = c.resolve(obj_tok)
            if not others and obj_tok.lower_ in ("someone", "somebody", "guy", "girl", "man",
                                                 "woman", "person"):
                return
            for s in subs[:1]:
                for o in others:
                    c.emit(s, pred, o.text, v, kind=kind, rule=rule, tokens=[obj_tok])
            return
        if len(subs) >= 2:
            speaker = [s for s in subs if s.speaker]
            rest = [s for s in subs if not s.speaker]
            a = speaker[0] if speaker else rest.pop(0)
            for b in rest:
                c.emit(a, pred, b.text, v, kind=kind, rule=rule, tokens=[b.token])
            return
        if len(subs) == 1 and kind == "end" and subj_tok.lower_ in ("we", "us"):
            c.emit(subs[0], pred, ANY_OBJECT, v, kind=kind, confidence=0.6, rule=rule + "_any")

    def marry(self, v: Any, subs_override: list[_Mention] | None = None) -> None:
        c = self.c
        obj = _child(v, "dobj")
        if obj is None:
            for prep, o in _preps(v, ("to",)):
                obj = o
        head = v
        anchor = v.head if v.dep_ in ("acomp", "xcomp", "oprd", "ccomp") else v
        subj_tok = _child(v, ("nsubj", "nsubjpass"))
        if subj_tok is None and v.dep_ in ("acomp", "xcomp", "oprd") and v.head is not v:
            head = v.head
            subj_tok = _child(head, ("nsubj", "nsubjpass"))
        if subj_tok is None:
            subs, _ = self.subjects(v)
            if obj is not None and subs:
                for o in c.resolve(obj):
                    c.emit(subs[0], "MARRIED_TO", o.text, anchor, rule="marry", tokens=[obj])
            return
        if obj is not None and obj.lower_ not in ("me", "us"):
            if not (obj.pos_ == "PROPN" or _et(obj) == "PERSON" or c.rel_name(obj) is not None
                    or obj.lower_ in L.THIRD_PERSON_PRONOUNS):
                return
            self.pair_relation(anchor, subj_tok, "MARRIED_TO", "assert", "marry", obj_tok=obj)
        else:
            self.pair_relation(anchor, subj_tok, "MARRIED_TO", "assert", "married_pair")

    def divorce(self, v: Any, subs_override: list[_Mention] | None = None) -> None:
        obj = _child(v, "dobj")
        if obj is None:
            for prep, o in _preps(v, ("from",)):
                obj = o
        subj_tok = _child(v, ("nsubj", "nsubjpass"))
        anchor = v.head if v.dep_ in ("acomp", "xcomp", "oprd", "ccomp") else v
        if subj_tok is None and v.head is not v:
            subj_tok = _child(v.head, ("nsubj", "nsubjpass"))
        if subj_tok is None:
            return
        self.pair_relation(anchor, subj_tok, "MARRIED_TO", "end", "divorce", obj_tok=obj)

    def date(self, v: Any) -> None:
        obj = _child(v, "dobj")
        subj_tok = _child(v, ("nsubj", "nsubjpass"))
        if obj is None:
            # "Sam and I started dating in 2021"
            if subj_tok is None and v.dep_ == "xcomp":
                subj_tok = _child(v.head, ("nsubj", "nsubjpass"))
            if subj_tok is not None and v.tag_ in ("VBG", "VBD", "VBN"):
                self.pair_relation(v, subj_tok, "DATING", "assert", "dating_pair")
            return
        target = self.c.rel_name(obj) or obj
        if not (target.pos_ == "PROPN" or _et(target) == "PERSON"):
            return
        if subj_tok is None:
            subs, _ = self.subjects(v)
            for s in subs[:1]:
                for o in self.c.resolve(target):
                    self.c.emit(s, "DATING", o.text, v, rule="date", tokens=[target])
            return
        self.pair_relation(v, subj_tok, "DATING", "assert", "date", obj_tok=target)

    def see(self, v: Any) -> None:
        # "I've been seeing Eli", "I started seeing Rachel"
        progressive = v.tag_ == "VBG"
        if not progressive:
            return
        obj = _child(v, "dobj")
        if obj is None:
            return
        target = self.c.rel_name(obj) or obj
        if not (target.pos_ == "PROPN" or _et(target) == "PERSON"):
            return
        subs, _ = self.subjects(v)
        for s in subs[:1]:
            for o in self.c.resolve(target):
                self.c.emit(s, "DATING", o.text, v, rule="seeing", tokens=[target])

    def break_up(self, v: Any) -> None:
        if not _child(v, ("prt", "advmod", "prep"), "up"):
            return
        subj_tok = _child(v, "nsubj")
        obj = None
        for prep, o in _preps(v, ("with",)):
            obj = o
        if obj is None:
            up = _child(v, ("prep",), "up")
            if up is not None:
                for prep, o in _preps(up, ("with",)):
                    obj = o
        if subj_tok is None:
            subs, _ = self.subjects(v)
            if subs and obj is not None:
                for o in self.c.resolve(obj):
                    self.c.emit(subs[0], "DATING", o.text, v, kind="end", rule="break_up")
            return
        self.pair_relation(v, subj_tok, "DATING", "end", "break_up", obj_tok=obj)

    # ------------------------------------------------------------------ pets
    def pet_object(self, v: Any, noun: Any, subs: list[_Mention], rule: str,
                   kind: str = "assert") -> None:
        c = self.c
        names = []
        name = c.rel_name(noun)
        if name is not None:
            names.append(name)
            names += [x for x in name.children if x.dep_ == "conj"]
        if names:
            for n in names:
                for s in subs:
                    c.emit(s, "HAS_PET", c.name_of(n), v, kind=kind, rule=rule, tokens=[n])
        else:
            text = self.np(noun, drop_amod=True)
            full = self.np(noun)
            if full.lower() in L.PET_NOUNS:
                text = full
            for s in subs:
                c.emit(s, "HAS_PET", text, v, kind=kind, confidence=0.7, rule=rule,
                       tokens=[noun])

    def have(self, v: Any) -> None:
        dobj = _child(v, "dobj")
        if dobj is not None and dobj.lemma_.lower() in L.RELATION_NOUNS and v.lemma_ == "have":
            # "I have two kids, Max and Lily" / "I have a sister named Kate"
            name = self.c.rel_name(dobj)
            if name is not None:
                subs, _ = self.subjects(v)
                pred = L.RELATION_NOUNS[dobj.lemma_.lower()][0]
                names = [name] + [x for x in name.children if x.dep_ == "conj"]
                for n in names:
                    nm = self.c.name_of(n)
                    self.c.note_person(n, nm)
                    for s in subs:
                        self.c.emit(s, pred, nm, v, rule="have_relation", timed=False,
                                    tokens=[n])
            return
        if dobj is None or not _pet_noun(dobj):
            return
        subs, _ = self.subjects(v)
        if any(ch.lower_ in ("my", "our") for ch in dobj.children):
            return  # "I have my dog with me": the possessive rule covers it
        self.pet_object(v, dobj, subs, rule=f"{v.lemma_.lower()}_pet")

    def pet_end(self, v: Any) -> None:
        lemma = v.lemma_.lower()
        if lemma == "pass" and not _child(v, ("prt", "advmod"), ("away", "on")):
            return
        subj = _child(v, "nsubj")
        if subj is None or not _pet_noun(subj):
            return
        owner = self.c.owner_of(subj)
        if owner is None:
            return
        name = self.c.rel_name(subj)
        if name is None and subj.pos_ == "PROPN":
            name = subj
        obj = self.c.name_of(name) if name is not None else self.np(subj, drop_amod=True)
        self.c.emit(owner, "HAS_PET", obj, v, kind="end", rule="pet_died", tokens=[subj])

    # ------------------------------------------------------------------ possessive nouns
    def relation_noun(self, noun: Any) -> None:
        c = self.c
        lemma = noun.lemma_.lower()
        owner = c.owner_of(noun)
        if owner is None:
            return
        gov = _governor(noun)
        # "Tom is my manager" / "My manager is Tom" are handled by the copula
        if gov is not None and gov.lemma_ == "be" and noun.dep_ in ("attr", "nsubj") and (
            _child(gov, "attr") is not None and _child(gov, "nsubj") is not None
        ):
            other = _child(gov, "attr") if noun.dep_ == "nsubj" else _child(gov, "nsubj")
            if other is not None and other.pos_ == "PROPN" and c.rel_name(noun) is None:
                return
        name = c.rel_name(noun)
        prev1 = noun.doc[noun.i - 1].lower_ if noun.i > 0 else ""
        prev2 = noun.doc[noun.i - 2].lower_ if noun.i > 1 else ""
        ended = any(ch.lower_ in L.ENDED_RELATION_MODIFIERS for ch in noun.children) or (
            prev1 in ("ex", "ex-", "former", "late") or (prev1 == "-" and prev2 == "ex")
        ) or noun.lower_.startswith("ex-")
        if lemma in L.PET_NOUNS and lemma not in L.RELATION_NOUNS:
            role_tok = noun.head if noun.dep_ == "compound" else noun
            if gov is not None and gov.lemma_.lower() in L.PET_END_VERBS and role_tok.dep_ in (
                "nsubj", "nsubjpass"
            ):
                return  # pet_end covers it
            if gov is not None and gov.lemma_ == "have" and noun.dep_ == "dobj" and c.flags(gov).neg:
                return
            if gov is not None and role_tok.dep_ == "dobj" and (
                gov.lemma_.lower() in L.PET_END_VERBS or (
                    gov.lemma_.lower() in ("put", "give") and _child(gov, ("prt", "advmod"),
                                                                     ("down", "away", "up")))
            ):
                return  # pet_away covers it
            names = [name] if name is not None else []
            if name is not None:
                names += [x for x in name.children if x.dep_ == "conj"]
            objs = [(c.name_of(n), n) for n in names] or (
                [(self.np(noun, drop_amod=True), noun)]
                if noun.dep_ in ("nsubj", "dobj", "pobj") else []
            )
            for o, tok in objs:
                c.emit(owner, "HAS_PET", o, None, rule="my_pet", timed=False,
                       confidence=0.85 if names else 0.6, tokens=[noun, tok])
            return
        if name is None:
            return
        pred, _direction = L.RELATION_NOUNS.get(lemma, ("RELATED_TO", "out"))
        if any(ch.dep_ == "amod" and ch.lower_ in ("furry", "four-legged", "feathered", "scaly")
               for ch in noun.children):
            pred = "HAS_PET"  # "my furry friend Daisy"
        n = c.name_of(name)
        c.note_person(name, n)
        c.emit(owner, pred, n, None, kind="end" if ended else "assert", rule="my_relation",
               timed=False, confidence=0.9, tokens=[noun, name])
        for extra in (x for x in name.children if x.dep_ == "conj" and x.pos_ == "PROPN"):
            c.emit(owner, pred, c.name_of(extra), None, kind="end" if ended else "assert",
                   rule="my_relation", timed=False, confidence=0.8, tokens=[extra])

    def job_noun(self, noun: Any) -> None:
        """"my job at IBM", "Work at Intel has been crazy"."""
        c = self.c
        owner = c.owner_of(noun)
        if owner is None:
            if not (noun.lemma_.lower() == "work" and noun.dep_ == "nsubj" and not any(
                ch.dep_ == "det" for ch in noun.children
            ) and noun.i == noun.sent.start):
                return
            owner = c.speaker_mention()
        gov = _governor(noun)
        if gov is not None and gov.lemma_.lower() in ("quit", "leave", "lose", "start", "get",
                                                       "land", "take", "accept", "begin"):
            if gov.lemma_.lower() in ("start", "begin") and noun.dep_ in ("nsubj",):
                pass
            else:
                return  # verb rules handle these
        targets = _preps(noun, ("at", "with"))
        if not targets and noun.dep_ == "dobj":  # "I love my job at Nike" (PP on the verb)
            targets = [(p, o) for p, o in _preps(noun.head, ("at", "with"))
                       if p.i == noun.right_edge.i + 1]
        for prep, o in targets:
            if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC", "PERSON"):
                glem = gov.lemma_.lower() if gov is not None else ""
                ended = glem in ("end", "finish", "stop") and noun.dep_ == "nsubj"
                timed = glem in ("start", "begin") or ended  # "my job at Acme ended in March"
                c.emit(owner, "WORKS_AT", self.np(o, keep_preps=("of",)),
                       gov if timed else None, rule="my_job_at_ended" if ended else "my_job_at",
                       kind="end" if ended else "assert", timed=timed, tokens=[o],
                       confidence=0.8)

    def home_noun(self, noun: Any) -> None:
        """"My apartment in Brooklyn is tiny", "my home is in Oakland"."""
        c = self.c
        owner = c.owner_of(noun)
        if owner is None or not owner.speaker:
            return
        targets = [o for _p, o in _preps(noun, ("in",))]
        gov = _governor(noun)
        if gov is not None and gov.lemma_ == "be" and noun.dep_ == "nsubj":
            targets += [o for _p, o in _preps(gov, ("in",))]
        for o in targets:
            if self.entity_ok(o, "place") and (_et(o) in ("GPE", "LOC") or o.pos_ == "PROPN"):
                c.emit(owner, "LIVES_IN", self.np(o), gov, rule="my_home_in", timed=False,
                       confidence=0.75, negatable=gov is not None, tokens=[o])

    # ------------------------------------------------------------------ preferences
    def like(self, v: Any) -> None:
        c = self.c
        lemma = v.lemma_.lower()
        if any(ch.lower_ in ("would", "'d") for ch in v.children):
            self.plan(v)  # "I'd love to visit Iceland" is a plan
            return
        if v.dep_ in ("xcomp",) and v.head.lemma_.lower() in ("seem", "look", "feel", "sound"):
            return
        subs, dropped = self.subjects(v)
        if not subs:
            return
        pred = "LIKES" if lemma in L.LIKE_VERBS else "DISLIKES"
        flip = "DISLIKES" if pred == "LIKES" else "LIKES"
        fl = self.c.flags(v)
        if fl.future or fl.modal:
            return  # "I'll enjoy writing them": not a standing preference
        if v.tag_ == "VBD" and not fl.perfect and not fl.neg:
            return  # "I loved just chilling there": one past occasion
        targets: list[tuple[str, Any, bool]] = []
        dobj = _child(v, "dobj")
        if dobj is not None:
            if dobj.pos_ == "PRON" or dobj.lower_ in L.NOT_LIKES or not self.pref_object_ok(dobj):
                return
            if c.owner_of(dobj) is not None and (
                dobj.lemma_.lower() in L.RELATION_NOUNS or dobj.lemma_.lower() in L.PET_NOUNS
            ):
                return
            for obj, negated in _coord(dobj):
                if obj is dobj or self.pref_object_ok(obj):
                    targets.append((self.np(obj), obj, negated))
        else:
            x = _child(v, ("xcomp", "ccomp"))
            if x is not None and (x.tag_ == "VBG" or (x.tag_ == "VB" and _child(x, "aux", "to"))):
                light = x.lemma_.lower() in ("make", "do", "get", "have", "take", "go", "be") and not [
                    t for t in x.children if t.dep_ in ("dobj", "prep", "xcomp", "attr")]
                if light or x.lemma_.lower() in L.CONVERSATIONAL_VERBS or any(
                    t.lower_ in ("it", "them", "you", "your", "this", "that", "these", "those")
                    for t in x.subtree if t.i != x.i
                ):
                    return
                targets.append((self.vp(x), x, False))
        for text, tok, negated in targets:
            for s in subs:
                c.emit(s, pred, text, v, flip=flip, kind="retract" if negated else "assert",
                       confidence=0.8 - 0.15 * dropped, rule=f"{lemma}_obj", timed=False,
                       tokens=[tok])

    def like_adj(self, v: Any) -> None:
        """"I'm obsessed with X" parsed as a passive verb."""
        low = v.lower_
        if low not in L.LIKE_ADJ:
            return
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, (L.LIKE_ADJ[low], "with", "on", "to")):
            for obj, _neg in _coord(o):
                if obj.pos_ == "PRON" or not self.pref_object_ok(obj):
                    continue
                for s in subs:
                    self.c.emit(s, "LIKES", self.np(obj), v, flip="DISLIKES", rule=f"{low}_prep",
                                tokens=[obj], timed=False)

    def pref_object_ok(self, tok: Any) -> bool:
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

    def stand(self, v: Any) -> None:
        # "I can't stand country music"
        if not _child(v, "neg"):
            return
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        if dobj is None or dobj.pos_ == "PRON":
            return
        for s in subs:
            self.c.emit(s, "DISLIKES", self.np(dobj), v, negatable=False, rule="cant_stand",
                        timed=False, tokens=[dobj])

    # ------------------------------------------------------------------ tools
    def use(self, v: Any) -> None:
        c = self.c
        subs, dropped = self.subjects(v, collective=True)
        if not subs:
            return
        dobj = _child(v, "dobj")
        if dobj is None or dobj.pos_ == "PRON" or dobj.i in c.time_tokens:
            return
        head = v.head if v.dep_ == "xcomp" else None
        kind = "assert"
        if head is not None and head.lemma_.lower() in ("stop", "quit", "give", "cease"):
            kind = "end"
        if dobj.lemma_.lower() in ("time", "bathroom", "toilet", "restroom", "word", "phrase",
                                   "money", "help", "opportunity", "chance", "excuse"):
            return
        if not (dobj.pos_ == "PROPN" or _et(dobj) in ("PRODUCT", "ORG", "WORK_OF_ART") or
                self.np(dobj).lower() in L.KNOWN_PRODUCTS or any(
                    ch.dep_ == "compound" and ch.pos_ == "PROPN" for ch in dobj.children)):
            return  # "we used websites", "I use a knife": not a tool worth remembering
        for obj, negated in _coord(dobj):
            for s in subs:
                c.emit(s, "USES", self.np(obj), v,
                       kind="retract" if negated else kind, confidence=0.8 - 0.15 * dropped,
                       rule="use" if kind == "assert" else "stop_using", tokens=[obj],
                       negatable=kind == "assert")

    def switch(self, v: Any) -> None:
        c = self.c
        subs, dropped = self.subjects(v, collective=True)
        if not subs:
            return
        src = [o for _p, o in _preps(v, ("from",))]
        dst = [o for _p, o in _preps(v, ("to", "over"))]
        for o in src:
            if self.entity_ok(o, "any") and o.pos_ in ("PROPN", "NOUN"):
                for s in subs:
                    c.emit(s, "USES", self.np(o), v, kind="end", rule="switch_from", tokens=[o])
        for o in dst:
            if self.entity_ok(o, "any") and o.pos_ in ("PROPN", "NOUN") and o.lemma_.lower() not in (
                "team", "role", "position", "job", "mode"
            ):
                for s in subs:
                    c.emit(s, "USES", self.np(o), v, rule="switch_to", tokens=[o])

    def rely(self, v: Any) -> None:
        subs, _ = self.subjects(v, collective=True)
        for prep, o in _preps(v, ("on", "upon")):
            if o.pos_ == "PROPN" or _et(o) == "PRODUCT" or self.np(o).lower() in L.KNOWN_PRODUCTS:
                for s in subs:
                    self.c.emit(s, "USES", self.np(o), v, rule="rely_on", tokens=[o])

    def code(self, v: Any) -> None:
        # "I code in Python with VS Code", "I write all my code in Emacs"
        lemma = v.lemma_.lower()
        if lemma == "write":
            dobj = _child(v, "dobj")
            if dobj is None or dobj.lemma_.lower() not in ("code", "program", "script", "app",
                                                          "software", "notes"):
                return
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        extra = _preps(dobj, ("in", "with", "using")) if dobj is not None else []
        for prep, o in _preps(v, ("in", "with", "using")) + extra:
            if o.i in self.c.time_tokens or o.pos_ == "PRON":
                continue
            if o.pos_ == "PROPN" or _et(o) or o.text[:1].isupper():
                for s in subs:
                    self.c.emit(s, "USES", self.np(o), v, confidence=0.7, rule=f"{lemma}_in",
                                tokens=[o])

    def tool_prep(self, v: Any) -> None:
        """"learning Japanese on Duolingo", "I edit everything in Figma": a known app or a
        PRODUCT entity after on/in/with/using is a tool the subject uses."""
        for prep, o in _preps(v, ("on", "in", "with", "using", "via", "through")):
            if o.i in self.c.time_tokens or o.pos_ != "PROPN":
                continue
            if not (_et(o) == "PRODUCT" or self.c.name_of(o).lower() in L.KNOWN_PRODUCTS):
                continue
            subs, _ = self.subjects(v, collective=True)
            for s in subs:
                if s.speaker or s.label == "PERSON":
                    self.c.emit(s, "USES", self.np(o), v, confidence=0.55,
                                rule=f"{v.lemma_.lower()}_{prep.lower_}_tool", tokens=[o])

    def stop(self, v: Any) -> None:
        # "I stopped using X" is handled by use(); "I gave up Twitter" here
        lemma = v.lemma_.lower()
        if lemma == "give" and _child(v, ("prt", "advmod"), "away"):
            self.pet_away(v)
            return
        if lemma == "give" and not _child(v, ("prt",), "up"):
            return
        dobj = _child(v, "dobj")
        if dobj is None or dobj.pos_ not in ("PROPN",):
            return
        subs, _ = self.subjects(v)
        for s in subs:
            self.c.emit(s, "USES", self.np(dobj), v, kind="end", rule="give_up", tokens=[dobj],
                        confidence=0.7)
            for prep, o in _preps(v, ("for",)) + _preps(dobj, ("for",)):  # "ditched X for Y"
                if o.pos_ == "PROPN":
                    self.c.emit(s, "USES", self.np(o), v, rule="ditch_for", tokens=[o],
                                confidence=0.7)

    # ------------------------------------------------------------------ plans & travel
    def plan(self, v: Any) -> None:
        c = self.c
        lemma = v.lemma_.lower()
        if lemma == "think" and not (_preps(v, ("about", "of"))):
            return
        if lemma in ("look",) and not _preps(v, ("forward",)):
            return
        if lemma in ("like", "love") and not any(ch.lower_ in ("would", "'d") for ch in v.children):
            return
        f = c.flags(v)
        if f.hypothetical or f.neg:
            return
        if (v.tag_ == "VBD" or f.past) and not f.perfect and lemma != "decide":
            return  # "we planned to ...", "I just wanted to ...": not a current plan
        subs, dropped = self.subjects(v)
        if not subs:
            return
        comps: list[Any] = []
        x = _child(v, "xcomp")
        if x is not None:
            comps.append(x)
        for prep, o in _preps(v, ("about", "of", "on", "to")):
            if o.pos_ in ("VERB",):
                comps.append(o)
            elif o.lemma_.lower() in L.TRIP_NOUNS:
                comps.append(o)
        dobj = _child(v, "dobj")
        if dobj is not None and dobj.lemma_.lower() in L.TRIP_NOUNS:
            comps.append(dobj)
        planned = self._planned_time(v, comps)
        strict = lemma in ("want", "hope", "wish", "love", "like", "aim", "try", "dream")
        for comp in comps:
            obj = self._plan_object(comp, strict=strict)
            if obj is None:
                continue
            text, tok = obj
            for s in subs:
                c.emit(s, "PLANS", text, v, rule=f"plan_{lemma}", timed=False, allow_in_plan=True,
                       tokens=[tok], confidence=0.75 - 0.15 * dropped,
                       attributes={"planned_for": planned} if planned else None)

    def _planned_time(self, v: Any, comps: list[Any]) -> str | None:
        hit = self.c.time_for(v, _Flags(future=True), extra=comps)
        if hit is None:
            return None
        rt, text = hit
        fut = resolve_time(text, self.c.ref, prefer="future") or rt
        return fut.start.isoformat()

    def _plan_object(self, comp: Any, strict: bool = False) -> tuple[str, Any] | None:
        """What a plan is about: a destination, or the complement's verb phrase.

        ``strict`` (want / hope / would love / wish) accepts only activity verbs; any plan is
        dropped when it is conversational ("check it out", "tell you more") or its phrase
        points back into the conversation (it, them, you, your)."""
        lemma = comp.lemma_.lower()
        if comp.pos_ in ("NOUN", "PROPN") and lemma in L.TRIP_NOUNS:
            for prep, o in _preps(comp, ("to", "in", "around", "through")):
                if o.pos_ in ("PROPN",) or _et(o) in ("GPE", "LOC"):
                    return self.np(o), o
            return None
        if comp.pos_ not in ("VERB", "AUX"):
            return None
        if lemma in L.TRAVEL_VERBS:
            dobj = _child(comp, "dobj")
            if dobj is not None and (dobj.pos_ == "PROPN" or _et(dobj) in ("GPE", "LOC")):
                return self.np(dobj), dobj
            for prep, o in _preps(comp, ("to", "into")):
                if o.pos_ == "PROPN" or _et(o) in ("GPE", "LOC"):
                    return self.np(o), o
            back = _child(comp, ("advmod", "prt"), "back")
            if back is not None:
                for prep, o in _preps(back, ("to",)):
                    return self.np(o), o
        if lemma in L.CONVERSATIONAL_VERBS:
            return None
        if strict and lemma not in L.PLAN_ACTIVITY_VERBS:
            return None
        sub = [t for t in comp.subtree if t.i != comp.i]
        if any(t.lower_ in ("it", "them", "that", "this", "you", "your", "yours", "these",
                            "those", "him", "her", "us") and t.dep_ not in ("det",) for t in sub):
            return None
        if lemma in ("make", "get", "take", "try", "go", "do", "have", "start", "see", "join",
                     "work") and not [
            t for t in comp.children if t.dep_ in ("dobj", "prep", "xcomp", "ccomp", "attr",
                                                   "acomp", "oprd")
            and not (t.dep_ == "prep" and ((p := _pobj(t)) is None or p.lower_ == "future"))
        ]:
            return None  # "join in", "work in the future"
        dobj = _child(comp, "dobj")
        if lemma in ("take", "have", "get", "give", "make", "grab") and dobj is not None and (
            dobj.lemma_.lower() in L.LIGHT_PLAN_OBJECTS
            or any(t.lower_ in ("there", "here") for t in comp.children)
        ):
            return None  # "I'd love to take a look", "take the dogs there"
        text = self.vp(comp)
        if not text or len(text.split()) > 8 or len(text.split()) < 1:
            return None
        if len(text.split()) == 1 and lemma not in L.SINGLE_WORD_PLANS:
            return None
        return text, comp

    def go(self, v: Any) -> None:
        """go to X: VISITED (past), PLANS ("we're going to Italy"), ATTENDED (a school)."""
        c = self.c
        f = c.flags(v)
        subs, dropped = self.subjects(v)
        if not subs:
            return
        x = _child(v, "xcomp")
        if x is not None and _child(x, "aux", "to") and v.tag_ == "VBG" and not f.past:
            # "I'm going to run the Boston Marathon" -> plan
            obj = self._plan_object(x)
            if obj is not None and x.lemma_.lower() not in ("be", "have", "do", "get", "say",
                                                            "need", "try", "make"):
                for s in subs:
                    c.emit(s, "PLANS", obj[0], v, rule="going_to", timed=False,
                           allow_in_plan=True, tokens=[obj[1]], confidence=0.7)
            return
        if x is not None and x.tag_ == "VBG" and x.lower_ in L.GO_HOBBIES and not f.past and (
            v.tag_ in ("VBP", "VBZ") and not f.perfect
        ):
            for s in subs:
                c.emit(s, "HAS_HOBBY", x.lower_, v, rule="go_hobby", timed=False, tokens=[x])
            return
        for prep, o in _preps(v, ("to",)):
            if self.is_school(o) and _et(o) not in ("GPE", "LOC"):
                pred = "ATTENDED" if (f.past or f.perfect) else "STUDIES_AT"
                for s in subs:
                    c.emit(s, pred, self.np(o, keep_preps=("of",)), v, rule="go_to_school",
                           tokens=[o])
                continue
            if not (_et(o) in ("GPE", "LOC", "FAC") or (o.pos_ == "PROPN" and _et(o)
                                                               not in ("PERSON", "ORG"))):
                continue
            if f.past or f.perfect:
                for s in subs:
                    c.emit(s, "VISITED", self.np(o), v, rule="went_to", tokens=[o],
                           confidence=0.8)
            elif v.tag_ == "VBG" or f.future:
                for s in subs:
                    c.emit(s, "PLANS", self.np(o), v, rule="going_to_place", timed=False,
                           allow_in_plan=True, tokens=[o], confidence=0.7)

    def visit(self, v: Any) -> None:
        c = self.c
        f = c.flags(v)
        if not (f.past or f.perfect) or f.in_plan:
            return
        subs, dropped = self.subjects(v)
        targets = []
        dobj = _child(v, "dobj")
        if dobj is not None:
            targets.append(dobj)
        targets += [o for _p, o in _preps(v, ("to", "in", "around", "through"))]
        for t in targets:
            if t.i in c.time_tokens:
                continue
            if _et(t) in ("GPE", "LOC", "FAC") or (t.pos_ == "PROPN" and _et(t) not in (
                "PERSON", "DATE", "TIME"
            )):
                for obj, _neg in _coord(t):
                    for s in subs:
                        c.emit(s, "VISITED", self.np(obj), v, rule=f"{v.lemma_.lower()}_place",
                               confidence=0.8 - 0.1 * dropped, tokens=[obj])

    def spend(self, v: Any) -> None:
        c = self.c
        f = c.flags(v)
        if not (f.past or f.perfect):
            return
        subs, dropped = self.subjects(v)
        for prep, o in _preps(v, ("in", "at")):
            if _et(o) in ("GPE", "LOC") or o.pos_ == "PROPN":
                for s in subs:
                    c.emit(s, "VISITED", self.np(o), v, rule="spent_in", tokens=[o],
                           confidence=0.75 - 0.1 * dropped)

    def return_from(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        if v.lemma_.lower() == "come" and not _child(v, ("advmod", "prt"), "back"):
            return
        back = _child(v, ("advmod", "prt"), "back")
        for prep, o in _preps(v, ("from",)) + (_preps(back, ("from",)) if back is not None else []):
            if _et(o) in ("GPE", "LOC") or (o.pos_ == "PROPN" and o.text[:1].isupper()
                                             and o.lemma_.lower() not in L.TRIP_NOUNS):
                for s in subs:
                    self.c.emit(s, "VISITED", self.np(o), v, rule="back_from", tokens=[o],
                                confidence=0.75)

    # ------------------------------------------------------------------ education
    def study(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        heads = [v] + ([dobj] if dobj is not None else [])
        for h in heads:
            for prep, o in _preps(h, ("at", "in")):
                if prep.lower_ == "in" and not self.is_school(o):
                    continue
                if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC", "PERSON"):
                    for s in subs:
                        self.c.emit(s, "STUDIES_AT", self.np(o, keep_preps=("of",)), v,
                                    rule="study_at", tokens=[o])
                    return

    def do(self, v: Any) -> None:
        c = self.c
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        if dobj is None:
            return
        lemma = dobj.lemma_.lower()
        if lemma in ("phd", "master", "masters", "degree", "doctorate", "mba", "bachelor",
                     "undergrad", "postdoc", "residency", "internship") or dobj.lower_ in (
            "phd", "ph.d.", "masters", "mba"
        ):
            for prep, o in _preps(v, ("at", "in")) + _preps(dobj, ("at",)):
                if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC"):
                    pred = "WORKS_AT" if lemma in ("residency", "internship", "postdoc") else \
                        "STUDIES_AT"
                    for s in subs:
                        c.emit(s, pred, self.np(o, keep_preps=("of",)), v, rule="do_degree_at",
                               tokens=[o])
            return
        for prep, o in _preps(v, ("in", "with", "on")) + _preps(dobj, ("in", "with", "on")):
            if o.i not in c.time_tokens and (o.pos_ == "PROPN" or _et(o) == "PRODUCT") and _et(
                o
            ) not in ("GPE", "LOC", "PERSON", "DATE", "TIME"):
                for s in subs:
                    c.emit(s, "USES", self.np(o), v, confidence=0.6, rule="do_in_tool",
                           tokens=[o])
                return
        if lemma in L.HOBBY_DO and not c.flags(v).past:
            for s in subs:
                c.emit(s, "HAS_HOBBY", self.np(dobj), v, rule="do_hobby", timed=False,
                       tokens=[dobj])

    def graduate(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("from",)):
            if self.entity_ok(o, "org"):
                for s in subs:
                    self.c.emit(s, "ATTENDED", self.np(o, keep_preps=("of",)), v,
                                rule="graduated_from", tokens=[o])

    def attend(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        if dobj is not None and (self.is_school(dobj) or _et(dobj) in ("ORG", "EVENT")):
            f = self.c.flags(v)
            pred = "ATTENDED" if (f.past or f.perfect or _et(dobj) == "EVENT") else "STUDIES_AT"
            if not self.is_school(dobj):
                pred = "ATTENDED"
            for s in subs:
                self.c.emit(s, pred, self.np(dobj, keep_preps=("of",)), v, rule="attend",
                            tokens=[dobj])

    # ------------------------------------------------------------------ misc
    def speak(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        if dobj is None:
            return
        if dobj.lemma_.lower() in ("bit", "little", "some", "lot", "word") :
            inner = [o for _p, o in _preps(dobj, ("of",))]
            if not inner:
                return
            dobj = inner[0]
        for obj, _neg in _coord(dobj):
            if _et(obj) in ("NORP", "LANGUAGE") or obj.lower_ in L.LANGUAGES:
                for s in subs:
                    self.c.emit(s, "SPEAKS", self.np(obj, drop_amod=True), v, rule="speak",
                                timed=False, tokens=[obj])

    def play(self, v: Any) -> None:
        c = self.c
        if v.dep_ in ("xcomp", "ccomp", "pcomp") and v.head.lemma_.lower() in (
            L.LIKE_VERBS | L.DISLIKE_VERBS | L.PLAN_VERBS
        ):
            return
        f = c.flags(v)
        if f.past and not f.perfect:
            return
        subs, _ = self.subjects(v)
        dobj = _child(v, "dobj")
        if dobj is None or dobj.pos_ == "PRON" or dobj.lemma_.lower() in L.NOT_HOBBIES:
            return
        if _et(dobj) in ("PERSON", "ORG") and dobj.pos_ == "PROPN":
            return
        for obj, _neg in _coord(dobj):
            for s in subs:
                c.emit(s, "HAS_HOBBY", self.np(obj, drop_amod=True), v, rule="play",
                       timed=False, tokens=[obj], confidence=0.7)

    def report(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("to",)):
            if o.pos_ == "PROPN" or _et(o) == "PERSON":
                for s in subs:
                    self.c.emit(s, "REPORTS_TO", self.c.name_of(o), v, rule="report_to",
                                tokens=[o])

    def turn(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for o in _children(v, ("dobj", "attr", "oprd", "npadvmod")):
            if o.like_num:
                for s in subs:
                    self.c.emit(s, "AGE", _num_text(o), v, rule="turned", timed=True,
                                tokens=[o])

    def teach(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("at",)):
            if self.entity_ok(o, "org") and (o.pos_ == "PROPN" or _et(o) == "ORG"):
                for s in subs:
                    self.c.emit(s, "WORKS_AT", self.np(o, keep_preps=("of",)), v,
                                confidence=0.75, rule="teach_at", tokens=[o])

    def finish(self, v: Any) -> None:
        dobj = _child(v, "dobj")
        if dobj is None or dobj.lemma_.lower() not in _DEGREE_WORDS:
            return
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("at", "from")) + _preps(dobj, ("at", "from")):
            if self.entity_ok(o, "org") and _et(o) not in ("GPE", "LOC", "PERSON"):
                for s in subs:
                    self.c.emit(s, "ATTENDED", self.np(o, keep_preps=("of",)), v,
                                rule="finished_degree_at", tokens=[o])

    def appoint(self, v: Any) -> None:
        """"Rosa was named head of sales", "I was appointed CTO"."""
        if not _child(v, ("auxpass", "nsubjpass")):
            return
        subs, _ = self.subjects(v)
        for o in _children(v, ("oprd", "attr", "xcomp", "dobj")):
            if o.pos_ in ("NOUN", "PROPN"):
                self.role_or_lead(subs, o, v, rule=f"{v.lemma_.lower()}_as")
        for prep, o in _preps(v, ("as", "to")):
            self.role_or_lead(subs, o, v, rule=f"{v.lemma_.lower()}_as")

    def pet_away(self, v: Any) -> None:
        """"We had to put our cat Oliver down", "I gave my rabbit away"."""
        lemma = v.lemma_.lower()
        prt = _child(v, ("prt", "advmod"), ("down", "away", "up"))
        if prt is None or (lemma == "put" and prt.lower_ != "down"):
            return
        dobj = _child(v, "dobj")
        if dobj is None or not _pet_noun(dobj):
            return
        subs, _ = self.subjects(v)
        owner = self.c.owner_of(dobj)
        who = [owner] if owner is not None else subs
        name = self.c.rel_name(dobj)
        if name is None and dobj.pos_ == "PROPN":
            name = dobj
        obj = self.c.name_of(name) if name is not None else self.np(dobj, drop_amod=True)
        for s in who:
            self.c.emit(s, "HAS_PET", obj, v, kind="end", rule=f"{lemma}_{prt.lower_}_pet",
                        tokens=[dobj])

    def belong(self, v: Any) -> None:
        subs, _ = self.subjects(v)
        for prep, o in _preps(v, ("to",)):
            if o.lemma_.lower() in L.CLUB_NOUNS or _et(o) == "ORG":
                for s in subs:
                    self.c.emit(s, "MEMBER_OF", self.np(o), v, rule="belong_to", tokens=[o])


_NUM_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
              "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
              "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
              "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


_VAGUE_ADV = frozenset({"someday", "eventually", "soon", "really", "definitely", "finally",
                        "maybe", "probably", "also", "too", "again", "sometime", "ever"})

_DEPARTMENTS = frozenset(
    {"engineering", "marketing", "sales", "product", "design", "finance", "operations", "hr",
     "research", "legal", "it", "data", "growth", "people", "support", "technology", "security",
     "infrastructure", "communications", "strategy", "partnerships", "content", "analytics",
     "platform", "procurement", "compliance", "accounting", "development", "education",
     "admissions", "nursing", "surgery", "medicine", "radiology", "pediatrics", "customer"}
)

_EVENT_PREDICATES = frozenset({"VISITED", "ATTENDED", "PLANS"})

_DEGREE_WORDS = frozenset(
    {"degree", "phd", "master", "masters", "bachelor", "bachelors", "mba", "doctorate",
     "studies", "diploma", "undergrad", "thesis", "dissertation", "program", "programme",
     "course", "bootcamp", "residency"}
)


def _num_text(tok: Any) -> str | None:
    """Digits for an age ("34", "five" -> "5"); None unless a plausible age (2..120)."""
    low = tok.lower_
    if low in _NUM_WORDS:
        value = _NUM_WORDS[low]
    elif low.isdigit():
        value = int(low)
    else:
        return None
    return str(value) if 2 <= value <= 120 else None


def _et(tok: Any) -> str:
    """Entity label of a token, corrected by the small gazetteers (and the use_gazetteer
    switch)."""
    label = tok.ent_type_
    if not _GAZETTEER[0]:
        return label
    low = tok.lower_
    if low in L.KNOWN_ORGS:
        return "ORG"
    if low in L.KNOWN_PRODUCTS:
        return "PRODUCT"
    if tok.ent_iob_ != "O":
        doc = tok.doc
        m = doc.user_data.get("kgmem_ent_text")
        if m is None:
            m = {}
            for ent in doc.ents:
                txt = ent.text.lower()
                if txt.startswith("the "):
                    txt = txt[4:]
                for t in ent:
                    m[t.i] = txt
            doc.user_data["kgmem_ent_text"] = m
        txt = m.get(tok.i)
        if txt in L.KNOWN_ORGS:
            return "ORG"
        if txt in L.KNOWN_PRODUCTS:
            return "PRODUCT"
    return label


_GAZETTEER = [True]


def set_gazetteer(enabled: bool) -> None:
    """Switch the small company/software gazetteers on or off (process-wide; for evaluation).

    They correct common NER mistakes ("Spotify" tagged GPE); the evaluation reports scores
    with and without them because a list of famous names can flatter a benchmark."""
    _GAZETTEER[0] = bool(enabled)


_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "aunt", "uncle"})

_PREMODIFIERS = frozenset(
    {"ex", "-", "ex-", "former", "late", "best", "old", "new", "little", "big", "older",
     "younger", "dear", "twin", "oldest", "youngest", "baby", "step", "good", "close", "sweet"}
)

_NOT_NAMES = frozenset(
    {"work", "life", "music", "coffee", "tea", "food", "school", "college", "home", "family",
     "everyone", "everybody", "nobody", "someone", "today", "tomorrow", "yesterday", "mom",
     "dad", "mum", "grandma", "grandpa", "honey", "babe", "dude", "bro", "man", "people",
     "things", "stuff", "nothing", "something", "everything", "weather", "traffic", "rain",
     "snow", "winter", "summer", "spring", "fall", "autumn", "breakfast", "lunch", "dinner",
     "money", "time", "love", "sleep", "travel", "running", "hiking", "cooking", "reading",
     "gaming", "yoga", "jazz", "pizza", "sushi", "ramen", "wine", "beer", "chocolate",
     "just", "also", "finally", "recently", "actually", "honestly", "basically", "anyway",
     "well", "so", "then", "now", "yeah", "yes", "no", "ok", "okay", "sure", "maybe", "still",
     "lately", "apparently", "unfortunately", "luckily", "sadly", "hopefully", "literally",
     "definitely", "probably", "seriously", "totally", "really", "currently", "eventually"}
)


def _looks_like_name(tok: Any) -> bool:
    """A capitalised word the tagger took for a common noun/adverb ("Alice lives ...",
    "Raj joined ..."): title case, no determiner or possessive, not a common word."""
    if not tok.is_title or tok.lower_ in _NOT_NAMES or tok.lower_ in L.UNRESOLVABLE_PRONOUNS:
        return False
    if tok.pos_ not in ("NOUN", "ADV", "ADJ", "X", "PROPN") or tok.tag_ in ("NNS",):
        return False
    if tok.lower_.endswith("ly") or (tok.lemma_.lower() in L.RELATION_NOUNS or tok.lemma_.lower() in L.PET_NOUNS):
        return False
    if any(c.dep_ in ("det", "poss", "amod", "prep") for c in tok.children):
        return False
    return tok.dep_ in ("nsubj", "nsubjpass", "advmod", "npadvmod", "compound")


def _named(tok: Any) -> Any | None:
    """"a startup called Loomly" -> the token Loomly."""
    for ch in tok.children:
        if ch.dep_ == "acl" and ch.lemma_ in ("name", "call"):
            for cc in ch.children:
                if cc.dep_ in ("oprd", "dobj", "attr", "xcomp") and cc.pos_ == "PROPN":
                    return cc
    return None


def _clean_ent(ent: Any) -> bool:
    """An entity span usable as one name (the NER sometimes swallows "Slack to Teams")."""
    for t in ent:
        if t.pos_ == "CCONJ" and t.text != "&":
            return False
        if t.pos_ == "ADP" and t.lower_ not in ("of", "de", "del", "da", "von", "van", "la"):
            return False
        if t.is_punct and t.text not in (".", "'", "-", "&"):
            return False
    return True


def _subtree_left(toks: list[Any]) -> list[Any]:
    out: list[Any] = []
    for t in toks:
        out.extend(t.subtree)
    return out


def _pet_noun(tok: Any) -> bool:
    lemma = tok.lemma_.lower()
    if any(c.lower_ in L.NOT_PET_MODIFIERS or c.lemma_.lower() in ("animal",)
           for c in tok.children if c.dep_ in ("amod", "compound")):
        return False
    if lemma in L.PET_NOUNS:
        return True
    return any(c.dep_ == "compound" and c.lemma_.lower() in L.PET_NOUNS for c in tok.children)


# surface forms the lemmatizer gets wrong in this model ("hates" -> "hat")
_LEMMA_FIX = {"hoping": "hope", "hoped": "hope", "hopes": "hope", "hates": "hate", "hated": "hate", "loves": "love", "likes": "like",
              "leads": "lead", "led": "lead", "uses": "use", "lived": "live", "lives": "live",
              "dating": "date", "dated": "date", "dates": "date", "quit": "quit",
              "left": "leave", "married": "marry", "moved": "move", "relocated": "relocate"}

_VERB_RULES: dict[str, Any] = {
    "live": _Rules.live, "reside": _Rules.live, "settle": _Rules.settle,
    "move": _Rules.move, "relocate": _Rules.move, "emigrate": _Rules.move,
    "work": _Rules.work, "join": _Rules.join, "start": _Rules.start, "begin": _Rules.start,
    "get": _Rules.get, "hire": _Rules.hire, "employ": _Rules.employ, "land": _Rules.land,
    "accept": _Rules.land, "sign": _Rules.sign, "quit": _Rules.quit, "leave": _Rules.quit,
    "lay": _Rules.ended_employment, "fire": _Rules.ended_employment,
    "retire": _Rules.ended_employment, "resign": _Rules.ended_employment,
    "promote": _Rules.promote, "become": _Rules.become,
    "lead": _Rules.lead, "manage": _Rules.lead, "run": _Rules.lead, "head": _Rules.lead,
    "oversee": _Rules.lead, "supervise": _Rules.lead, "direct": _Rules.lead,
    "chair": _Rules.lead, "own": _Rules.own, "captain": _Rules.lead,
    "take": _Rules.take, "step": _Rules.step,
    "marry": _Rules.marry, "wed": _Rules.marry, "divorce": _Rules.divorce, "date": _Rules.date,
    "see": _Rules.see, "break": _Rules.break_up, "split": _Rules.break_up,
    "have": _Rules.have, "adopt": _Rules.have, "rescue": _Rules.have, "foster": _Rules.have,
    "die": _Rules.pet_end, "pass": _Rules.pet_end,
    "obsess": _Rules.like_adj, "hook": _Rules.like_adj, "addict": _Rules.like_adj,
    "love": _Rules.like, "like": _Rules.like, "enjoy": _Rules.like, "adore": _Rules.like,
    "prefer": _Rules.like, "fancy": _Rules.like, "dig": _Rules.like,
    "hate": _Rules.like, "dislike": _Rules.like, "detest": _Rules.like, "loathe": _Rules.like,
    "despise": _Rules.like, "abhor": _Rules.like, "stand": _Rules.stand,
    "use": _Rules.use, "utilize": _Rules.use, "utilise": _Rules.use, "switch": _Rules.switch,
    "migrate": _Rules.switch, "rely": _Rules.rely, "code": _Rules.code,
    "program": _Rules.code, "write": _Rules.code, "develop": _Rules.code,
    "give": _Rules.stop, "ditch": _Rules.stop, "uninstall": _Rules.stop, "abandon": _Rules.stop,
    "plan": _Rules.plan, "intend": _Rules.plan, "hope": _Rules.plan, "want": _Rules.plan,
    "aim": _Rules.plan, "consider": _Rules.plan, "think": _Rules.plan, "wish": _Rules.plan,
    "go": _Rules.go, "visit": _Rules.visit, "travel": _Rules.visit, "fly": _Rules.visit,
    "tour": _Rules.visit, "spend": _Rules.spend, "return": _Rules.return_from,
    "come": _Rules.return_from,
    "study": _Rules.study, "do": _Rules.do, "graduate": _Rules.graduate,
    "attend": _Rules.attend, "speak": _Rules.speak, "play": _Rules.play,
    "practice": _Rules.play, "practise": _Rules.play, "report": _Rules.report,
    "teach": _Rules.teach, "finish": _Rules.finish, "complete": _Rules.finish,
    "name": _Rules.appoint, "appoint": _Rules.appoint, "elect": _Rules.appoint,
    "put": _Rules.pet_away, "delete": _Rules.stop, "cancel": _Rules.stop,
    "turn": _Rules.turn, "belong": _Rules.belong, "base": _Rules.based,
    "locate": _Rules.based,
}


def _dedupe(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """Keep one fact per (subject, predicate, object, kind): the dated / most confident one.

    An ``assert`` and a ``retract`` of the same triple from one utterance keep the retract
    ("I never said I had a dog" must not also assert the dog)."""
    best: dict[tuple, ExtractedFact] = {}
    order: list[tuple] = []
    for f in facts:
        k = f.key()
        cur = best.get(k)
        if cur is None:
            best[k] = f
            order.append(k)
            continue
        score_new = (f.valid_at is not None or f.invalid_at is not None, f.confidence)
        score_old = (cur.valid_at is not None or cur.invalid_at is not None, cur.confidence)
        if score_new > score_old:
            best[k] = f
    out = [best[k] for k in order]
    retracted = {(f.subject.lower(), f.predicate, f.object.lower()) for f in out
                 if f.kind in ("retract", "end")}
    return [
        f for f in out
        if not (f.kind == "assert" and (f.subject.lower(), f.predicate, f.object.lower())
                in retracted)
    ]


class OfflineExtractor:
    """Rule-based fact extractor over spaCy parses (no network, no LLM).

    The spaCy pipeline is loaded once, lazily, on first use (``kgmem.ingest.nlp.get_nlp``)
    unless ``nlp`` is given. ``extract`` handles one utterance; ``extract_many`` batches
    utterances through ``nlp.pipe`` (much faster). Both are pure: nothing is stored.
    """

    def __init__(self, nlp: Any = None, model: str | None = None, batch_size: int = 256) -> None:
        self._nlp = nlp
        self._model = model
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from .nlp import get_nlp

            self._nlp = get_nlp(self._model)
        return self._nlp

    def extract(
        self,
        text: str,
        reference_time: datetime,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[ExtractedFact]:
        """Extract facts from one utterance said at ``reference_time`` (naive = UTC).

        First-person pronouns resolve to ``speaker`` (or ``user`` if the speaker is missing or a
        generic label like "user"; else ``"user"``). ``valid_at``/``invalid_at`` are ``None``
        when the text has no date for the fact: the caller should default them to the
        episode's ``reference_time``.
        """
        if not text or not text.strip():
            return []
        doc = self.nlp(_prepare(text))
        return self.extract_doc(doc, reference_time, speaker, user)

    def extract_doc(
        self,
        doc: Any,
        reference_time: datetime,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[ExtractedFact]:
        """Like :meth:`extract` on an already parsed spaCy ``Doc``."""
        ref = to_utc(reference_time)
        who = resolve_speaker(speaker, user)
        is_assistant = bool(speaker and speaker.strip().lower() in ASSISTANT_SPEAKERS)
        ctx = _Ctx(doc, ref, who, is_assistant, user)
        try:
            _Rules(ctx).run()
        except (IndexError, AttributeError, KeyError, ValueError):  # pragma: no cover
            # A rule tripping over an odd parse must not lose the whole batch.
            pass
        return _dedupe(ctx.facts)

    def extract_many(
        self,
        items: Iterable[str | Mapping[str, Any] | tuple],
        reference_time: datetime | None = None,
        speaker: str | None = None,
        user: str | None = None,
        batch_size: int | None = None,
        n_process: int = 1,
    ) -> list[list[ExtractedFact]]:
        """Extract from many utterances with ``nlp.pipe``.

        Each item is a string (using the ``reference_time``/``speaker``/``user`` arguments), a
        mapping with ``text`` and optional ``reference_time``, ``speaker``, ``user``, or a tuple
        ``(text, reference_time[, speaker[, user]])``. Returns one list per item, in order.
        ``n_process > 1`` parses in worker processes (worth it only for large batches on an
        otherwise idle multi-core machine).
        """
        norm = [normalize_item(it, reference_time, speaker, user) for it in items]
        out: list[list[ExtractedFact]] = []
        texts = (_prepare(t) for t, _r, _s, _u in norm)
        docs = self.nlp.pipe(texts, batch_size=batch_size or self.batch_size,
                             n_process=max(1, int(n_process)))
        for (t, r, s, u), doc in zip(norm, docs):
            out.append(self.extract_doc(doc, r, s, u) if t.strip() else [])
        return out


def normalize_item(
    it: Any, reference_time: Any, speaker: str | None, user: str | None
) -> tuple[str, datetime, str | None, str | None]:
    """One extraction input (a string, a mapping with ``text``, or a tuple
    ``(text, reference_time[, speaker[, user]])``) as ``(text, reference_time, speaker, user)``;
    shared by every extractor's ``extract_many``."""
    if isinstance(it, str):
        t, r, s, u = it, reference_time, speaker, user
    elif isinstance(it, Mapping):
        t = it["text"]
        r = it.get("reference_time", reference_time)
        s = it.get("speaker", speaker)
        u = it.get("user", user)
    else:
        t = it[0]
        r = it[1] if len(it) > 1 else reference_time
        s = it[2] if len(it) > 2 else speaker
        u = it[3] if len(it) > 3 else user
    if r is None:
        raise ValueError("reference_time is required for every utterance")
    if isinstance(r, str):
        from kgmem.timeutil import parse_instant

        r = parse_instant(r, "reference_time")
    return t or "", r, s, u


_PREP_FIXES = [
    (re.compile(r"\bi'm\b"), "I'm"),
    (re.compile(r"\bim\b"), "I'm"),
    (re.compile(r"\bi've\b"), "I've"),
    (re.compile(r"\bi'd\b"), "I'd"),
    (re.compile(r"\bi'll\b"), "I'll"),
    (re.compile(r"\bi\b"), "I"),
    (re.compile(r"\bdont\b"), "don't"),
    (re.compile(r"\bcant\b"), "can't"),
]


def _prepare(text: str) -> str:
    """Light chat normalisation that keeps character offsets stable (same-length rewrites
    only, apart from 'im' -> "I'm" which is avoided when it would shift offsets)."""
    out = text.replace("’", "'")
    for pat, rep in _PREP_FIXES:
        out = pat.sub(functools.partial(_same_length_fix, rep), out)
    return out


def _same_length_fix(rep: str, m: re.Match[str]) -> str:
    return rep if len(rep) == len(m.group(0)) else m.group(0)
