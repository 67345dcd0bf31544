"""Events one went to or took part in (ATTENDED) and places visited (VISITED): "went to a
support group", "went on a road trip", "went camping", "ran a charity race", "competed in a
tournament", "had a blast at the fair", "was at the concert", "visited a community center".

These are events (:data:`kgmem.ingest.lexicon.EVENT_PREDICATES`): ``Context.emit`` dates them
over the period their time names. Only past or perfect clauses state them; a future one is a
plan (``travel.go``), a negated one nothing ("I missed the parade", "didn't make it")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import lexicon as L
from ..context import Context
from ..entities import ent_type
from ..mentions import Mention, subjects
from ..phrases import noun_phrase
from ..tree import child, coord, join_tokens, preps

if TYPE_CHECKING:
    from spacy.tokens import Token

_KEEP = ("for", "of", "on")


def is_event(tok: Token) -> bool:
    """An event noun ("concert", "road trip", "support group", a named EVENT entity)."""
    lemma = tok.lemma_.lower()
    if tok.pos_ not in ("NOUN", "PROPN", "ADJ"):
        return False
    if lemma in L.EVENT_NOUNS or tok.lower_ in L.EVENT_NOUNS or ent_type(tok) == "EVENT":
        return True
    if lemma in L.EVENT_HEADS and any(
        ch.dep_ in ("compound", "amod") and ch.lemma_.lower() in L.EVENT_COMPOUNDS
        for ch in tok.children
    ):
        return True  # "this charity thing", "a birthday do"
    if lemma == "run" and any(ch.dep_ in ("compound", "amod", "nummod") for ch in tok.children):
        return True  # "a 10K fun run", "a charity run" (not "went for a run")
    if lemma in ("group", "meeting") and any(
        ch.dep_ in ("compound", "amod") and ch.lemma_.lower() in L.EVENT_GROUP_MODIFIERS
        for ch in tok.children
    ):
        return True
    return False


def event_token(tok: Token) -> Any | None:
    """The event noun a prepositional object stands for: itself, or the noun the parser split
    off it ("the Pride fest": Pride + fest; "a 5K charity run": charity + run as a verb)."""
    if is_event(tok):
        return tok
    doc = tok.doc
    for j in range(tok.i + 1, min(tok.i + 3, len(doc))):
        nxt = doc[j]
        if nxt.head not in (tok, tok.head) or nxt.is_punct:
            break
        if nxt.lower_ in L.EVENT_NOUNS or nxt.lower_ == "run" or (
                nxt.lower_ == "reading" and tok.lemma_.lower() in L.EVENT_COMPOUNDS):
            return nxt  # ("a poetry reading" with "reading" parsed as a verb)
    return None


def _event_text(c: Context, tok: Token, ev: Any) -> str:
    """The event's name without evaluative words ("an intense trivia contest" -> "trivia
    contest"); a split name joined back ("Pride" + "fest")."""
    if ev is tok:
        text = noun_phrase(c, tok, keep_preps=_KEEP)
    else:
        start = min(t.i for t in tok.subtree if t.dep_ not in ("det", "poss"))
        text = join_tokens(t for t in tok.doc[start:ev.i + 1]
                           if t.dep_ not in ("det", "poss", "punct"))
    words = text.split()
    while len(words) > 1 and words[0].lower() in L.EVALUATIVE_ADJ | {"intense", "fun", "quick"}:
        words = words[1:]
    return " ".join(words)


def is_visit_place(tok: Token) -> bool:
    """A place one goes to and comes back from ("the beach", "a community center")."""
    return tok.lemma_.lower() in L.VISIT_PLACE_NOUNS and tok.pos_ == "NOUN"


def took_place(c: Context, v: Token) -> bool:
    """The clause tells something that happened (past or perfect, not a plan or a habit); a
    gerund under "we had a great time ..." too ("... throwing a small party")."""
    f = c.flags(v)
    up = v.head if v.head.pos_ in ("VERB", "AUX") else v.head.head
    if v.tag_ == "VBG" and v.dep_ in ("acl", "advcl", "xcomp") and up.i != v.i and (
            up.lemma_ == "have" and any(ch.dep_ == "dobj" and ch.lemma_.lower() in
                                        L.GOOD_TIME_NOUNS for ch in up.children)):
        return took_place(c, up)
    return (f.past or f.perfect) and not f.future


