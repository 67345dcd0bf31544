"""Life and health: allergies (ALLERGIC_TO), surgeries, injuries, accidents, breakups and
deaths in the family (EXPERIENCED, an event), an unnamed spouse (HAS_STATUS married), the
people one did something with ("Anthony and I went ...": KNOWS), and trips told as nouns ("a
vacation we had to California": VISITED)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..phrases import noun_phrase
from ..tree import child, governor, preps
from .events import took_place

if TYPE_CHECKING:
    from spacy.tokens import Token


def allergic(c: Context, acomp: Token, subs: list[Mention], v: Token) -> None:
    """"I'm allergic to most reptiles and animals with fur": one fact per allergen."""
    stray = [x for x in v.children if x.dep_ == "conj" and x.pos_ in ("VERB", "NOUN")
             and not any(ch.dep_ in ("nsubj", "dobj", "prep") for ch in x.children)]
    for _p, o in preps(acomp, ("to",)):
        # "allergic to peanuts and shellfish" with "shellfish" hung on the copula as a verb
        for obj in [o] + [x for x in o.conjuncts if x.i > o.i] + stray:
            if obj in stray:
                for s in subs:
                    c.emit(s, "ALLERGIC_TO", obj.lower_, v, rule="allergic_to", tokens=[obj],
                           timed=False)
                continue
            if obj.pos_ not in ("NOUN", "PROPN") or obj.i in c.time_tokens:
                continue
            text = noun_phrase(c, obj)
            if text.lower().startswith("most "):  # "most reptiles"
                text = text[5:]
            for s in subs:
                c.emit(s, "ALLERGIC_TO", text, v, rule="allergic_to", tokens=[obj], timed=False)


def life_event_noun(c: Context, noun: Token) -> None:
    """"I had knee surgery last month", "after my divorce", "after that tough breakup", "I was
    in a car accident": the speaker EXPERIENCED it (told in the first person)."""
    lemma = noun.lemma_.lower()
    if lemma not in L.LIFE_EVENT_NOUNS or noun.pos_ != "NOUN":
        return
    gov = governor(noun)
    if gov is None:
        return
    owner = c.owner_of(noun)
    subs: list[Mention]
    after = noun.dep_ == "pobj" and noun.head.lower_ in ("after", "since", "through", "from",
                                                         "before", "during")
    if owner is not None:
        subs = [owner]
    elif after and _first_person(c) and any(ch.lower_ in ("that", "the", "this")
                                            for ch in noun.children):
        subs = [c.speaker_mention()]  # "especially after that tough breakup"
    else:
        subs, _ = subjects(c, gov)
        subs = [s for s in subs if s.speaker or s.label == "PERSON"]
        # "had surgery", "went through a divorce", "was in an accident", "after that breakup"
        if not subs or not (gov.lemma_.lower() in ("have", "undergo", "get", "go", "be",
                                                   "survive", "recover", "need")
                            or noun.dep_ == "pobj" and noun.head.lower_ in (
                                "after", "since", "through", "from", "before", "during")):
            return
    f = c.flags(gov)
    if f.future or f.neg:
        return
    if not (f.past or f.perfect) and noun.dep_ != "pobj":
        return  # "I have surgery next week" is a plan, "I need surgery" not an event yet
    text = noun_phrase(c, noun, drop_amod=True)
    for s in subs:
        c.emit(s, "EXPERIENCED", text, gov, rule=f"{lemma}_event", tokens=[noun])


