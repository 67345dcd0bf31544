"""Natural-language renderings of told statements: templates and time expressions.

Every event type has at least eight phrasings, written once for both grammatical persons:
``{S}`` is "I" (the speaker talking about themselves) or a colleague's name (third person),
``{have}``/``{was}``/``{poss}`` agree with it. Time expressions are chosen so that each one
denotes exactly the statement's valid-time point under kgmem's documented policy
(``kgmem/ingest/temporal/``): ``in 2019``/``last year``/``two years ago`` are years,
``in June 2021``/``last June`` (only when no nearer June exists)/``three months ago`` are
months, ``on June 3, 2021``/``yesterday``/``four days ago`` are days. The answer key never
depends on the rendering: a wrong reading is the extractor's error, reported as such.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from .model import point_instant, point_precision

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
NUMBERS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
]


# ----------------------------------------------------------------------------- time phrases
def when_phrases(p: str, told_at: datetime) -> list[tuple[str, str]]:
    """(phrase, style) candidates that denote point ``p`` when said at ``told_at``.

    ``style`` is ``absolute`` or ``relative``. Each phrase starts with its preposition
    ("in 2019", "last year", "on June 3, 2021") so it can end a clause or open a sentence.
    """
    inst, prec = point_instant(p), point_precision(p)
    y, m, d = inst.year, inst.month, inst.day
    T = told_at
    out: list[tuple[str, str]] = []
    if prec == "year":
        out.append((f"in {y}", "absolute"))
        dy = T.year - y
        if dy == 0:
            out += [("earlier this year", "relative"), ("this year", "relative")]
        elif dy == 1:
            out.append(("last year", "relative"))
        elif 2 <= dy <= 9:
            out.append((f"{NUMBERS[dy]} years ago", "relative"))
    elif prec == "month":
        mon = MONTHS[m - 1]
        out.append((f"in {mon} {y}", "absolute"))
        n = (T.year * 12 + T.month) - (y * 12 + m)
        if n == 0:
            out.append(("earlier this month", "relative"))
        elif n == 1:
            out.append(("last month", "relative"))
        if 2 <= n <= 11:
            out.append((f"{NUMBERS[n]} months ago", "relative"))
        if y == T.year and 0 < n:
            out += [(f"in {mon}", "relative"), (f"back in {mon}", "relative")]
        if y == T.year - 1 and m > T.month:  # "last June" is unambiguous only then
            out.append((f"last {mon}", "relative"))
    else:
        mon = MONTHS[m - 1]
        out += [(f"on {mon} {d}, {y}", "absolute"), (f"on {d} {mon} {y}", "absolute")]
        days = (T.date() - inst.date()).days
        if y == T.year and 0 < days:
            out.append((f"on {mon} {d}", "relative"))
        if days == 1:
            out.append(("yesterday", "relative"))
        elif 2 <= days <= 6:
            out.append((f"{NUMBERS[days]} days ago", "relative"))
    return out


def bare_point(p: str) -> str:
    """A point without preposition, for "since X", "from X to Y", "not X"."""
    inst, prec = point_instant(p), point_precision(p)
    if prec == "year":
        return str(inst.year)
    if prec == "month":
        return f"{MONTHS[inst.month - 1]} {inst.year}"
    return f"{MONTHS[inst.month - 1]} {inst.day}, {inst.year}"


def pick_when(rng: random.Random, p: str, told_at: datetime) -> tuple[str, str]:
    cands = when_phrases(p, told_at)
    rel = [c for c in cands if c[1] == "relative"]
    if rel and rng.random() < 0.5:
        return rng.choice(rel)
    return rng.choice([c for c in cands if c[1] == "absolute"])


# ----------------------------------------------------------------------------- subjects
@dataclass
class Voice:
    """Grammatical agreement for one subject as seen by the episode's speaker."""

    S: str  # "I" or the colleague's name
    S_intro: str  # at the start of a sentence: "I" / "My colleague Priya Nair"
    have: str
    was: str
    poss: str  # my / her / his
    first: bool

    def and_o(self, obj: str) -> str:
        return f"{obj} and I" if self.first else f"{self.S} and {obj}"

    @property
    def poss_pl(self) -> str:
        return "our" if self.first else "their"


