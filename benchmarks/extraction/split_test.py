"""TEST split (held out). Written before any extraction rule existed; not tuned against.

Reference times: R1 = Mon 2023-05-08, R2 = Mon 2024-01-15, R3 = Thu 2022-10-20,
R4 = Thu 2023-08-03 (all UTC). Conventions: see README.md.
"""

from __future__ import annotations

from itertools import cycle

from .dataset import f, u

FREE = [
    # ---------------------------------------------------------------- jobs
    u("I just started a new job at Spotify last week!", [f("WORKS_AT", "Spotify", "2023-05-01")], "jobs"),
    u("been working at Deloitte since 2018, honestly kind of burned out",
      [f("WORKS_AT", "Deloitte", "2018")], "jobs"),
    u("I've been a bus driver for six years.", [f("HAS_ROLE", "bus driver", "2017")], "roles"),
    u("My new job at Airbnb starts next Monday.", [f("WORKS_AT", "Airbnb", "2023-05-15")], "jobs"),
    u("I got hired by Pfizer in March 2021.", [f("WORKS_AT", "Pfizer", "2021-03")], "jobs"),
    u("I work as a data scientist at Stripe.",
      [f("WORKS_AT", "Stripe"), f("HAS_ROLE", "data scientist")], "jobs"),
    u("I joined Netflix two years ago as a product designer.",
      [f("WORKS_AT", "Netflix", "2021"), f("HAS_ROLE", "product designer", "2021")], "jobs"),
    u("Started at Shopify in January, loving it so far",
      [f("WORKS_AT", "Shopify", "2023-01")], "jobs"),
    u("I'm employed at the Mayo Clinic.", [f("WORKS_AT", "Mayo Clinic")], "jobs"),
    u("my job at IBM is pretty stressful these days", [f("WORKS_AT", "IBM")], "jobs"),
    u("I accepted an offer from Canva yesterday.", [f("WORKS_AT", "Canva", "2023-05-07")], "jobs"),
    # ---------------------------------------------------------------- homes
    u("I live in Boston.", [f("LIVES_IN", "Boston")], "homes"),
    u("We moved to Denver last March.", [f("LIVES_IN", "Denver", "2023-03")], "homes"),
    u("I've been living in Lisbon since 2020.", [f("LIVES_IN", "Lisbon", "2020")], "homes"),
    u("I relocated to Austin two years ago for work.", [f("LIVES_IN", "Austin", "2021")], "homes"),
    u("moving to Chicago next month, so excited!!", [f("LIVES_IN", "Chicago", "2023-06")], "homes"),
    u("I grew up in Ohio but now I live in Seattle.", [f("LIVES_IN", "Seattle")], "homes"),
    u("My apartment in Brooklyn is tiny.", [f("LIVES_IN", "Brooklyn")], "homes"),
    u("We've lived in Melbourne for about ten years.", [f("LIVES_IN", "Melbourne", "2013")], "homes"),
    u("I'm based in Berlin these days.", [f("LIVES_IN", "Berlin")], "homes"),
    u("We moved to Vancouver last summer.", [f("LIVES_IN", "Vancouver", "2023-06")], "homes", ref="R2"),
    # ---------------------------------------------------------------- roles / leading
    u("I was promoted to senior engineer in January.",
      [f("HAS_ROLE", "senior engineer", "2023-01")], "roles"),
    u("I'm a nurse.", [f("HAS_ROLE", "nurse")], "roles"),
    u("I became a team lead last year.", [f("HAS_ROLE", "team lead", "2022")], "roles"),
    u("I'm the head of marketing at Zapier.",
      [f("HAS_ROLE", "head of marketing"), f("WORKS_AT", "Zapier")], "roles"),
    u("I'm working as a barista while I finish my degree.", [f("HAS_ROLE", "barista")], "roles"),
    u("Alice leads the ML team.", [f("LEADS", "ML team", subj="Alice")], "leads"),
    u("Bob took over the platform team last month.",
      [f("LEADS", "platform team", "2023-04", subj="Bob")], "leads"),
    u("I manage the design team at Figma.",
      [f("LEADS", "design team"), f("WORKS_AT", "Figma")], "leads"),
    u("Since March, Kenji has been running the sales team.",
      [f("LEADS", "sales team", "2023-03", subj="Kenji")], "leads"),
    u("I'm now in charge of the infrastructure group.", [f("LEADS", "infrastructure group")], "leads"),
    u("Dana Whitfield heads the legal department.",
      [f("LEADS", "legal department", subj="Dana Whitfield")], "leads"),
    # ---------------------------------------------------------------- relationships
    u("I married Anna in 2019.", [f("MARRIED_TO", "Anna", "2019")], "relationships"),
    u("My wife Anna is a teacher.",
      [f("MARRIED_TO", "Anna"), f("HAS_ROLE", "teacher", subj="Anna")], "relationships"),
    u("I've been dating Jordan for a few months.", [f("DATING", "Jordan")], "relationships"),
    u("My boyfriend Chris and I just moved in together.", [f("DATING", "Chris")], "relationships"),
    u("Lisa and I broke up last week.",
      [f("DATING", "Lisa", "2023-05-01", kind="end")], "relationships"),
    u("Mark and I got divorced in 2020.",
      [f("MARRIED_TO", "Mark", "2020", kind="end")], "relationships"),
    u("my husband Raj works at Google",
      [f("MARRIED_TO", "Raj"), f("WORKS_AT", "Google", subj="Raj")], "relationships"),
    u("I've been seeing someone named Eli since January.",
      [f("DATING", "Eli", "2023-01")], "relationships"),
    # ---------------------------------------------------------------- family / people
    u("My sister Sarah lives in Paris.",
      [f("SIBLING_OF", "Sarah"), f("LIVES_IN", "Paris", subj="Sarah")], "family"),
    u("my brother Kevin just got a job at Tesla",
      [f("SIBLING_OF", "Kevin"), f("WORKS_AT", "Tesla", subj="Kevin")], "family"),
    u("My daughter Emma started kindergarten this year.", [f("PARENT_OF", "Emma")], "family"),
    u("My mom, Linda, is a retired nurse.", [f("CHILD_OF", "Linda")], "family"),
    u("My friend Jake is a firefighter.",
      [f("FRIEND_OF", "Jake"), f("HAS_ROLE", "firefighter", subj="Jake")], "family"),
    u("my boss Tom is on vacation this week", [f("REPORTS_TO", "Tom")], "family"),
    u("I report to Sandra Ortiz.", [f("REPORTS_TO", "Sandra Ortiz")], "family"),
    u("Tom is my manager.", [f("REPORTS_TO", "Tom")], "family"),
    u("My son Leo turned five yesterday.", [f("PARENT_OF", "Leo")], "family"),
    # ---------------------------------------------------------------- pets
    u("I have a dog named Max.", [f("HAS_PET", "Max")], "pets"),
    u("My cat Luna keeps knocking things off the table.", [f("HAS_PET", "Luna")], "pets"),
    u("We adopted a puppy last weekend!", [f("HAS_PET", "puppy", "2023-05-06")], "pets"),
    u("I got two guinea pigs in March.", [f("HAS_PET", "guinea pigs", "2023-03")], "pets"),
    u("my parrot Kiwi can say hello now", [f("HAS_PET", "Kiwi")], "pets"),
    u("Our old dog Biscuit passed away yesterday.",
      [f("HAS_PET", "Biscuit", "2023-05-07", kind="end")], "pets"),
    # ---------------------------------------------------------------- preferences
    u("I love hiking.", [f("LIKES", "hiking")], "preferences"),
    u("I absolutely hate cilantro.", [f("DISLIKES", "cilantro")], "preferences"),
    u("I really enjoy cooking Thai food.", [f("LIKES", "cooking Thai food")], "preferences"),
    u("I'm a huge fan of the Beatles.", [f("LIKES", "Beatles")], "preferences"),
    u("I can't stand country music.", [f("DISLIKES", "country music")], "preferences"),
    u("I don't like horror movies.", [f("DISLIKES", "horror movies")], "preferences"),
    u("Jazz is my favorite genre.", [f("FAVORITE", "Jazz")], "preferences"),
    u("I'm really into bouldering lately.", [f("LIKES", "bouldering")], "preferences"),
    u("Honestly I prefer tea over coffee.", [f("LIKES", "tea")], "preferences"),
    u("Alice loves sushi.", [f("LIKES", "sushi", subj="Alice")], "preferences"),
    # ---------------------------------------------------------------- tools
    u("I use Obsidian for all my notes.", [f("USES", "Obsidian")], "tools"),
    u("I switched to Neovim last year.", [f("USES", "Neovim", "2022")], "tools"),
    u("We use Slack at work.", [f("USES", "Slack")], "tools"),
    u("I've been using Notion since 2021.", [f("USES", "Notion", "2021")], "tools"),
    u("I mostly code in Python with VS Code.",
      [f("USES", "Python"), f("USES", "VS Code")], "tools"),
    u("I stopped using Evernote a few months ago.",
      [f("USES", "Evernote", "2023-02", kind="end")], "tools"),
    u("I switched from Trello to Asana in January.",
      [f("USES", "Trello", "2023-01", kind="end"), f("USES", "Asana", "2023-01")], "tools"),
    # ---------------------------------------------------------------- plans
    u("I'm planning to visit Japan in October.", [f("PLANS", "Japan")], "plans"),
    u("We're thinking about moving to Portugal.", [f("PLANS", "Portugal")], "plans"),
    u("I want to learn Spanish this year.", [f("PLANS", "learn Spanish")], "plans"),
    u("Next summer I'm going to Peru.", [f("PLANS", "Peru")], "plans"),
    u("I hope to run a marathon next year.", [f("PLANS", "run a marathon")], "plans"),
    u("Alice is planning a trip to Iceland.", [f("PLANS", "Iceland", subj="Alice")], "plans"),
    # ---------------------------------------------------------------- travel
    u("I visited Paris last summer.", [f("VISITED", "Paris", "2022-06")], "travel"),
    u("We went to Mexico City in December.", [f("VISITED", "Mexico City", "2022-12")], "travel"),
    u("I was in Tokyo for work last week.", [f("VISITED", "Tokyo", "2023-05-01")], "travel"),
    u("Just got back from Iceland yesterday!", [f("VISITED", "Iceland", "2023-05-07")], "travel"),
    # ---------------------------------------------------------------- education
    u("I study computer science at McGill.", [f("STUDIES_AT", "McGill")], "education"),
    u("I graduated from Stanford in 2015.", [f("ATTENDED", "Stanford", "2015")], "education"),
    u("I'm doing my PhD at ETH Zurich.", [f("STUDIES_AT", "ETH Zurich")], "education"),
    # ---------------------------------------------------------------- third person
    u("Sarah moved to London in 2021.", [f("LIVES_IN", "London", "2021", subj="Sarah")], "third_person"),
    u("Marcus quit his job at Uber.", [f("WORKS_AT", "Uber", kind="end", subj="Marcus")], "third_person"),
    u("Jenny and Mike got married last June.",
      [f("MARRIED_TO", "Mike", "2022-06", subj="Jenny")], "third_person"),
    u("Carlos is a software engineer at Microsoft.",
      [f("HAS_ROLE", "software engineer", subj="Carlos"), f("WORKS_AT", "Microsoft", subj="Carlos")],
      "third_person"),
    u("Nina has a cat named Pixel.", [f("HAS_PET", "Pixel", subj="Nina")], "third_person"),
    u("Alice Chen works at Acme Robotics.",
      [f("WORKS_AT", "Acme Robotics", subj="Alice Chen")], "third_person"),
    u("Omar has lived in Cairo since 2010.", [f("LIVES_IN", "Cairo", "2010", subj="Omar")], "third_person"),
    # ---------------------------------------------------------------- corrections (retract)
    u("Actually, I never lived in Boston.", [f("LIVES_IN", "Boston", kind="retract")], "corrections"),
    u("Sorry, I meant I work at Microsoft, not Google.",
      [f("WORKS_AT", "Google", kind="retract"), f("WORKS_AT", "Microsoft")], "corrections"),
    u("Wait, I don't have a cat, that was my roommate.",
      [f("HAS_PET", "cat", kind="retract")], "corrections"),
    u("Correction: I never worked at Amazon.", [f("WORKS_AT", "Amazon", kind="retract")], "corrections"),
    u("No, I didn't move to Denver - I moved to Austin.",
      [f("LIVES_IN", "Denver", kind="retract"), f("LIVES_IN", "Austin")], "corrections"),
    u("I was never married to Mark, we were just friends.",
      [f("MARRIED_TO", "Mark", kind="retract")], "corrections"),
    u("Actually, I'm not a nurse, I'm a paramedic.",
      [f("HAS_ROLE", "nurse", kind="retract"), f("HAS_ROLE", "paramedic")], "corrections"),
    # ---------------------------------------------------------------- endings (negations)
    u("I no longer work at Google.", [f("WORKS_AT", "Google", kind="end")], "negations"),
    u("I moved out of Boston in 2021.", [f("LIVES_IN", "Boston", "2021", kind="end")], "negations"),
    u("I quit my job at Deloitte last month.",
      [f("WORKS_AT", "Deloitte", "2023-04", kind="end")], "negations"),
    u("I don't use Evernote anymore.", [f("USES", "Evernote", kind="end")], "negations"),
    u("We broke up in March.", [f("DATING", "*", "2023-03", kind="end")], "negations"),
    u("I left Twitter two years ago.", [f("WORKS_AT", "Twitter", "2021", kind="end")], "negations"),
    u("I'm not the team lead anymore.", [f("HAS_ROLE", "team lead", kind="end")], "negations"),
    u("I got laid off from Meta in January.",
      [f("WORKS_AT", "Meta", "2023-01", kind="end")], "negations"),
    u("I stepped down as head of the design team last week.",
      [f("LEADS", "design team", "2023-05-01", kind="end")], "negations"),
    u("I don't live in Chicago anymore, I moved to Denver.",
      [f("LIVES_IN", "Chicago", kind="end"), f("LIVES_IN", "Denver")], "negations"),
    # ---------------------------------------------------------------- misc
    u("I'm 34 years old.", [f("AGE", "34")], "misc"),
    u("I speak Spanish and Portuguese.",
      [f("SPEAKS", "Spanish"), f("SPEAKS", "Portuguese")], "misc"),
    u("I play tennis every Sunday.", [f("HAS_HOBBY", "tennis")], "misc"),
    u("I'm a member of the local chess club.", [f("MEMBER_OF", "local chess club")], "misc"),
    # ---------------------------------------------------------------- no fact
    u("What's the weather like in Boston today?", [], "none"),
    u("lol that's hilarious", [], "none"),
    u("Can you remind me what we talked about yesterday?", [], "none"),
    u("I think it might rain tomorrow.", [], "none"),
    u("Do you like jazz?", [], "none"),
    u("Thanks, that's really helpful!", [], "none"),
    u("How do I convert a list to a set in Python?", [], "none"),
    u("Boston is a great city for students.", [], "none"),
    u("Google announced a new phone last week.", [], "none"),
    u("If I lived in Denver, I'd go skiing every weekend.", [], "none"),
    u("My flight got delayed by two hours.", [], "none"),
    u("Ok sounds good, talk tomorrow.", [], "none"),
    u("Could you recommend a good book about history?", [], "none"),
    u("The meeting was moved to next Friday.", [], "none"),
    u("Hmm, I'm not sure about that.", [], "none"),
    u("Did you know Paris has over 400 parks?", [], "none"),
    u("Write me a poem about cats.", [], "none"),
    u("It's been a long week.", [], "none"),
    u("Tell me a joke about dogs.", [], "none"),
    u("Apple's stock went up yesterday.", [], "none"),
    u("Which is better for a beginner, Rust or Go?", [], "none"),
]