def injury(c: Context, v: Token) -> None:
    """"I broke my arm yesterday", "sprained my ankle": EXPERIENCED broken arm; "I injured
    myself": EXPERIENCED injury."""
    part = child(v, "dobj")
    lemma = v.lemma_.lower()
    hurt = lemma in ("injure", "hurt") and took_place(c, v) and (
        part is not None and part.lower_ == "myself"  # "I injured myself"
        or part is None and v.tag_ == "VBN" and child(v, "auxpass") is not None)  # "I got hurt"
    if hurt:
        subs, _ = subjects(c, v)
        for s in subs:
            if s.speaker:
                c.emit(s, "EXPERIENCED", "injury", v, rule="injured", tokens=[part or v])
        return
    if part is None or part.lemma_.lower() not in L.BODY_PARTS or lemma not in L.INJURY_VERBS:
        return
    owner = c.owner_of(part)
    if owner is None or not owner.speaker:
        return
    f = c.flags(v)
    if not (f.past or f.perfect):
        return
    subs, _ = subjects(c, v)
    for s in subs:
        if s.speaker:
            c.emit(s, "EXPERIENCED", f"{L.INJURY_VERBS[lemma]} {part.lemma_.lower()}", v,
                   rule="injury", tokens=[part])


def relative_died(c: Context, v: Token) -> None:
    """"My grandma passed away last week": the speaker EXPERIENCED the death of grandma."""
    lemma = v.lemma_.lower()
    if lemma not in L.DEATH_VERBS or (
            lemma == "pass" and not child(v, ("prt", "advmod"), ("away", "on"))):
        return
    subj = child(v, "nsubj")
    if subj is None or subj.lemma_.lower() not in L.RELATION_NOUNS:
        return
    owner = c.owner_of(subj)
    if owner is None or not owner.speaker:
        return
    name = c.rel_name(subj)
    who = c.name_of(name) if name is not None else subj.lemma_.lower()
    c.emit(owner, "EXPERIENCED", f"death of {who}", v, rule="relative_died", tokens=[subj])


def spouse_noun(c: Context, noun: Token) -> None:
    """"my wife and I", "my husband and kids" (no name): HAS_STATUS married; "my fiance":
    engaged."""
    lemma = noun.lemma_.lower()
    if lemma not in L.SPOUSE_NOUNS and lemma not in L.FIANCE_NOUNS:
        return
    owner = c.owner_of(noun)
    if owner is None and child(noun, "det", "the") is not None and _first_person(c) and (
            lemma in ("missus", "mrs") or (not preps(noun, ("of",)) and noun.tag_ == "NN" and (
                _with_the_kids(noun)))):
        owner = c.speaker_mention()  # "me, the missus, and the kids", "with the wife and kids"
    if owner is None or not owner.speaker or c.rel_name(noun) is not None:
        return  # a named one is relationships.relation_noun's
    prev = [noun.doc[j].lower_ for j in range(max(0, noun.i - 2), noun.i)]
    if any(ch.lower_ in L.ENDED_RELATION_MODIFIERS | {"future", "dream", "ideal", "next"}
           for ch in noun.children) or (prev and prev[-1] in (
               "ex", "ex-", "late", "former", "future")) or prev[-2:] == ["ex", "-"] or (
            noun.lower_.startswith("ex-")):
        return
    gov = governor(noun)
    status = "married" if lemma in L.SPOUSE_NOUNS else "engaged"
    c.emit(owner, "HAS_STATUS", status, gov, rule=f"my_{lemma}", timed=False, tokens=[noun])


def _thanks_for_being(v: Token) -> bool:
    """"Thanks for being ...", "thank you for being ..."."""
    prep = v.head if v.dep_ == "pcomp" else None
    return prep is not None and prep.lower_ == "for" and prep.head.lemma_.lower() in (
        "thank", "thanks")


