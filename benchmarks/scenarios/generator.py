"""Seeded generator of temporal histories with exact answers.

``generate_scenario(seed, index)`` is a pure function of its arguments (its RNG is
``random.Random(f"kgmem-scenarios:{seed}:{index}")``; no global state, no clock), so the same
seed always yields byte-identical scenarios (``Scenario.to_json``).

One scenario is a small world: a speaker (the user, talking in the first person) and one or
two colleagues. Each person has timelines of five functional predicates: WORKS_AT (with gaps
between jobs and sometimes no job at the end), LIVES_IN, HAS_ROLE, LEADS (stints that end)
and MARRIED_TO (a marriage may end in divorce and be followed by another). Colleagues share an
employer (and sometimes a city) with the speaker over an overlapping period, so that
"how were A and B connected in year Y" has an answer.

The history is told during a conversation that starts years after it began:

* **boomerangs**: someone returns to a former employer or city (the same object again later);
* **late**: an event is told days to years after it happened ("two years ago", "in June 2019");
* **out of order**: a later job may be told before an earlier one;
* **endings**: a job/leadership/marriage that ended without a successor is told as an end
  ("I left Stripe in May") -> ``invalidate``; old stints are sometimes told as a range
  ("I worked at IBM from 2012 to 2014") -> one assertion with both bounds;
* **retractions**: a false statement is made and later withdrawn ("Actually, I never worked at
  Oracle") -> ``retract``;
* **corrections**: a wrong object or date is later fixed ("Sorry, I meant Microsoft, not
  Amazon") -> ``correct``; or the right object is simply told again for the same start
  ("Oh wait, I joined Microsoft in March 2020") -> a second ``assert`` at the same valid
  instant, which shadows the first (the later arrival wins).

Every statement has a transaction time (when it was said). It is rendered once as a chat
episode (natural language, :mod:`.phrasing`) and once as a structured operation with
explicit valid times. Gold answers come from :mod:`.truth` (what had been told by ``known_at``
under the documented rules), never from kgmem.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from . import phrasing as P
from . import truth
from .model import (
    PREDICATES,
    UTC,
    Episode,
    Person,
    Question,
    Scenario,
    Segment,
    Statement,
    fmt_time,
    point,
    point_instant,
)

FIRST_F = [
    "Maya",
    "Priya",
    "Elena",
    "Sofia",
    "Hannah",
    "Grace",
    "Amara",
    "Lena",
    "Chloe",
    "Nadia",
    "Isabel",
    "Yuki",
    "Fatima",
    "Olivia",
    "Rosa",
    "Ingrid",
    "Leila",
    "Naomi",
]
FIRST_M = [
    "Daniel",
    "Marcus",
    "Tomas",
    "Omar",
    "Lucas",
    "Ethan",
    "Rahul",
    "Felix",
    "Jonas",
    "Andre",
    "Kenji",
    "Samuel",
    "Diego",
    "Victor",
    "Arjun",
    "Henry",
    "Mateo",
    "Ivan",
]
LAST = [
    "Patel",
    "Nair",
    "Kim",
    "Becker",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Haddad",
    "Novak",
    "Castillo",
    "Tanaka",
    "Schmidt",
    "O'Brien",
    "Rossi",
    "Kowalski",
    "Mensah",
    "Ferreira",
    "Larsen",
    "Dubois",
    "Petrov",
    "Yamamoto",
    "Walsh",
    "Chen",
    "Alvarez",
    "Fischer",
    "Johansson",
    "Reyes",
    "Sato",
    "Brennan",
    "Varga",
]
ORGS = [
    "Google",
    "Microsoft",
    "Amazon",
    "Apple",
    "Netflix",
    "Spotify",
    "Stripe",
    "Airbnb",
    "Shopify",
    "Salesforce",
    "Oracle",
    "IBM",
    "Intel",
    "Adobe",
    "Dropbox",
    "Uber",
    "Pinterest",
    "Deloitte",
    "Accenture",
    "Siemens",
    "Unilever",
    "Pfizer",
    "Boeing",
    "Tesla",
    "Nvidia",
    "Atlassian",
    "Zendesk",
    "Twilio",
    "Cisco",
    "SAP",
]
CITIES = [
    "Boston",
    "Austin",
    "Denver",
    "Seattle",
    "Chicago",
    "Portland",
    "Atlanta",
    "Toronto",
    "Berlin",
    "London",
    "Dublin",
    "Lisbon",
    "Madrid",
    "Amsterdam",
    "Paris",
    "Sydney",
    "Melbourne",
    "Vancouver",
    "Montreal",
    "Phoenix",
    "San Diego",
    "Miami",
    "Nashville",
    "Pittsburgh",
    "Minneapolis",
]
ROLES = [
    "software engineer",
    "senior engineer",
    "staff engineer",
    "engineering manager",
    "product manager",
    "data scientist",
    "designer",
    "analyst",
    "consultant",
    "researcher",
    "marketing manager",
    "sales director",
    "architect",
    "team lead",
    "director of engineering",
    "accountant",
]
TEAMS = [
    "payments team",
    "search team",
    "platform team",
    "mobile team",
    "data team",
    "security team",
    "growth team",
    "infrastructure team",
    "design team",
    "sales team",
    "billing team",
    "analytics team",
]
POOLS = {"WORKS_AT": ORGS, "LIVES_IN": CITIES, "HAS_ROLE": ROLES, "LEADS": TEAMS}

# (min segments, max segments, P(gap between segments), P(last one ended)) per person kind
SHAPE = {
    "speaker": {
        "WORKS_AT": (2, 4, 0.35, 0.2),
        "LIVES_IN": (1, 3, 0.05, 0.0),
        "HAS_ROLE": (1, 3, 0.05, 0.0),
        "LEADS": (0, 2, 0.5, 0.5),
        "MARRIED_TO": (0, 2, 1.0, 0.2),
    },
    "colleague": {
        "WORKS_AT": (1, 3, 0.3, 0.2),
        "LIVES_IN": (1, 2, 0.05, 0.0),
        "HAS_ROLE": (0, 2, 0.05, 0.0),
        "LEADS": (0, 1, 0.5, 0.5),
        "MARRIED_TO": (0, 1, 1.0, 0.2),
    },
}
PRECISION_WEIGHTS = (("year", 0.2), ("month", 0.6), ("day", 0.2))
DAY = timedelta(days=1)


# ----------------------------------------------------------------------------- helpers
def _day(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    n = max(0, (hi - lo).days)
    return lo + timedelta(days=rng.randint(0, n))


def _precision(rng: random.Random) -> str:
    x, acc = rng.random(), 0.0
    for p, w in PRECISION_WEIGHTS:
        acc += w
        if x < acc:
            return p
    return "day"


def _floor_after(rng: random.Random, true_day: datetime, prev: datetime | None) -> str:
    """A point for ``true_day`` at a random precision, strictly after ``prev``."""
    order = ["year", "month", "day"]
    first = _precision(rng)
    for prec in order[order.index(first) :]:
        p = point(true_day, prec)
        if prev is None or point_instant(p) > prev:
            return p
    return point(max(true_day, (prev or true_day) + DAY), "day")


@dataclass
class _Seg:
    object: str
    start_day: datetime
    end_day: datetime | None
    start: str = ""
    end: str | None = None


@dataclass
class _Pending:
    """A statement before its transaction time is fixed."""

    earliest: datetime
    st: Statement
    after: list[_Pending] = field(default_factory=list)
    min_gap: timedelta = timedelta(hours=1)
    delay: str = "auto"  # auto | soon
    target_of: _Pending | None = None  # the assertion an invalidate/retract/correct changes
    t: datetime | None = None


class _Builder:
    def __init__(self, seed: int, index: int) -> None:
        self.seed, self.index = seed, index
        self.rng = random.Random(f"kgmem-scenarios:{seed}:{index}")
        self.id = f"s{seed}-{index:04d}"
        r = self.rng
        y0 = r.randint(2008, 2013)
        self.h0 = datetime(y0, 1, 1, tzinfo=UTC)
        self.c0 = datetime(y0 + r.randint(7, 9), r.randint(1, 12), r.randint(1, 28), tzinfo=UTC)
        self.c1 = self.c0 + timedelta(days=r.randint(540, 1100))
        self.last_event = self.c1 - timedelta(days=20)
        self.people: list[Person] = []
        self.used_names: set[str] = set()
        self.truth: dict[str, dict[str, list[_Seg]]] = {}
        self.pending: list[_Pending] = []
        self.starts: dict[tuple[str, str], set[datetime]] = {}

    # ------------------------------------------------------------------ people
    def _name(self, gender: str | None = None) -> tuple[str, str]:
        r = self.rng
        while True:
            g = gender or r.choice("fm")
            name = f"{r.choice(FIRST_F if g == 'f' else FIRST_M)} {r.choice(LAST)}"
            first, last = name.split(" ", 1)
            if name not in self.used_names and not any(
                n.split(" ", 1)[0] == first or n.split(" ", 1)[1] == last for n in self.used_names
            ):
                self.used_names.add(name)
                return name, g

    # ------------------------------------------------------------------ timelines
    def _timeline(self, pred: str, kind: str, exclude: set[str]) -> list[_Seg]:
        r = self.rng
        lo_n, hi_n, p_gap, p_end = SHAPE[kind][pred]
        n = r.randint(lo_n, hi_n)
        if n == 0:
            return []
        lo = self.h0 + timedelta(days=r.randint(0, 500))
        span = (self.last_event - lo).days
        for _ in range(200):
            days = sorted(r.sample(range(0, span - 90), n))
            if all(b - a >= 150 for a, b in zip(days, days[1:])):
                break
        else:
            days = [int(i * span / (n + 1)) for i in range(n)]
        starts = [lo + timedelta(days=d) for d in days]
        if pred == "MARRIED_TO":
            objs = [self._name()[0] for _ in range(n)]
        else:
            pool = [x for x in POOLS[pred] if x not in exclude]
            objs = r.sample(pool, n)
            if n >= 3 and pred in ("WORKS_AT", "LIVES_IN") and r.random() < 0.2:
                objs[2] = objs[0]  # back to a former employer / city (a second lineage)
        segs = []
        for i, (o, s) in enumerate(zip(objs, starts)):
            if i + 1 < n:
                nxt = starts[i + 1]
                room = (nxt - s).days - 60
                if r.random() < p_gap and room > 60:
                    end: datetime | None = nxt - timedelta(days=r.randint(60, min(300, room)))
                else:
                    end = nxt
            elif r.random() < p_end and (self.last_event - s).days > 120:
                end = s + timedelta(days=r.randint(90, (self.last_event - s).days))
            else:
                end = None
            segs.append(_Seg(o, s, end))
        # points: strictly increasing; a contiguous boundary is one shared point
        prev: datetime | None = None
        for i, sg in enumerate(segs):
            if not sg.start:
                sg.start = _floor_after(r, sg.start_day, prev)
            prev = point_instant(sg.start)
            if sg.end_day is not None:
                nxt_seg = segs[i + 1] if i + 1 < len(segs) else None
                sg.end = _floor_after(r, sg.end_day, prev)
                prev = point_instant(sg.end)
                if nxt_seg is not None and nxt_seg.start_day == sg.end_day:
                    nxt_seg.start = sg.end
                elif nxt_seg is not None:
                    nxt_seg.start = _floor_after(r, nxt_seg.start_day, prev)
        return segs

    def _share(self, a: list[_Seg], b: list[_Seg], p: float) -> None:
        """Give one segment of ``b`` the object of an overlapping segment of ``a``."""
        r = self.rng
        if not a or not b or r.random() >= p:
            return
        pairs = []
        for j, sb in enumerate(b):
            for sa in a:
                lo = max(point_instant(sa.start), point_instant(sb.start))
                hi = min(
                    point_instant(sa.end) if sa.end else self.c1,
                    point_instant(sb.end) if sb.end else self.c1,
                )
                if lo < hi and sa.object not in {x.object for x in b}:
                    pairs.append((j, sa.object))
        if pairs:
            j, obj = r.choice(pairs)
            b[j].object = obj

    # ------------------------------------------------------------------ statements
    def _stmt(self, earliest: datetime, **kw: object) -> _Pending:
        st = Statement(id="", t="", **kw)  # type: ignore[arg-type]
        p = _Pending(earliest=earliest, st=st)
        self.pending.append(p)
        return p

    def _free_start(self, key: tuple[str, str], p: str) -> bool:
        return point_instant(p) not in self.starts.setdefault(key, set())

    def _tell_segments(self, person: str, pred: str, segs: list[_Seg]) -> None:
        r = self.rng
        key = (person, pred)
        self.starts.setdefault(key, set()).update(point_instant(s.start) for s in segs)
        for sg in segs:
            if (
                sg.end is not None
                and sg.end_day is not None
                and sg.end_day < self.c0
                and r.random() < 0.4
            ):
                self._stmt(
                    sg.end_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=sg.object,
                    valid_at=sg.start,
                    invalid_at=sg.end,
                    tags=["range"],
                )
                continue
            twist = r.random()
            if twist < 0.10:  # told with the wrong object, corrected later
                wrong = self._wrong_object(person, pred, sg.object)
                a = self._stmt(
                    sg.start_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=wrong,
                    valid_at=sg.start,
                    tags=["wrong_object"],
                )
                c = self._stmt(
                    sg.start_day + DAY,
                    op="correct",
                    subject=person,
                    predicate=pred,
                    new_object=sg.object,
                    tags=["correction"],
                )
                c.after, c.delay, c.target_of = [a], "soon", a
                last = c
            elif twist < 0.18 and (wrong_p := self._wrong_date(key, sg)) is not None:
                a = self._stmt(
                    sg.start_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=sg.object,
                    valid_at=wrong_p,
                    tags=["wrong_date"],
                )
                c = self._stmt(
                    sg.start_day + DAY,
                    op="correct",
                    subject=person,
                    predicate=pred,
                    new_valid_at=sg.start,
                    tags=["correction"],
                )
                c.after, c.delay, c.target_of = [a], "soon", a
                last = c
            elif twist < 0.24:  # wrong object, later restated with the same start (no op)
                wrong = self._wrong_object(person, pred, sg.object)
                a0 = self._stmt(
                    sg.start_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=wrong,
                    valid_at=sg.start,
                    tags=["wrong_object", "overridden"],
                )
                a = self._stmt(
                    sg.start_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=sg.object,
                    valid_at=sg.start,
                    tags=["restated"],
                )
                a.after, a.delay = [a0], "soon"
                last = a
            else:
                a = self._stmt(
                    sg.start_day + DAY,
                    op="assert",
                    subject=person,
                    predicate=pred,
                    object=sg.object,
                    valid_at=sg.start,
                    tags=[],
                )
                last = a
            if sg.end is not None and not self._implied_end(segs, sg):
                assert sg.end_day is not None
                e = self._stmt(
                    sg.end_day + DAY,
                    op="invalidate",
                    subject=person,
                    predicate=pred,
                    invalid_at=sg.end,
                    tags=["end"],
                )
                e.after, e.target_of = [last], a

    @staticmethod
    def _implied_end(segs: list[_Seg], sg: _Seg) -> bool:
        i = segs.index(sg)
        return i + 1 < len(segs) and segs[i + 1].start == sg.end

    def _wrong_object(self, person: str, pred: str, right: str) -> str:
        if pred == "MARRIED_TO":
            return self._name()[0]
        taken = {s.object for s in self.truth.get(person, {}).get(pred, [])}
        return self.rng.choice([x for x in POOLS[pred] if x not in taken and x != right])

    def _wrong_date(self, key: tuple[str, str], sg: _Seg) -> str | None:
        r = self.rng
        inst = point_instant(sg.start)
        prec = {4: "year", 7: "month", 10: "day"}[len(sg.start)]
        for _ in range(10):
            if prec == "year":
                cand = inst.replace(year=inst.year + r.choice([-1, 1]))
            elif prec == "month":
                k = r.choice([-3, -2, -1, 1, 2, 3])
                m = inst.year * 12 + inst.month - 1 + k
                cand = inst.replace(year=m // 12, month=m % 12 + 1)
            else:
                cand = inst + timedelta(days=r.choice([-10, -7, -3, -1, 1, 3, 7, 10]))
            p = point(cand, prec)
            if not self._free_start(key, p):
                continue
            if sg.end is not None and not point_instant(p) < point_instant(sg.end):
                continue
            if point_instant(p) > sg.start_day:  # would be told before it "happened"
                continue
            self.starts[key].add(point_instant(p))
            return p
        return None

    def _false_statement(self, person: str, pred: str) -> None:
        """Something that never happened, told and later retracted."""
        r = self.rng
        key = (person, pred)
        wrong = self._wrong_object(person, pred, "")
        for _ in range(20):
            day = _day(r, self.h0 + timedelta(days=200), self.last_event - timedelta(days=60))
            p = point(day, r.choice(["year", "month", "month", "day"]))
            if self._free_start(key, p) and point_instant(p) <= day:
                break
        else:
            return
        self.starts[key].add(point_instant(p))
        end = None
        earliest = day + DAY
        if r.random() < 0.3:
            end_day = day + timedelta(days=r.randint(180, 720))
            if end_day < self.last_event:
                end = point(end_day, "month")
                if point_instant(end) <= point_instant(p):
                    end = None
                else:
                    earliest = end_day + DAY
        a = self._stmt(
            earliest,
            op="assert",
            subject=person,
            predicate=pred,
            object=wrong,
            valid_at=p,
            invalid_at=end,
            tags=["false"] + (["range"] if end else []),
        )
        x = self._stmt(earliest, op="retract", subject=person, predicate=pred, tags=["retraction"])
        x.after, x.delay, x.target_of = [a], "soon", a

    # ------------------------------------------------------------------ schedule
    def _schedule(self) -> list[Statement]:
        r = self.rng
        span = self.c1 - self.c0
        for p in self.pending:
            e = p.earliest
            if p.delay == "soon":
                base = max(q.t for q in p.after if q.t is not None)
                t = base + timedelta(days=r.uniform(0.05, 120))
            elif e < self.c0:
                t = self.c0 + timedelta(seconds=r.uniform(0, span.total_seconds()))
            elif r.random() < 0.6:
                t = e + timedelta(days=r.uniform(0.2, 20))
            else:
                t = e + timedelta(days=r.uniform(30, 240))
            t = max(t, e).replace(
                hour=r.randint(8, 21), minute=r.randint(0, 59), second=0, microsecond=0
            )
            if t < e:
                t = e + timedelta(hours=12)
            for q in p.after:
                assert q.t is not None
                if t <= q.t:
                    t = q.t + p.min_gap
            p.t = t
        order = sorted(self.pending, key=lambda p: (p.t, self.pending.index(p)))
        last: datetime | None = None
        for p in order:  # strictly increasing, at least a minute apart
            assert p.t is not None
            if last is not None and p.t <= last:
                p.t = last + timedelta(minutes=r.randint(1, 30))
            last = p.t
        for i, p in enumerate(order):
            p.st.id = f"st{i:03d}"
            p.st.t = fmt_time(p.t)  # type: ignore[arg-type]
        for p in order:
            if p.target_of is not None:
                p.st.target = p.target_of.st.id
        seen: dict[tuple[str, str], list[datetime]] = {}
        for p in order:  # tags for analysis: told late, told out of valid-time order
            st = p.st
            if st.op != "assert" or st.valid_at is None:
                continue
            start = point_instant(st.valid_at)
            happened = point_instant(st.invalid_at) if st.invalid_at else start
            if p.t - happened > timedelta(days=30):  # type: ignore[operator]
                st.tags.append("late")
            earlier = seen.setdefault((st.subject, st.predicate), [])
            if any(x > start for x in earlier):
                st.tags.append("out_of_order")
            earlier.append(start)
        return [p.st for p in order]

    # ------------------------------------------------------------------ build
    def build(self) -> Scenario:
        r = self.rng
        n_col = r.choice([1, 2, 2])
        name, g = self._name()
        self.people.append(Person(name, g, "speaker"))
        for _ in range(n_col):
            cname, cg = self._name()
            self.people.append(Person(cname, cg, "colleague"))
        speaker = self.people[0]
        for person in self.people:
            preds: dict[str, list[_Seg]] = {}
            for pred in PREDICATES:
                exclude: set[str] = set()
                if person.role == "colleague" and pred in ("WORKS_AT", "LIVES_IN"):
                    exclude = {s.object for p2 in self.truth.values() for s in p2.get(pred, [])}
                segs = self._timeline(pred, person.role, exclude)
                if segs:
                    preds[pred] = segs
            self.truth[person.name] = preds
            if person.role == "colleague":
                others = [
                    self.truth[p.name]
                    for p in self.people
                    if p.name != person.name and p.name in self.truth
                ]
                for pred, prob in (("WORKS_AT", 0.9), ("LIVES_IN", 0.4)):
                    if pred in preds and others:
                        self._share(r.choice(others).get(pred, []), preds[pred], prob)
        for person in self.people:
            for pred, segs in self.truth[person.name].items():
                self._tell_segments(person.name, pred, segs)
        for _ in range(r.choice([0, 1, 1, 2])):
            who = r.choice(self.people).name
            pred = r.choice(["WORKS_AT", "WORKS_AT", "LIVES_IN", "HAS_ROLE", "LEADS"])
            self._false_statement(who, pred)
        statements = self._schedule()
        episodes = self._render(statements, speaker.name)
        final = max(datetime.fromisoformat(episodes[-1].reference_time), self.c1) + DAY
        final = final.replace(hour=12, minute=0, second=0, microsecond=0)
        truth_out = {
            person: {
                pred: [Segment(s.object, s.start, s.end) for s in segs]
                for pred, segs in preds.items()
            }
            for person, preds in self.truth.items()
        }
        sc = Scenario(
            id=self.id,
            seed=self.seed,
            index=self.index,
            people=self.people,
            truth=truth_out,
            statements=statements,
            episodes=episodes,
            questions=[],
            conversation_start=fmt_time(self.c0),
            final_time=fmt_time(final),
        )
        sc.questions = _questions(sc, r)
        return sc

    # ------------------------------------------------------------------ text
    def _render(self, statements: list[Statement], main: str) -> list[Episode]:
        r = self.rng
        gender = {p.name: p.gender for p in self.people}
        state: dict[str, Statement] = {}  # current view of each assertion (after corrections)
        episodes: list[Episode] = []
        for s in statements:
            t = datetime.fromisoformat(s.t)
            if s.subject == main:
                speaker = main
            else:
                speaker = s.subject if r.random() < 0.3 else main
            v = P.voice(r, s.subject, speaker, gender.get(s.subject, "f"))
            proper: tuple[str, ...] = (s.subject,)
            if s.op == "assert":
                cur = Statement(**{**s.__dict__, "tags": list(s.tags)})
                state[s.id] = cur
                assert s.object is not None and s.valid_at is not None
                proper = (s.subject, s.object)
                if s.invalid_at:
                    text, tid = P.render_range(
                        r, v, s.predicate, s.object, s.valid_at, s.invalid_at
                    )
                else:
                    seg_end = self._truth_end(s)
                    ongoing = (seg_end is None or point_instant(seg_end) > t) and not (
                        {"false", "wrong_object", "wrong_date"} & set(s.tags)
                    )
                    text, tid = P.render_start(r, v, s.predicate, s.object, s.valid_at, t, ongoing)
                if "restated" in s.tags:
                    text = "Oh wait, " + (
                        text
                        if text.startswith(("I ", "I'", *proper))
                        else text[0].lower() + text[1:]
                    )
                else:
                    text = P.decorate(r, text, proper)
            else:
                cur = state[s.target or ""]
                assert cur.object is not None and cur.valid_at is not None
                s.object = cur.object
                if s.op == "invalidate":
                    assert s.invalid_at is not None
                    text, tid = P.render_end(r, v, s.predicate, cur.object, s.invalid_at, t)
                    text = P.decorate(r, text, (s.subject, cur.object))
                elif s.op == "retract":
                    text, tid = P.render_retract(r, v, s.predicate, cur.object)
                    del state[cur.id]
                elif s.new_object is not None:
                    text, tid = P.render_correct_object(
                        r, v, s.predicate, s.new_object, cur.object, cur.valid_at, t
                    )
                    cur.object = s.new_object
                else:
                    assert s.new_valid_at is not None
                    text, tid = P.render_correct_date(
                        r, v, s.predicate, cur.object, s.new_valid_at, cur.valid_at, t
                    )
                    cur.valid_at = s.new_valid_at
            s.speaker = speaker
            episodes.append(
                Episode(
                    id="",
                    reference_time=s.t,
                    speaker=speaker,
                    content=text,
                    statements=[s.id],
                    phrasing=tid,
                )
            )
        # chit-chat between statements (no facts): a few per scenario
        times = [datetime.fromisoformat(e.reference_time) for e in episodes]
        for _ in range(r.randint(2, 6)):
            if len(times) < 2:
                break
            i = r.randrange(1, len(times))
            lo, hi = times[i - 1], times[i]
            if (hi - lo) < timedelta(minutes=2):
                continue
            t = lo + (hi - lo) / 2
            t = t.replace(second=0, microsecond=0)
            if t <= lo or t >= hi or t in times:
                continue
            times.append(t)
            times.sort()
            episodes.append(
                Episode(
                    id="",
                    reference_time=fmt_time(t),
                    speaker=main,
                    content=r.choice(P.FILLERS),
                    phrasing="filler",
                )
            )
        episodes.sort(key=lambda e: e.reference_time)
        for i, e in enumerate(episodes):
            e.id = f"ep{i:03d}"
        return episodes

    def _truth_end(self, s: Statement) -> str | None:
        for sg in self.truth.get(s.subject, {}).get(s.predicate, []):
            if sg.start == s.valid_at:
                return sg.end
        return None


# ----------------------------------------------------------------------------- questions
def _mid(a: datetime, b: datetime) -> datetime | None:
    """A midnight strictly inside (a, b), near the middle; None if there is none."""
    m = (a + (b - a) / 2).replace(hour=0, minute=0, second=0, microsecond=0)
    if a < m < b:
        return m
    m += DAY
    return m if a < m < b else None


def _probes(ivs: list[tuple[str, datetime, datetime | None]], final: datetime) -> list[datetime]:
    """Valid-time probes: inside every interval, inside every gap, before the first start."""
    out: list[datetime] = []
    ivs = sorted(ivs, key=lambda x: x[1])
    for i, (_o, s, e) in enumerate(ivs):
        hi = e if e is not None else min(final, s + timedelta(days=730))
        if (m := _mid(s, hi)) is not None:
            out.append(m)
        nxt = ivs[i + 1][1] if i + 1 < len(ivs) else final
        if e is not None and e < nxt and (m := _mid(e, nxt)) is not None:
            out.append(m)
    if ivs and (m := _mid(ivs[0][1] - timedelta(days=400), ivs[0][1])) is not None:
        out.append(m)
    return sorted(set(out))


def _questions(sc: Scenario, r: random.Random) -> list[Question]:
    final = datetime.fromisoformat(sc.final_time)
    qs: list[Question] = []

    def add(
        kind: str,
        subject: str,
        pred: str,
        v: datetime,
        k: datetime,
        gold: list[str],
        tags: list[str] | None = None,
        **kw: object,
    ) -> None:
        vs, ks = fmt_time(v), fmt_time(k)
        text = P.question_text(
            kind, pred, subject, vs, ks, str(kw.get("other") or ""), kw.get("year")
        )  # type: ignore[arg-type]
        qs.append(
            Question(
                id=f"{sc.id}.q{len(qs):03d}",
                kind=kind,
                subject=subject,
                predicate=pred,
                valid_at=vs,
                known_at=ks,
                gold=sorted(gold),
                text=text,
                tags=tags or [],
                **kw,
            )
        )  # type: ignore[arg-type]

    told = sorted(
        {(s.subject, s.predicate) for s in sc.statements},
        key=lambda x: (x[0], PREDICATES.index(x[1])),
    )
    # now
    for subj, pred in told:
        add("now", subj, pred, final, final, truth.value_at(sc, subj, pred, final, final))
    # as_of (known now)
    for subj, pred in told:
        ivs = truth.intervals(truth.believed(sc.statements, subj, pred, final))
        probes = _probes(ivs, final)
        if not probes:
            continue
        inside = [v for v in probes if truth.value_at(sc, subj, pred, v, final)]
        pick = r.sample(inside, min(2, len(inside))) if inside else []
        if r.random() < 0.3 and probes:
            pick.append(r.choice(probes))
        for v in sorted(set(pick)):
            add("as_of", subj, pred, v, final, truth.value_at(sc, subj, pred, v, final))
    # as_known: just before some statement was made, at valid times it affects
    times = [datetime.fromisoformat(s.t) for s in sc.statements]
    cands: list[tuple[bool, datetime, datetime, str, str, list[str]]] = []
    for i, s in enumerate(sc.statements):
        k = times[i] - (times[i] - times[i - 1]) / 2 if i else times[i] - timedelta(days=1)
        k = k.replace(microsecond=0)
        before = truth.intervals(truth.believed(sc.statements, s.subject, s.predicate, k))
        after = truth.intervals(truth.believed(sc.statements, s.subject, s.predicate, final))
        for v in sorted(set(_probes(before, final) + _probes(after, final))):
            if v > k:
                continue  # ask about the past of K only: "what did we believe then about then"
            g_k = truth.value_at(sc, s.subject, s.predicate, v, k)
            g_f = truth.value_at(sc, s.subject, s.predicate, v, final)
            cands.append((g_k != g_f, k, v, s.subject, s.predicate, s.tags))
    differ = [c for c in cands if c[0]]
    same = [c for c in cands if not c[0]]
    n_known = 6
    chosen = r.sample(differ, min(len(differ), 4))
    chosen += r.sample(same, min(len(same), n_known - len(chosen)))
    for d, k, v, subj, pred, tags in sorted(chosen, key=lambda c: (c[1], c[2], c[3], c[4])):
        add(
            "as_known",
            subj,
            pred,
            v,
            k,
            truth.value_at(sc, subj, pred, v, k),
            tags=(["differs_from_now"] if d else []) + [f"next:{t}" for t in tags],
        )
    # connection: via paths(mode="sequenced") in year Y
    names = [p.name for p in sc.people]
    conn: list[tuple[bool, str, str, str, int, list[str]]] = []
    y_lo = min(
        point_instant(seg.start).year
        for preds in sc.truth.values()
        for segs in preds.values()
        for seg in segs
    )
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for pred in ("WORKS_AT", "LIVES_IN"):
                for y in range(y_lo, final.year + 1):
                    y0 = datetime(y, 1, 1, tzinfo=UTC)
                    g = truth.connection(sc, a, b, pred, y0, y0.replace(year=y + 1), final)
                    conn.append((bool(g), a, b, pred, y, g))
    pos = [c for c in conn if c[0]]
    neg = [c for c in conn if not c[0] and c[3] == "WORKS_AT"]
    chosen_c = r.sample(pos, min(len(pos), 3)) + r.sample(neg, min(len(neg), 1))
    for _has, a, b, pred, y, g in sorted(chosen_c, key=lambda c: (c[1], c[2], c[3], c[4])):
        add("connection", a, pred, datetime(y, 1, 1, tzinfo=UTC), final, g, other=b, year=y)
    return qs


def generate_scenario(seed: int, index: int) -> Scenario:
    """Scenario ``index`` of ``seed`` (pure: same arguments, same scenario)."""
    return _Builder(seed, index).build()


def generate_scenarios(seed: int, n: int) -> list[Scenario]:
    return [generate_scenario(seed, i) for i in range(n)]