# ------------------------------------------------------------------ templates (test fillers)
# Each template family has several wordings; fillers differ from the dev split's.
_T_TIMES_R2 = [  # phrase, expected (relative to R2 = 2024-01-15)
    ("last March", "2023-03"), ("in November", "2023-11"), ("last summer", "2023-06"),
    ("two years ago", "2022"), ("last week", "2024-01-08"), ("yesterday", "2024-01-14"),
    ("in 2017", "2017"), ("last month", "2023-12"),
]
_T_PEOPLE = ["Hannah", "Diego", "Ravi Patel", "Fatima", "Lukas", "Grace Kim"]
_T_CITIES = ["Montreal", "Nairobi", "San Diego", "Osaka", "Dublin", "Sao Paulo"]
_T_ORGS = ["Oracle", "Siemens", "Goldman Sachs", "Duolingo", "Unilever", "Red Cross"]

_JOB_T = [
    "I started working at {org} {t}.",
    "{t_cap} I got a job at {org}.",
    "I joined {org} {t}.",
]
_HOME_T = [
    "I moved to {city} {t}.",
    "{t_cap} we relocated to {city}.",
    "I've lived in {city} since {t_since}.",
]
_THIRD_T = [
    ("{p} works at {org}.", "WORKS_AT", "org"),
    ("{p} lives in {city}.", "LIVES_IN", "city"),
    ("{p} just moved to {city}.", "LIVES_IN", "city"),
]