def own_wedding(c: Context, noun: Token) -> None:
    """The speaker's own wedding, told as past: "my wedding decor", "my girlfriend and I had a
    wedding ceremony last week" (HAS_STATUS married, from the wedding's time when told)."""
    if noun.lemma_.lower() != "wedding":
        return
    phrase = noun.head if noun.dep_ == "compound" else noun  # "wedding ceremony"
    gov = governor(phrase)
    if gov is None:
        return
    f = c.flags(gov)
    if f.future or f.in_plan or f.hypothetical or f.neg:
        return
    owner = c.owner_of(noun) or (c.owner_of(phrase) if phrase is not noun else None)
    if owner is not None and owner.speaker and (f.past or f.perfect):
        c.emit(owner, "HAS_STATUS", "married", gov, rule="my_wedding", timed=False,
               tokens=[noun], confidence=0.7)
        return
    if owner is not None or phrase.dep_ != "dobj" or phrase.head != gov or (
            gov.lemma_.lower() not in ("have", "hold", "celebrate")) or not f.past or any(
            ch.dep_ in ("acl", "relcl") for ch in phrase.children):
        return  # "we had a wedding to go to" is someone else's
    subjects_ = [t for t in gov.children if t.dep_ == "nsubj"]  # "my girlfriend and I" may be two
    couple = subjects_ + [t for s in subjects_ for t in s.children if t.dep_ == "conj"]
    if any(t.lower_ in ("i", "we") for t in couple) and any(
            t.lemma_.lower() in L.PARTNER_NOUNS for t in couple):
        c.emit(c.speaker_mention(), "HAS_STATUS", "married", gov, rule="had_our_wedding",
               tokens=[noun], confidence=0.75)


_PAIR_VERBS = frozenset({"break", "split", "date", "marry", "divorce", "see", "separate",
                         "engage", "married", "divorced", "engaged", "wed", "part"})


def companions(c: Context, v: Token) -> None:
    """"Anthony and I went to a charity thing", "me and Sam": the speaker KNOWS the named
    person who did it with them."""
    subj = child(v, "nsubj")
    if subj is None or v.lemma_.lower() in _PAIR_VERBS or any(
            x.lemma_.lower() in _PAIR_VERBS for x in v.children if x.dep_ in ("xcomp", "acomp")):
        return  # "Lisa and I broke up", "Sam and I started dating": the relationship rules
    group = [subj] + [x for x in subj.conjuncts if x.i > subj.i]
    if subj.lower_ == "i" and subj.i >= 2 and c.doc[subj.i - 1].lower_ == "and":
        group.append(c.doc[subj.i - 2])  # "Jake and I went" with Jake parsed apart
    if not any(t.lower_ in ("i", "me") for t in group):
        return
    speaker = c.speaker_mention()
    for t in group:
        if t.pos_ == "PROPN" and ent_type(t) in ("PERSON", "") and t.lower_ not in ("i", "me"):
            c.emit(speaker, "KNOWS", c.name_of(t), v, rule="did_with", timed=False,
                   tokens=[t], confidence=0.7)


def trip_noun(c: Context, noun: Token) -> None:
    """"a special vacation we had to California", "our trip to Peru last year", "my Rocky
    Mountains trip", "I got the idea from that trip to England": VISITED (the trip is told as
    past)."""
    if noun.lemma_.lower() not in L.TRIP_NOUNS or noun.pos_ != "NOUN":
        return
    places = [o for _p, o in preps(noun, ("to", "in")) if ent_type(o) in ("GPE", "LOC")]
    places += [ch for ch in noun.children if ch.dep_ == "compound" and ch.pos_ == "PROPN"
               and ent_type(ch) in ("GPE", "LOC")]  # "my Rocky Mountains trip"
    rel = next((x for x in noun.children if x.dep_ == "relcl"), None)
    if rel is not None:  # "a vacation we had to California"
        places += [o for _p, o in preps(rel, ("to", "in")) if ent_type(o) in ("GPE", "LOC")]
    if not places:
        return
    owner = c.owner_of(noun)
    subs = [owner] if owner is not None else []
    anchor = rel if rel is not None else governor(noun)
    if not subs and rel is not None:
        subs, _ = subjects(c, rel)
    shown = _photo_from(noun)  # "I have a picture from a vacation in Florida": a past trip
    recalled = child(noun, "det", ("that",)) is not None  # "the idea came from that trip to X"
    if not subs and (shown is not None or recalled) and anchor is not None:
        subs = [s for s in subjects(c, anchor)[0] if s.speaker]
    if not subs or anchor is None:
        return
    f = c.flags(anchor)
    if shown is None and (not (f.past or f.perfect) or f.future):
        return
    for place in places:
        for s in subs:
            c.emit(s, "VISITED", noun_phrase(c, place), anchor, rule="trip_to", tokens=[place])