def voice(rng: random.Random, subject: str, speaker: str, gender: str) -> Voice:
    if subject == speaker:
        return Voice("I", "I", "have", "was", "my", True)
    intro = rng.choice(
        [
            subject,
            subject,
            subject,
            f"My colleague {subject}",
            f"My friend {subject}",
            f"{subject} from work",
        ]
    )
    return Voice(subject, intro, "has", "was", "her" if gender == "f" else "his", False)


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


# ----------------------------------------------------------------------------- templates
# {S} subject (sentence-initial form), {O} object, {a} article of {O}, {when} a time phrase
# with its preposition, {since} a bare point, {have}/{was}/{poss}/{poss_pl} agreement,
# {SO} "Daniel Kim and I" / "Priya Nair and Daniel Kim".
START: dict[str, list[str]] = {
    "WORKS_AT": [
        "{S} joined {O} {when}.",
        "{S} started working at {O} {when}.",
        "{S} took a job at {O} {when}.",
        "{S} got hired at {O} {when}.",
        "{S} started a new job at {O} {when}.",
        "{S} began working for {O} {when}.",
        "{S} landed a job at {O} {when}.",
        "{S} signed on with {O} {when}.",
        "{S} went to work for {O} {when}.",
    ],
    "LIVES_IN": [
        "{S} moved to {O} {when}.",
        "{S} relocated to {O} {when}.",
        "{S} settled in {O} {when}.",
        "{S} bought a place in {O} {when}.",
        "{S} started living in {O} {when}.",
        "{S} packed up and moved to {O} {when}.",
        "{S} made the move to {O} {when}.",
        "{S} found an apartment in {O} and moved there {when}.",
    ],
    "HAS_ROLE": [
        "{S} got promoted to {O} {when}.",
        "{S} became {a} {O} {when}.",
        "{S} started as {a} {O} {when}.",
        "{S} took on the role of {O} {when}.",
        "{S} {was} made {O} {when}.",
        "{S} switched to {a} {O} position {when}.",
        "{S} stepped into the {O} role {when}.",
        "{S} started working as {a} {O} {when}.",
    ],
    "LEADS": [
        "{S} took over the {O} {when}.",
        "{S} started leading the {O} {when}.",
        "{S} became the lead of the {O} {when}.",
        "{S} {was} put in charge of the {O} {when}.",
        "{S} took charge of the {O} {when}.",
        "{S} inherited the {O} {when}.",
        "{S} started managing the {O} {when}.",
        "{S} got to lead the {O} {when}.",
    ],
    "MARRIED_TO": [
        "{S} married {O} {when}.",
        "{S} got married to {O} {when}.",
        "{SO} got married {when}.",
        "{SO} tied the knot {when}.",
        "{S} wed {O} {when}.",
        "{SO} got hitched {when}.",
        "{SO} had {poss_pl} wedding {when}.",
        "{S} and {O} were married {when}.",
    ],
}

# present perfect: only for a state still true when it is told
SINCE: dict[str, list[str]] = {
    "WORKS_AT": [
        "{S} {have} worked at {O} since {since}.",
        "{S} {have} been working at {O} since {since}.",
        "{S} {have} been with {O} since {since}.",
    ],
    "LIVES_IN": [
        "{S} {have} lived in {O} since {since}.",
        "{S} {have} been living in {O} since {since}.",
        "{S} {have} been based in {O} since {since}.",
    ],
    "HAS_ROLE": [
        "{S} {have} been {a} {O} since {since}.",
        "{S} {have} worked as {a} {O} since {since}.",
    ],
    "LEADS": [
        "{S} {have} been leading the {O} since {since}.",
        "{S} {have} run the {O} since {since}.",
    ],
    "MARRIED_TO": [
        "{S} {have} been married to {O} since {since}.",
        "{SO} have been married since {since}.",
    ],
}