def _templates():
    out = []
    times = cycle(_T_TIMES_R2)
    orgs, cities, people = cycle(_T_ORGS), cycle(_T_CITIES), cycle(_T_PEOPLE)
    for tpl in _JOB_T:
        for _ in range(3):
            phrase, iso = next(times)
            org = next(orgs)
            text = tpl.format(org=org, t=phrase, t_cap=phrase[0].upper() + phrase[1:])
            out.append(u(text, [f("WORKS_AT", org, iso)], "jobs", ref="R2", source="template"))
    years = cycle(["2016", "2019", "2021"])
    for tpl in _HOME_T:
        for _ in range(3):
            city = next(cities)
            if "{t_since}" in tpl:
                y = next(years)
                text = tpl.format(city=city, t_since=y)
                out.append(u(text, [f("LIVES_IN", city, y)], "homes", ref="R2", source="template"))
                continue
            phrase, iso = next(times)
            text = tpl.format(city=city, t=phrase, t_cap=phrase[0].upper() + phrase[1:])
            out.append(u(text, [f("LIVES_IN", city, iso)], "homes", ref="R2", source="template"))
    for tpl, pred, slot in _THIRD_T:
        for _ in range(2):
            p = next(people)
            obj = next(orgs) if slot == "org" else next(cities)
            text = tpl.format(p=p, org=obj, city=obj)
            out.append(u(text, [f(pred, obj, subj=p)], "third_person", ref="R2", source="template"))
    return out


ITEMS = FREE + _templates()