def _photo_from(noun: Token) -> Any:
    """The photo a trip noun is told as the source of ("a pic from my trip to Peru"), or None."""
    head = noun.head
    if noun.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ == "one" and (
            head.head.dep_ == "pobj"):
        noun, head = head.head, head.head.head  # "a pic from one of my trips to NYC"
    if noun.dep_ != "pobj" or head.lower_ != "from":
        return None
    if head.head.lemma_.lower() in L.PHOTO_NOUNS:
        return head.head
    # "I have a snapshot from a holiday": the parser may hang "from" on the verb
    return next((o for o in head.head.children
                 if o.dep_ == "dobj" and o.lemma_.lower() in L.PHOTO_NOUNS), None)


def _with_the_kids(noun: Token) -> bool:
    """"the wife and kids", "the husband and the kids": the speaker's own family."""
    return any(t.lemma_.lower() in L.KID_NOUNS for t in noun.conjuncts)


def _first_person(c: Context) -> bool:
    return any(t.lower_ in L.SPEAKER_PRONOUNS for t in c.doc)


_VALUE_VERBS = frozenset({"appreciate", "value", "love", "cherish", "treasure", "enjoy"})


def friendship(c: Context, noun: Token) -> None:
    """"I appreciate our friendship", "your friendship means a lot to me", "you're my best
    friend", "glad to have you as a friend": the speaker is a friend of the one they are talking
    to (known from the sitting)."""
    addressee = c.sitting.addressee(c.speaker) if c.sitting is not None else None
    if addressee is None:
        return
    gov = governor(noun)
    rule = _friendship_told(c, noun, gov) if gov is not None else None
    if rule is not None:
        c.emit(c.speaker_mention(), "FRIEND_OF", addressee, gov, rule=rule, timed=False,
               tokens=[noun], confidence=0.7)


def _friendship_told(c: Context, noun: Token, gov: Token) -> str | None:
    """Which form of "we are friends" the clause of ``gov`` tells (its rule name), if any."""
    lemma, glemma = noun.lemma_.lower(), gov.lemma_.lower()
    if lemma == "friendship":
        ours = any(ch.lower_ in ("our", "your") for ch in noun.children)
        valued = (noun.dep_ == "dobj" and glemma in _VALUE_VERBS) or (
            noun.dep_ == "nsubj" and glemma == "mean")  # "your friendship means a lot"
        return "our_friendship" if ours and valued else None
    if lemma != "friend":
        return None
    if noun.dep_ == "attr" and glemma == "be" and (
            _thanks_for_being(gov) or (noun.tag_ == "NNS" and child(gov, "nsubj", ("we",))
                                       is not None and not c.flags(gov).neg)):
        return "thanks_friend"  # "thanks for being a great friend", "glad we're friends"
    if noun.tag_ == "NNS" and any(o.lower_ == "you" for _p, o in preps(noun, ("like",))) and (
            glemma == "have" and not c.flags(gov).neg):
        return "friends_like_you"  # "so awesome to have friends like you"
    if noun.dep_ == "pobj" and noun.head.lower_ == "as" and glemma == "have" and (
            noun.head.head == gov and child(gov, "dobj", ("you",)) is not None):
        return "you_as_friend"  # "glad to have you as a friend"
    if noun.dep_ == "attr" and gov.lemma_ == "be" and any(
            ch.dep_ == "nsubj" and ch.lower_ == "you" for ch in gov.children) and not (
            c.flags(gov).neg) and noun.tag_ == "NN":
        if any(ch.dep_ == "poss" and ch.lower_ == "my" for ch in noun.children):
            return "you_my_friend"
        if any(ch.dep_ == "amod" for ch in noun.children) or any(
                o.lower_ == "me" for _p, o in preps(noun, ("to",))):
            return "you_a_friend"  # "You're a great friend to me", "you're such a good friend"
    return None
