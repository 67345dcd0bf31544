"""Hand labels of the real-chat dev set: durable facts of 26 LoCoMo dev sessions (conversations
0-4 only). ``python -m benchmarks.extraction.realchat_labels`` writes ``realchat.jsonl`` from
this file (session dates read from LoCoMo); conventions and how it was labelled: README.md,
"Real-chat dev set".

Shorthand:

* ``req(turns, subject, predicate, object, kind=..., cat=..., ...)`` is a **required** fact,
  ``opt(...)`` an **optional** one (right if extracted, not counted against recall).
  ``predicate`` may be a tuple: every predicate in it is accepted with the same object.
* ``start`` / ``ended`` are date windows ``W(first, last)``: ``W("2023-05-07")`` = that day,
  ``W("2022")`` = that year, ``W("2023-06")`` = that month, ``W("2023-05-29", "2023-06-04")`` =
  any day of that range. The precision accepted is the one of the form (``prec=`` overrides).
  ``start=None``: the text does not date the start (not date-checked). ``ended=UNDATED``: it
  ended, the text does not say when.
* ``alts=[(predicate, object, aliases), ...]``: other representations of the same fact
  (``HAS_STATUS married`` or ``MARRIED_TO husband``).
* ``added_after_review=True`` marks a fact labelled only after an extractor's output showed it
  (kept apart in the scores; see README.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Window = dict[str, Any]
UNDATED: Window = {"from": None, "to": None, "precision": None}


def _form(value: str) -> str:
    return {1: "year", 2: "month", 3: "day"}[len(value.split("-"))]


def _first(value: str) -> str:
    parts = value.split("-")
    return "-".join(parts + ["01"] * (3 - len(parts)))


def _last(value: str) -> str:
    import calendar

    parts = [int(p) for p in value.split("-")]
    if len(parts) == 1:
        return f"{parts[0]}-12-31"
    if len(parts) == 2:
        return f"{parts[0]}-{parts[1]:02d}-{calendar.monthrange(parts[0], parts[1])[1]:02d}"
    return value


def W(first: str, last: str | None = None, prec: tuple[str, ...] | None = None) -> Window:
    last = last or first
    return {"from": _first(first), "to": _last(last),
            "precision": list(prec or (_form(first),))}


@dataclass
class Label:
    turns: list[str]
    subject: str
    predicate: str | tuple[str, ...]
    object: str
    kind: str  # "state" or "event"
    cat: str
    required: bool
    aliases: tuple[str, ...] = ()
    otype: tuple[str, ...] | str = "thing"
    stype: str = "person"
    start: Window | None = None
    ended: Window | None = None
    alts: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    note: str = ""
    # labelled after seeing an extractor's output (a right fact first missed by the labeller)
    added_after_review: bool = False

    def to_json(self, conv: int, session: int, n: int) -> dict[str, Any]:
        preds = (self.predicate,) if isinstance(self.predicate, str) else self.predicate
        accept = [{"predicate": p, "object": self.object, "aliases": list(self.aliases)}
                  for p in preds]
        accept += [{"predicate": p, "object": o, "aliases": list(a)} for p, o, a in self.alts]
        return {
            "id": f"c{conv}s{session}-{n:02d}",
            "conv": conv,
            "session": session,
            "turns": self.turns,
            "required": self.required,
            "cat": self.cat,
            "kind": self.kind,
            "subject": self.subject,
            "subject_type": self.stype,
            "predicate": preds[0],
            "object": self.object,
            "object_type": [self.otype] if isinstance(self.otype, str) else list(self.otype),
            "accept": accept,
            "start": self.start,
            "ended": self.ended,
            "note": self.note,
            "added_after_review": self.added_after_review,
        }


def req(turns: str, subject: str, predicate: str | tuple[str, ...], obj: str, **kw: Any) -> Label:
    return Label(turns.split(), subject, predicate, obj, required=True, **kw)


def opt(turns: str, subject: str, predicate: str | tuple[str, ...], obj: str, **kw: Any) -> Label:
    kw.setdefault("kind", "state")
    kw.setdefault("cat", "preference")
    return Label(turns.split(), subject, predicate, obj, required=False, **kw)


PREF = ("LIKES", "HAS_HOBBY")  # a liked activity is a preference or a hobby
EV, ST = "event", "state"

# (conversation, session) -> labels. Sessions 1 and 2 of each conversation, one session drawn
# with random.Random(15) and two with random.Random(16) from sessions 3..n of each (see
# README.md); conversation 0 session 3 was read while choosing the schema and is labelled too.
SESSIONS: dict[tuple[int, int], list[Label]] = {
    # ------------------------------------------------------------ conv 0: Caroline, Melanie
    (0, 1): [  # Mon 2023-05-08
        req("D1:3", "Caroline", "ATTENDED", "LGBTQ support group", kind=EV, cat="event",
          aliases=("support group", "LGBTQ support group meeting"), otype=("event", "organisation"),
          start=W("2023-05-07")),
        opt("D1:2 D1:18", "Melanie", "PARENT_OF", "kids", cat="family", aliases=("children",),
          otype="person", note="unnamed children"),
        opt("D1:9", "Caroline", "PLANS", "continue my edu", cat="plan",
          aliases=("continue edu", "continue her education", "continue my education",
                   "edu", "education", "check out career options", "career options")),
        opt("D1:11", "Caroline", ("LIKES", "PLANS"), "counseling", cat="plan",
          aliases=("working in mental health", "counseling or working in mental health",
                   "mental health", "counselor")),
        opt("D1:14", "Melanie", "CREATED", "lake sunrise", kind=EV, cat="creation",
          aliases=("painting", "lake sunrise painting", "that lake sunrise"), start=W("2022")),
        opt("D1:14 D1:16", "Melanie", PREF, "painting", cat="hobby", otype="activity"),
        opt("D1:18", "Melanie", "PLANS", "swimming", cat="plan",
          aliases=("go swimming", "go swimming with the kids", "swimming with the kids")),
        opt("D1:17", "Caroline", "PLANS", "research", cat="plan", aliases=("do some research",)),
    ],
    (0, 2): [  # Thu 2023-05-25
        req("D2:1", "Melanie", "ATTENDED", "charity race for mental health", kind=EV, cat="event",
          aliases=("charity race", "race"), otype="event", start=W("2023-05-20"),
          note="'ran a charity race ... last Saturday'"),
        opt("D2:5", "Melanie", PREF, "running", cat="hobby", otype="activity"),
        opt("D2:5", "Melanie", PREF, "reading", cat="hobby", otype="activity"),
        opt("D2:5", "Melanie", PREF, "playing my violin", cat="hobby", otype="activity",
          aliases=("violin", "playing violin", "playing the violin")),
        opt("D2:5", "Melanie", "OWNS", "violin", cat="possession", note="'playing my violin'"),
        opt("D2:7", "Melanie", "PARENT_OF", "kids", cat="family", aliases=("children",),
          otype="person"),
        opt("D2:7", "Melanie", "PLANS", "camping", cat="plan",
          aliases=("going camping", "go camping", "camping next month")),
        opt("D2:8 D2:10 D2:14", "Caroline", "PLANS", "adoption", cat="plan",
          aliases=("adopt", "adopt kids", "adopting", "researching adoption agencies",
                   "adoption agencies", "have a family", "make a family", "family")),
        opt("D2:14", "Caroline", "HAS_STATUS", "single", cat="relationship", otype="other",
          aliases=("single parent",), note="'tough as a single parent' (of a future family)"),
    ],
    (0, 3): [  # Fri 2023-06-09
        req("D3:1", "Caroline", "ATTENDED", "school event", kind=EV, cat="event",
          aliases=("event", "my school event", "talk"), otype="event",
          start=W("2023-05-29", "2023-06-04"), note="'my school event last week'"),
        req("D3:1", "Caroline", "EXPERIENCED", "transition", kind=EV, cat="health",
          aliases=("transitioning", "gender transition", "started transitioning"),
          otype="event", start=W("2020"),
          alts=[("HAS_STATUS", "transgender", ("trans",))],
          note="'since I started transitioning three years ago'"),
        opt("D3:13", "Caroline", "LIVES_IN", "home country", cat="home", otype="place",
          ended=W("2019"), note="unnamed place: 'since I moved from my home country' (4 years)"),
        req("D3:13", "Caroline", "EXPERIENCED", "breakup", kind=EV, cat="relationship",
          aliases=("tough breakup", "that tough breakup", "break up"), otype="event",
          alts=[("DATING", "*", ())], note="no partner named; DATING * (ended) also accepted"),
        req("D3:14 D3:16", "Melanie", "HAS_STATUS", "married", kind=ST, cat="relationship",
          otype="other", start=W("2018"),
          alts=[("MARRIED_TO", "husband", ("her husband", "my husband"))],
          note="'my husband and kids'; '5 years already!' answers 'How long have you been "
               "married?'"),
        opt("D3:14", "Melanie", "PARENT_OF", "kids", cat="family", aliases=("children",),
          otype="person"),
    ],
    (0, 9): [  # Mon 2023-07-17 (previous sitting Sat 2023-07-15)
        req("D9:1", "Melanie", ("ATTENDED", "VISITED"), "camping trip", kind=EV, cat="event",
          aliases=("camping", "went camping", "camping with my fam"), otype=("event", "activity"),
          start=W("2023-07-08", "2023-07-09"), note="'two weekends ago'"),
        req("D9:2", "Caroline", "MEMBER_OF", "mentorship program for LGBTQ youth", kind=ST,
          cat="membership", aliases=("mentorship program", "LGBTQ youth mentorship program"),
          otype="organisation", start=W("2023-07-15", "2023-07-16"),
          note="'Last weekend I joined ...'"),
        opt("D9:4 D9:6", "Caroline", "HAS_ROLE", "mentor", cat="role", otype="role"),
        req("D9:6 D9:8", "Caroline", "ATTENDED", "LGBT pride event", kind=EV, cat="event",
          aliases=("pride event", "pride", "LGBTQ pride event"), otype="event",
          start=W("2023-06")),
        opt("D9:12", "Caroline", "PLANS", "LGBTQ art show", cat="plan",
          aliases=("art show", "having an LGBTQ art show")),
        req("D9:16", "Caroline", "VISITED", "LGBTQ center", kind=EV, cat="trip",
          aliases=("a LGBTQ center", "LGBT center"), otype=("place", "organisation")),
        opt("D9:14 D9:16", "Caroline", "CREATED", "painting", kind=EV, cat="creation"),
        opt("D9:17", "Melanie", "CREATED", "painting", kind=EV, cat="creation",
          aliases=("another painting",)),
        opt("D9:1 D9:17", "Melanie", "PARENT_OF", "kids", cat="family", aliases=("children",),
          otype="person"),
        opt("D9:12", "Caroline", PREF, "painting", cat="hobby", aliases=("paintings",)),
    ],
    (0, 10): [  # Thu 2023-07-20 (previous sitting Mon 2023-07-17)
        req("D10:3 D10:5", "Caroline", "MEMBER_OF", "Connected LGBTQ Activists", kind=ST,
          cat="membership", aliases=("LGBTQ activist group", "new LGBTQ activist group",
                                     "activist group"),
          otype="organisation", start=W("2023-07-18"),
          note="'joined a new LGBTQ activist group last Tues' (since the last sitting), named in "
               "D10:5"),
        req("D10:8", "Melanie", "VISITED", "beach", kind=EV, cat="trip", otype="place",
          note="'we went to the beach recently'; not dated"),
        opt("D10:10 D10:12", "Melanie", "LIKES", "beach", cat="preference",
          aliases=("family camping trip", "camping trip", "camping")),
        req("D10:14", "Melanie", ("ATTENDED", "VISITED"), "camping trip", kind=EV, cat="event",
          aliases=("camping", "our camping trip"), otype=("event", "activity"), start=W("2022"),
          note="'our camping trip last year when we saw the Perseid meteor shower'"),
        opt("D10:14", "Melanie", ("ATTENDED", "VISITED"), "Perseid meteor shower", kind=EV,
          cat="event", aliases=("meteor shower",), start=W("2022")),
        opt("D10:20", "Melanie", "PARENT_OF", "youngest", cat="family", otype="person",
          aliases=("kids", "children"), note="unnamed"),
    ],
    (0, 12): [  # Thu 2023-08-17 (previous sitting Mon 2023-08-14)
        req("D12:1", "Caroline", ("ATTENDED", "VISITED"), "hike", kind=EV, cat="event",
          otype=("event", "activity"), aliases=("hiking", "a hike"),
          note="'Recently, I had a not-so-great experience on a hike'; not dated"),
        opt("D12:2 D12:4", "Melanie", "CREATED", "pottery project", kind=EV, cat="creation",
          aliases=("bowl", "another pottery project")),
        opt("D12:2 D12:6 D12:8", "Melanie", PREF, "pottery", cat="hobby",
          aliases=("painting", "art")),
        req("D12:13 D12:14", "Caroline", ("FRIEND_OF", "KNOWS"), "Melanie", kind=ST, cat="friend",
          otype="person", aliases=("Mel",),
          note="'Appreciate our friendship!' / 'I appreciate our friendship too' (the addressee)"),
        req("D12:15", "Caroline", "ATTENDED", "Pride fest", kind=EV, cat="event", otype="event",
          aliases=("pride festival", "pride"), start=W("2022"),
          note="'We had a blast last year at the Pride fest'"),
        opt("D12:15 D12:16", "Melanie", "ATTENDED", "Pride fest", kind=EV, cat="event",
          aliases=("pride festival", "pride"), start=W("2022"), note="'we' includes Melanie"),
        opt("D12:16 D12:17 D12:21", "Caroline", "PLANS", "trip", cat="plan",
          aliases=("family outing", "something special", "explore nature")),
        opt("D12:16 D12:18 D12:20", "Melanie", "PLANS", "family outing", cat="plan",
          aliases=("something special", "trip")),
    ],
    # ------------------------------------------------------------ conv 1: Jon, Gina
    (1, 1): [  # Fri 2023-01-20
        req("D1:2", "Jon", "HAS_ROLE", "banker", kind=ST, cat="role", otype="role",
          ended=W("2023-01-19"), note="'Lost my job as a banker yesterday'"),
        opt("D1:2 D1:4 D1:6", "Jon", ("PLANS", "RUNS", "OWNS"), "dance studio", cat="business",
          otype="organisation",
          aliases=("start a dance studio", "starting a dance studio", "own business",
                   "start my own business", "starting my own business", "business"),
          note="a plan at this point (no place found yet)"),
        opt("D1:2", "Jon", "WORKS_AT", "*", cat="work", ended=W("2023-01-19"),
            note="'Lost my job as a banker yesterday': whatever his employer was",
            added_after_review=True),
        req("D1:3", "Gina", "WORKS_AT", "Door Dash", kind=ST, cat="work", otype="organisation",
          aliases=("DoorDash",), ended=W("2023-01"),
          note="'I also lost my job at Door Dash this month'"),
        opt("D1:4 D1:6", "Jon", PREF, "dancing", cat="hobby", aliases=("dance",),
          otype="activity"),
        opt("D1:8", "Jon", ("FAVORITE", "LIKES"), "contemporary", cat="preference",
          aliases=("contemporary dance", "all dances", "dances")),
        opt("D1:7 D1:9", "Gina", PREF, "contemporary dance", cat="preference",
          aliases=("dance", "contemporary", "dancing")),
        req("D1:16", "Jon", "ATTENDED", "local comp", kind=EV, cat="event", otype="event",
          aliases=("local competition", "competition", "dance competition",
                   "local dance competition", "comp"),
          start=W("2022"), note="'my dance crew took home first in a local comp last year'"),
        opt("D1:16", "Jon", "MEMBER_OF", "dance crew", cat="membership", otype="organisation",
          aliases=("my dance crew", "crew")),
        opt("D1:17", "Gina", "ATTENDED", "regionals", kind=EV, cat="event", otype="event",
          aliases=("a regionals", "dance competitions", "competitions", "dance competition"),
          note="'at age fifteen': not datable from the chat"),
        opt("D1:17", "Gina", PREF, "dance competitions", cat="hobby", ended=UNDATED,
          aliases=("competing", "compete in dance competitions")),
        opt("D1:24", "Jon", "PLANS", "festival", cat="plan",
          aliases=("perform at a nearby festival", "nearby festival")),
        opt("D1:10 D1:12", "Jon", "PLANS", "dance class", cat="plan",
          aliases=("go to a dance class", "dance session")),
        opt("D1:11 D1:13", "Gina", "PLANS", "dance session", cat="plan",
          aliases=("dance class", "plan a dance session", "explore some new dance moves")),
    ],
    (1, 2): [  # Sun 2023-01-29
        req("D2:1", "Gina", ("RUNS", "OWNS"), "clothing store", kind=ST, cat="business",
          otype="organisation", aliases=("store", "my clothing store", "own store",
                                         "my own store"),
          note="'my clothing store'; 'Starting my own store'"),
        opt("D2:1", "Gina", "ATTENDED", "ad campaign", kind=EV, cat="other",
          aliases=("launched an ad campaign",)),
        opt("D2:3 D2:4 D2:10", "Jon", ("PLANS", "RUNS", "OWNS"), "dance studio", cat="business",
          otype="organisation", aliases=("ideal spot for my dance studio",)),
        req("D2:4", "Jon", "VISITED", "Paris", kind=EV, cat="trip", otype="place",
          start=W("2023-01-28"), note="'I've been to Paris yesterday!'"),
        req("D2:5", "Gina", "VISITED", "Rome", kind=EV, cat="trip", otype="place",
          note="'Been only to Rome once.' (and never to Paris: no fact)"),
        opt("D2:8", "Jon", "LIKES", "Marley flooring", cat="preference",
          aliases=("Marley",)),
    ],
    (1, 3): [  # Wed 2023-02-01
        opt("D3:1", "Jon", ("PLANS", "RUNS", "OWNS"), "dance studio", cat="business",
          otype="organisation", aliases=("open my dance studio",)),
        opt("D3:1", "Jon", PREF, "dance", cat="hobby", aliases=("dancing",)),
        req("D3:2 D3:4", "Gina", ("RUNS", "OWNS"), "clothing store", kind=ST, cat="business",
          otype="organisation", aliases=("store", "my clothing store"),
          note="'now I can expand my clothing store'"),
    ],
    (1, 8): [  # Mon 2023-04-03 (previous sitting Thu 2023-03-23)
        req("D8:1", "Jon", "OWNS", "bank account", kind=ST, cat="possession", otype="thing",
          ended=UNDATED, note="'I had to shut down my bank account'"),
        req("D8:4 D8:10", "Gina", ("RUNS", "OWNS"), "online store", kind=ST, cat="business",
          otype="organisation", aliases=("store", "my online store", "business", "my store",
                                         "clothing store", "clothing biz")),
        req("D8:13", "Jon", ("RUNS", "OWNS"), "dance studio", kind=ST, cat="business",
          otype="organisation", aliases=("my dance studio", "studio", "biz"),
          note="'I'm expanding my dance studio's social media presence'"),
        opt("D8:6 D8:8", "Gina", PREF, "dance", cat="hobby", aliases=("dancing",)),
        opt("D8:6 D8:8", "Gina", PREF, "fashion", cat="preference",
          aliases=("finding new trends", "new trends")),
        opt("D8:12", "Gina", "PLANS", "working with some fashion bloggers and influencers",
          cat="plan", aliases=("fashion bloggers", "influencers", "do more ads", "more ads")),
        opt("D8:13 D8:15 D8:17", "Jon", "PLANS", "dance competition", cat="plan",
          aliases=("hosting a dance competition", "event", "the event")),
        opt("D8:16 D8:18 D8:20", "Gina", "PLANS", "show", cat="plan",
          aliases=("the event", "event", "join in")),
    ],
    (1, 19): [  # Sun 2023-07-23 (previous sitting Fri 2023-07-21)
        opt("D19:1 D19:7", "Jon", ("PLANS", "RUNS", "OWNS"), "dance studio", cat="business",
          otype="organisation", aliases=("studio", "my studio", "business plans")),
        opt("D19:1", "Jon", PREF, "dancing", cat="hobby", aliases=("dance",)),
        opt("D19:1", "Jon", "WORKS_ON", "business plans", cat="project",
          note="'working on business plans'", added_after_review=True),
        req("D19:6", "Gina", "ATTENDED", "dance class", kind=EV, cat="event", otype="event",
          start=W("2023-07-14", "2023-07-21"),
          note="'Last Friday at dance class with a group of friends'"),
    ],
    # ------------------------------------------------------------ conv 2: John, Maria
    (2, 1): [  # Sat 2022-12-17
        req("D1:2", "John", ("ATTENDED", "VISITED"), "family road trip", kind=EV, cat="event",
          otype=("event", "activity"), aliases=("road trip", "trip"),
          start=W("2022-12-09", "2022-12-16"),
          note="'Just got back from a family road trip yesterday'"),
        req("D1:3", "Maria", "VOLUNTEERS_AT", "homeless shelter", kind=ST, cat="membership",
          otype="organisation", aliases=("the homeless shelter", "shelter"),
          alts=[("HAS_ROLE", "volunteer", ())],
          note="'Been busy volunteering at the homeless shelter'"),
        opt("D1:3", "Maria", PREF, "aerial yoga", cat="hobby", otype="activity",
          aliases=("doing aerial yoga", "yoga")),
        opt("D1:3", "Maria", PREF, "keeping fit", cat="hobby"),
        opt("D1:4", "John", PREF, "kickboxing", cat="hobby", otype="activity"),
        opt("D1:6", "John", ("PLANS", "LIKES"), "local politics", cat="plan",
          aliases=("get into local politics", "politics", "helping the community")),
        opt("D1:8", "John", "LIKES", "improving education and infrastructure", cat="preference",
          aliases=("education", "infrastructure", "improving education")),
        opt("D1:14", "John", "PLANS", "chat with local leaders and organizations", cat="plan",
          aliases=("local leaders", "chat with local leaders")),
    ],
    (2, 2): [  # Thu 2022-12-22
        req("D2:1", "Maria", "OWNS", "old car", kind=ST, cat="possession", otype="thing",
          aliases=("car", "my old car"), ended=W("2022-12-21"),
          note="'I donated my old car to a homeless shelter ... yesterday'"),
        req("D2:1", "Maria", "VOLUNTEERS_AT", "homeless shelter", kind=ST, cat="membership",
          otype="organisation", aliases=("a homeless shelter", "shelter"),
          alts=[("HAS_ROLE", "volunteer", ())], note="'a homeless shelter I volunteer at'"),
        opt("D2:17", "Maria", PREF, "watching movies", cat="hobby",
          aliases=("movies", "watch movies")),
        opt("D2:17", "Maria", PREF, "hiking", cat="hobby", aliases=("hike",)),
        opt("D2:17", "Maria", PREF, "game nights", cat="hobby",
          aliases=("have game nights", "game night")),
        opt("D2:17", "Maria", PREF, "spending time with the friends I have", cat="preference",
          aliases=("spending time with friends", "friends", "spending time with the friends"),
          note="alias 'spending time with the friends' added after review of the offline "
               "extractor's output"),
        opt("D2:25", "Maria", "CREATED", "peach cobbler", kind=EV, cat="creation"),
        opt("D2:28", "John", ("HAS_HOBBY", "LIKES", "PLANS"), "taekwondo", cat="hobby",
          aliases=("do some taekwondo",)),
        opt("D2:16", "John", "LIKES", "climbing", cat="preference",
          aliases=("climbing, sliding, and playing games", "sliding", "playing games")),
        opt("D2:22", "John", "LIKES", "meal times", cat="preference"),
        opt("D2:12", "John", "LIKES", "making a positive impact", cat="preference",
            aliases=("making positive impact",),
            note="'I'm so passionate about making a positive impact'", added_after_review=True),
        opt("D2:24", "John", "CREATED", "pizza", kind=EV, cat="creation"),
    ],
    (2, 10): [  # Fri 2023-04-07 (previous sitting Sun 2023-04-02)
        req("D10:1 D10:5", "John", ("MEMBER_OF", "ATTENDED"), "weekend yoga class", kind=ST,
          cat="membership", otype=("organisation", "event"),
          aliases=("yoga class", "a weekend yoga class", "beginner yoga class"),
          note="'I started a weekend yoga class with a colleague'; not dated"),
        opt("D10:1 D10:9", "John", PREF, "yoga", cat="hobby"),
        req("D10:10", "Maria", "ATTENDED", "5K charity run", kind=EV, cat="event", otype="event",
          aliases=("charity run", "5K", "5K charity run for a homeless shelter"),
          start=W("2023-04-01", "2023-04-02"),
          note="'Last weekend ... I participated in a 5K charity run'"),
        opt("D10:10", "Maria", "LIKES", "charity work", cat="preference", aliases=("charity",)),
        req("D10:13", "John", ("ATTENDED", "VOLUNTEERS_AT"), "career fair", kind=EV, cat="event",
          otype="event", aliases=("career fair at a local school", "a career fair"),
          start=W("2023-04-01", "2023-04-02"),
          note="'Last weekend ... I got to volunteer at a career fair at a local school'"),
    ],
    (2, 16): [  # Thu 2023-05-25 (previous sitting Sat 2023-05-20)
        opt("D16:1", "John", "WORKS_ON", "petition", cat="project",
          aliases=("the petition I started", "the petition")),
        req("D16:1", "John", ("ATTENDED", "VISITED"), "hiking trip", kind=EV, cat="event",
          otype=("event", "activity"), aliases=("hiking", "a hiking trip"),
          note="'my workmates when we went on a hiking trip'; not dated"),
        opt("D16:2", "Maria", ("VOLUNTEERS_AT", "WORKS_AT"), "shelter", cat="membership",
          otype="organisation", aliases=("the shelter", "homeless shelter"),
          note="'I'm busy at the shelter': a restatement, weaker than in session 2"),
        opt("D16:2 D16:4", "Maria", "PLANS", "fundraiser", cat="plan",
          aliases=("a fundraiser", "chili cook-off", "raise enough to cover basic needs")),
    ],
    (2, 19): [  # Fri 2023-06-16 (previous sitting Mon 2023-06-12)
        req("D19:1", "Maria", "MEMBER_OF", "gym", kind=ST, cat="membership", otype="organisation",
          start=W("2023-06-05", "2023-06-11"), note="'I joined a gym last week!'"),
        opt("D19:3", "Maria", PREF, "kundalini yoga", cat="hobby", aliases=("yoga",)),
        opt("D19:3", "Maria", "PLANS", "get stronger", cat="plan",
          aliases=("improve my endurance", "get stronger and improve my endurance")),
        req("D19:6 D19:8", "John", "HAS_ROLE", "assistant manager", kind=ST, cat="role",
          otype="role", start=W("2023-06-12", "2023-06-16"),
          note="'something massive happened since we last spoke. I got promoted at work!' ... "
               "'now that I'm an assistant manager'"),
        opt("D19:8 D19:10", "John", "OWNS", "trophy", cat="possession"),
        req("D19:22", "John", "VISITED", "California", kind=EV, cat="trip", otype="place",
          note="'a special vacation we had to California'; not dated"),
        req("D19:23", "Maria", "VISITED", "Florida", kind=EV, cat="trip", otype="place",
          note="'a picture from a vacation in Florida'; not dated"),
    ],
    # ------------------------------------------------------------ conv 3: Joanna, Nate
    (3, 1): [  # Fri 2022-01-21
        req("D1:3 D1:7", "Nate", "ATTENDED", "video game tournament", kind=EV, cat="event",
          otype="event",
          aliases=("first video game tournament", "tournament", "my first video game tournament",
                   "Counter-Strike: Global Offensive tournament"),
          start=W("2022-01-10", "2022-01-16"),
          note="'I won my first video game tournament last week'"),
        opt("D1:7", "Nate", ("LIKES", "USES", "HAS_HOBBY"), "Counter-Strike: Global Offensive",
          cat="preference", aliases=("CS:GO", "team shooter game", "Counter-Strike")),
        opt("D1:2", "Joanna", "WORKS_ON", "project", cat="project", aliases=("a project",)),
        opt("D1:10", "Joanna", PREF, "writing", cat="hobby"),
        opt("D1:10", "Joanna", PREF, "reading", cat="hobby"),
        opt("D1:10", "Joanna", PREF, "watching movies", cat="hobby", aliases=("movies",)),
        opt("D1:10", "Joanna", PREF, "exploring nature", cat="hobby", aliases=("nature",)),
        opt("D1:11", "Nate", PREF, "playing video games", cat="hobby",
          aliases=("video games", "games")),
        opt("D1:11", "Nate", PREF, "watching movies", cat="hobby", aliases=("movies",)),
        opt("D1:13", "Nate", "LIKES", "action and sci-fi movies", cat="preference",
          aliases=("action movies", "sci-fi movies", "action", "sci-fi", "effects")),
        opt("D1:14", "Joanna", "LIKES", "dramas", cat="preference",
          aliases=("dramas and romcoms", "drama")),
        opt("D1:14", "Joanna", "LIKES", "romcoms", cat="preference", aliases=("romcom",)),
        opt("D1:16 D1:20", "Joanna", ("LIKES", "FAVORITE"), "romantic drama", cat="preference",
          aliases=("movie", "that movie", "the idea and the acting")),
        opt("D1:17", "Nate", "LIKES", "classics", cat="preference",
          aliases=("watching classics",)),
        opt("D1:18", "Joanna", "OWNS", "physical copy", cat="possession",
          aliases=("dvd", "copy", "physical copy of the movie")),
        opt("D1:8", "Joanna", "DISLIKES", "games", cat="preference", aliases=("video games",)),
    ],
    (3, 2): [  # Sun 2022-01-23 (previous sitting Fri 2022-01-21)
        opt("D2:3", "Joanna", "CREATED", "first full screenplay", kind=EV, cat="creation",
          aliases=("screenplay", "my first full screenplay", "full screenplay"),
          start=W("2022-01-14", "2022-01-21"),
          note="'finished my first full screenplay and printed it last Friday'"),
        opt("D2:7", "Joanna", "PLANS", "submit it to some film festivals", cat="plan",
          aliases=("film festivals", "submit it to film festivals", "submit to film festivals")),
        req("D2:10 D2:12 D2:14", "Nate", "HAS_PET", "turtles", kind=ST, cat="pet", otype="pet",
          aliases=("turtle", "two turtles", "little ones"), start=W("2019"),
          note="'these little ones' (photo of turtles); 'I've had them for 3 years now'; "
               "'The turtles'"),
        req("D2:21 D2:23", "Joanna", "ALLERGIC_TO", "reptiles", kind=ST, cat="health",
          otype=("thing", "other"), aliases=("most reptiles",),
          alts=[("HAS_CONDITION", "allergies", ("allergy", "pet allergy", "allergic"))],
          note="'I'm allergic to most reptiles and animals with fur'"),
        req("D2:23", "Joanna", "ALLERGIC_TO", "animals with fur", kind=ST, cat="health",
          otype=("thing", "other"), aliases=("furry animals", "fur", "pets", "animals"),
          note="Nate: 'You mentioned you were allergic to pets'"),
        opt("D2:25 D2:27 D2:29", "Joanna", PREF, "writing", cat="hobby"),
        opt("D2:25", "Joanna", PREF, "hanging with friends", cat="hobby",
          aliases=("hanging out with friends", "friends")),
        opt("D2:16", "Nate", "ATTENDED", "tournament", kind=EV, cat="event", otype="event"),
        opt("D2:20", "Nate", "LIKES", "playing for fun", cat="preference",
          aliases=("playing",)),
    ],
    (3, 3): [  # Mon 2022-02-07 (previous sitting Sun 2022-01-23): no required fact
        opt("D3:1", "Joanna", "CREATED", "screenplay", kind=EV, cat="creation",
          note="'The screenplay I sent in to the film festival'"),
        opt("D3:4 D3:6", "Nate", "CREATED", "coconut milk icecream", kind=EV, cat="creation",
          aliases=("coconut milk ice cream", "icecream", "ice cream")),
        opt("D3:6", "Nate", ("FAVORITE", "LIKES"), "coconut milk icecream", cat="preference",
          aliases=("coconut milk ice cream", "icecream", "ice cream", "new favorite snack")),
        opt("D3:10", "Nate", "LIKES", "coconut milk", cat="preference"),
        opt("D3:10", "Nate", "LIKES", "chocolate", cat="preference",
          aliases=("chocolate and mixed berry flavors",)),
        opt("D3:10", "Nate", "LIKES", "mixed berry flavors", cat="preference",
          aliases=("mixed berry", "berries")),
        opt("D3:12", "Nate", "CREATED", "dairy-free chocolate cake", kind=EV, cat="creation",
          aliases=("chocolate cake", "cake"), start=W("2022-01-28", "2022-02-06"),
          note="'the other day'"),
        opt("D3:14", "Nate", "LIKES", "experimenting in the kitchen", cat="preference",
          aliases=("cooking",)),
        opt("D3:17", "Joanna", "LIKES", "Little Women", cat="preference"),
        opt("D3:18", "Nate", "PLANS", "Little Women", cat="plan"),
    ],
    (3, 17): [  # Sun 2022-07-10 (previous sitting Fri 2022-06-24)
        req("D17:1", "Nate", "ATTENDED", "fourth video game tournament", kind=EV, cat="event",
          otype="event", aliases=("video game tournament", "tournament", "online tournament"),
          start=W("2022-07-08"), note="'I won my fourth video game tournament on Friday!'"),
        opt("D17:1", "Nate", ("HAS_ROLE", "LIKES", "HAS_HOBBY"), "gaming", cat="role",
          aliases=("gamer", "professional gamer", "video games"),
          note="'I can make money doing what I love'"),
        req("D17:2", "Joanna", ("ATTENDED", "VISITED"), "road trip", kind=EV, cat="event",
          otype=("event", "activity"), aliases=("a road trip", "road trip for research"),
          start=W("2022-07-04", "2022-07-10"), note="'while you were winning' (Friday)"),
        req("D17:4", "Joanna", "VISITED", "Woodhaven", kind=EV, cat="trip", otype="place",
          start=W("2022-07-04", "2022-07-10"),
          note="'I went to Woodhaven, a small town in the Midwest' (the road trip)"),
        opt("D17:4", "Joanna", "VISITED", "library", kind=EV, cat="trip", otype="place",
          aliases=("the library",)),
        opt("D17:8 D17:10", "Joanna", "WORKS_ON", "next script", cat="project",
          aliases=("new script", "script", "my next script")),
        opt("D17:14", "Joanna", "WORKS_ON", "book", cat="project",
          aliases=("a book",), note="'I actually started on a book recently'"),
        opt("D17:14 D17:19", "Joanna", "CREATED", "movie", kind=EV, cat="creation",
          aliases=("my movie",)),
    ],
    (3, 26): [  # Fri 2022-11-04 (previous sitting Tue 2022-10-25)
        req("D26:1 D26:3", "Joanna", "ATTENDED", "meetings with movie producers", kind=EV,
          cat="event", otype="event",
          aliases=("meetings", "producer meetings", "meeting with movie producers",
                   "movie producers", "the meetings"),
          start=W("2022-10-25", "2022-11-04"),
          note="'I just set up meetings with movie producers' ... 'The meetings went really well'"),
        opt("D26:5", "Joanna", "OWNS", "old notebooks", cat="possession",
          aliases=("notebooks",)),
        opt("D26:5", "Joanna", PREF, "writing", cat="hobby"),
        opt("D26:10", "Nate", "LIKES", "turtles", cat="preference", aliases=("turtle",)),
        opt("D26:11", "Joanna", "WORKS_ON", "project", cat="project", aliases=("a project",)),
        opt("D26:12", "Nate", "ATTENDED", "international tournament", kind=EV, cat="event",
          aliases=("tournament",)),
        opt("D26:16 D26:18", "Nate", "CREATED", "ice cream", kind=EV, cat="creation",
          start=W("2022-11-03")),
        opt("D26:19 D26:21", "Joanna", "PLANS", "come over", cat="plan",
          aliases=("come over tomorrow", "bring some of my recipes")),
        opt("D26:22", "Nate", ("LIKES", "PLANS"), "chocolate and raspberry cake", cat="preference",
          aliases=("chocolate and rasberry cake", "cake")),
        opt("D26:13", "Nate", PREF, "gaming", cat="hobby"),
    ],
    # ------------------------------------------------------------ conv 4: Tim, John
    (4, 1): [  # Sun 2023-05-21
        opt("D1:2 D1:14", "Tim", "WORKS_ON", "Harry Potter fan project", cat="project",
          aliases=("fan project",)),
        req("D1:3 D1:5", "John", ("MEMBER_OF_TEAM", "WORKS_AT", "MEMBER_OF"), "Minnesota Wolves",
          kind=ST, cat="work", otype="organisation", aliases=("Wolves",),
          start=W("2023-05-01", "2023-05-21"),
          note="'I just signed with a new team' ... 'The Minnesota Wolves!' (answer to 'Which "
               "team did you sign with?')"),
        req("D1:7", "John", "HAS_ROLE", "shooting guard", kind=ST, cat="role", otype="role"),
        opt("D1:9", "John", "PLANS", "improve my shooting percentage", cat="plan",
          aliases=("improve shooting percentage",)),
        opt("D1:7", "John", "PLANS", "season opener", cat="plan"),
        req("D1:15", "John", "OWNS", "sneaker collection", kind=ST, cat="possession",
          otype="thing", aliases=("sneakers", "my sneaker collection")),
        opt("D1:15", "John", "LIKES", "talking to people about my sneaker collection",
          cat="preference", aliases=("sneaker collection",)),
        req("D1:18", "Tim", "VISITED", "London", kind=EV, cat="trip", otype="place",
          start=W("2018", "2021"), note="'I went to a place in London a few years ago'"),
        opt("D1:18", "Tim", "ATTENDED", "tour", kind=EV, cat="event",
          aliases=("a tour", "Harry Potter tour")),
        opt("D1:14 D1:16", "Tim", "LIKES", "Harry Potter", cat="preference"),
        opt("D1:19", "John", "PLANS", "Harry Potter places", cat="plan",
          aliases=("real Potter places", "those places", "visit Harry Potter places",
                   "Potter places")),
    ],
    (4, 2): [  # Thu 2023-06-15 (previous sitting Sun 2023-05-21)
        req("D2:1", "Tim", "MEMBER_OF", "fantasy literature forum", kind=ST, cat="membership",
          otype="organisation", aliases=("forum", "fantasy lit forum"),
          start=W("2023-06-14"), note="'Last night I joined a fantasy literature forum'"),
        opt("D2:1", "Tim", "LIKES", "books", cat="preference",
          aliases=("fave books", "my fave books", "talking books")),
        opt("D2:2 D2:4", "John", "PLANS", "endorsement opportunities", cat="plan",
          aliases=("endorsements", "endorsement", "work with brands", "sports brands")),
        opt("D2:4", "John", "PLANS", "Nike", cat="plan", note="considering"),
        opt("D2:4", "John", "PLANS", "Under Armour", cat="plan", note="considering"),
        req("D2:7", "Tim", "OWNS", "book collection", kind=ST, cat="possession", otype="thing",
          aliases=("books", "bookshelf", "my book collection")),
        opt("D2:9", "Tim", "OWNS", "picture from MinaLima", cat="possession",
          aliases=("picture", "MinaLima picture")),
        opt("D2:9", "Tim", "LIKES", "MinaLima", cat="preference",
          aliases=("their work",)),
        opt("D2:13", "Tim", "PLANS", "HP spots", cat="plan",
          aliases=("visiting more HP spots", "Harry Potter spots", "more HP spots")),
        opt("D2:16 D2:18", "John", PREF, "basketball", cat="hobby",
          aliases=("playing", "game")),
        opt("D2:16", "John", "ATTENDED", "game", kind=EV, cat="event"),
    ],
    (4, 4): [  # Wed 2023-08-02 (previous sitting Sun 2023-07-16)
        req("D4:1 D4:3", "Tim", "WORKS_AT", "online mag", kind=ST, cat="work",
          otype="organisation", aliases=("online magazine", "magazine", "mag"),
          alts=[("HAS_ROLE", "writer", ("article writer", "writer for an online mag")),
                ("WORKS_ON", "articles about fantasy novels", ("articles",))],
          note="'I'm writing articles about fantasy novels for an online mag'; not dated"),
        opt("D4:3", "Tim", "MEMBER_OF", "fantasy lit forum", cat="membership",
          otype="organisation", aliases=("forum", "fantasy literature forum")),
        opt("D4:3 D4:7", "Tim", "LIKES", "fantasy", cat="preference",
          aliases=("fantasy novels", "fantasy books")),
        opt("D4:7", "Tim", ("LIKES", "FAVORITE"), "Harry Potter", cat="preference"),
        opt("D4:7", "Tim", ("LIKES", "FAVORITE"), "Game of Thrones", cat="preference"),
        req("D4:8", "John", "ATTENDED", "charity thing", kind=EV, cat="event", otype="event",
          aliases=("charity event", "this charity thing", "Harry Potter trivia contest",
                   "trivia contest", "charity"),
          note="'Anthony and I went to this charity thing and ended up in this intense Harry "
               "Potter trivia contest'; not dated"),
        opt("D4:8", "Anthony", "ATTENDED", "charity thing", kind=EV, cat="event",
          aliases=("charity event", "Harry Potter trivia contest", "trivia contest")),
        req("D4:8", "John", ("KNOWS", "FRIEND_OF"), "Anthony", kind=ST, cat="friend",
          otype="person"),
        opt("D4:10", "John", "LIKES", "inspiring book", cat="preference",
          aliases=("book", "reading")),
    ],
    (4, 17): [  # Sat 2023-11-11 (previous sitting Mon 2023-11-06)
        req("D17:3", "John", "HAS_STATUS", "married", kind=ST, cat="relationship", otype="other",
          alts=[("MARRIED_TO", "wife", ("my wife", "his wife"))], note="'My wife and I'"),
        req("D17:3", "John", ("VISITED", "ATTENDED"), "European coastline", kind=EV, cat="trip",
          otype=("place", "event"), aliases=("Europe", "road trip", "the European coastline"),
          note="'My wife and I were road tripping out on the European coastline'; not dated"),
        opt("D17:2", "Tim", PREF, "reading", cat="hobby"),
        opt("D17:9", "John", "LIKES", "fantasy series", cat="preference",
          aliases=("fantasy worlds", "this amazing fantasy series")),
        opt("D17:10", "Tim", ("LIKES", "FAVORITE"), "That", cat="preference",
          aliases=("fantasy shows",)),
        opt("D17:11", "John", "LIKES", "That", cat="preference"),
        opt("D17:10 D17:12", "Tim", "LIKES", "fantasy", cat="preference",
          aliases=("fantasy realm", "books and movies")),
    ],
    (4, 25): [  # Tue 2023-12-19 (previous sitting Sat 2023-12-16): no required fact
        opt("D25:2", "John", ("WORKS_AT", "WORKS_WITH"), "outdoor gear company", cat="work",
          aliases=("renowned outdoor gear company",), start=W("2023-12-11", "2023-12-17"),
          note="'Last week I got this amazing deal with a renowned outdoor gear company' "
               "(unnamed)"),
        opt("D25:4", "John", "OWNS", "hiking stuff and outdoor gear", cat="possession",
          aliases=("hiking stuff", "outdoor gear", "gear")),
        opt("D25:3 D25:4", "John", "ATTENDED", "photoshoot", kind=EV, cat="event"),
        opt("D25:6 D25:8", "John", PREF, "hiking", cat="hobby", aliases=("nature",)),
        opt("D25:12", "John", "ATTENDED", "scrimmage", kind=EV, cat="event",
          aliases=("last week's scrimmage",), start=W("2023-12-11", "2023-12-17")),
    ],
    # -------- six more sessions of conversations 0-4 (one per conversation, two of conv 1),
    # labelled on 2026-12-02 before the extractor was run on them: recall on these alone
    # is the first-look figure of RESULTS.md ("fresh sessions")
    (0, 5): [  # Mon 2023-07-03 (previous sitting Tue 2023-06-27)
        req("D5:1", "Caroline", "ATTENDED", "LGBTQ+ pride parade", kind=EV, cat="event",
            aliases=("pride parade", "parade", "LGBTQ pride parade"), otype="event",
            start=W("2023-06-26", "2023-07-02"), note="'Last week I went to an LGBTQ+ pride parade'"),
        req("D5:4", "Melanie", ("MEMBER_OF", "ATTENDED"), "pottery class", kind=ST,
            cat="membership", otype=("organisation", "event", "activity"),
            aliases=("a pottery class", "pottery"), start=W("2023-07-02"),
            note="'I just signed up for a pottery class yesterday'"),
        opt("D5:3", "Caroline", ("PLANS", "LIKES"), "counseling", cat="plan",
            aliases=("counseling and mental health", "mental health")),
        opt("D5:5", "Caroline", PREF, "piano", cat="hobby", otype="activity",
            aliases=("learning the piano", "playing the piano")),
        opt("D5:6 D5:10", "Melanie", PREF, "pottery", cat="hobby", otype="activity"),
        opt("D5:8", "Melanie", "CREATED", "bowl", kind=EV, cat="creation", aliases=("this bowl",)),
        opt("D5:13", "Caroline", ("PLANS", "ATTENDED"), "transgender conference", cat="plan",
            aliases=("conference",)),
    ],
    (1, 5): [  # Wed 2023-02-08 (previous sitting Sat 2023-02-04)
        req("D5:1 D5:5", "Gina", ("RUNS", "OWNS"), "store", kind=ST, cat="business",
            otype="organisation", aliases=("my store", "online store", "clothing store"),
            note="'a cool new fashion piece for my store'; 'my online store'"),
        req("D5:3 D5:4", "Jon", ("RUNS", "OWNS"), "dance studio", kind=ST, cat="business",
            otype="organisation", aliases=("studio", "my own studio", "own studio"),
            note="'I love running my own studio'"),
        req("D5:10", "Jon", "HAS_ROLE", "banker", kind=ST, cat="role", otype="role",
            ended=UNDATED, note="'got me out of my secure 9-5 as a banker'"),
        opt("D5:2", "Jon", "ATTENDED", "festival", kind=EV, cat="event",
            aliases=("the festival", "performance")),
        opt("D5:2 D5:16", "Jon", PREF, "dancing", cat="hobby", aliases=("dance",),
            otype="activity"),
        opt("D5:13 D5:15", "Gina", "OWNS", "tattoo", cat="possession"),
        opt("D5:4", "Jon", "LEADS", "studio", cat="business", otype="organisation",
            added_after_review=True, note="'I love running my own studio'"),
        opt("D5:20", "Jon", "RUNS", "biz", cat="business", otype="organisation",
            aliases=("business",), added_after_review=True, note="'running my biz'"),
    ],
    (1, 12): [  # Sat 2023-05-27 (previous sitting Thu 2023-05-11)
        req("D12:1 D12:3", "Gina", "HAS_ROLE", "fashion internship", kind=ST, cat="role",
            otype=("role", "thing"), aliases=("fashion intern", "intern", "internship",
                                              "part-time position"),
            alts=[("WORKS_AT", "international company", ("company",))],
            note="'I just got accepted for a fashion internship!' (start not dated)"),
        opt("D12:6", "Jon", "LIKES", "The Lean Startup", cat="preference",
            aliases=("Lean Startup",)),
        opt("D12:7 D12:8", "Jon", ("RUNS", "OWNS"), "dance studio", cat="business",
            otype="organisation", aliases=("studio",)),
        opt("D12:12", "Jon", "PLANS", "business plan", cat="plan",
            aliases=("looking for investors", "investors")),
    ],
    (2, 5): [  # Sat 2023-01-28 (previous sitting Mon 2023-01-09)
        req("D5:1", "John", "ATTENDED", "community mtg", kind=EV, cat="event", otype="event",
            aliases=("community meeting", "that community mtg", "meeting"),
            start=W("2023-01-09", "2023-01-28"), note="'since we last spoke I went to ...'"),
        req("D5:6", "Maria", ("VOLUNTEERS_AT", "ATTENDED"), "shelter", kind=EV, cat="event",
            otype=("organisation", "event", "place"),
            aliases=("a shelter", "event for kids", "shelter event"),
            start=W("2023-01-16", "2023-01-22"),
            note="'Last week I volunteered at a shelter during an event for kids'"),
        opt("D5:5", "John", "PARENT_OF", "kids", cat="family", aliases=("children",),
            otype="person"),
        opt("D5:8", "Maria", "RELATIVE_OF", "aunt", cat="family", otype="person"),
    ],
    (3, 5): [  # Fri 2022-03-18 (previous sitting Fri 2022-02-25)
        req("D5:4 D5:6 D5:12", "Nate", "HAS_PET", "turtles", kind=ST, cat="pet", otype="pet",
            aliases=("turtle", "my turtles", "tortoises"),
            note="'I'm drawn to turtles'; 'pics of my turtles'"),
        req("D5:11", "Joanna", "ALLERGIC_TO", "cockroaches", kind=ST, cat="health",
            otype=("thing", "other"), note="'I found out recently I'm allergic to cockroaches'"),
        opt("D5:1", "Joanna", "CREATED", "second script", kind=EV, cat="creation",
            aliases=("script", "my second script")),
    ],
    (4, 8): [  # Mon 2023-08-21 (previous sitting Thu 2023-08-17)
        req("D8:1 D8:3", "John", "MEMBER_OF", "gym", kind=ST, cat="membership",
            otype="organisation", aliases=("new gym", "a new gym"),
            start=W("2023-08-17", "2023-08-20"),
            note="'Just the other day, I found a new gym'; 'It's been great training here'"),
        opt("D8:1", "John", "HAS_ROLE", "pro ball", cat="role", otype="role",
            aliases=("pro basketball player", "basketball player")),
        opt("D8:12", "Tim", PREF, "fantasy books", cat="hobby", aliases=("reading",)),
        opt("D8:12 D8:14", "Tim", PREF, "piano", cat="hobby", otype="activity",
            aliases=("playing the piano", "learning how to play the piano")),
        opt("D8:12", "Tim", "ATTENDS", "school", cat="education", otype="organisation"),
        opt("D8:16", "Tim", ("LIKES", "FAVORITE"), "Harry Potter and the Philosopher's Stone",
            cat="preference", aliases=("Harry Potter",)),
        opt("D8:17", "John", "OWNS", "whole collection", cat="possession",
            aliases=("Harry Potter collection", "collection")),
        opt("D8:14", "Tim", "LIKES", "playing different songs on the piano", cat="hobby",
            added_after_review=True),
        opt("D8:24", "Tim", "LIKES", "Home Alone", cat="preference", added_after_review=True),
        opt("D8:28", "Tim", "LIKES", "Santa Clause", cat="preference",
            aliases=("The Santa Clause",), added_after_review=True),
    ],
}

# first names the speakers call each other by (a subject given so is the same person)
NICKNAMES: dict[str, list[str]] = {"Melanie": ["Mel"]}
DEV_CONVERSATIONS = range(5)  # LoCoMo sample indexes 0-4; 5-9 stay unseen for extraction work


def build_rows(locomo: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSONL rows: every label with its session's date and the previous sitting's date."""
    from kgmem.ingest.formats import parse_locomo_datetime

    rows: list[dict[str, Any]] = []
    for (conv, session), labels in sorted(SESSIONS.items()):
        if conv not in DEV_CONVERSATIONS:
            raise ValueError(f"conversation {conv} is held out: label dev conversations 0-4 only")
        c = locomo[conv]["conversation"]
        ids = {t["dia_id"]: t["speaker"] for t in c[f"session_{session}"]}
        when = parse_locomo_datetime(c[f"session_{session}_date_time"]).isoformat()
        prev = (parse_locomo_datetime(c[f"session_{session - 1}_date_time"]).isoformat()
                if session > 1 else None)
        for n, label in enumerate(labels, start=1):
            missing = [t for t in label.turns if t not in ids]
            if missing:
                raise ValueError(f"c{conv}s{session}: no turns {missing}")
            row = label.to_json(conv, session, n)
            row.update(sample_id=locomo[conv]["sample_id"], session_date=when,
                       previous_session_date=prev,
                       subject_aliases=NICKNAMES.get(label.subject, []))
            rows.append(row)
    return rows


def main() -> None:
    import json

    from benchmarks.datasets._common import default_data_dir

    from .realchat import DATA

    locomo = json.loads((default_data_dir() / "locomo" / "locomo10.json").read_text("utf-8"))
    rows = build_rows(locomo)
    with DATA.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    req = sum(r["required"] for r in rows)
    print(f"wrote {len(rows)} labels ({req} required, {len(rows) - req} optional) "
          f"over {len(SESSIONS)} sessions to {DATA}")


if __name__ == "__main__":
    main()