END: dict[str, list[str]] = {
    "WORKS_AT": [
        "{S} left {O} {when}.",
        "{S} quit {poss} job at {O} {when}.",
        "{S} stopped working at {O} {when}.",
        "{S} resigned from {O} {when}.",
        "{S} got laid off from {O} {when}.",
        "{S} {was} let go from {O} {when}.",
        "{S} left {poss} position at {O} {when}.",
        "{S} walked away from {O} {when}.",
        "{S} handed in {poss} notice and left {O} {when}.",
    ],
    "LIVES_IN": [
        "{S} moved out of {O} {when}.",
        "{S} left {O} {when}.",
        "{S} stopped living in {O} {when}.",
        "{S} gave up {poss} apartment in {O} {when}.",
        "{S} sold {poss} place in {O} {when}.",
        "{S} moved away from {O} {when}.",
        "{S} packed up and left {O} {when}.",
        "{S} said goodbye to {O} and moved out {when}.",
    ],
    "HAS_ROLE": [
        "{S} stopped being {a} {O} {when}.",
        "{S} stepped down as {O} {when}.",
        "{S} gave up the {O} role {when}.",
        "{S} left the {O} position {when}.",
        "{S} stopped working as {a} {O} {when}.",
        "{S} quit as {O} {when}.",
        "{S} stopped serving as {a} {O} {when}.",
        "{S} moved on from being {a} {O} {when}.",
    ],
    "LEADS": [
        "{S} stepped down as head of the {O} {when}.",
        "{S} stopped leading the {O} {when}.",
        "{S} handed off the {O} to someone else {when}.",
        "{S} gave up leading the {O} {when}.",
        "{S} stepped away from leading the {O} {when}.",
        "{S} stopped running the {O} {when}.",
        "{S} left the {O} {when}.",
        "{S} stopped managing the {O} {when}.",
    ],
    "MARRIED_TO": [
        "{S} divorced {O} {when}.",
        "{SO} got divorced {when}.",
        "{SO} split up {when}.",
        "{S} separated from {O} {when}.",
        "{SO} ended {poss_pl} marriage {when}.",
        "{SO} broke up {when}.",
        "{SO} went {poss_pl} separate ways {when}.",
        "{S} and {O} divorced {when}.",
    ],
}

# {A}/{B}: bare points (start, end)
RANGE: dict[str, list[str]] = {
    "WORKS_AT": [
        "{S} worked at {O} from {A} to {B}.",
        "{S} {was} at {O} from {A} until {B}.",
        "From {A} to {B}, {S} worked for {O}.",
        "Between {A} and {B}, {S} {was} employed at {O}.",
        "{S} had a job at {O} from {A} to {B}.",
        "{S} worked for {O} between {A} and {B}.",
        "Back then, from {A} to {B}, {S} {was} working at {O}.",
        "{S} {was} on staff at {O} from {A} until {B}.",
    ],
    "LIVES_IN": [
        "{S} lived in {O} from {A} to {B}.",
        "From {A} to {B}, {S} lived in {O}.",
        "{S} {was} based in {O} from {A} until {B}.",
        "{S} lived in {O} between {A} and {B}.",
        "Between {A} and {B}, {S} called {O} home.",
        "{S} had a place in {O} from {A} to {B}.",
        "{S} stayed in {O} from {A} to {B}.",
        "{S} rented an apartment in {O} from {A} to {B}.",
    ],
    "HAS_ROLE": [
        "{S} {was} {a} {O} from {A} to {B}.",
        "From {A} to {B}, {S} worked as {a} {O}.",
        "{S} served as {a} {O} between {A} and {B}.",
        "{S} held the {O} title from {A} to {B}.",
        "Between {A} and {B}, {S} {was} {a} {O}.",
        "{S} worked as {a} {O} from {A} until {B}.",
        "{S} had the role of {O} from {A} to {B}.",
        "{S} {was} employed as {a} {O} from {A} to {B}.",
    ],
    "LEADS": [
        "{S} led the {O} from {A} to {B}.",
        "From {A} to {B}, {S} ran the {O}.",
        "{S} {was} in charge of the {O} between {A} and {B}.",
        "{S} headed the {O} from {A} until {B}.",
        "{S} managed the {O} from {A} to {B}.",
        "Between {A} and {B}, {S} led the {O}.",
        "{S} {was} the lead of the {O} from {A} to {B}.",
        "{S} ran the {O} from {A} until {B}.",
    ],
    "MARRIED_TO": [
        "{S} {was} married to {O} from {A} to {B}.",
        "From {A} to {B}, {S} {was} married to {O}.",
        "{SO} were married between {A} and {B}.",
        "{SO} were married from {A} until {B}.",
        "{S} stayed married to {O} from {A} to {B}.",
        "Between {A} and {B}, {S} {was} married to {O}.",
        "{S} had been married to {O} from {A} to {B}.",
        "{SO} were a married couple from {A} to {B}.",
    ],
}