def _happening_now(c: Context, v: Token) -> bool:
    """A present progressive that tells what goes on now ("I'm competing in a tournament"),
    not a plan ("I'm competing in a race next month": a time told) nor a habit."""
    f = c.flags(v)
    return v.tag_ == "VBG" and any(ch.dep_ == "aux" and ch.lemma_ == "be" for ch in v.children
                                   ) and not (f.future or f.in_plan or f.hypothetical or f.neg
                                              ) and not any(t.ent_type_ in ("DATE", "TIME")
                                                            for t in v.subtree)


def attended(c: Context, v: Token, tok: Token, subs: list[Mention], rule: str,
             confidence: float = 0.8) -> None:
    """ATTENDED each event in ``tok``'s coordination (VISITED for places)."""
    for obj, negated in coord(tok):
        if negated or obj.i in c.time_tokens:
            continue
        ev = event_token(obj)
        if ev is not None:
            pred, text = "ATTENDED", _event_text(c, obj, ev)
            if text.lower() in L.VAGUE_EVENTS:
                continue  # "went to an event", "in my class": which one is not said
        elif is_visit_place(obj) or (v.lemma_.lower() == "visit" and obj.pos_ == "NOUN"
                                     and obj.lemma_.lower() in L.VISITED_PLACE_NOUNS):
            pred, text = "VISITED", noun_phrase(c, obj, keep_preps=("of",))
        else:
            continue
        for s in subs:
            c.emit(s, pred, text, v, rule=rule, tokens=[obj], confidence=confidence)
        visited_around(c, v, obj, subs, confidence)


def visited_around(c: Context, v: Token, where: Token, subs: list[Mention],
                   confidence: float) -> None:
    """The town or country an event or place was in was visited too: "a Harry Potter
    conference in the UK", "the beach in Tampa", "on a hike near Fort Wayne"."""
    for _prep, place in preps(where, ("in", "near")) + preps(v, ("near",)):
        if ent_type(place) in ("GPE", "LOC", "FAC") and place.i not in c.time_tokens:
            for s in subs:
                c.emit(s, "VISITED", noun_phrase(c, place), v, rule="event_in_place",
                       tokens=[place], confidence=confidence * 0.9)


def go_event(c: Context, v: Token, subs: list[Mention], dropped: bool) -> bool:
    """go to/on an event or a place, go camping: ATTENDED/VISITED (past). True when it
    applied."""
    if not took_place(c, v):
        return False
    conf = 0.8 - 0.1 * dropped
    done = False
    for prep, o in preps(v, ("to", "on", "for")):
        if event_token(o) is not None or (is_visit_place(o) and prep.lower_ == "to"):
            attended(c, v, o, subs, "went_to_event", conf)
            done = True
        elif prep.lower_ == "to":
            visited_in(c, v, o, subs, conf)  # "went to a place in London"
    went_to = _went_to_which(c, v)
    if went_to is not None:  # "this pride parade I went to a few weeks ago"
        attended(c, v, went_to, subs, "event_i_went_to", conf - 0.1)
        done = True
    # "went camping with the kids" parses the gerund as an adverbial clause of "went"
    gerund = child(v, "advcl")
    gerund = gerund if gerund is not None and gerund.i == v.i + 1 else None
    for x in (child(v, "xcomp"), child(v, "dobj"), gerund):
        if x is not None and x.tag_ == "VBG" and x.lower_ in L.GO_HOBBIES:
            for s in subs:  # "we went camping two weekends ago"
                c.emit(s, "ATTENDED", x.lower_, v, rule="went_gerund", tokens=[x],
                       confidence=conf)
            done = True
    return done


def _went_to_which(c: Context, v: Token) -> Token | None:
    """The event or place "I went to" is about when "to" has no object (or only a time the
    parser hung on it: "the concert we went to last Friday"): the noun the clause hangs on, or
    (the parser often takes the clause for a new sentence) the noun just before its subject
    ("this parade I went to")."""
    if not any(p.dep_ == "prep" and p.lower_ == "to" and not any(
            ch.dep_ == "pobj" and ch.i not in c.time_tokens for ch in p.children)
            for p in v.children):
        return None
    if v.dep_ == "relcl":
        noun = v.head
    else:
        subj = child(v, "nsubj")
        if subj is None or subj.i == 0 or subj.i > v.i:
            return None
        noun = v.doc[subj.i - 1]
    if noun.pos_ != "NOUN" or (event_token(noun) is None and not is_visit_place(noun)):
        return None
    return noun


