"""Hand labels for agent notes and emails: one user telling an assistant about themselves
(issue 31), a negative set that must give no fact, and a modality component set.

Written and committed before any extractor ran on them. ``python -m benchmarks.extraction.notes``
scores an extractor on them (conventions and how the sets are used: README.md, "Notes, negative
and modality sets").

* :data:`NOTES`: conversations (``turns`` of ``(speaker, text)``) with **required** facts
  (``req``) and **optional** ones (``opt``: right if extracted, not counted against recall).
  ``split="dev"`` cases are worked on; ``split="first_look"`` cases stay unseen until the end
  and are scored once, as a first look.
* :data:`NEGATIVE`: text that states no durable fact about anyone (hypotheticals, wishes,
  questions, negations, other people's facts, reported speech, captions); every fact extracted
  from it counts as a false memory, except the ones labelled (a "used to" ends a state).
* :data:`MODALITY`: one clause each, the verb that heads it and what the clause does:
  ``asserted``, ``negated``, ``hypothetical``, ``wished``, ``planned``, ``asked``, ``reported``
  (told as someone else's word), ``habitual_past`` ("used to": the state is over).

Subjects: ``ME`` is the speaker (the case's ``name`` when the text names them, else the chat
role's owner as the extractor names them); other people by name as written. Objects are
matched as in the real-chat scorer (lower case, articles and a plural ``s`` ignored) against
the object and its ``aliases``; ``keywords`` instead accepts any object containing every
keyword (standing instructions and decisions are phrases, not names). Dates moved are ISO days.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ME = "<speaker>"
REF = "2024-06-01T10:00:00Z"  # a Saturday


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: str | tuple[str, ...]
    object: str
    kind: str = "assert"  # assert | end
    aliases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    required: bool = True

    def predicates(self) -> tuple[str, ...]:
        return (self.predicate,) if isinstance(self.predicate, str) else self.predicate


def req(subject: str, predicate: str | tuple[str, ...], obj: str, **kw: object) -> Fact:
    return Fact(subject, predicate, obj, required=True, **kw)  # type: ignore[arg-type]


def opt(subject: str, predicate: str | tuple[str, ...], obj: str, **kw: object) -> Fact:
    return Fact(subject, predicate, obj, required=False, **kw)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Case:
    id: str
    genre: str  # note | email | chat
    turns: tuple[tuple[str, str], ...]
    facts: tuple[Fact, ...] = ()
    name: str | None = None  # the speaker's name when the text gives it
    split: str = "dev"
    ref: str = REF
    why: str = ""


def U(*texts: str) -> tuple[tuple[str, str], ...]:
    """Turns all said by the chat role ``user``."""
    return tuple(("user", t) for t in texts)


DIET = ("HAS_DIET",)
INSTR = ("INSTRUCTION",)

NOTES: tuple[Case, ...] = (
    # ------------------------------------------------------------------ dev
    Case("n01", "note", U("I'm vegan and I can't eat shellfish, I'm allergic."), (
        req(ME, DIET, "vegan"),
        req(ME, "ALLERGIC_TO", "shellfish"),
    )),
    Case("n02", "note", U("Please keep your answers short and in German."), (
        req(ME, INSTR, "keep answers short", keywords=("short",)),
        req(ME, INSTR, "answer in German", keywords=("german",)),
    )),
    Case("n03", "note", U("Heads up: the launch date moved from June 3 to July 10."), (
        req("launch", "SCHEDULED_ON", "2024-07-10", aliases=(), ),
        opt("launch", "SCHEDULED_ON", "2024-06-03", kind="end"),
    )),
    Case("n04", "note", U("We agreed to send the report every Monday."), (
        req(ME, "DECIDED", "send the report every Monday", keywords=("report", "monday")),
    )),
    Case("n05", "chat", U("My name is Priya.", "I live in Austin."), (
        req("Priya", "LIVES_IN", "Austin"),
    ), name="Priya"),
    Case("n06", "chat", U("Hi! I'm Tomasz, I work at Allegro as a data engineer."), (
        req("Tomasz", "WORKS_AT", "Allegro"),
        req("Tomasz", "HAS_ROLE", "data engineer"),
    ), name="Tomasz"),
    Case("n07", "note", U("Always answer in Spanish, please."), (
        req(ME, INSTR, "answer in Spanish", keywords=("spanish",)),
    )),
    Case("n08", "note", U("I prefer tea over coffee."), (
        req(ME, "LIKES", "tea"),
        opt(ME, "DISLIKES", "coffee"),
    )),
    Case("n09", "note", U("I can't stand cilantro."), (
        req(ME, "DISLIKES", "cilantro"),
    )),
    Case("n10", "note", U("I'd rather not have meetings on Fridays."), (
        req(ME, "DISLIKES", "meetings on Fridays", keywords=("meeting", "friday")),
    )),
    Case("n11", "note", U("I'm allergic to peanuts and penicillin."), (
        req(ME, "ALLERGIC_TO", "peanuts"),
        req(ME, "ALLERGIC_TO", "penicillin"),
    )),
    Case("n12", "note", U("I'm vegetarian, but I eat fish sometimes."), (
        req(ME, DIET, "vegetarian", aliases=("pescatarian",)),
    )),
    Case("n13", "note", U("I have type 1 diabetes, so keep sugar in mind when suggesting "
                          "recipes."), (
        req(ME, "HAS_CONDITION", "type 1 diabetes", aliases=("diabetes",)),
        opt(ME, INSTR, "keep sugar in mind", keywords=("sugar",)),
    )),
    Case("n14", "note", U("The deadline moved to April 15."), (
        req("deadline", "SCHEDULED_ON", "2025-04-15"),
    )),
    Case("n15", "email", (("Dana", "Hi team, quick update: the offsite has been moved from "
                                   "September 12 to September 19. We decided to book the "
                                   "lake house. Thanks, Dana"),), (
        req("offsite", "SCHEDULED_ON", "2024-09-19"),
        opt("offsite", "SCHEDULED_ON", "2024-09-12", kind="end"),
        req("Dana", "DECIDED", "book the lake house", keywords=("lake house",)),
    ), name="Dana"),
    Case("n16", "chat", U("I have three cats: Pepper, Precious and Panda."), (
        req(ME, "HAS_PET", "Pepper"),
        req(ME, "HAS_PET", "Precious"),
        req(ME, "HAS_PET", "Panda"),
        opt(ME, "HAS_PET", "cat"),
    )),
    Case("n17", "chat", U("Last year I visited Turkey and Mexico."), (
        req(ME, "VISITED", "Turkey"),
        req(ME, "VISITED", "Mexico"),
    )),
    Case("n18", "chat", U("I used to live in Chicago, now I live in Denver."), (
        req(ME, "LIVES_IN", "Chicago", kind="end"),
        req(ME, "LIVES_IN", "Denver"),
    )),
    Case("n19", "note", U("I don't eat pork."), (
        req(ME, "AVOIDS", "pork"),
    )),
    Case("n20", "note", U("Never schedule anything for me on Fridays."), (
        req(ME, INSTR, "never schedule anything on Fridays", keywords=("friday",)),
        opt(ME, "DISLIKES", "meetings on Fridays", keywords=("friday",)),
    )),
    Case("n21", "chat", U("I got a puppy last week. His name is Rex."), (
        req(ME, "HAS_PET", "Rex", aliases=()),
        opt(ME, "HAS_PET", "puppy"),
    )),
    Case("n22", "note", U("I'm gluten-free and lactose intolerant."), (
        req(ME, DIET, "gluten-free", aliases=("gluten free",)),
        req(ME, "ALLERGIC_TO", "lactose"),
    )),
    Case("n23", "note", U("Don't use emojis in your replies."), (
        req(ME, INSTR, "no emojis", keywords=("emoji",)),
    )),
    Case("n24", "chat", U("I love hiking and I hate crowded beaches."), (
        req(ME, "LIKES", "hiking"),
        req(ME, "DISLIKES", "crowded beaches", keywords=("beach",)),
    )),
    Case("n25", "note", U("We decided to switch the standup to 9:30."), (
        req(ME, "DECIDED", "switch the standup to 9:30", keywords=("standup",)),
    )),
    Case("n26", "chat", (("user", "Call me Sam."), ("assistant", "Sure, Sam!"),
                         ("user", "I just started a new job at Stripe.")), (
        req("Sam", "WORKS_AT", "Stripe"),
    ), name="Sam"),
    Case("n27", "note", U("I'm a pescatarian and I have asthma."), (
        req(ME, DIET, "pescatarian"),
        req(ME, "HAS_CONDITION", "asthma"),
    )),
    Case("n28", "email", (("Marco", "Hi Anna, the board meeting has been pushed back to "
                                    "June 20. Best, Marco"),), (
        req("board meeting", "SCHEDULED_ON", "2024-06-20"),
    ), name="Marco"),
    Case("n29", "note", U("I really dislike long phone calls, I prefer email."), (
        req(ME, "DISLIKES", "long phone calls", keywords=("phone call",)),
        req(ME, "LIKES", "email"),
    )),
    Case("n30", "chat", U("My wife Elena and I moved to Lisbon in March."), (
        req(ME, "MARRIED_TO", "Elena"),
        req(ME, "LIVES_IN", "Lisbon"),
        opt("Elena", "LIVES_IN", "Lisbon"),
    )),
    # ------------------------------------------------------------------ first look (unseen)
    Case("f01", "note", U("Just so you know, I'm keto and I'm allergic to tree nuts."), (
        req(ME, DIET, "keto"),
        req(ME, "ALLERGIC_TO", "tree nuts"),
    ), split="first_look"),
    Case("f02", "note", U("Please reply in French from now on."), (
        req(ME, INSTR, "reply in French", keywords=("french",)),
    ), split="first_look"),
    Case("f03", "note", U("The product demo got moved to August 2."), (
        req("product demo", "SCHEDULED_ON", "2024-08-02", aliases=("demo",)),
    ), split="first_look"),
    Case("f04", "email", (("Lena", "Hi all, after the call we agreed to a weekly summary "
                                   "every Friday. Lena"),), (
        req("Lena", "DECIDED", "weekly summary every Friday", keywords=("weekly summary",)),
    ), name="Lena", split="first_look"),
    Case("f05", "chat", U("My name's Kofi and I live in Accra."), (
        req("Kofi", "LIVES_IN", "Accra"),
    ), name="Kofi", split="first_look"),
    Case("f06", "chat", U("I've got two dogs, Biscuit and Mochi."), (
        req(ME, "HAS_PET", "Biscuit"),
        req(ME, "HAS_PET", "Mochi"),
        opt(ME, "HAS_PET", "dog"),
    ), split="first_look"),
    Case("f07", "note", U("I can't stand loud restaurants."), (
        req(ME, "DISLIKES", "loud restaurants", keywords=("restaurant",)),
    ), split="first_look"),
    Case("f08", "note", U("I don't drink alcohol."), (
        req(ME, "AVOIDS", "alcohol"),
    ), split="first_look"),
    Case("f09", "chat", U("I used to work at Deloitte."), (
        req(ME, "WORKS_AT", "Deloitte", kind="end"),
    ), split="first_look"),
    Case("f10", "note", U("Keep your answers brief, and use metric units."), (
        req(ME, INSTR, "keep answers brief", keywords=("brief",)),
        req(ME, INSTR, "use metric units", keywords=("metric",)),
    ), split="first_look"),
    Case("f11", "chat", U("I'm celiac, so no wheat for me."), (
        req(ME, "HAS_CONDITION", "celiac disease", aliases=("celiac",)),
        opt(ME, "AVOIDS", "wheat"),
    ), split="first_look"),
    Case("f12", "chat", U("I'm Aiko. I study at Kyoto University."), (
        req("Aiko", "STUDIES_AT", "Kyoto University"),
    ), name="Aiko", split="first_look"),
    Case("f13", "note", U("I prefer morning meetings."), (
        req(ME, "LIKES", "morning meetings", keywords=("morning meeting",)),
    ), split="first_look"),
    Case("f14", "chat", U("We went to Peru and Chile in 2022."), (
        req(ME, "VISITED", "Peru"),
        req(ME, "VISITED", "Chile"),
    ), split="first_look"),
    Case("f15", "note", U("The release was postponed from May 5 to May 19."), (
        req("release", "SCHEDULED_ON", "2024-05-19"),
        opt("release", "SCHEDULED_ON", "2024-05-05", kind="end"),
    ), split="first_look"),
    Case("f16", "note", U("I'm lactose intolerant and vegetarian."), (
        req(ME, "ALLERGIC_TO", "lactose"),
        req(ME, DIET, "vegetarian"),
    ), split="first_look"),
    Case("f17", "chat", U("I adopted a kitten yesterday, her name is Luna."), (
        req(ME, "HAS_PET", "Luna"),
        opt(ME, "HAS_PET", "kitten"),
    ), split="first_look"),
    Case("f18", "note", U("We've decided to hire a second designer."), (
        req(ME, "DECIDED", "hire a second designer", keywords=("designer",)),
    ), split="first_look"),
    Case("f19", "chat", U("I hate getting up early."), (
        req(ME, "DISLIKES", "getting up early", keywords=("up early",)),
    ), split="first_look"),
    Case("f20", "note", U("Don't call me before 10am."), (
        req(ME, INSTR, "don't call before 10am", keywords=("call",)),
    ), split="first_look"),
    # ------------------------------------------------------------------ round 2 (unseen)
    # Written and committed (issue 31, second sitting) before any extractor ran on them, by
    # the engineer who then worked on the rules: a first look, not a blind one.
    Case("r01", "chat", U("Hey, quick thing before we start: I'm Mateo, and I've been "
                          "vegetarian for about ten years."), (
        req("Mateo", DIET, "vegetarian"),
    ), name="Mateo", split="round2"),
    Case("r02", "note", U("I'm severely allergic to bee stings, so flag any outdoor plans in "
                          "summer."), (
        req(ME, "ALLERGIC_TO", "bee stings", aliases=("bees", "bee sting", "bee venom")),
        opt(ME, INSTR, "flag outdoor plans", keywords=("outdoor",)),
    ), split="round2"),
    Case("r03", "note", U("From now on, address me as Dr. Okafor in any emails you draft."), (
        req(ME, INSTR, "address me as Dr. Okafor", keywords=("okafor",)),
    ), split="round2"),
    Case("r04", "chat", (("user", "Can you remind me what time the dentist appointment is?"),
                         ("assistant", "It's on Thursday at 3pm."),
                         ("user", "Actually they moved it to June 11.")), (
        req("dentist appointment", "SCHEDULED_ON", "2024-06-11"),
    ), split="round2"),
    Case("r05", "note", U("I don't eat red meat, but chicken and fish are fine."), (
        req(ME, "AVOIDS", "red meat"),
    ), split="round2"),
    Case("r06", "note", U("Please never book me on flights before 8am."), (
        req(ME, INSTR, "never book flights before 8am", keywords=("flight",)),
    ), split="round2"),
    Case("r07", "chat", U("My partner Sam and I just bought a flat in Leeds."), (
        req(ME, ("DATING", "MARRIED_TO"), "Sam"),
        req(ME, "OWNS", "flat", aliases=("a flat in Leeds", "flat in Leeds")),
        opt(ME, "LIVES_IN", "Leeds"),
        opt("Sam", ("OWNS",), "flat"),
        opt("Sam", "LIVES_IN", "Leeds"),
    ), split="round2"),
    Case("r08", "email", (("Priya", "Hi Tom, following up on Tuesday's meeting: we decided to "
                                    "drop the mobile app and focus on the web version. The "
                                    "kickoff is now on September 9 instead of September 2. "
                                    "Best, Priya"),), (
        req("Priya", "DECIDED", "drop the mobile app", keywords=("mobile app",)),
        req("kickoff", "SCHEDULED_ON", "2024-09-09"),
        opt("kickoff", "SCHEDULED_ON", "2024-09-02", kind="end"),
        opt("Priya", "DECIDED", "focus on the web version", keywords=("web",)),
        opt("Priya", "KNOWS", "Tom"),
    ), name="Priya", split="round2"),
    Case("r09", "note", U("I really love spicy food, but I can't handle anything with "
                          "coconut."), (
        req(ME, "LIKES", "spicy food", keywords=("spicy",)),
        req(ME, ("AVOIDS", "DISLIKES"), "coconut"),
    ), split="round2"),
    Case("r10", "chat", U("I'm lactose intolerant, so please suggest recipes without dairy."), (
        req(ME, ("ALLERGIC_TO", "HAS_CONDITION", "HAS_DIET"), "lactose",
            aliases=("lactose intolerance", "lactose intolerant")),
        opt(ME, INSTR, "suggest recipes without dairy", keywords=("dairy",)),
        opt(ME, "AVOIDS", "dairy"),
    ), split="round2"),
    Case("r11", "note", U("I have a peanut allergy."), (
        req(ME, "ALLERGIC_TO", "peanuts", aliases=("peanut",)),
    ), split="round2"),
    Case("r12", "chat", U("I used to be vegan but now I eat everything."), (
        req(ME, DIET, "vegan", kind="end"),
    ), split="round2"),
    Case("r13", "note", U("Remember that I prefer aisle seats on planes."), (
        req(ME, "LIKES", "aisle seats", keywords=("aisle",)),
    ), split="round2"),
    Case("r14", "chat", (("user", "What's a good name for a dog?"),
                         ("assistant", "How about Max or Bella?"),
                         ("user", "We went with Bella! She's a beagle we adopted on Saturday.")),
         (
        req(ME, "HAS_PET", "Bella"),
        opt(ME, "HAS_PET", "beagle", aliases=("dog",)),
    ), split="round2"),
    Case("r15", "note", U("The quarterly review has been pushed to October 3."), (
        req("quarterly review", "SCHEDULED_ON", "2024-10-03"),
    ), split="round2"),
    Case("r16", "note", U("I'm trying to cut down on sugar."), (
        opt(ME, "AVOIDS", "sugar"),
    ), split="round2"),
    Case("r17", "chat", U("My daughter Lily starts kindergarten in September."), (
        req(ME, "PARENT_OF", "Lily"),
        opt("Lily", ("STUDIES_AT", "ATTENDED", "MEMBER_OF"), "kindergarten"),
    ), split="round2"),
    Case("r18", "note", U("We agreed that Jonas will own the migration and Mei will handle "
                          "QA."), (
        req(ME, "DECIDED", "Jonas will own the migration", keywords=("migration",)),
        opt(ME, "DECIDED", "Mei will handle QA", keywords=("qa",)),
        opt(ME, ("KNOWS", "WORKS_WITH"), "Jonas"),
        opt(ME, ("KNOWS", "WORKS_WITH"), "Mei"),
    ), split="round2"),
    Case("r19", "note", U("Going forward, write all summaries in bullet points."), (
        req(ME, INSTR, "write summaries in bullet points", keywords=("bullet",)),
    ), split="round2"),
    Case("r20", "chat", U("I'm a night owl, so don't schedule calls before noon."), (
        req(ME, INSTR, "don't schedule calls before noon", keywords=("noon",)),
    ), split="round2"),
    Case("r21", "chat", U("I switched from Android to an iPhone last month."), (
        req(ME, "USES", "iPhone"),
        opt(ME, "USES", "Android", kind="end"),
    ), split="round2"),
    # ------------------------------------------------------------------ round 3 (unseen)
    # Written and committed before any extractor ran on them (issue 31, sitting 2), after the
    # round-2 fixes, by the engineer who makes them: a first look, not a blind one.
    Case("s01", "chat", U("Quick note for future chats: I'm diabetic and I avoid sugary "
                          "drinks."), (
        req(ME, "HAS_CONDITION", "diabetes"),
        req(ME, "AVOIDS", "sugary drinks", keywords=("sugary",)),
    ), split="round3"),
    Case("s02", "note", U("Please always cc my assistant Maria on scheduling emails."), (
        req(ME, INSTR, "cc Maria on scheduling emails", keywords=("cc",)),
        opt(ME, ("KNOWS", "WORKS_WITH"), "Maria"),
    ), split="round3"),
    Case("s03", "chat", U("My son Leo just started at Westfield Elementary."), (
        req(ME, "PARENT_OF", "Leo"),
        opt("Leo", ("STUDIES_AT", "ATTENDS", "MEMBER_OF"), "Westfield Elementary"),
    ), split="round3"),
    Case("s04", "note", U("The dentist moved my cleaning to March 14."), (
        req("cleaning", "SCHEDULED_ON", "2025-03-14"),
    ), split="round3"),
    Case("s05", "note", U("I'm not a fan of horror movies."), (
        req(ME, "DISLIKES", "horror movies", keywords=("horror",)),
    ), split="round3"),
    Case("s06", "chat", U("We finally decided to go with the blue logo."), (
        req(ME, "DECIDED", "go with the blue logo", keywords=("blue logo",)),
    ), split="round3"),
    Case("s07", "email", (("Ken", "Hi all, the Q3 planning session is postponed to July 22. "
                                  "Thanks, Ken"),), (
        req("planning session", "SCHEDULED_ON", "2024-07-22"),
    ), name="Ken", split="round3"),
    Case("s08", "chat", U("I switched to a plant-based diet last month."), (
        req(ME, DIET, "plant-based"),
    ), split="round3"),
    Case("s09", "note", U("Avoid booking me into hotels without a gym."), (
        req(ME, INSTR, "avoid hotels without a gym", keywords=("hotel",)),
    ), split="round3"),
    Case("s10", "chat", U("My girlfriend Ana and I got engaged last weekend!"), (
        req(ME, ("ENGAGED_TO", "DATING"), "Ana"),
    ), split="round3"),
    Case("s11", "note", U("I'm allergic to latex."), (
        req(ME, "ALLERGIC_TO", "latex"),
    ), split="round3"),
    Case("s12", "chat", U("I'd love to visit Japan one day, but right now I'm saving for a "
                          "car."), (
        opt(ME, "PLANS", "save for a car", keywords=("car",)),
        opt(ME, "PLANS", "visit Japan", aliases=("Japan",)),
    ), split="round3"),
    Case("s13", "note", U("Don't suggest seafood restaurants, I'm allergic to shellfish."), (
        req(ME, "ALLERGIC_TO", "shellfish"),
        req(ME, INSTR, "don't suggest seafood restaurants", keywords=("seafood",)),
    ), split="round3"),
    Case("s14", "chat", U("I moved from Toronto to Vancouver in January."), (
        req(ME, "LIVES_IN", "Vancouver"),
        req(ME, "LIVES_IN", "Toronto", kind="end"),
    ), split="round3"),
    Case("s15", "chat", U("I prefer to be called Alex, not Alexander.", "I work at Shopify."), (
        req("Alex", "WORKS_AT", "Shopify"),
    ), name="Alex", split="round3"),
    Case("s16", "chat", U("I quit coffee two weeks ago."), (
        req(ME, "AVOIDS", "coffee"),
    ), split="round3"),
    Case("s17", "note", U("Our team agreed to move standups to Tuesdays and Thursdays."), (
        req(ME, "DECIDED", "move standups to Tuesdays and Thursdays", keywords=("standup",)),
    ), split="round3"),
    Case("s18", "chat", U("Thanks! Also, my wife is pregnant with our second child."), (
        req(ME, ("HAS_STATUS", "MARRIED_TO"), "married", aliases=("wife",)),
        opt(ME, "PARENT_OF", "child", aliases=("children",)),
    ), split="round3"),
    Case("s19", "note", U("I hate it when answers are too long."), (
        req(ME, ("DISLIKES", "INSTRUCTION"), "long answers", keywords=("long",)),
    ), split="round3"),
    Case("s20", "chat", U("I've been living in Berlin since 2019, working as a nurse."), (
        req(ME, "LIVES_IN", "Berlin"),
        req(ME, "HAS_ROLE", "nurse"),
    ), split="round3"),
)


def N(cid: str, text: str, *facts: Fact, why: str = "", speaker: str = "user",
      split: str = "dev") -> Case:
    return Case(cid, "negative", ((speaker, text),), tuple(facts), why=why, split=split)


NEGATIVE: tuple[Case, ...] = (
    N("x01", "If I get the job, I'll move to Boston.", why="hypothetical"),
    N("x02", "Can't wait for the day I go on a trip with my dog.", why="wish"),
    N("x03", "Do you have a dog?", why="question"),
    N("x04", "Have you ever been to Japan?", why="question"),
    N("x05", "I don't have any pets.", why="negation"),
    N("x06", "I've never been to Paris.", why="negation"),
    N("x07", "My sister is vegan.", why="someone else's fact (unnamed)"),
    N("x08", "My friend's husband works at Google.", why="someone else's fact (unnamed)"),
    N("x09", "My doctor said I might have diabetes.", why="reported, hedged"),
    N("x10", "[shares a photo: a golden retriever on a beach]", why="caption"),
    N("x11", "I wish I had a cat.", why="wish"),
    N("x12", "Maybe I'll move to Berlin someday.", why="hypothetical"),
    N("x13", "I'm thinking about getting a puppy.", why="plan, not a fact"),
    N("x14", "Would you rather live in London or Paris?", why="question"),
    N("x15", "If I were rich, I'd buy a boat.", why="counterfactual"),
    N("x16", "I hope to visit Iceland one day.", why="wish"),
    N("x17", "Imagine living in Tokyo!", why="imagined"),
    N("x18", "What's the best way to train a dog?", why="question"),
    N("x19", "Someone told me the office is moving to Denver.", why="hearsay"),
    N("x20", "I'm not vegan or anything.", why="negation"),
    N("x21", "I used to live in Chicago.", Fact(ME, "LIVES_IN", "Chicago", kind="end"),
      why="used to: the state is over"),
    N("x22", "I used to have a dog when I was a kid.", Fact(ME, "HAS_PET", "dog", kind="end",
                                                            required=False),
      why="used to: over, and nothing current"),
    N("x23", "Should I adopt a cat or a dog?", why="question"),
    N("x24", "I'd love to work at NASA someday.", why="wish"),
    N("x25", "Tell me about living in Canada.", why="request"),
    N("x26", "I might be allergic to cats, not sure.", why="hedged"),
    N("x27", "My neighbor got a new puppy.", why="someone else's fact (unnamed)"),
    N("x28", "We could go to Portugal next summer.", why="suggestion"),
    N("x29", "Unless I get the visa, I won't be moving to Canada.", why="conditional"),
    N("x30", "In the movie, she moves to Rome and opens a bakery.", why="fiction"),
    N("x31", "Let's pretend I'm a vegan chef.", why="pretend"),
    N("x32", "Can't wait to finally get a dog of my own!", why="wish"),
    N("x33", "Dreaming of a house by the sea.", why="wish"),
    N("x34", "I don't work at Amazon anymore.", Fact(ME, "WORKS_AT", "Amazon", kind="end"),
      why="negation that ends a state"),
    N("x35", "Are you allergic to anything?", speaker="assistant", why="assistant asks"),
    N("x36", "I'm an AI assistant and I live in the cloud.", speaker="assistant",
      why="the assistant is not a person with a life"),
    N("x37", "Would it be weird if I dyed my hair blue?", why="question"),
    N("x38", "She said she's getting married in June.", why="reported (unnamed)"),
    N("x39", "I'd never eat at that place again.", why="hypothetical"),
    N("x40", "When I retire, I want to live near the mountains.", why="plan"),
    # round 2: written and committed before any extractor ran on them (issue 31, sitting 2)
    N("y01", "If the budget gets approved, we'll hire two more engineers.",
      why="hypothetical", split="round2"),
    N("y02", "[shares a photo: a woman holding a cat in front of a house in Seattle]",
      why="caption", split="round2"),
    N("y03", "My boss's wife runs a bakery in Oslo.", why="someone else's fact (unnamed)",
      split="round2"),
    N("y04", "He said, 'I live in Paris now,' but I don't believe him.", why="quoted speech",
      split="round2"),
    N("y05", "Do you think I should move to Lisbon?", why="question", split="round2"),
    N("y06", "I'm dying to see Japan.", why="wish (figurative)", split="round2"),
    N("y07", "My boss is a total dinosaur.", why="figurative", split="round2"),
    N("y08", "Lol I'm basically married to my job.", why="joke", split="round2"),
    N("y09", "I'd kill for a dog right now.", why="figurative wish", split="round2"),
    N("y10", "What if I quit my job and moved to Bali?", why="hypothetical question",
      split="round2"),
    N("y11", "In my novel, the hero lives in Prague and owns a bookshop.", why="fiction",
      split="round2"),
    N("y12", "My friend's dog is adorable.", why="someone else's pet (unnamed owner)",
      split="round2"),
    N("y13", "I never said I worked at Google.", why="negated report", split="round2"),
    N("y14", "I have a dog named Pixel and I live in Berlin.", speaker="assistant",
      why="the assistant about itself", split="round2"),
    N("y15", "Is it true that you live in Seattle?", why="question", split="round2"),
    N("y16", "We talked about maybe adopting a cat next year.", why="hedged plan",
      split="round2"),
    N("y17", "According to the article, Berlin is the cheapest city in Germany.",
      why="reported, generic", split="round2"),
    N("y18", "Dogs are the best pets.", Fact(ME, "LIKES", "dogs", required=False),
      why="generic", split="round2"),
    N("y19", "I almost moved to Denver last year.", why="did not happen", split="round2"),
    N("y20", "I was supposed to start at Stripe in May, but the offer fell through.",
      why="did not happen", split="round2"),
    N("y21", "My dream job would be working at Pixar.", why="wish", split="round2"),
    N("y22", "Pretty sure I left my keys at the gym.", why="nothing durable", split="round2"),
    # round 3: written and committed before any extractor ran on them
    N("z01", "If it's sunny tomorrow, we'll go hiking.", why="conditional", split="round3"),
    N("z02", "My roommate is allergic to cats.", why="someone else's fact (unnamed)",
      split="round3"),
    N("z03", "Would you recommend a vegan restaurant?", why="question", split="round3"),
    N("z04", "I'm not sure whether I'm lactose intolerant.", why="hedged", split="round3"),
    N("z05", "[shares a photo: a man holding a guitar on stage]", why="caption",
      split="round3"),
    N("z06", "She told me she's moving to Lisbon.", why="reported (unnamed)", split="round3"),
    N("z07", "I'm dead tired, my boss is killing me.", why="figurative", split="round3"),
    N("z08", "Pretend you're my personal chef.", why="pretend", split="round3"),
    N("z09", "I'd rather be in Hawaii right now.", why="wish", split="round3"),
    N("z10", "Is the meeting still on Friday?", why="question", split="round3"),
)

# (sentence, the verb heading the clause, the clause's modality)
MODALITY: tuple[tuple[str, str, str], ...] = (
    ("I live in Austin.", "live", "asserted"),
    ("I moved to Denver last March.", "moved", "asserted"),
    ("I've been working at Google since 2019.", "working", "asserted"),
    ("I just adopted a puppy!", "adopted", "asserted"),
    ("Guess what, I got a new job!", "got", "asserted"),
    ("I wanted to tell you I joined a book club.", "joined", "asserted"),
    ("My sister and I went to Rome.", "went", "asserted"),
    ("I'm allergic to peanuts.", "'m", "asserted"),
    ("I love hiking, huh?", "love", "asserted"),
    ("I don't live in Boston.", "live", "negated"),
    ("I never went to college.", "went", "negated"),
    ("I don't have any pets.", "have", "negated"),
    ("I'm not married.", "'m", "negated"),
    ("I haven't been to Japan.", "been", "negated"),
    ("I don't work at Amazon anymore.", "work", "negated"),
    ("I no longer use Slack.", "use", "negated"),
    ("I didn't get the job.", "get", "negated"),
    ("If I get the job, I'll move to Boston.", "move", "hypothetical"),
    ("If I get the job, I'll move to Boston.", "get", "hypothetical"),
    ("Maybe I'll move to Berlin.", "move", "hypothetical"),
    ("If I were rich, I'd buy a boat.", "buy", "hypothetical"),
    ("I might be allergic to cats.", "be", "hypothetical"),
    ("I could work from Lisbon next year.", "work", "hypothetical"),
    ("Unless it rains, we'll go to the beach.", "go", "hypothetical"),
    ("Imagine living in Tokyo.", "living", "hypothetical"),
    ("Perhaps I should get a dog.", "get", "hypothetical"),
    ("Can't wait for the day I go on a trip with my dog.", "go", "wished"),
    ("I wish I had a cat.", "had", "wished"),
    ("I hope to visit Iceland one day.", "visit", "wished"),
    ("I'd love to work at NASA.", "work", "wished"),
    ("Dreaming of a house by the sea.", "Dreaming", "wished"),
    ("Can't wait to finally get a dog of my own!", "get", "wished"),
    ("I wish I lived closer to the sea.", "lived", "wished"),
    ("I'm thinking about getting a puppy.", "getting", "planned"),
    ("I want to learn Spanish.", "learn", "planned"),
    ("I'm planning to move to Seattle.", "move", "planned"),
    ("I'm going to sell my car.", "sell", "planned"),
    ("We intend to open a bakery next year.", "open", "planned"),
    ("I plan on visiting my parents in May.", "visiting", "planned"),
    ("I'm considering a job at Meta.", "considering", "planned"),
    ("Do you have a dog?", "have", "asked"),
    ("Have you ever been to Japan?", "been", "asked"),
    ("Where do you live?", "live", "asked"),
    ("Should I adopt a cat or a dog?", "adopt", "asked"),
    ("Are you allergic to anything?", "Are", "asked"),
    ("What's the best way to train a dog?", "train", "asked"),
    ("Is it weird that I moved back home?", "moved", "asked"),
    ("My doctor said I might have diabetes.", "have", "reported"),
    ("Someone told me the office is moving to Denver.", "moving", "reported"),
    ("She said she's getting married in June.", "getting", "reported"),
    ("Tom says he lives in Oslo now.", "lives", "reported"),
    ("I heard that the company is moving to Austin.", "moving", "reported"),
    ("According to my mom, we lived in Texas.", "lived", "reported"),
    ("I used to live in Chicago.", "live", "habitual_past"),
    ("I used to have a dog.", "have", "habitual_past"),
    ("I used to work at Deloitte.", "work", "habitual_past"),
    ("We used to go to the lake every summer.", "go", "habitual_past"),
    ("I used to be vegan.", "be", "habitual_past"),
    ("Back then I used to play the guitar.", "play", "habitual_past"),
)