# verb phrases for corrections: past "never ..." and the start event
NEVER_VP = {
    "WORKS_AT": "worked at {O}",
    "LIVES_IN": "lived in {O}",
    "HAS_ROLE": "was {a} {O}",
    "LEADS": "led the {O}",
    "MARRIED_TO": "married {O}",
}
START_VP = {
    "WORKS_AT": "joined {O}",
    "LIVES_IN": "moved to {O}",
    "HAS_ROLE": "became {a} {O}",
    "LEADS": "took over the {O}",
    "MARRIED_TO": "married {O}",
}

RETRACT = [
    "Actually, {S} never {vp}.",
    "Wait, that's wrong: {S} never {vp}.",
    "Scratch that, {S} never {vp}.",
    "Correction: {S} never {vp}, I mixed that up.",
    "Sorry, my mistake. {S} never {vp}.",
    "I got that wrong earlier: {S} never {vp}.",
    "Forget what I said before, {S} never actually {vp}.",
    "To set the record straight, {S} never {vp}.",
    "Hmm, no. {S} never {vp}; I was confusing it with something else.",
]

# {vp} = START_VP with the right object, {W} = the wrong object
CORRECT_OBJECT = [
    "Sorry, I meant {O}, not {W}: {S} {vp} {when}.",
    "Correction: it was {O}, not {W}. {S} {vp} {when}.",
    "Oops, I said {W} but I meant {O}. {S} {vp} {when}.",
    "Wait, not {W}, {O}! {S} {vp} {when}.",
    "I misspoke: {S} {vp} {when}, not {W}.",
    "Let me fix that: {S} {vp} {when}, not {W}.",
    "My bad, {S} never {never_w}. {S} {vp} {when}.",
    "Sorry, {W} was wrong. {S} actually {vp} {when}.",
]

# {when} = the right date, {old} = the wrong bare point
CORRECT_DATE = [
    "Sorry, {S} {vp} {when}, not {old}.",
    "Correction: {S} {vp} {when}, not {old}.",
    "I got the date wrong: {S} {vp} {when}.",
    "Wait, {S} {vp} {when}, not {old}. My mistake.",
    "Let me correct myself: {S} {vp} {when}.",
    "Oops, wrong date. {S} {vp} {when}.",
    "To be precise, {S} {vp} {when}, not {old}.",
    "Actually it was not {old}: {S} {vp} {when}.",
]

PREFIXES = [
    "",
    "",
    "",
    "",
    "",
    "Oh, ",
    "By the way, ",
    "Quick update: ",
    "So, ",
    "Anyway, ",
    "Not sure if I told you, but ",
    "Fun fact: ",
    "Random thing: ",
]
SUFFIXES = [
    "",
    "",
    "",
    "",
    "",
    " Long story.",
    " Crazy, right?",
    " Just so you know.",
    " Anyway, how are you?",
    " Time flies.",
]
FILLERS = [
    "How's your week going?",
    "The weather has been lovely lately.",
    "Can you remind me to call the dentist tomorrow?",
    "What's a good recipe for banana bread?",
    "Thanks, that was helpful!",
    "I watched a great documentary about octopuses last night.",
    "Any tips for sleeping better?",
    "Haha, that's funny.",
    "Let's talk about something else.",
    "Could you summarize what we discussed?",
]


def _fill(template: str, voice: Voice, **kw: str) -> str:
    obj = kw.get("O", "")
    values = {
        "S": voice.S_intro if template.startswith("{S}") else voice.S,
        "have": voice.have,
        "was": voice.was,
        "poss": voice.poss,
        "poss_pl": voice.poss_pl,
        "a": article(obj) if obj else "",
        "SO": voice.and_o(obj),
        **kw,
    }
    text = template.format(**values)
    return text[0].upper() + text[1:]


def _front_when(rng: random.Random, text: str, when: str) -> str:
    """Sometimes move a trailing time phrase to the front: 'In June 2021, I joined X.'"""
    tail = f" {when}."
    if when and text.endswith(tail) and rng.random() < 0.3:
        body = text[: -len(tail)]
        if body.startswith("My "):
            body = "m" + body[1:]
        return f"{when[0].upper()}{when[1:]}, {body}."
    return text


