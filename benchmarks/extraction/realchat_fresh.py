"""Real-chat fresh rounds after round 10 (issue 31): LoCoMo sessions of conversations 2-4 never
labelled before, drawn at random, labelled with the conventions of README.md ("Real-chat dev
set") and committed before any extractor ran on them. Each round's labels stay out of
``realchat.jsonl`` until its first look is recorded in ``rounds.jsonl``
(``python -m benchmarks.extraction.rounds``).

    python -m benchmarks.extraction.realchat_fresh round11   # writes realchat_round11.jsonl
    python -m benchmarks.extraction.realchat_fresh round12   # c2s28, c3s14, c4s11
    python -m benchmarks.extraction.realchat_fresh round13   # the precision sample (see below)
    python -m benchmarks.extraction.realchat --labels benchmarks/extraction/realchat_round11.jsonl

The unlabelled sessions after round 10 were c2: 6, 20, 24, 28, 32; c3: 11, 14, 19, 27; c4: 3,
7, 11, 26. ``random.Random(26)`` drew two per conversation for round 11; ``random.Random(27)``
one per conversation of the rest for round 12; the four left (c2s6, c2s24, c3s11, c4s7) are the
precision sample: their extracted facts (4) were printed at the start of the sitting to see
what the extractor invents; they were labelled later as round 13, a first look with that
caveat stated.

The labeller (the engineer who then worked on the rules) had read the extraction rules: not a
blind first look, like round 10.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .realchat_labels import EV, PREF, ST, W, Label, opt, req

HERE = Path(__file__).resolve().parent

ROUND11: dict[tuple[int, int], list[Label]] = {
    (2, 20): [  # Tue 2023-06-27 (previous sitting Fri 2023-06-16)
        req("D20:4", "John", ("ATTENDED", "EXPERIENCED"), "live music event", kind=EV,
            cat="event", otype="event",
            aliases=("music event", "a live music event", "live music", "concert"),
            start=W("2023-06-19", "2023-06-25"),
            note="'Last week, we had a blast at a live music event'"),
        req("D20:7 D20:9", "Maria", ("VOLUNTEERS_AT", "MEMBER_OF"), "shelter", kind=ST,
            cat="membership", otype="organisation",
            aliases=("the shelter", "homeless shelter", "a homeless shelter"),
            note="'Volunteering at the shelter made me feel great'"),
        opt("D20:7 D20:13", "Maria", PREF, "volunteering", cat="hobby", otype="activity"),
    ],
    (2, 32): [  # Wed 2023-08-16 (previous sitting Sun 2023-08-13)
        req("D32:1", "John", ("MEMBER_OF", "VOLUNTEERS_AT"), "fire-fighting brigade", kind=ST,
            cat="membership", otype="organisation",
            aliases=("fire fighting brigade", "firefighting brigade", "brigade", "fire brigade",
                     "the fire-fighting brigade"),
            start=W("2023-08-13", "2023-08-16"),
            note="'I'm now part of the fire-fighting brigade'"),
        req("D32:14", "Maria", ("VOLUNTEERS_AT", "MEMBER_OF"), "shelter", kind=ST,
            cat="membership", otype="organisation",
            aliases=("the shelter", "homeless shelter", "front desk"),
            note="'Last Friday, I spent some time at the shelter volunteering at the front desk'"),
        opt("D32:5 D32:7", "John", ("ATTENDED", "ORGANIZED", "VOLUNTEERS_AT"), "donation drive",
            kind=EV, cat="event", otype="event", aliases=("fundraiser", "donations")),
        opt("D32:9", "John", PREF, "helping out", cat="hobby", otype="activity",
            aliases=("helping the community",)),
    ],
    (3, 19): [  # Mon 2022-08-22 (previous sitting Sun 2022-08-14)
        req("D19:1", "Nate", ("ATTENDED", "WON", "EXPERIENCED"), "international tournament",
            kind=EV, cat="event", otype="event",
            aliases=("tournament", "an international tournament", "video game tournament",
                     "gaming tournament"),
            start=W("2022-08-21"), note="'I won an international tournament yesterday!'"),
        req("D19:1", "Nate", "HAS_ROLE", "professional gamer", kind=ST, cat="role",
            otype="role", aliases=("gamer", "pro gamer", "professional video gamer"),
            note="'now I'm able to make a living at something I'm passionate about' (gaming)"),
        req("D19:6", "Joanna", "MEMBER_OF", "writers group", kind=ST, cat="membership",
            otype="organisation",
            aliases=("writers' group", "writing group", "my writers group", "writer's group"),
            note="'when I shared my book with my writers group'"),
        opt("D19:3 D19:9", "Nate", "HAS_PET", "pet", cat="pet", otype="animal",
            aliases=("pets", "little dudes", "little buddies"),
            note="the caption says fish; the text only 'my pets'"),
        opt("D19:6", "Joanna", ("CREATED", "WORKS_ON"), "book", cat="project",
            aliases=("my book",)),
        opt("D19:10", "Joanna", PREF, "reading", cat="hobby", otype="activity",
            aliases=("long walk", "walks")),
        opt("D19:1 D19:5", "Nate", PREF, "gaming", cat="hobby", otype="activity"),
        opt("D19:17 D19:19", "Nate", PREF, "series", cat="hobby",
            aliases=("this series", "fantasy series")),
    ],
    (3, 27): [  # Mon 2022-11-07 (previous sitting Fri 2022-11-04)
        req("D27:1", "Nate", ("ATTENDED", "WON", "EXPERIENCED"), "Valorant tournament",
            kind=EV, cat="event", otype="event",
            aliases=("tournament", "big Valorant tournament", "a big Valorant tournament",
                     "final", "the final", "final of a big Valorant tournament"),
            start=W("2022-11-05"),
            note="'I was in the final of a big Valorant tournament last Saturday, and I won!'"),
        req("D27:7 D27:8 D27:9", "Nate", "HAS_PET", "turtle", kind=ST, cat="pet",
            otype="animal", aliases=("turtles", "little guys"),
            note="Joanna: 'How have your turtles been?'"),
        opt("D27:5 D27:21", "Nate", "HAS_ROLE", "professional gamer", cat="role",
            otype="role", aliases=("gamer", "pro gamer"),
            note="'a job I enjoy every day' / 'for my career' (implied)"),
        opt("D27:2", "Joanna", ("CREATED", "WORKS_ON"), "presentation for producers",
            cat="project", aliases=("presentation", "the presentation")),
        opt("D27:6 D27:28", "Joanna", ("CREATED", "WORKS_ON"), "movie script", cat="project",
            aliases=("another movie script", "script", "next movie script", "love story")),
        opt("D27:30", "Joanna", "SIBLING_OF", "brother", cat="family", otype="person",
            note="unnamed"),
        opt("D27:15 D27:19", "Nate", "OWNS", "gaming setup", cat="possession",
            aliases=("equipment", "computer", "setup", "some of my equipment")),
        opt("D27:23 D27:25", "Nate", PREF, "Nintendo games", cat="hobby",
            aliases=("Xeonoblade Chronicles", "fantasy RPG", "Xenoblade Chronicles")),
        opt("D27:8 D27:10", "Joanna", PREF, "writing", cat="hobby", otype="activity",
            aliases=("creating stories",)),
        opt("D27:33", "Nate", ("VISITED",), "park", kind=EV, cat="trip", otype="place"),
    ],
    (4, 3): [  # Sun 2023-07-16 (previous sitting Thu 2023-06-15)
        req("D3:13", "John", ("WORKS_WITH", "SIGNED_WITH", "HAS_DEAL_WITH", "SPONSORED_BY",
                              "MEMBER_OF"), "Nike", kind=ST, cat="work",
            otype="organisation",
            aliases=("Nike deal", "basketball shoe and gear deal"),
            start=W("2023-06-15", "2023-07-16"),
            note="'I just signed up Nike for a basketball shoe and gear deal' (Gatorade: only "
                 "in talks, no fact)"),
        opt("D3:1", "John", ("EXPERIENCED", "ATTENDED"), "scored 40 points", kind=EV,
            cat="event", aliases=("40 points", "game")),
        opt("D3:2 D3:6", "Tim", ("MET", "KNOWS"), "Harry Potter fan", cat="friend",
            otype="person", aliases=("fan", "fellow fan"), note="unnamed"),
        opt("D3:15", "John", "LIKES", "Under Armour", cat="preference"),
        opt("D3:19", "John", ("PLANS", "VISITED", "ATTENDED"), "Seattle", cat="plan",
            aliases=("game there", "game in Seattle", "my game there")),
        opt("D3:19 D3:21", "John", PREF, "Seattle", cat="preference",
            aliases=("seafood", "local seafood", "ocean", "the ocean")),
        opt("D3:25 D3:27", "John", PREF, "surfing", cat="hobby", otype="activity",
            start=W("2018")),
        opt("D3:30 D3:32", "Tim", PREF, "reading", cat="hobby",
            aliases=("fantasy book", "a great fantasy book", "reading a great fantasy book")),
        opt("D3:3 D3:7", "John", "MEMBER_OF_TEAM", "team", cat="membership",
            otype="organisation", aliases=("teammates",)),
    ],
    (4, 26): [  # Tue 2023-12-26 (previous sitting Tue 2023-12-19)
        req("D26:1 D26:3", "John", ("HAS_ROLE", "WORKS_ON"), "seminars", kind=ST, cat="role",
            aliases=("doing seminars", "seminar speaker", "giving seminars", "seminar",
                     "seminars helping people with their sports and marketing"),
            start=W("2023-12-19", "2023-12-26"),
            note="'I started doing seminars, helping people with their sports and marketing'"),
        req("D26:12", "Tim", "VISITED", "travel agency", kind=EV, cat="trip", otype="place",
            aliases=("a travel agency",), start=W("2023-12-19", "2023-12-26"),
            note="'I just visited a travel agency'"),
        req("D26:23", "John", ("ORGANIZED", "ATTENDED"), "basketball camp", kind=EV,
            cat="event", otype="event",
            aliases=("basketball camp for kids", "camp", "a basketball camp"),
            start=W("2023-06", "2023-08"),
            note="'Organizing a basketball camp for kids in my hometown last summer'"),
        opt("D26:21", "John", "WORKS_ON", "supporting youth sports", cat="project",
            aliases=("youth sports", "fair chances in sports")),
        opt("D26:19", "John", "ATTENDED", "charity event", kind=EV, cat="event",
            otype="event"),
        opt("D26:6", "Tim", "PLANS", "next adventure", cat="plan",
            aliases=("dream trip", "next dream trip", "trip")),
        opt("D26:16 D26:18", "Tim", "LIKES", "Emma Watson", cat="preference"),
        opt("D26:26 D26:28", "Tim", PREF, "Harry Potter", cat="hobby",
            aliases=("reading", "good books", "this series", "books", "Harry Potter movies")),
        opt("D26:32", "Tim", ("LIKES", "FAVORITE"), "Lord of the Rings", cat="preference",
            aliases=("epic adventures", "fantasy")),
        opt("D26:34 D26:36 D26:38", "Tim", ("PLANS", "LIKES"), "The Wheel of Time",
            cat="plan", aliases=("Wheel of Time", "watch the new show", "new fantasy TV series",
                                 "check out the series")),
        opt("D26:29", "John", PREF, "movies", cat="hobby", aliases=("movie",)),
        opt("D26:30", "Tim", PREF, "movie marathons", cat="hobby",
            aliases=("watching movies",)),
    ],
}

ROUND12: dict[tuple[int, int], list[Label]] = {
    (2, 28): [  # Sat 2023-08-05 (previous sitting Thu 2023-08-03)
        req("D28:1", "John", "WORKS_AT", "mechanical engineering company", kind=ST, cat="work",
            otype="organisation",
            aliases=("engineering company", "the mechanical engineering company",
                     "mechanical engineering firm"),
            ended=W("2023-08-03", "2023-08-05"),
            note="'Crazy thing happened since we last talked. I lost my job at the mechanical "
                 "engineering company.' (D28:5 'I may have found a job at a tech company': "
                 "hedged, no fact)"),
        req("D28:8", "Maria", ("VOLUNTEERS_AT", "MEMBER_OF", "ATTENDED", "WORKS_ON"),
            "community work", kind=ST, cat="membership", otype=("activity", "organisation"),
            aliases=("community work with my friends from church", "some community work"),
            start=W("2023-08-04"),
            note="'Yesterday, I took up some community work with my friends from church'"),
        req("D28:11", "John", ("VOLUNTEERS_AT", "ATTENDED", "WORKS_ON", "EXPERIENCED"),
            "community center", kind=EV, cat="event", otype=("place", "event"),
            aliases=("rundown community center", "a rundown community center",
                     "renovate a rundown community center", "renovating a community center",
                     "community center back home"),
            start=W("2022"),
            note="'Last year, I helped renovate a rundown community center back home'"),
        opt("D28:8", "Maria", ("MEMBER_OF", "ATTENDS"), "church", cat="membership",
            otype="organisation"),
        opt("D28:3", "John", "PLANS", "tech industry", cat="plan",
            aliases=("opportunities in the tech industry",)),
    ],
    (3, 14): [  # Fri 2022-06-03 (previous sitting Wed 2022-05-25)
        req("D14:1 D14:5", "Joanna", ("EXPERIENCED", "RECEIVED"), "rejection letter", kind=EV,
            cat="event", otype="event",
            aliases=("rejection", "a rejection letter", "rejection letter from a major company",
                     "generic rejection letter"),
            start=W("2022-05-25", "2022-06-03"),
            note="'after finishing my screenplay I got a rejection letter from a major company'"),
        req("D14:8", "Nate", ("ATTENDED", "WON", "EXPERIENCED"),
            "regional video game tournament", kind=EV, cat="event", otype="event",
            aliases=("tournament", "video game tournament", "another regional video game "
                     "tournament", "regional tournament"),
            start=W("2022-05-23", "2022-05-29"),
            note="'I just won another regional video game tournament last week!'"),
        opt("D14:1", "Joanna", ("CREATED", "WORKS_ON"), "screenplay", cat="project",
            aliases=("my screenplay",)),
        opt("D14:19", "Joanna", ("PLANS", "LIKES", "HAS_HOBBY"), "hiking", cat="plan",
            aliases=("new trail", "hiking with some buddies")),
        opt("D14:20 D14:24", "Nate", ("PLANS", "ORGANIZED"), "gaming party", cat="plan",
            aliases=("organizing a gaming party",)),
        opt("D14:8 D14:14", "Nate", ("KNOWS", "MET", "FRIEND_OF"), "fellow gamers",
            cat="friend", otype="person", aliases=("new people", "guys at the tournament")),
        opt("D14:18", "Nate", PREF, "helping people", cat="hobby"),
    ],
    (4, 11): [  # Thu 2023-09-21 (previous sitting Thu 2023-08-31)
        req("D11:3", "John", ("VISITED", "ATTENDED"), "local restaurant", kind=EV, cat="trip",
            otype="place", aliases=("restaurant", "a local restaurant"),
            start=W("2023-09-11", "2023-09-17"),
            note="'I attended a local restaurant with some new teammates last week'"),
        req("D11:13 D11:15", "John", "HAS_ROLE", "professional basketball player", kind=ST,
            cat="role", otype="role",
            aliases=("basketball player", "pro basketball player", "pro ball player",
                     "player", "professional basketball player"),
            note="'my basketball career' / 'I love playing pro ball'"),
        opt("D11:3 D11:5", "John", ("MEMBER_OF_TEAM", "FRIEND_OF", "KNOWS"), "teammates",
            cat="friend", otype="person", aliases=("new teammates", "team")),
        opt("D11:7", "John", "PLANS", "team trip", cat="plan",
            aliases=("explore a new city", "trip")),
        opt("D11:15", "John", PREF, "basketball", cat="hobby",
            aliases=("playing pro ball", "pro ball")),
        opt("D11:17", "John", ("WORKS_ON", "PLANS"), "endorsements", cat="project",
            aliases=("building my brand", "more endorsements")),
        opt("D11:27", "John", "LIKES", "The Alchemist", cat="preference"),
        opt("D11:26 D11:28", "Tim", ("LIKES", "FAVORITE"), "The Alchemist", cat="preference"),
        opt("D11:24", "Tim", "LIKES", "fantasy novel", cat="preference",
            aliases=("Patrick Rothfuss",)),
    ],
}

# Round 13: the four sessions of the precision sample. Not a clean first look: their extracted
# facts were printed once at the start of the sitting (4 facts: Maria ATTENDED picnic, Joanna
# ATTENDED hiking / hike, Tim PLANS attend a book conference), before these labels were written,
# and the code has changed since. Labelled before any extractor ran on them again.
ROUND13: dict[tuple[int, int], list[Label]] = {
    (2, 6): [  # Sun 2023-02-05 (previous sitting Sat 2023-01-28)
        req("D6:1 D6:3", "Maria", ("ATTENDED", "VOLUNTEERS_AT"), "charity event", kind=EV,
            cat="event", otype="event", aliases=("a charity event", "event"),
            start=W("2023-02-03"), note="'I challenged myself last Friday and did a charity "
                                       "event'"),
        req("D6:3 D6:4", "John", ("EXPERIENCED", "ATTENDED", "WORKS_ON", "HAS_ROLE"),
            "running for office", kind=EV, cat="event", otype=("event", "role"),
            aliases=("office", "politics", "political campaign", "candidate",
                     "run for office"),
            note="'what made you get into politics?' / 'Running for office was my chance'"),
        req("D6:10 D6:12", "John", ("VOLUNTEERS_AT", "ORGANIZED", "WORKS_ON", "ATTENDED",
                                    "MEMBER_OF"), "food drive", kind=ST, cat="membership",
            otype=("event", "organisation"),
            aliases=("community food drive", "food drive for folks who lost their jobs",
                     "food bank", "a food drive"),
            start=W("2023-01-28", "2023-02-05"),
            note="'I just started helping out with a food drive for folks who lost their jobs'"),
        req("D6:21", "Maria", "FRIEND_OF", "John", kind=ST, cat="friend", otype="person",
            note="'You're a great friend to me'"),
        opt("D6:5 D6:7", "Maria", ("KNOWS", "MET"), "David", cat="friend", otype="person"),
        opt("D6:9", "Maria", ("KNOWS", "RELATED_TO"), "auntie", cat="family", otype="person"),
        opt("D6:17", "Maria", "PLANS", "help out at future events", cat="plan",
            aliases=("lend a hand",)),
    ],
    (2, 24): [  # Mon 2023-07-17 (previous sitting Fri 2023-07-07)
        req("D24:1", "John", ("VISITED", "ATTENDED"), "veteran's hospital", kind=EV,
            cat="trip", otype="place",
            aliases=("veterans hospital", "a veteran's hospital", "hospital",
                     "veterans' hospital"),
            start=W("2023-07-10", "2023-07-16"),
            note="'last week was really eye-opening. I visited a veteran's hospital'"),
        req("D24:6", "Maria", "ATTENDED", "picnic", kind=EV, cat="event", otype="event",
            aliases=("a picnic", "picnic with some friends from church"),
            start=W("2023-07-15", "2023-07-16"),
            note="'last weekend I had a picnic with some friends from church'"),
        req("D24:11", "John", ("ATTENDED", "VISITED"), "community event", kind=EV,
            cat="event", otype="event", aliases=("a community event", "arts and crafts"),
            start=W("2023-06"), note="'There were arts and crafts at a community event last "
                                     "month'"),
        opt("D24:3", "John", ("KNOWS", "MET"), "Samuel", cat="friend", otype="person"),
        opt("D24:5", "John", ("MEMBER_OF",), "organization", cat="membership",
            otype="organisation", aliases=("this organization", "group")),
        opt("D24:6", "Maria", ("MEMBER_OF", "ATTENDS"), "church", cat="membership",
            otype="organisation"),
        opt("D24:9", "John", "PLANS", "setting up games for kids", cat="plan",
            aliases=("setting up something like this for my kids",)),
        opt("D24:9", "John", "PARENT_OF", "kids", cat="family", otype="person"),
    ],
    (3, 11): [  # Thu 2022-05-12 (previous sitting Mon 2022-05-02)
        req("D11:3 D11:5", "Joanna", ("ATTENDED", "VISITED", "HAS_HOBBY"), "hiking",
            kind=EV, cat="event", otype=("event", "activity"),
            aliases=("hike", "trails", "hiking trails", "the hike"),
            start=W("2022-05-02", "2022-05-12"),
            note="'Quite a week since we last talked ... I went hiking and found some more "
                 "amazing trails in my town'"),
        req("D11:7", "Joanna", ("VISITED", "ATTENDED"), "Whispering Falls", kind=EV,
            cat="trip", otype="place", note="'I took this photo at ... Whispering Falls'"),
        opt("D11:11", "Joanna", PREF, "hiking", cat="hobby", otype="activity"),
        opt("D11:16 D11:18", "Nate", "PLANS", "join Joanna on the trails", cat="plan",
            aliases=("go together", "hiking", "trails")),
    ],
    (4, 7): [  # Thu 2023-08-17 (previous sitting Fri 2023-08-11)
        req("D7:7 D7:9 D7:11", "John", "OWNS", "ball", kind=ST, cat="possession",
            otype="thing", aliases=("this ball", "signed ball", "basketball"),
            note="'what my teammates gave me' / 'Having something like this ball'"),
        opt("D7:1", "John", ("MEMBER_OF_TEAM", "MEMBER_OF"), "team", cat="membership",
            otype="organisation", aliases=("this team",)),
        opt("D7:1", "John", ("MET", "KNOWS", "FRIEND_OF"), "teammates", cat="friend",
            otype="person", aliases=("my teammates",)),
        opt("D7:6", "Tim", "PLANS", "attend a book conference", cat="plan",
            aliases=("book conference",)),
        opt("D7:4", "Tim", "ATTENDED", "event", kind=EV, cat="event", otype="event"),
        opt("D7:6", "Tim", PREF, "literature", cat="hobby", aliases=("books", "novels")),
    ],
}

ROUNDS: dict[str, dict[tuple[int, int], list[Label]]] = {"round11": ROUND11,
                                                        "round12": ROUND12,
                                                        "round13": ROUND13}


def write_round(name: str) -> Path:
    from benchmarks.datasets._common import default_data_dir

    from . import realchat_labels

    locomo = json.loads((default_data_dir() / "locomo" / "locomo10.json").read_text("utf-8"))
    saved = realchat_labels.SESSIONS
    try:
        realchat_labels.SESSIONS = ROUNDS[name]
        rows = realchat_labels.build_rows(locomo)
    finally:
        realchat_labels.SESSIONS = saved
    path = HERE / f"realchat_{name}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    n_req = sum(r["required"] for r in rows)
    print(f"wrote {len(rows)} labels ({n_req} required, {len(rows) - n_req} optional) to {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or sorted(ROUNDS)
    for name in names:
        write_round(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
