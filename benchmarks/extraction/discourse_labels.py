"""Component sets of the discourse layer (issue 31), labelled before the code they score:

* ``CLAUSE_TIMES``: a clause (named by its verb as written, ``nth`` occurrence) of a text told
  at ``reference_time`` and the time it takes: ``(relation, start, end)`` with relation
  ``at`` (it happened / held then), ``since``, ``until`` or ``range``, and the periods as
  "2019" / "2019-07" / "2019-07-01" (a resolved date is right when it falls in that period;
  an end also at the period's close). ``None`` when the clause has no time of its own and
  the narrative gives none (the episode's reference time applies). ``genre`` "document" is
  prose read as one narrative; "chat" one utterance of a conversation.
* ``COREFERENCE``: a pronoun or definite description (``mention``, its ``nth`` occurrence)
  and the named entity it refers to, or ``None`` when no named entity is clear (an unnamed
  person, or two candidates the text does not tell apart): the resolver must abstain.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClauseTime:
    text: str
    verb: str
    expected: tuple[str, str | None, str | None] | None
    nth: int = 0
    reference_time: str = "2024-06-01"
    genre: str = "document"


@dataclass(frozen=True)
class CorefLink:
    text: str
    mention: str
    expected: str | None
    nth: int = 0
    speaker: str | None = None


CT = ClauseTime
CLAUSE_TIMES: list[ClauseTime] = [
    CT("Lars Berg was born in Bergen in 1985.", "born", ("at", "1985", None)),
    CT("I was born in Lagos in 1990.", "born", ("at", "1990", None), genre="chat"),
    CT("She studied at Yale from 2004 to 2006.", "studied", ("range", "2004", "2006")),
    CT("He worked at Statoil as an analyst until 2016.", "worked", ("until", None, "2016")),
    CT("In 2018 she moved to Paris. Later that year she joined Airbus.", "joined",
       ("at", "2018", None)),
    CT("He has lived in Oslo since May 2023.", "lived", ("since", "2023-05", None)),
    CT("In 2019 he moved to Oslo and started working at Equinor as a data lead.", "moved",
       ("at", "2019", None)),
    CT("In 2019 he moved to Oslo and started working at Equinor as a data lead.", "started",
       ("at", "2019", None)),
    CT("In 2019 he moved to Oslo and started working at Equinor as a data lead.", "working",
       ("at", "2019", None)),
    CT("He left Equinor in 2022 and founded a company called Fjord Labs, where he became CEO.",
       "left", ("at", "2022", None)),
    CT("He left Equinor in 2022 and founded a company called Fjord Labs, where he became CEO.",
       "founded", ("at", "2022", None)),
    CT("He left Equinor in 2022 and founded a company called Fjord Labs, where he became CEO.",
       "became", ("at", "2022", None)),
    CT("In 2010 she moved to Berlin. She worked at Siemens as a designer.", "worked",
       ("at", "2010", None)),
    CT("Lars works at Equinor.", "works", None),
    CT("In 2001 he moved to Rome.\n\nHe works at Fiat.", "works", None),
    CT("He joined Reading in January 1995 , and played in the 1995 final .", "joined",
       ("at", "1995-01", None), reference_time="2021-01-01"),
    CT("He was appointed manager at Whitby Town in June 2006 , before resigning in October "
       "2007 .", "appointed", ("at", "2006-06", None), reference_time="2021-01-01"),
    CT("He was appointed manager at Whitby Town in June 2006 , before resigning in October "
       "2007 .", "resigning", ("at", "2007-10", None), reference_time="2021-01-01"),
    CT("After graduating in 2009, he joined Statoil.", "joined", ("at", "2009", None)),
    CT("From 1998 to 2002 she served as leader of the council.", "served",
       ("range", "1998", "2002")),
    CT("She served as minister between 2009 and 2010 .", "served", ("range", "2009", "2010")),
    CT("In 2007 he signed with Levante UD , where he played for three seasons .", "signed",
       ("at", "2007", None), reference_time="2021-01-01"),
    CT("In 2007 he signed with Levante UD , where he played for three seasons .", "played",
       ("at", "2007", None), reference_time="2021-01-01"),
    CT("Since 2018 he has been the club's captain .", "been", ("since", "2018", None)),
    CT("In 2005 she was elected to Parliament . In 2009 she became Minister for Housing .",
       "became", ("at", "2009", None)),
    CT("He married Anna Berg in 2001. The couple moved to Rome.", "moved", ("at", "2001", None)),
    CT("On 23 January 2004 , Condor became part of Thomas Cook AG .", "became",
       ("at", "2004-01-23", None), reference_time="2021-01-01"),
    CT("She was chief executive from March 2015 until June 2019.", "was",
       ("range", "2015-03", "2019-06")),
    CT("I started at Spotify in January as a product manager.", "started",
       ("at", "2025-01", None), reference_time="2025-02-03", genre="chat"),
    CT("We moved to Uppsala last autumn.", "moved", ("at", "2024-09", None),
       reference_time="2025-02-03", genre="chat"),
    CT("Lindqvist joined Northwind in 2018 as head of engineering. She now leads the company.",
       "leads", None),
    CT("He was sold to Watford in December 1991 , where he would remain for four years .",
       "sold", ("at", "1991-12", None), reference_time="2021-01-01"),
    CT("He moved on to Luton Town in 2000 , before signing with York City in February 2001 .",
       "signing", ("at", "2001-02", None), reference_time="2021-01-01"),
    CT("He moved on to Luton Town in 2000 , before signing with York City in February 2001 .",
       "moved", ("at", "2000", None), reference_time="2021-01-01"),
    CT("In 1961 , the airline took over its rival . During 1966 , it launched long-haul "
       "flights .", "launched", ("at", "1966", None), reference_time="2021-01-01"),
    CT("She lived in Cairo. In 1990 she moved to Rome. She had worked there as a nurse before.",
       "lived", None),
]

CL = CorefLink
COREFERENCE: list[CorefLink] = [
    CL("Lars Berg was born in Bergen. His wife Ingrid Dahl is a doctor. He left Equinor in "
       "2022.", "He", "Lars Berg"),
    CL("Lars Berg married Ingrid Dahl in 2016. He left Equinor in 2022 and founded Fjord Labs, "
       "where he became CEO.", "he", "Lars Berg", nth=0),
    CL("Amara Okafor moved to London. In 2019 she married Daniel Mensah. She lives in Nairobi.",
       "She", "Amara Okafor"),
    CL("Sara Lindqvist joined Northwind Robotics in 2018. She replaces Johan Ek, who founded "
       "the company in 2011.", "She", "Sara Lindqvist"),
    CL("Sara Lindqvist joined Northwind Robotics in 2018. She replaces Johan Ek, who founded "
       "the company in 2011.", "the company", "Northwind Robotics"),
    CL("Tom Becker met Anna Lee and Maria Cruz in Rome. She moved to Paris.", "She", None),
    CL("Aldred was born in Clerkenwell . His father married his mother shortly before his "
       "birth . He left her at the church .", "He", None),
    CL("Marco Ruiz began his career at Valencia CF . In 2007 he signed with Levante UD .", "he",
       "Marco Ruiz"),
    CL("Dana Whitfield leads Oakridge Foods. The company bought Bluebell Dairy in 2024.",
       "The company", "Oakridge Foods"),
    CL("My husband Erik works at IKEA. He started there in 2015.", "He", "Erik",
       speaker="Karin"),
    CL("Helen Carter was elected in 2005 . She served as Minister for Housing .", "She",
       "Helen Carter"),
    CL("Lee Nogan began his career at Oxford United . He is the elder brother of Kurt Nogan . "
       "He joined Watford in 1991 .", "He", "Lee Nogan", nth=1),
    CL("Johan Ek founded the company in 2011. Ek will stay on the board.", "Ek", "Johan Ek"),
    CL("Anna Berg and her brother Jon moved to Oslo in 2010. She opened a bakery there.",
       "She", "Anna Berg"),
    CL("Jon Berg and his sister Anna moved to Oslo in 2010. He opened a bakery there.", "He",
       "Jon Berg"),
    CL("Maria Lopez told Sofia Ruiz that she had been promoted.", "she", None),
    CL("The report was written by Kim Park. They left the firm in 2020.", "They", None),
    CL("Peter Hale has run Bluebell Dairy since 2001. His mother Margaret Hale founded it. "
       "She retired in 2001.", "She", "Margaret Hale"),
    CL("Peter Hale has run Bluebell Dairy since 2001. His mother Margaret Hale founded it. "
       "He will join the board.", "He", "Peter Hale"),
    CL("Ingrid Dahl married Lars Berg in 2016. She works at Oslo University Hospital.", "She",
       "Ingrid Dahl"),
]
