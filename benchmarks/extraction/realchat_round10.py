"""Real-chat tenth fresh round (issue 31): ``random.Random(25)`` drew one unlabelled session of
each of conversations 2, 3 and 4 (0 and 1 have none left): c2s27, c3s6, c4s6. Labelled with the
conventions of README.md ("Real-chat dev set") and committed before any extractor ran on them;
kept apart from ``realchat.jsonl`` until their first look is recorded.

    python -m benchmarks.extraction.realchat_round10      # writes realchat_round10.jsonl
    python -m benchmarks.extraction.realchat --labels benchmarks/extraction/realchat_round10.jsonl

The labeller had read the extraction rules (unlike rounds 2-9): a weaker first look.
"""

from __future__ import annotations

import json
from pathlib import Path

from .realchat_labels import EV, PREF, ST, UNDATED, W, Label, opt, req

HERE = Path(__file__).resolve().parent
DATA = HERE / "realchat_round10.jsonl"

SESSIONS: dict[tuple[int, int], list[Label]] = {
    (2, 27): [  # Thu 2023-08-03 (previous sitting Mon 2023-07-31)
        req("D27:1", "John", "MEMBER_OF", "virtual support group", kind=ST, cat="membership",
            otype="organisation", aliases=("support group", "the virtual support group"),
            note="'the virtual support group I am a part of'"),
        req("D27:2 D27:4", "Maria", ("VOLUNTEERS_AT", "MEMBER_OF"), "homeless shelter",
            kind=ST, cat="membership", otype="organisation",
            aliases=("shelter", "the shelter", "a homeless shelter"), start=W("2022"),
            note="'volunteering at a homeless shelter' / 'started volunteering here about a "
                 "year ago'"),
        req("D27:9", "John", ("VISITED", "ATTENDED"), "military memorial", kind=EV, cat="trip",
            otype=("place", "event"), aliases=("memorial", "a military memorial"),
            start=W("2023-07-24", "2023-07-30"),
            note="'Last week, we had a meaningful experience at a military memorial'"),
        opt("D27:9", "John", "PARENT_OF", "kids", cat="family", otype="person",
            aliases=("children",), note="unnamed"),
        opt("D27:8", "Maria", "KNOWS", "Cindy", cat="friend", otype="person",
            note="a resident at the shelter"),
        opt("D27:2", "Maria", PREF, "volunteering", cat="hobby", otype="activity"),
    ],
    (3, 6): [  # Thu 2022-03-24 (previous sitting Fri 2022-03-18)
        req("D6:2 D6:4", "Joanna", ("EXPERIENCED", "ATTENDED"), "audition", kind=EV,
            cat="event", otype="event", aliases=("audition for a writing gig", "writing gig",
                                                 "an audition"),
            start=W("2022-03-23"), note="'had an audition yesterday for a writing gig'"),
        req("D6:7", "Nate", ("ATTENDED", "EXPERIENCED"), "video game tournament", kind=EV,
            cat="event", otype="event", aliases=("tournament", "the video game tournament",
                                                 "gaming tournament"),
            note="'I'm currently participating in the video game tournament again'"),
        opt("D6:9 D6:11", "Nate", "PLANS", "pursue writing", cat="plan",
            aliases=("writing", "keep working hard on it")),
        opt("D6:8 D6:10", "Joanna", PREF, "writing", cat="hobby", otype="activity"),
        opt("D6:11", "Joanna", "WORKS_ON", "project", cat="project", aliases=("your project",)),
        opt("D6:7", "Nate", PREF, "video games", cat="hobby", otype="activity",
            aliases=("gaming",)),
    ],
    (4, 6): [  # Fri 2023-08-11 (previous sitting Wed 2023-08-09)
        req("D6:1 D6:3", "John", "VISITED", "Chicago", kind=EV, cat="trip", otype="place",
            start=W("2023-08-06", "2023-08-11"),
            note="'Been a crazy few days. Took a trip to a new place' / 'I was in Chicago'"),
        req("D6:9 D6:11", "John", "OWNS", "basketball shoes", kind=ST, cat="possession",
            otype="thing", aliases=("lucky basketball shoes", "shoes", "my lucky basketball "
                                    "shoes", "pair of shoes"),
            note="'These are my lucky basketball shoes'"),
        req("D6:13", "John", "HAS_ROLE", "basketball player", kind=ST, cat="role",
            otype="role", aliases=("professional basketball player", "player",
                                   "pro basketball player"),
            alts=[("PLAYS", "basketball", ()), ("HAS_HOBBY", "basketball", ())],
            note="'after college, I was drafted by a team - my dream come true'"),
        opt("D6:13", "John", ("ATTENDED", "STUDIES_AT"), "college", cat="education",
            otype="organisation", ended=UNDATED),
        opt("D6:13", "John", "CHILD_OF", "dad", cat="family", otype="person",
            aliases=("father",), note="unnamed"),
        opt("D6:13", "John", "MEMBER_OF", "local league", cat="membership",
            otype="organisation", ended=UNDATED),
        opt("D6:15 D6:16", "John", "PLANS", "win a championship", cat="plan",
            aliases=("championship", "charity work", "charity")),
        opt("D6:17", "John", ("MEMBER_OF", "VOLUNTEERS_AT", "WORKS_ON"), "local organization",
            cat="membership", otype="organisation",
            aliases=("organization", "local organization that helps disadvantaged kids")),
        opt("D6:2", "Tim", "ATTENDED", "event", cat="event", kind=EV, otype="event"),
        opt("D6:6", "Tim", ("CREATED", "WORKS_ON", "HAS_HOBBY"), "articles", cat="project",
            aliases=("writing articles", "article", "latest one")),
        opt("D6:6 D6:8", "Tim", PREF, "reading", cat="hobby", otype="activity",
            aliases=("The Name of the Wind", "fantasy", "books")),
        opt("D6:9 D6:13", "John", PREF, "basketball", cat="hobby", otype="activity",
            aliases=("fantasy", "The Name of the Wind")),
    ],
}


def main() -> None:
    from benchmarks.datasets._common import default_data_dir

    from . import realchat_labels

    locomo = json.loads((default_data_dir() / "locomo" / "locomo10.json").read_text("utf-8"))
    saved = realchat_labels.SESSIONS
    try:
        realchat_labels.SESSIONS = SESSIONS
        rows = realchat_labels.build_rows(locomo)
    finally:
        realchat_labels.SESSIONS = saved
    with DATA.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    n_req = sum(r["required"] for r in rows)
    print(f"wrote {len(rows)} labels ({n_req} required, {len(rows) - n_req} optional) to {DATA}")


if __name__ == "__main__":
    main()
