"""Hand-written temporal expressions with the expected resolution (see kgmem/ingest/temporal/
for the policy). ``expected`` is an ISO date whose form carries the precision ("2019" = year,
"2023-03" = month, "2023-05-07" = day, a full timestamp = instant) or ``None`` (no time).

``core=True`` marks the 15 kinds measured in docs/offline-models.md (all relative to
2023-05-08), used to compare with dateparser / parsedatetime alone.
"""

from __future__ import annotations

from dataclasses import dataclass

R1 = "2023-05-08T12:00:00Z"  # Monday
R2 = "2024-01-15T09:30:00Z"  # Monday
R3 = "2022-10-20T18:00:00Z"  # Thursday
R4 = "2023-08-03T10:00:00Z"  # Thursday


@dataclass(frozen=True)
class Case:
    expr: str
    expected: str | None
    ref: str = R1
    prefer: str = "past"
    relation: str = "at"
    core: bool = False
    fresh: bool = False


CASES: list[Case] = [
    # the 15 kinds of docs/offline-models.md
    Case("yesterday", "2023-05-07", core=True),
    Case("last week", "2023-05-01", core=True),
    Case("a week ago", "2023-05-01", core=True),
    Case("three days ago", "2023-05-05", core=True),
    Case("last month", "2023-04", core=True),
    Case("two years ago", "2021", core=True),
    Case("in 2019", "2019", core=True),
    Case("since 2018", "2018", relation="since", core=True),
    Case("last March", "2023-03", core=True),
    Case("in December", "2022-12", core=True),
    Case("March 2021", "2021-03", core=True),
    Case("next Friday", "2023-05-12", core=True),
    Case("last summer", "2022-06", core=True),
    Case("the end of June", "2022-06", core=True),
    Case("early 2020", "2020", core=True),
    # more
    Case("today", "2023-05-08"),
    Case("tomorrow", "2023-05-09"),
    Case("two weeks ago", "2023-04-24"),
    Case("10 days ago", "2023-04-28"),
    Case("two months ago", "2023-03"),
    Case("a couple of months ago", "2023-03"),
    Case("a few months ago", "2023-02"),
    Case("last year", "2022"),
    Case("ten years ago", "2013"),
    Case("2019", "2019"),
    Case("back in 2015", "2015"),
    Case("in March", "2023-03"),
    Case("last March", "2022-03", ref="2023-03-15T12:00:00Z"),
    Case("last March", "2023-03", ref=R2),
    Case("last September", "2022-09"),
    Case("last summer", "2023-06", ref="2023-10-01T00:00:00Z"),
    Case("last summer", "2023-06", ref=R2),
    Case("last summer", "2022-06", ref=R4),
    Case("this summer", "2023-06"),
    Case("last winter", "2022-12"),
    Case("next spring", "2024-03"),
    Case("in the summer of 2019", "2019-06"),
    Case("last fall", "2022-09"),
    Case("the end of June", "2023-06", prefer="future"),
    Case("the end of June", "2023-06", ref=R4),
    Case("the end of last year", "2022-12"),
    Case("the beginning of 2022", "2022-01"),
    Case("late 2019", "2019"),
    Case("mid-2021", "2021"),
    Case("last Friday", "2023-05-05"),
    Case("on Saturday", "2023-05-06"),
    Case("last Tuesday", "2022-10-18", ref=R3),
    Case("next Friday", "2023-08-04", ref=R4),
    Case("next week", "2023-05-15"),
    Case("next month", "2023-06"),
    Case("in two weeks", "2023-05-22"),
    Case("June 3, 2021", "2021-06-03"),
    Case("on April 2nd", "2023-04-02"),
    Case("3/4/2021", "2021-03-04"),
    Case("2021-03-04", "2021-03-04"),
    Case("in the 90s", "1990"),
    Case("last Christmas", "2022-12-25"),
    Case("last weekend", "2023-05-06"),
    Case("over the weekend", "2023-05-06"),
    Case("this morning", "2023-05-08"),
    Case("last night", "2023-05-07"),
    Case("the day before yesterday", "2023-05-06"),
    Case("earlier this year", "2023"),
    Case("for three years", "2020", relation="since"),
    Case("from 2018 to 2020", "2018", relation="range"),
    Case("until 2020", "2020", relation="until"),
    Case("at 3pm", "2023-05-08T15:00:00"),
    Case("two years ago", "2022", ref=R2),
    Case("since last year", "2022", relation="since"),
    # not a point in time
    Case("recently", None),
    Case("a while ago", None),
    Case("every Sunday", None),
    Case("34 years old", None),
    Case("six years", None),
    Case("these days", None),
]


# Written after the resolver, without running them first, to estimate how well the rules
# generalise to phrasings they were not written for (first-run hit rate is in the report).
FRESH: list[Case] = [
    # issue 15 changed the policy: the past week before the reference day (was None)
    Case("the other day", "2023-05-01", fresh=True),
    Case("a month ago", "2023-04", fresh=True),
    Case("about three years ago", "2020", fresh=True),
    Case("over a year ago", "2022", fresh=True),
    Case("in early March", "2023-03", fresh=True),
    Case("late last year", "2022", fresh=True),
    Case("the summer before last", "2021-06", fresh=True),
    Case("last Monday", "2023-05-01", fresh=True),
    Case("this past Saturday", "2023-05-06", fresh=True),
    Case("Jan 2020", "2020-01", fresh=True),
    Case("in the fall of 2018", "2018-09", fresh=True),
    Case("May 5th", "2023-05-05", fresh=True),
    Case("on the 3rd", "2023-05-03", fresh=True),
    Case("5 years ago", "2018", fresh=True),
    Case("a decade ago", "2013", fresh=True),
    Case("in 2021 or so", "2021", fresh=True),
    Case("since January", "2023-01", relation="since", fresh=True),
    Case("since last summer", "2022-06", relation="since", fresh=True),
    Case("two weekends ago", "2023-04-29", fresh=True),
    Case("half a year ago", "2022-11", fresh=True),
    Case("the week before last", "2023-04-24", fresh=True),
    Case("earlier this month", "2023-05", fresh=True),
    Case("in the spring", "2023-03", fresh=True),
    Case("at the start of the year", "2023-01", fresh=True),
    Case("New Year's Eve", "2022-12-31", fresh=True),
    Case("in a month", "2023-06", fresh=True),
    Case("next year", "2024", fresh=True),
    Case("2 yrs ago", "2021", fresh=True),
    Case("Sept 2019", "2019-09", fresh=True),
    Case("the beginning of last month", "2023-04", fresh=True),
    Case("a couple weeks ago", "2023-04-24", fresh=True),
]

# Chat forms added for issue 15 (LoCoMo dev conversations): abbreviated weekdays, durations
# running up to now.
CHAT: list[Case] = [
    Case("last Tues", "2023-05-02"),
    Case("next Fri", "2023-05-12"),
    Case("for 3 years now", "2020", relation="since"),
    Case("this sun", None),
]

CASES = CASES + FRESH + CHAT