def decorate(rng: random.Random, text: str, proper: tuple[str, ...]) -> str:
    """Add a chatty lead-in/tail sometimes; ``proper`` names keep their capital."""
    pre, suf = rng.choice(PREFIXES), rng.choice(SUFFIXES)
    if pre and not text.startswith(("I ", "I'", *proper)):
        text = text[0].lower() + text[1:]
    return f"{pre}{text}{suf}"


def render_start(
    rng: random.Random, v: Voice, pred: str, obj: str, p: str, told_at: datetime, ongoing: bool
) -> tuple[str, str]:
    if ongoing and rng.random() < 0.25:
        i = rng.randrange(len(SINCE[pred]))
        return _fill(SINCE[pred][i], v, O=obj, since=bare_point(p)), f"since.{pred}.{i}"
    i = rng.randrange(len(START[pred]))
    when, _ = pick_when(rng, p, told_at)
    return _front_when(rng, _fill(START[pred][i], v, O=obj, when=when), when), f"start.{pred}.{i}"


def render_end(
    rng: random.Random, v: Voice, pred: str, obj: str, p: str, told_at: datetime
) -> tuple[str, str]:
    i = rng.randrange(len(END[pred]))
    when, _ = pick_when(rng, p, told_at)
    text = _fill(END[pred][i], v, O=obj, when=when)
    return _front_when(rng, text, when), f"end.{pred}.{i}"


def render_range(
    rng: random.Random, v: Voice, pred: str, obj: str, a: str, b: str
) -> tuple[str, str]:
    i = rng.randrange(len(RANGE[pred]))
    return _fill(RANGE[pred][i], v, O=obj, A=bare_point(a), B=bare_point(b)), f"range.{pred}.{i}"


def render_retract(rng: random.Random, v: Voice, pred: str, obj: str) -> tuple[str, str]:
    i = rng.randrange(len(RETRACT))
    vp = NEVER_VP[pred].format(O=obj, a=article(obj))
    return _fill(RETRACT[i], v, O=obj, vp=vp), f"retract.{i}"


def render_correct_object(
    rng: random.Random, v: Voice, pred: str, right: str, wrong: str, p: str, told_at: datetime
) -> tuple[str, str]:
    i = rng.randrange(len(CORRECT_OBJECT))
    when, _ = pick_when(rng, p, told_at)
    vp = START_VP[pred].format(O=right, a=article(right))
    never_w = NEVER_VP[pred].format(O=wrong, a=article(wrong))
    text = _fill(CORRECT_OBJECT[i], v, O=right, W=wrong, vp=vp, when=when, never_w=never_w)
    return text, f"correct_object.{i}"


def render_correct_date(
    rng: random.Random, v: Voice, pred: str, obj: str, right: str, wrong: str, told_at: datetime
) -> tuple[str, str]:
    i = rng.randrange(len(CORRECT_DATE))
    when, _ = pick_when(rng, right, told_at)
    vp = START_VP[pred].format(O=obj, a=article(obj))
    return _fill(
        CORRECT_DATE[i], v, O=obj, vp=vp, when=when, old=bare_point(wrong)
    ), f"correct_date.{i}"


def question_text(
    kind: str,
    pred: str,
    subject: str,
    v: str = "",
    k: str = "",
    other: str = "",
    year: int | None = None,
) -> str:
    ask = {
        "WORKS_AT": ("Where does {s} work", "Where did {s} work"),
        "LIVES_IN": ("Where does {s} live", "Where did {s} live"),
        "HAS_ROLE": ("What is {s}'s role", "What was {s}'s role"),
        "LEADS": ("Which team does {s} lead", "Which team did {s} lead"),
        "MARRIED_TO": ("Who is {s} married to", "Who was {s} married to"),
    }[pred]
    if kind == "now":
        return ask[0].format(s=subject) + " now?"
    if kind == "as_of":
        return ask[1].format(s=subject) + f" on {v[:10]}?"
    if kind == "as_known":
        return ask[1].format(s=subject) + f" on {v[:10]}, as we knew it on {k[:10]}?"
    if pred == "LIVES_IN":
        return f"In which city did {subject} and {other} both live (at the same time) in {year}?"
    return f"Where did {subject} and {other} work together (at the same time) in {year}?"
