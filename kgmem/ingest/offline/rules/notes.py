"""What an assistant must remember about its user (issue 31): diets (HAS_DIET), health
constraints (HAS_CONDITION), foods and drinks avoided (AVOIDS; an allergy told beside it is
ALLERGIC_TO instead), standing instructions (INSTRUCTION), decisions (DECIDED) and dates that
move (SCHEDULED_ON, functional: the new date supersedes the old).

These read one sentence at a time (:func:`sentence_notes`, called once per sentence), since
the short-model parse of such notes is often wrong ("gluten-free" as a verb, "cilantro" as an
adverb); every fact still goes through ``Context.emit`` anchored on the verb of its clause, so
the clause's modality decides whether it is stated (kgmem.ingest.discourse.modality).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ... import lexicon as L
from ...temporal import resolve_time
from ..context import Context
from ..mentions import Mention
from ..tree import governor, join_tokens

if TYPE_CHECKING:
    from datetime import datetime

    from spacy.tokens import Span, Token

DIETS = {"vegan": "vegan", "vegetarian": "vegetarian", "pescatarian": "pescatarian",
         "pescetarian": "pescatarian", "keto": "keto", "paleo": "paleo",
         "gluten-free": "gluten-free", "gluten free": "gluten-free",
         "dairy-free": "dairy-free", "dairy free": "dairy-free", "halal": "halal",
         "kosher": "kosher", "plant-based": "plant-based", "plant based": "plant-based",
         "low-carb": "low-carb", "low carb": "low-carb"}
CONDITIONS = ("type 1 diabetes", "type 2 diabetes", "diabetes", "asthma", "celiac disease",
              "coeliac disease", "epilepsy", "hypertension", "high blood pressure", "arthritis",
              "migraines", "crohn's disease", "lupus", "adhd", "anemia", "sleep apnea",
              "a heart condition", "ibs", "gout", "multiple sclerosis", "psoriasis", "eczema")
CONDITION_ADJ = {"diabetic": "diabetes", "asthmatic": "asthma", "celiac": "celiac disease",
                 "coeliac": "celiac disease", "epileptic": "epilepsy", "anemic": "anemia",
                 "anaemic": "anemia"}
_WORD_LIST = "|".join(sorted((re.escape(k) for k in DIETS), key=len, reverse=True))
_COND_LIST = "|".join(sorted((re.escape(k) for k in CONDITIONS), key=len, reverse=True))
_ADJ_LIST = "|".join(CONDITION_ADJ)
# "I'm vegan", "I am a strict vegetarian", "I'm on a keto diet", "I eat halal", "I follow a
# paleo diet"; what follows in the same clause is read for more ("... and dairy-free")
_I_AM = r"\b(?:I'm|I am|i'm|im|we're|we are)\b"
_DIET_OPEN = re.compile(
    rf"(?:{_I_AM}|\bI (?:eat|follow|keep)\b|\bI(?:'ve| have) (?:gone|been|become)\b|"
    rf"\bI used to (?:be|eat)\b|\bI(?:'ve| have)? (?:switched|changed|moved|gone|went|"
    rf"started|began|adopted|transitioned)(?: over)?(?: to| on)?\b)", re.I)
# ("I used to be vegan": a diet that ended; "I switched to a plant-based diet")
_DIET_WORD = re.compile(rf"(?<![\w-])({_WORD_LIST})(?![\w-])", re.I)
_CONDITION = re.compile(
    rf"\bI (?:have|'ve got|have got|suffer from|was diagnosed with|got diagnosed with|live "
    rf"with|deal with)\s+(?:(?:a|an|mild|severe|chronic|bad|some)\s+)*({_COND_LIST})\b", re.I)
_CONDITION_ADJ = re.compile(rf"{_I_AM}\s+(?:(?:a|also|now|type \d)\s+)*({_ADJ_LIST})\b", re.I)
_AVOID = re.compile(r"\bI\s+(?:don't|do not|never|can't|cannot|can not)\s+(?:eat|drink|"
                    r"consume|(?P<weak>have|handle|tolerate|digest))\s+(?:any\s+)?(?P<with>"
                    r"(?:anything|food|foods|something|dishes) (?:with|containing|made with)\s+)?"
                    r"(?P<obj>[A-Za-z][A-Za-z -]*?)(?=\s*(?:[,.;!?]|$|"
                    r"\b(?:and|because|since|anymore|so|but|either|at all)\b))", re.I)
_ALLERGIC_BARE = re.compile(rf"{_I_AM}\s+(?:(?:so|very|really|severely)\s+)*allergic"
                            r"(?!\s+to\b)", re.I)


# words that make "I can't have X" about food ("I can't have dairy, I'm lactose intolerant")
_FOOD_CUE = re.compile(r"\b(?:allerg\w*|intoleran\w*|diet\w*|eat\w*|food\w*|meal\w*|recipe\w*|"
                       r"dairy|gluten|lactose|sugar\w*|celiac|coeliac|vegan|vegetarian|drink\w*|"
                       r"diabet\w*|coffee|caffeine|alcohol|meat|soda|candy|sweets|snacks?|carbs?|"
                       r"wine|beer)\b", re.I)
# "I avoid sugary drinks", "I quit coffee two weeks ago", "I gave up meat": food or drink only
_AVOID_VERB = re.compile(r"\bI\s+(?:(?:try to|mostly|always|now|also)\s+)?(?:avoid|quit|gave up|"
                         r"cut out|stopped (?:eating|drinking))\s+(?P<obj>[A-Za-z][A-Za-z -]*?)"
                         r"(?=\s*(?:[,.;!?]|$|\b(?:and|because|since|so|but|two|a|last|this|"
                         r"for|\d)\b))", re.I)


def sentence_notes(c: Context, sent: Span) -> None:
    """Every note kind of one sentence."""
    if c.assistant:
        return
    text = sent.text
    diets(c, sent, text)
    conditions(c, sent, text)
    allergy_nouns(c, sent, text)
    now_instead(c, sent, text)
    avoided(c, sent, text)
    instruction(c, sent)
    decision(c, sent)
    rather_not(c, sent)


def _tok_at(sent: Span, offset: int) -> Token | None:
    """The token of ``sent`` at character ``offset`` of the sentence text."""
    pos = sent.start_char + offset
    return next((t for t in sent if t.idx <= pos < t.idx + max(len(t.text), 1)), None)


def _anchor(tok: Token | None) -> Token | None:
    return governor(tok) if tok is not None else None


def _stated(c: Context, anchor: Token | None) -> bool:
    """The clause asserts, not negated ("I'm not vegan" states no diet)."""
    return anchor is not None and not c.flags(anchor).neg


def diets(c: Context, sent: Span, text: str) -> None:
    """"I'm vegan", "I'm a strict vegetarian", "I'm gluten-free and lactose intolerant", "I'm
    on a keto diet": a diet word right after the opener, or coordinated with what follows it
    ("and vegetarian"); never one that qualifies a noun ("dairy-free flavors")."""
    for m in _DIET_OPEN.finditer(text):
        clause_end = _clause_end(text, m.end())
        for w in _DIET_WORD.finditer(text, m.end(), clause_end):
            between = text[m.end():w.start()].strip().lower()
            lead = re.fullmatch(r"(?:(?:a|an|on a|on an|strictly|fully|mostly|now|also|still|"
                                r"totally|completely|pretty much|basically|mainly)\s*)*",
                                between)
            coordinated = len(between.split()) <= 4 and re.search(
                r"(?:\band|,)\s*(?:(?:a|an|also)\s+)?$", between)
            if lead is None and coordinated is None:
                continue
            word = _tok_at(sent, w.start())
            after = re.match(r"[\s-]*(\w+)", text[w.end():])
            if after is not None and after.group(1).lower() not in ("diet", "lifestyle", "and",
                                                                   "or", "now", "too", "but"):
                nxt = _tok_at(sent, w.end() + after.start(1))
                if nxt is not None and nxt.pos_ in ("NOUN", "PROPN"):
                    continue  # "dairy-free flavors", "vegan recipes"
            anchor = _anchor(_tok_at(sent, m.start()))
            if not _stated(c, anchor):
                continue
            over = m.group(0).lower().startswith("i used to")  # "I used to be vegan"
            c.emit(c.speaker_mention(), "HAS_DIET", DIETS[w.group(1).lower()], anchor,
                   kind="end" if over else "assert", rule="diet", tokens=[word])


def _clause_end(text: str, start: int) -> int:
    """Where the clause starting at ``start`` ends: a stop, a dash, or a new subject (", it",
    ", I", "but", "though")."""
    m = re.compile(r"[.;!?]|\s[-–—]\s|,\s*(?:but|though|so|I|it|he|she|they|you|"
                   r"and I)\b|\b(?:but|though|except|since|because|when|if)\b",
                   re.I).search(text, start)
    return m.start() if m else len(text)


# "I have a peanut allergy", "I've got a severe shellfish allergy": the allergen before the noun
_ALLERGY_NOUN = re.compile(
    r"\bI(?: have|'ve got| have got| live with| suffer from)\s+(?:an?\s+)?(?:(?:severe|mild|bad|"
    r"serious|slight|bit of an?|life-threatening)\s+)*(?P<obj>[a-z]+(?:[ -][a-z]+)?) allerg(?:y|ies)\b",
    re.I)


# "I'm allergic to shellfish" read from the surface, since the parser sometimes takes the
# allergen for a verb ("allergic to shellfish": shellfish/VB)
_ALLERGIC_TO = re.compile(rf"{_I_AM}\s+(?:(?:so|very|really|severely|also|deathly)\s+)*allergic"
                          r"\s+to\s+(?P<obj>[a-z][a-z-]*(?: [a-z][a-z-]*)?)(?=\s*(?:[,.;!?]|$|"
                          r"\b(?:and|but|so|too|as well)\b))", re.I)


def allergy_nouns(c: Context, sent: Span, text: str) -> None:
    """"I have a peanut allergy" (ALLERGIC_TO peanut), as "I'm allergic to peanuts" does."""
    for m in _ALLERGIC_TO.finditer(text):
        obj_tok = _tok_at(sent, m.start("obj"))
        anchor = _anchor(_tok_at(sent, m.start()))
        if obj_tok is None or m.group("obj").lower() in L.NOT_LIKES or not _stated(c, anchor):
            continue
        c.emit(c.speaker_mention(), "ALLERGIC_TO", m.group("obj").lower(), anchor,
               rule="allergic_to_text", timed=False, tokens=[obj_tok],
               attributes={"kind": "health"})
    for m in _ALLERGY_NOUN.finditer(text):
        obj_tok = _tok_at(sent, m.start("obj"))
        if obj_tok is None or obj_tok.pos_ not in ("NOUN", "PROPN", "ADJ") or (
                obj_tok.lower_ in L.NOT_LIKES or obj_tok.lower_ in ("food", "an", "a", "some")):
            continue
        anchor = _anchor(_tok_at(sent, m.start() + 2))
        if not _stated(c, anchor):
            continue
        c.emit(c.speaker_mention(), "ALLERGIC_TO", m.group("obj").lower(), anchor,
               rule="allergy_noun", timed=False, tokens=[obj_tok],
               attributes={"kind": "health"})


def conditions(c: Context, sent: Span, text: str) -> None:
    """"I have type 1 diabetes", "I'm diabetic", "I was diagnosed with asthma"."""
    found: list[tuple[int, str]] = [(m.start(), m.group(1).lower())
                                    for m in _CONDITION.finditer(text)]
    found += [(m.start(), CONDITION_ADJ[m.group(1).lower()])
              for m in _CONDITION_ADJ.finditer(text)]
    for start, what in found:
        anchor = _anchor(_tok_at(sent, start))
        if not _stated(c, anchor):
            continue
        what = {"coeliac disease": "celiac disease"}.get(what, what)
        what = what[2:] if what.startswith("a ") else what
        c.emit(c.speaker_mention(), "HAS_CONDITION", what, anchor, rule="condition",
               attributes={"kind": "health"})


def avoided(c: Context, sent: Span, text: str) -> None:
    """"I don't eat pork", "I can't drink milk"; "I can't eat shellfish, I'm allergic": the
    allergy, not the avoidance."""
    allergy = _ALLERGIC_BARE.search(text) is not None
    for m in _AVOID_VERB.finditer(text):
        obj = m.group("obj").strip()
        obj_tok = _tok_at(sent, m.start("obj"))
        if not _FOOD_CUE.search(obj) or obj_tok is None or len(obj.split()) > 3 or (
                obj_tok.i in c.time_tokens):
            continue
        anchor = _anchor(_tok_at(sent, m.start() + 2))
        if not _stated(c, anchor):
            continue
        c.emit(c.speaker_mention(), "AVOIDS", obj.lower(), anchor, rule="avoids_verb",
               negatable=False, timed=False, tokens=[obj_tok])
    for m in _AVOID.finditer(text):
        if m.group("weak") and not m.group("with") and not _FOOD_CUE.search(text):
            continue  # "I can't handle stress", "I never have time": food only when it says so
        obj = m.group("obj").strip()
        obj_tok = _tok_at(sent, m.start("obj"))
        if not obj or obj.lower() in L.NOT_LIKES or obj_tok is None or obj_tok.pos_ not in (
                "NOUN", "PROPN", "ADJ") or obj_tok.i in c.time_tokens or len(obj.split()) > 3:
            continue
        anchor = _anchor(_tok_at(sent, m.start() + 2))
        if anchor is None or c.flags(anchor).past:
            continue
        c.emit(c.speaker_mention(), "ALLERGIC_TO" if allergy else "AVOIDS", obj.lower(), anchor,
               rule="allergic_avoids" if allergy else "avoids", negatable=False, timed=False,
               tokens=[obj_tok])


# nouns that make an imperative a standing instruction to an assistant ("keep your answers
# short", "use metric units", "no emojis in replies")
RESPONSE_NOUNS = frozenset({"answer", "reply", "response", "message", "summary", "email",
                            "explanation", "unit", "emoji", "bullet", "output", "tone",
                            "format", "language", "recap", "draft"})
RESPONSE_VERBS = frozenset({"answer", "reply", "respond"})
# contact and calendar verbs: an instruction when it is a standing one ("never", "always",
# "don't"): "Don't call me before 10am", "Never schedule anything on Fridays"
STANDING_VERBS = frozenset({"call", "text", "email", "message", "schedule", "book", "remind",
                            "wake", "contact", "ping", "disturb", "bother", "suggest",
                            "recommend", "mention", "use", "include", "send"})
_OPENERS = frozenset({"please", "always", "never", "also", "and", "so", "just", "kindly",
                      "from", "now", "on", "going", "forward", "in", "future", "the",
                      "do", "n't", "not", "oh", "ok", "okay", "hey", "hi", ","})


def _imperative(sent: Span) -> Token | None:
    """The root verb of an imperative sentence (a bare verb with no subject, first after
    "please", "always", "never", "don't"...)."""
    root = sent.root
    first = next((t for t in sent if t.lower_ not in _OPENERS and t.dep_ not in ("intj", "punct")),
                 None)
    if first is not None and first.lower_ in RESPONSE_VERBS and first.pos_ in (
            "NOUN", "PROPN", "VERB"):  # "Reply in English, please." with "Reply" a noun
        return None if any(ch.dep_ in ("nsubj", "nsubjpass") for ch in first.children) else first
    # (a past form tagged VB is a dropped "I": "Got an email about a gig")
    if root.pos_ != "VERB" or root.tag_ != "VB" or root.lower_ in L.PAST_FORMS or any(
            ch.dep_ in ("nsubj", "nsubjpass", "expl") for ch in root.children):
        return None
    before = [t for t in sent if t.i < root.i]
    if any(t.lower_ not in _OPENERS and t.dep_ not in ("intj", "punct") for t in before):
        return None
    return root


def _joined_imperative(sent: Span) -> Token | None:
    """An imperative opening a sentence the parser rooted elsewhere ("Don't suggest seafood
    restaurants, I'm allergic to shellfish"), or joined to a statement by ", so": "I'm a night
    owl, so don't
    schedule calls before noon", "I'm lactose intolerant, so please suggest recipes without
    dairy" (nothing but openers between the joint and the verb)."""
    for tok in sent:
        if tok.pos_ != "VERB" or tok.tag_ != "VB" or tok.dep_ not in (
                "conj", "parataxis", "ccomp", "advcl", "ROOT") or any(
                ch.dep_ in ("nsubj", "nsubjpass", "expl", "mark") or (
                    ch.dep_ == "aux" and ch.lower_ not in ("do", "n't", "not"))
                for ch in tok.children):
            continue
        if all(t.lower_ in _OPENERS or t.dep_ in ("neg", "aux", "punct", "intj")
               for t in tok.doc[sent.start:tok.i]) and tok.dep_ != "ROOT":
            return tok  # it opens the sentence: "Don't suggest seafood places, I'm allergic"
        before = [t for t in tok.doc[max(sent.start, tok.i - 4):tok.i]]
        joint = next((i for i, t in enumerate(before) if t.lower_ == "so" and i > 0
                      and before[i - 1].text == ","), None)
        if joint is not None and all(t.lower_ in _OPENERS or t.dep_ in ("neg", "aux", "punct")
                                     for t in before[joint:]):
            return tok
    return None


def instruction(c: Context, sent: Span) -> None:
    """A standing instruction ("Please keep your answers short and in German", "Always answer
    in Spanish", "Don't use emojis in your replies"): one fact per coordinated part."""
    root = _imperative(sent) or _joined_imperative(sent)
    if root is None or root.lemma_.lower() in ("let", "check", "take") or (
            root.lemma_.lower() == "keep" and any(ch.lower_ in ("me", "us", "it", "up")
                                                  for ch in root.children)):
        return  # "Let me know", "Keep me posted", "Keep it up", "Check it out"
    parts = _parts(root)
    words = [t for part in parts for t in part]
    nouns = {t.lemma_.lower() for t in words if t.pos_ in ("NOUN", "PROPN")}
    lang = any(t.lower_ in L.LANGUAGES and t.head.lower_ == "in" for t in words)
    standing = any(t.lower_ in ("never", "always", "n't", "not") for t in sent) or (
        root.lemma_.lower() in ("avoid", "stop")) or any(
        t.lower_ in ("from", "going") and t.nbor(1).lower_ in ("now", "forward")
        for t in sent if t.i + 1 < sent.end)
    strong = root.lemma_.lower() in RESPONSE_VERBS or bool(nouns & RESPONSE_NOUNS) or lang
    # "Avoid booking me into hotels without a gym": the standing verb under avoid/stop
    verbs = {root.lemma_.lower()} | ({ch.lemma_.lower() for ch in root.children
                                      if ch.dep_ == "xcomp"} if root.lemma_.lower() in (
                                          "avoid", "stop") else set())
    if not (strong or (standing and verbs & STANDING_VERBS)):
        return
    for part in parts:
        text = _clean_instruction(part)
        if text:
            c.emit(c.speaker_mention(), "INSTRUCTION", text, root, rule="instruction",
                   negatable=False, timed=False)


def _parts(root: Token) -> list[list[Token]]:
    """The tokens of each coordinated instruction: "keep your answers short and in German" ->
    "keep your answers short", "keep your answers in German"; "keep answers brief, and use
    metric units" -> two."""
    # (a conjunct with its own subject is a statement: "Keep going and you'll find the answer")
    verbs = [root] + [v for v in root.conjuncts if v.pos_ == "VERB" and v.i > root.i
                      and not any(ch.dep_ in ("nsubj", "nsubjpass") for ch in v.children)]
    out: list[list[Token]] = []
    later = {t.i for w in root.conjuncts if w.i > root.i for t in w.subtree}
    for v in verbs:
        own = [t for t in v.subtree if v.i != root.i or t.i not in later]
        comp = next((ch for ch in v.children if ch.dep_ in ("oprd", "acomp", "prep", "dobj")
                     and any(x.dep_ == "conj" for x in ch.children)), None)
        if comp is None:
            out.append(own)
            continue
        members = [comp] + [x for x in comp.conjuncts if x.i > comp.i]
        member_toks = {t.i for m in members for t in m.subtree}
        base = [t for t in own if t.i not in member_toks and not (
            t.dep_ == "cc" and t.head in members)]
        for m in members:
            own_ids = {t.i for t in m.subtree}
            # the members coordinated under this one ("short, friendly and in Spanish")
            others = {t.i for x in members if x.i != m.i and x.i in own_ids for t in x.subtree}
            mine = [t for t in m.subtree if t.i not in others and not (
                t.dep_ == "cc" and t.head.i in {x.i for x in members})]
            out.append(sorted(base + mine, key=lambda t: t.i))
    return out


def _clean_instruction(tokens: list[Token]) -> str:
    toks = [t for t in sorted({t.i: t for t in tokens}.values(), key=lambda t: t.i)
            if t.dep_ not in ("intj", "punct") and t.lower_ not in ("please", "kindly")]
    text = join_tokens(toks)
    text = re.sub(r"\b(?:from now on|going forward|in future|in the future)\b", "", text,
                  flags=re.I)
    text = re.sub(r"\s+", " ", text).strip(" ,.")
    text = re.sub(r"(?:\s*,)?\s+(?:and|or|but)$", "", text, flags=re.I)
    text = re.sub(r"^(?:also|just|and|so)\s+", "", text, flags=re.I)
    return text[:1].lower() + text[1:] if text else ""


DECISION_VERBS = frozenset({"agree", "decide", "settle", "commit", "resolve", "choose", "vote"})


# "our team agreed to ...": a group the speaker is in decides as "we" does
_OUR_GROUPS = frozenset({"team", "group", "family", "board", "committee", "department", "class",
                         "company", "club", "household"})


def decision(c: Context, sent: Span) -> None:
    """"We agreed to send the report every Monday", "we decided to book the lake house",
    "we've agreed on a weekly summary": DECIDED, said for the speaker. A decision is a
    group's ("we") or an agreement; "I decided to ..." is left to the rules of what was
    decided (a move, a new job)."""
    for v in sent:
        lemma = v.lemma_.lower()
        if v.pos_ != "VERB" or lemma not in DECISION_VERBS:
            continue
        subj = next((ch for ch in v.children if ch.dep_ == "nsubj"), None)
        ours = subj is not None and subj.lemma_.lower() in _OUR_GROUPS and any(
            ch.dep_ == "poss" and ch.lower_ == "our" for ch in subj.children)
        if subj is None or (subj.lower_ not in ("we", "i") and not ours) or (
                subj.lower_ == "i" and lemma != "agree"):
            continue
        f = c.flags(v)
        if not (f.past or f.perfect):
            continue  # taken: "we decided", "we've agreed" (not "we're still deciding")
        # what was agreed or decided: "to send the report", "on a weekly summary" (not "I
        # agree that education is key": an opinion shared)
        what = next((ch for ch in v.children if ch.dep_ == "xcomp"), None)
        toks: list[Token] = []
        if what is not None:
            toks = [t for t in what.subtree if not (t.dep_ == "aux" and t.lower_ == "to"
                                                    and t.head.i == what.i)]
        else:
            prep = next((ch for ch in v.children if ch.dep_ == "prep"
                         and ch.lower_ in ("to", "on", "upon")), None)
            if prep is not None:
                toks = [t for t in prep.subtree if t.i != prep.i]
        text = join_tokens([t for t in toks if t.dep_ != "punct"]).strip()
        if len(text.split()) < 2 or len(text) > 120:
            continue
        c.emit(c.speaker_mention(), "DECIDED", text, v, rule=f"decided_{lemma}", timed=False,
               tokens=toks[:1])


def rather_not(c: Context, sent: Span) -> None:
    """"I'd rather not have meetings on Fridays": DISLIKES what follows."""
    for v in sent:
        if v.pos_ != "VERB" or not any(ch.lower_ == "rather" for ch in v.children) or not any(
                ch.dep_ == "neg" for ch in v.children):
            continue
        subj = next((ch for ch in v.children if ch.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ != "i":
            continue
        obj = next((ch for ch in v.children if ch.dep_ == "dobj"), None)
        toks = [t for ch in v.children if ch.dep_ in ("dobj", "prep", "npadvmod")
                for t in ch.subtree]
        if obj is None or obj.pos_ == "PRON" or not toks:
            continue
        text = join_tokens(toks)
        # a wish-like form ("would rather"), but a standing preference: emitted as a phrase
        c.emit(c.speaker_mention(), "DISLIKES", text, None, rule="rather_not", timed=False,
               tokens=[obj])


# ------------------------------------------------------------------ dates that move
SCHEDULE_NOUNS = frozenset({"launch", "deadline", "meeting", "offsite", "release", "demo",
                            "cleaning", "checkup", "check-up", "consultation", "session",
                            "hearing", "visit", "trip", "appointment",
                            "appointment", "interview", "wedding", "party", "flight",
                            "conference", "call", "review", "presentation", "exam", "surgery",
                            "standup", "kickoff", "deployment", "delivery", "event",
                            "ceremony", "concert", "dinner", "retreat", "workshop",
                            "webinar", "sprint", "trip", "move", "closing", "hearing",
                            "checkup", "check-up", "session", "class", "game", "match",
                            "premiere", "opening", "date"})
RESCHEDULE_VERBS = frozenset({"move", "push", "postpone", "reschedule", "delay", "bring",
                              "shift", "change", "slip", "bump", "pull"})
_FROM_TO = re.compile(r"\bfrom\s+(?P<old>[^,.;]+?)\s+(?:to|until|till)\s+(?P<new>[^,.;!?]+)",
                      re.I)
_TO = re.compile(r"\b(?:to|until|till|for)\s+(?P<new>[^,.;!?]+)", re.I)


def date_moved(c: Context, v: Token) -> None:
    """"The launch date moved from June 3 to July 10", "the deadline moved to April 15", "the
    board meeting has been pushed back to June 20": ``launch SCHEDULED_ON 2024-07-10``
    (functional, so it supersedes the date held before)."""
    # the noun subject nearest the verb ("Hi Anna, the board meeting has been pushed back"),
    # or what someone moved ("they moved the meeting to Friday")
    subj = next((ch for ch in reversed(list(v.lefts)) if ch.dep_ in ("nsubj", "nsubjpass")),
                None)
    if subj is None or subj.pos_ != "NOUN" or _event_name(subj) is None:
        subj = next((ch for ch in v.rights if ch.dep_ == "dobj" and ch.pos_ == "NOUN"), None)
    if subj is None:
        return
    name = _event_name(subj)
    if name is None:
        return
    rest = v.doc.text[v.idx + len(v.text):v.sent.end_char]
    m = _FROM_TO.search(rest)
    old = None
    if m is not None:
        old = _near(m.group("old"), c.ref)
        new = _after(m.group("new"), old) if old is not None else None
    else:
        m2 = _TO.search(rest)
        new = _after(m2.group("new"), c.ref) if m2 is not None else None
    if new is None:
        return
    when, precision = new
    obj = when.strftime("%Y-%m-%d" if precision == "day" else "%Y-%m")
    c.emit(Mention(name, token=subj), "SCHEDULED_ON", obj, v, rule="date_moved",
           negatable=False, timed=False, tokens=[subj])


# "The kickoff is now on September 9 instead of September 2"
_NOW_INSTEAD = re.compile(
    r"\b(?:is|'s|has been) now (?:on|set for|scheduled for|happening on|planned for)\s+"
    r"(?P<new>[^,.;!?]+?)\s+(?:instead of|rather than)\s+(?P<old>[^,.;!?]+)", re.I)


def now_instead(c: Context, sent: Span, text: str) -> None:
    """A date that changed, told with "now ... instead of": the new date (functional
    SCHEDULED_ON, as a moved date)."""
    for m in _NOW_INSTEAD.finditer(text):
        verb = _tok_at(sent, m.start())
        subj = next((ch for ch in verb.children if ch.dep_ == "nsubj"), None) if verb else None
        name = _event_name(subj) if subj is not None and subj.pos_ == "NOUN" else None
        old = _near(m.group("old"), c.ref)
        new = _after(m.group("new"), old) if old is not None else None
        if name is None or new is None or subj is None:
            continue
        when, precision = new
        c.emit(Mention(name, token=subj), "SCHEDULED_ON",
               when.strftime("%Y-%m-%d" if precision == "day" else "%Y-%m"), verb,
               rule="date_now_instead", negatable=False, timed=False, tokens=[subj])


def _event_name(subj: Token) -> str | None:
    head = subj.lemma_.lower()
    comps = [ch for ch in subj.children if ch.dep_ in ("compound", "amod") and ch.i < subj.i
             and ch.pos_ in ("NOUN", "PROPN", "ADJ")]
    if head in ("date", "day", "time") and comps:
        return " ".join(t.lower_ for t in comps)
    if head not in SCHEDULE_NOUNS or head == "date":
        return None
    if any(ch.dep_ == "poss" and ch.lower_ not in ("my", "our") for ch in subj.children):
        return None  # "her surgery": someone else's
    return " ".join([t.lower_ for t in comps] + [subj.lower_])


def _near(text: str, ref: datetime) -> datetime | None:
    """A date told without a year: the occurrence nearest the reference time."""
    past = resolve_time(text.strip(), ref)
    fut = resolve_time(text.strip(), ref, prefer="future")
    cands = [r.start for r in (past, fut) if r is not None and r.relation == "at"]
    return min(cands, key=lambda d: abs((d - ref).total_seconds())) if cands else None


def _after(text: str, since: datetime) -> tuple[datetime, str] | None:
    """The first occurrence of a date at or after ``since`` (a new date is ahead)."""
    r = resolve_time(text.strip(), since, prefer="future")
    if r is None or r.relation != "at" or r.precision.value not in ("day", "month"):
        return None
    return r.start, r.precision.value