def went_gerund_aux(c: Context, v: Token) -> None:
    """"Last weekend we went fishing at the lake" parsed with "went" as the auxiliary of
    "fishing": the same as ``go_event``'s "went camping"."""
    aux = next((a for a in v.children if a.dep_ == "aux" and a.lower_ in ("went", "gone")), None)
    if v.tag_ != "VBG" or v.lower_ not in L.GO_HOBBIES or aux is None:
        return
    subs, dropped = subjects(c, v)
    if not subs:  # the subject hangs on "went"
        subj = child(aux, "nsubj")
        subs = c.resolve(subj) if subj is not None else []
    for s in subs:
        c.emit(s, "ATTENDED", v.lower_, v, rule="went_gerund", tokens=[v],
               confidence=0.75 - 0.1 * dropped)


def visited_in(c: Context, v: Token, o: Token, subs: list[Mention], conf: float) -> None:
    """"went to Woodhaven, a small town in the Midwest" (a name the tagger took for a person,
    told a place by its apposition), "went to a place in London"."""
    if o.pos_ == "PROPN" and any(ap.dep_ == "appos" and ap.lemma_.lower() in L.PLACE_NOUNS
                                 for ap in o.children):
        for s in subs:
            c.emit(s, "VISITED", c.name_of(o), v, rule="went_to_town", tokens=[o],
                   confidence=conf)
        return
    if o.pos_ == "NOUN" and o.lemma_.lower() in L.VENUE_NOUNS:
        for _p, place in preps(o, ("in", "near")):
            if ent_type(place) in ("GPE", "LOC", "FAC"):
                for s in subs:
                    c.emit(s, "VISITED", noun_phrase(c, place), v, rule="went_to_place_in",
                           tokens=[place], confidence=conf)


def partake(c: Context, v: Token) -> None:
    """"participated in / competed in / performed at / took part in an event"; "I'm
    currently participating in the tournament" (happening now, no other time told)."""
    if not (took_place(c, v) or _happening_now(c, v)):
        return
    subs, dropped = subjects(c, v)
    if not subs:
        return
    part = child(v, "dobj", "part")  # "took part in"
    for _prep, o in preps(v, ("in", "at")) + (preps(part, ("in",)) if part is not None else []):
        if is_event(o):
            attended(c, v, o, subs, f"{v.lemma_.lower()}_in_event", 0.8 - 0.1 * dropped)


def event_object(c: Context, v: Token) -> None:
    """"ran a charity race", "won my first tournament", "hosted a fundraiser"."""
    if not took_place(c, v):
        return
    dobj = child(v, "dobj")
    if dobj is None or not is_event(dobj):
        return
    subs, dropped = subjects(c, v)
    attended(c, v, dobj, subs, f"{v.lemma_.lower()}_event", 0.8 - 0.1 * dropped)


def at_event(c: Context, v: Token) -> None:
    """Any past clause that happened at or in an event: "Last Friday at dance class I felt
    it", "my crew took home first in a local comp last year", "volunteered at a career fair"."""
    if v.pos_ != "VERB" or v.lemma_.lower() in ("go", "be", "have") or not took_place(c, v):
        return
    heads = [v] + [t for t in v.children if t.dep_ == "npadvmod"]  # "Last Friday at class, I"
    targets = [o for h in heads for p, o in preps(h, ("at", "in", "on"))
               if event_token(o) is not None
               and (p.lower_ != "on" or o.lemma_.lower() in L.TRIP_NOUNS)]  # "on a hike"
    if not targets:
        return
    subs, dropped = subjects(c, v, collective=True)
    for o in targets:
        attended(c, v, o, subs, "at_event", 0.7 - 0.1 * dropped)


def own_event(c: Context, noun: Token) -> None:
    """"my school event last week", "our camping trip last year": an event of the speaker's,
    told with a past time."""
    if not is_event(noun):
        return
    owner = c.owner_of(noun)
    if owner is None or not owner.speaker:
        return
    v = noun.head
    while v.pos_ not in ("VERB", "AUX") and v.head is not v:
        v = v.head
    recall = v.lemma_.lower() in L.RECALL_VERBS  # the time then belongs to the event
    hit = next(((rt, text) for rt, toks, gov, text in c.times
                if any(noun.doc[i].head == noun or noun.doc[i].head.head == noun for i in toks)
                or (recall and gov == v.i)), None)
    if hit is None or hit[0].start >= c.ref or (c.flags(v).future and not recall):
        return
    fact = c.emit(owner, "ATTENDED", noun_phrase(c, noun, keep_preps=_KEEP), v, rule="own_event",
                  tokens=[noun], timed=False, allow_in_plan=recall)
    if fact is not None:
        fact.valid_at, fact.valid_precision = hit[0].start, hit[0].precision
        fact.invalid_at, fact.invalid_precision = hit[0].end, hit[0].precision
        fact.time_text = hit[1]


def celebrate(c: Context, v: Token) -> None:
    """"We celebrated my daughter's birthday with a concert": ATTENDED the concert (past)."""
    if not took_place(c, v):
        return
    subs, dropped = subjects(c, v)
    for _prep, o in preps(v, ("with",)):
        if is_event(o):
            attended(c, v, o, subs, "celebrated_with", 0.7 - 0.1 * dropped)


def good_time_at(c: Context, v: Token) -> None:
    """"we had a great time at the pride event", "had a blast at the fair"."""
    dobj = child(v, "dobj")
    if dobj is None or dobj.lemma_.lower() not in L.GOOD_TIME_NOUNS or not took_place(c, v):
        return
    subs, dropped = subjects(c, v)
    for _prep, o in preps(v, ("at", "on")) + preps(dobj, ("at", "on")):
        attended(c, v, o, subs, "good_time_at", 0.75 - 0.1 * dropped)


def be_at(c: Context, v: Token) -> None:
    """"I was at a concert last night" (not "I was at work")."""
    if not took_place(c, v) or child(v, ("attr", "acomp")) is not None:
        return
    subs, dropped = subjects(c, v)
    for _prep, o in preps(v, ("at",)):
        if is_event(o):
            attended(c, v, o, subs, "was_at_event", 0.7 - 0.1 * dropped)


def took_trip(c: Context, v: Token, subs: list[Mention], dropped: bool) -> None:
    """"took a road trip for research", "took a trip to Peru" (ATTENDED; VISITED Peru)."""
    dobj = child(v, "dobj")
    if dobj is None or not took_place(c, v):
        return
    if not is_event(dobj):
        took_along(c, v, subs, dropped)
        return
    attended(c, v, dobj, subs, "took_trip", 0.8 - 0.1 * dropped)
    for _prep, o in preps(dobj, ("to",)) + preps(v, ("to",)):
        if ent_type(o) in ("GPE", "LOC", "FAC"):
            for s in subs:
                c.emit(s, "VISITED", noun_phrase(c, o), v, rule="trip_to", tokens=[o])


def took_along(c: Context, v: Token, subs: list[Mention], dropped: bool) -> None:
    """"took my turtles to the beach in Tampa", "took the kids to a concert", "took my mom to
    Paris", "took my fam camping in the mountains": one went there too (a past clause)."""
    for x in v.children:  # ("camping" may be parsed as the object: "took [my fam camping]")
        if x.lower_ in L.GO_HOBBIES and (x.tag_ == "VBG" and x.dep_ in (
                "xcomp", "advcl", "oprd", "ccomp", "dep") or x.dep_ == "dobj"):
            for s in subs:
                c.emit(s, "ATTENDED", x.lower_, v, rule="took_gerund", tokens=[x],
                       confidence=0.7 - 0.1 * dropped)
    for _prep, o in preps(v, ("to",)):
        if ent_type(o) in ("GPE", "LOC", "FAC") and o.i not in c.time_tokens:
            for s in subs:
                c.emit(s, "VISITED", noun_phrase(c, o), v, rule="took_to", tokens=[o],
                       confidence=0.7 - 0.1 * dropped)
        else:
            attended(c, v, o, subs, "took_to", 0.7 - 0.1 * dropped)


def back_from(c: Context, v: Token, subs: list[Mention]) -> None:
    """"just got back from a family road trip": ATTENDED (it ended by now)."""
    back = child(v, ("advmod", "prt"), "back")
    targets = preps(v, ("from",)) + (preps(back, ("from",)) if back is not None else [])
    for _prep, o in targets:
        if is_event(o):
            attended(c, v, o, subs, "back_from_event", 0.75)
