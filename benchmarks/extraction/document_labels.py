"""Hand labels of the document dev set (issue 31): biographies, company news, meeting notes,
an email, and passages of TimeQA documents 0-128 (the dev half by index; 129-256 stay held
out), each with the facts a reader would store, labelled before any extractor ran on them.

Shorthand: ``req(subject, predicate, object, start, end)`` is a **required** fact,
``opt(...)`` an **optional** one (right if extracted, not counted against recall).
``predicate`` may be a tuple of accepted predicates. ``start`` / ``end`` are the period the
text gives for the fact's valid time ("2019", "2019-07", "2019-07-01"; a stored date counts
when it falls inside that period, the end also at the period's close); ``None`` means the
text gives no date for that end, and it is not checked. ``FOUNDED`` facts are stored as
``RUNS`` (the founder runs what they found), accepted with ``LEADS``.

A document is ``Doc(id, genre, reference_time, text, facts, round)``: ``reference_time`` is
the document's own date (the time of telling); ``round`` is ``"dev"`` for the set developed
on, or the name of a fresh round (labelled and committed before the code that scores it
ran, and run once: benchmarks/RESULTS.md, "Documents").
"""

from __future__ import annotations

from dataclasses import dataclass, field

Pred = str | tuple[str, ...]


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: tuple[str, ...]
    object: str
    start: str | None = None
    end: str | None = None
    required: bool = True


def req(s: str, p: Pred, o: str, start: str | None = None, end: str | None = None) -> Fact:
    return Fact(s, (p,) if isinstance(p, str) else tuple(p), o, start, end, True)


def opt(s: str, p: Pred, o: str, start: str | None = None, end: str | None = None) -> Fact:
    return Fact(s, (p,) if isinstance(p, str) else tuple(p), o, start, end, False)


@dataclass(frozen=True)
class Doc:
    id: str
    genre: str
    reference_time: str
    text: str
    facts: tuple[Fact, ...] = field(default=())
    round: str = "dev"
    speaker: str | None = None


FOUND = ("RUNS", "LEADS", "OWNS")
SCHOOL = ("ATTENDED", "STUDIES_AT")
TEAM = ("MEMBER_OF_TEAM", "MEMBER_OF", "WORKS_AT")
LEAD = ("LEADS", "RUNS", "HAS_ROLE")

DOCS: list[Doc] = [
    Doc("bio-lars", "biography", "2024-06-01", """Lars Berg was born in Bergen in 1985. He \
studied computer science at the University of Oslo from 2004 to 2009.

After graduating, he worked at Statoil as an analyst until 2016. In 2016 he married Ingrid \
Dahl, a doctor from Trondheim.

In 2019 he moved to Oslo and started working at Equinor as a data lead. His wife Ingrid Dahl \
works at Oslo University Hospital.

He left Equinor in 2022 and founded a company called Fjord Labs, where he became CEO.""", (
        req("Lars Berg", "FROM", "Bergen", "1985"),
        req("Lars Berg", SCHOOL, "University of Oslo", "2004", "2009"),
        req("Lars Berg", "WORKS_AT", "Statoil", None, "2016"),
        req("Lars Berg", "HAS_ROLE", "analyst", None, "2016"),
        req("Lars Berg", "MARRIED_TO", "Ingrid Dahl", "2016"),
        req("Lars Berg", "LIVES_IN", "Oslo", "2019"),
        req("Lars Berg", "WORKS_AT", "Equinor", "2019", "2022"),
        req("Lars Berg", "HAS_ROLE", "data lead", "2019", "2022"),
        req("Ingrid Dahl", "WORKS_AT", "Oslo University Hospital"),
        req("Lars Berg", FOUND, "Fjord Labs", "2022"),
        req("Lars Berg", "HAS_ROLE", "CEO", "2022"),
        opt("Lars Berg", "WORKS_AT", "Fjord Labs", "2022"),
        opt("Ingrid Dahl", "HAS_ROLE", "doctor"),
        opt("Ingrid Dahl", "FROM", "Trondheim"),
        opt("Lars Berg", "STUDIES_AT", "computer science", "2004", "2009"),
    )),
    Doc("news-northwind", "company news", "2025-03-10", """Northwind Robotics names new chief \
executive

Northwind Robotics, a warehouse automation company based in Gothenburg, announced on Monday \
that Sara Lindqvist will become its chief executive in April. Lindqvist joined Northwind in \
2018 as head of engineering. Before that, she spent six years at Volvo Cars, where she led \
the battery software team.

She replaces Johan Ek, who founded the company in 2011 and has run it since then. Ek will \
stay on the board as chairman.

The company moved its headquarters from Malmö to Gothenburg in 2020 and now employs about \
300 people.""", (
        req("Sara Lindqvist", "WORKS_AT", "Northwind Robotics", "2018"),
        req("Sara Lindqvist", "HAS_ROLE", "head of engineering", "2018"),
        req("Sara Lindqvist", "WORKS_AT", "Volvo Cars"),
        req("Johan Ek", FOUND, "Northwind Robotics", "2011"),
        opt("Sara Lindqvist", "HAS_ROLE", "chief executive", "2025-04"),
        opt("Sara Lindqvist", "LEADS", "battery software team"),
        opt("Johan Ek", "HAS_ROLE", "chairman"),
        opt("Johan Ek", ("HAS_ROLE", "LEADS"), "chief executive"),
        opt("Northwind Robotics", "LIVES_IN", "Gothenburg", "2020"),
    )),
    Doc("notes-sync", "meeting notes", "2025-05-14", """Weekly sync, 14 May 2025

Attendees: Priya Nair, Tom Becker, Mei Chen.

- Tom Becker has been in the Berlin office since May 1 and now leads the payments team.
- Mei Chen joined the data platform team last week as a senior engineer.
- Priya Nair will be on leave in June; Tom covers the release.
- Decision: the launch moves to July 10.""", (
        req("Tom Becker", "LEADS", "payments team"),
        req("Mei Chen", ("MEMBER_OF", "WORKS_AT"), "data platform team", "2025-05"),
        req("Mei Chen", "HAS_ROLE", "senior engineer", "2025-05"),
        opt("Tom Becker", ("WORKS_AT", "LIVES_IN"), "Berlin", "2025-05-01"),
        opt("Tom Becker", "WORKS_AT", "Berlin office", "2025-05-01"),
    )),
    Doc("bio-amara", "biography", "2023-09-01", """Amara Okafor was born in Lagos in 1990. She \
moved to London in 2012 to study law at King's College London, graduating in 2015.

From 2015 to 2019 she worked as an associate at Clifford Chance. In 2019 she joined the \
United Nations in Geneva as a legal officer. Later that year she married Daniel Mensah, an \
architect.

Since March 2022 she has lived in Nairobi, where she heads the regional office of the UN \
Environment Programme.""", (
        req("Amara Okafor", "FROM", "Lagos", "1990"),
        req("Amara Okafor", "LIVES_IN", "London", "2012"),
        req("Amara Okafor", SCHOOL, "King's College London", "2012", "2015"),
        req("Amara Okafor", "WORKS_AT", "Clifford Chance", "2015", "2019"),
        req("Amara Okafor", "HAS_ROLE", "associate", "2015", "2019"),
        req("Amara Okafor", "WORKS_AT", "United Nations", "2019"),
        req("Amara Okafor", "HAS_ROLE", "legal officer", "2019"),
        req("Amara Okafor", "MARRIED_TO", "Daniel Mensah", "2019"),
        req("Amara Okafor", "LIVES_IN", "Nairobi", "2022-03"),
        opt("Daniel Mensah", "HAS_ROLE", "architect"),
        opt("Amara Okafor", LEAD, "regional office of the UN Environment Programme", "2022-03"),
        opt("Amara Okafor", "LIVES_IN", "Geneva", "2019"),
        opt("Amara Okafor", "WORKS_AT", "UN Environment Programme", "2022-03"),
    )),
    Doc("wiki-ruiz", "encyclopedic", "2021-01-01", """Marco Ruiz ( born 3 April 1988 ) is a \
Spanish footballer who plays as a midfielder for Celta Vigo .

Career .

Ruiz began his career in the youth system of Valencia CF . In 2007 he signed with Levante UD \
, where he played for three seasons . He joined Sevilla FC in 2010 and won the Copa del Rey \
in his first season .

After a loan spell at Getafe CF in 2013 , he moved to Celta Vigo in July 2014 . He has been \
the club's captain since 2018 .""", (
        req("Marco Ruiz", TEAM, "Levante UD", "2007"),
        req("Marco Ruiz", TEAM, "Sevilla FC", "2010"),
        req("Marco Ruiz", TEAM, "Getafe CF", "2013"),
        req("Marco Ruiz", TEAM, "Celta Vigo", "2014-07"),
        req("Marco Ruiz", "HAS_ROLE", "captain", "2018"),
        opt("Marco Ruiz", TEAM, "Valencia CF"),
        opt("Marco Ruiz", "HAS_ROLE", ("midfielder"),),
        opt("Marco Ruiz", "HAS_ROLE", "footballer"),
        opt("Marco Ruiz", "FROM", "Spain"),
    )),
    Doc("wiki-carter", "encyclopedic", "2021-01-01", """Helen Carter ( born 1956 ) is a British \
Labour Party politician .

Carter was born in Leeds and educated at the University of Manchester . She worked as a \
teacher in Bradford from 1980 to 1992 . She was elected to Leeds City Council in 1994 and \
served as its leader from 1998 to 2002 .

In 2005 she was elected Member of Parliament for Leeds East . She served as Minister for \
Housing from 2009 to 2010 . She stood down at the 2017 general election .""", (
        req("Helen Carter", "MEMBER_OF", "Labour Party"),
        req("Helen Carter", "FROM", "Leeds"),
        req("Helen Carter", SCHOOL, "University of Manchester"),
        req("Helen Carter", "HAS_ROLE", "teacher", "1980", "1992"),
        req("Helen Carter", "MEMBER_OF", "Leeds City Council", "1994"),
        req("Helen Carter", LEAD, "Leeds City Council", "1998", "2002"),
        req("Helen Carter", "HAS_ROLE", "Member of Parliament for Leeds East", "2005", "2017"),
        req("Helen Carter", "HAS_ROLE", "Minister for Housing", "2009", "2010"),
        opt("Helen Carter", "HAS_ROLE", "leader", "1998", "2002"),
        opt("Helen Carter", "HAS_ROLE", "politician"),
        opt("Helen Carter", "WORKS_AT", "Bradford", "1980", "1992"),
        opt("Helen Carter", "LIVES_IN", "Bradford", "1980", "1992"),
    )),
    Doc("news-oakridge", "company news", "2024-11-20", """Oakridge Foods acquires Bluebell Dairy

Oakridge Foods said on Tuesday it had completed its purchase of Bluebell Dairy, the \
family-owned cheesemaker founded by Margaret Hale in 1974. Hale's son, Peter Hale, who has \
run Bluebell since 2001, will join Oakridge's board.

Oakridge's chief executive, Dana Whitfield, said the company would keep Bluebell's plant in \
Shropshire. Whitfield has led Oakridge since 2019, after eight years at Unilever.""", (
        req("Oakridge Foods", "OWNS", "Bluebell Dairy", "2024-11"),
        req("Margaret Hale", FOUND, "Bluebell Dairy", "1974"),
        req("Peter Hale", FOUND, "Bluebell Dairy", "2001"),
        req("Dana Whitfield", ("LEADS", "RUNS"), "Oakridge Foods", "2019"),
        req("Dana Whitfield", "HAS_ROLE", "chief executive"),
        opt("Dana Whitfield", "WORKS_AT", "Unilever"),
        opt("Dana Whitfield", "WORKS_AT", "Oakridge Foods", "2019"),
        opt("Margaret Hale", "PARENT_OF", "Peter Hale"),
        opt("Peter Hale", "CHILD_OF", "Margaret Hale"),
    )),
    Doc("email-jonas", "email", "2025-02-03", """Hi all,

Quick update from my side: I started at Spotify in January as a product manager, after four \
years at Klarna. We also moved from Stockholm to Uppsala last autumn, so I'm commuting for now.

My partner Elin is still at Karolinska, where she has been a nurse since 2017.

Best,
Jonas Lund""", (
        req("Jonas Lund", "WORKS_AT", "Spotify", "2025-01"),
        req("Jonas Lund", "HAS_ROLE", "product manager", "2025-01"),
        req("Jonas Lund", "LIVES_IN", "Uppsala", "2024-09"),
        req("Elin", "HAS_ROLE", "nurse", "2017"),
        opt("Elin", "WORKS_AT", "Karolinska"),
        opt("Jonas Lund", "WORKS_AT", "Klarna"),
        opt("Jonas Lund", ("DATING", "MARRIED_TO"), "Elin"),
        opt("Jonas Lund", "LIVES_IN", "Stockholm"),
    )),
    # TimeQA documents by index (dev half), paragraphs 1-3 of each, chosen with
    # random.Random(311) among the dev documents about people
    Doc("timeqa-017-lee-nogan", "encyclopedic", "2021-01-01", """Lee Martin Nogan ( born 21 May \
1969 ) is a Welsh former professional footballer and manager . He is the elder brother of Kurt \
Nogan .

A forward , he began his career at Oxford United in 1987 . He spent four years at the club , \
and also had loan spells at Brentford and Southend United . He was sold on to Watford for \
£350,000 in December 1991 , where he would remain for another four years . He lost his \
first-team place after a change of manager in 1993 , and again joined Southend United on \
loan . He was sold to Reading for £250,000 in January 1995 , and played in the clubs defeat \
in the 1995 First Division play-off final at Wembley Stadium . He spent time on loan at Notts \
County , before he joined Grimsby Town for a £170,000 fee in August 1997 . He helped the club \
to win the Football League Trophy in 1998 and then to win promotion out of the Second \
Division via the play-offs at the end of the 1997–98 season . He moved on to Luton Town in \
2000 , before signing with York City in February 2001 . He was also instated as assistant \
manager in May 2003 , and left the club two years later . He scored a total of 139 goals in \
673 league and cup appearances during a 19-year professional career , and also won two caps \
for Wales .

He was appointed manager at Whitby Town in June 2006 , before resigning in October 2007 . He \
remained on at the club as a player and assistant manager , before joining F.C . Halifax Town \
as an assistant to Neil Aspin . He followed Aspin to Gateshead in November 2015 , and then \
Port Vale in October 2017 .""", (
        req("Lee Nogan", TEAM, "Oxford United", "1987"),
        req("Lee Nogan", TEAM, "Watford", "1991-12"),
        req("Lee Nogan", TEAM, "Reading", "1995-01"),
        req("Lee Nogan", TEAM, "Grimsby Town", "1997-08"),
        req("Lee Nogan", TEAM, "Luton Town", "2000"),
        req("Lee Nogan", TEAM, "York City", "2001-02"),
        req("Lee Nogan", LEAD + TEAM, "Whitby Town", "2006-06", "2007-10"),
        opt("Lee Nogan", "HAS_ROLE", "manager", "2006-06", "2007-10"),
        opt("Lee Nogan", "HAS_ROLE", "assistant manager", "2003-05"),
        opt("Lee Nogan", TEAM, "Brentford"),
        opt("Lee Nogan", TEAM, "Southend United"),
        opt("Lee Nogan", TEAM, "Notts County"),
        opt("Lee Nogan", TEAM, "F.C . Halifax Town"),
        opt("Lee Nogan", TEAM, "Gateshead", "2015-11"),
        opt("Lee Nogan", TEAM, "Port Vale", "2017-10"),
        opt("Lee Nogan", "SIBLING_OF", "Kurt Nogan"),
        opt("Lee Nogan", "HAS_ROLE", "forward"),
        opt("Lee Nogan", "HAS_ROLE", "footballer"),
        opt("Lee Nogan", "FROM", "Wales"),
    )),
    Doc("timeqa-049-guy-aldred", "encyclopedic", "2021-01-01", """Guy Alfred Aldred ( often Guy \
A . Aldred ; 5 November 1886 – 16 October 1963 ) was a British anarchist communist and a \
prominent member of the Anti-Parliamentary Communist Federation ( APCF ) . He founded the \
Bakunin Press publishing house and edited five Glasgow-based anarchist periodicals : The \
Herald of Revolt , The Spur , The Commune , The Council , and The Word , where he worked \
closely with Ethel MacDonald and his later partner Jenny Patrick .

Early life .

Aldred was born in Clerkenwell , London . His father was a 22-year-old lieutenant in the \
Royal Navy , and his mother was Ada Caroline Holdsworth , a 19-year-old parasol maker . \
Although Ada was socially unacceptable to the young naval officer , he married her shortly \
before Guys birth . After the wedding , he left her at the church to return to his mother . \
Guy Fawkes night , 5 November , gave Guy his forename . Guy was brought up in the home of \
Ada’s father , Charles Holdsworth , a Victorian radical . He attended the Iron Infants School \
in Farringdon Road , later moving to the Hugh Middleton Higher Grade School , where he was \
presented to the Prince of Wales because he was the youngest pupil .""", (
        req("Guy Aldred", "MEMBER_OF", "Anti-Parliamentary Communist Federation"),
        req("Guy Aldred", FOUND, "Bakunin Press"),
        req("Guy Aldred", "FROM", "Clerkenwell"),
        req("Guy Aldred", SCHOOL, "Iron Infants School"),
        req("Guy Aldred", SCHOOL, "Hugh Middleton Higher Grade School"),
        opt("Guy Aldred", ("DATING", "MARRIED_TO"), "Jenny Patrick"),
        opt("Guy Aldred", "CHILD_OF", "Ada Caroline Holdsworth"),
        opt("Guy Aldred", "HAS_ROLE", "anarchist communist"),
        opt("Guy Aldred", "FROM", "London"),
        opt("Ada Caroline Holdsworth", "HAS_ROLE", "parasol maker"),
        opt("Guy Aldred", "KNOWS", "Ethel MacDonald"),
    )),
]

# Fresh round 1 (labelled and committed before any code ran on it; run once, at the end)
DOCS += [
    Doc("fresh1-bio-nadia", "biography", "2025-01-15", """Nadia Haddad grew up in Beirut and \
was born there in 1979. She studied architecture at the American University of Beirut from \
1997 to 2002.

In 2004 she moved to Montreal, where she joined the firm Lemay as a junior architect. She \
became a partner at Lemay in 2011.

Her husband, Karim Haddad, is a cardiologist at the Montreal Heart Institute. In 2016 the \
couple moved to Toronto. Later that year Nadia founded her own studio, Atelier Haddad, and she \
has led it ever since.""", (
        req("Nadia Haddad", "FROM", "Beirut", "1979"),
        req("Nadia Haddad", SCHOOL, "American University of Beirut", "1997", "2002"),
        req("Nadia Haddad", "LIVES_IN", "Montreal", "2004", "2016"),
        req("Nadia Haddad", "WORKS_AT", "Lemay", "2004"),
        req("Nadia Haddad", "HAS_ROLE", "junior architect", "2004", "2011"),
        req("Nadia Haddad", "HAS_ROLE", "partner", "2011"),
        req("Nadia Haddad", "MARRIED_TO", "Karim Haddad"),
        req("Karim Haddad", "WORKS_AT", "Montreal Heart Institute"),
        req("Nadia Haddad", "LIVES_IN", "Toronto", "2016"),
        req("Nadia Haddad", FOUND, "Atelier Haddad", "2016"),
        opt("Karim Haddad", "HAS_ROLE", "cardiologist"),
        opt("Karim Haddad", "LIVES_IN", "Toronto", "2016"),
        opt("Nadia Haddad", "STUDIES_AT", "architecture", "1997", "2002"),
        opt("Nadia Haddad", "LIVES_IN", "Beirut"),
    ), round="fresh1"),
    Doc("fresh1-news-tidewater", "company news", "2024-08-22", """Tidewater Energy appoints \
new finance chief

Tidewater Energy, the Bergen-based offshore wind developer, said on Thursday that Marta \
Kowalski has been appointed chief financial officer. Kowalski, 46, was previously treasurer at \
Orsted, which she joined in 2015.

She succeeds Henrik Solberg, who left Tidewater in June after nine years to run the \
renewables fund Nordvind Capital. Tidewater was founded in 2009 by Erik and Siri Aune and was \
acquired by Statkraft in 2021.""", (
        req("Marta Kowalski", "HAS_ROLE", "chief financial officer", "2024-08"),
        req("Marta Kowalski", "WORKS_AT", "Tidewater Energy", "2024-08"),
        req("Marta Kowalski", "WORKS_AT", "Orsted", "2015"),
        req("Henrik Solberg", "WORKS_AT", "Tidewater Energy", None, "2024-06"),
        req("Statkraft", "OWNS", "Tidewater Energy", "2021"),
        opt("Marta Kowalski", "HAS_ROLE", "treasurer", "2015"),
        opt("Henrik Solberg", FOUND + ("WORKS_AT",), "Nordvind Capital", "2024-06"),
        opt("Erik Aune", FOUND, "Tidewater Energy", "2009"),
        opt("Siri Aune", FOUND, "Tidewater Energy", "2009"),
        opt("Tidewater Energy", "LIVES_IN", "Bergen"),
    ), round="fresh1"),
    Doc("fresh1-notes-design", "meeting notes", "2025-03-04", """Design review, 4 March 2025

Present: Olga Petrova, Sam Reed, Liu Yang.

1. Olga Petrova moved to the London office last month and now manages the mobile team.
2. Liu Yang started as a UX researcher on Monday.
3. Sam Reed asked whether the beta could ship in April; no decision yet.
4. Sam will be out next week.""", (
        req("Olga Petrova", ("LEADS", "HAS_ROLE"), "mobile team"),
        req("Liu Yang", "HAS_ROLE", "UX researcher", "2025-03"),
        opt("Olga Petrova", ("WORKS_AT", "LIVES_IN"), "London", "2025-02"),
        opt("Olga Petrova", "WORKS_AT", "London office", "2025-02"),
    ), round="fresh1"),
    Doc("fresh1-wiki-okonkwo", "encyclopedic", "2021-01-01", """Chidi Okonkwo ( born 12 June \
1975 ) is a Nigerian former footballer and current manager of Enyimba .

Career .

Okonkwo began his career with Rangers International in 1993 . In 1996 he moved to Belgium \
to join KRC Genk , where he won the league title in 1999 . He signed for Trabzonspor in July \
2000 and spent four seasons there before returning to Nigeria .

After retiring in 2006 , he coached the Nigeria under-20 team from 2008 to 2012 . He was \
appointed manager of Enyimba in January 2019 .

Politics .

He was elected to the House of Representatives in 2015 as a member of the All Progressives \
Congress .""", (
        req("Chidi Okonkwo", TEAM, "Rangers International", "1993"),
        req("Chidi Okonkwo", TEAM, "KRC Genk", "1996"),
        req("Chidi Okonkwo", TEAM, "Trabzonspor", "2000-07"),
        req("Chidi Okonkwo", LEAD + TEAM, "Enyimba", "2019-01"),
        req("Chidi Okonkwo", "MEMBER_OF", "House of Representatives", "2015"),
        req("Chidi Okonkwo", "MEMBER_OF", "All Progressives Congress"),
        opt("Chidi Okonkwo", LEAD + TEAM, "Nigeria under-20 team", "2008", "2012"),
        opt("Chidi Okonkwo", "HAS_ROLE", "manager", "2019-01"),
        opt("Chidi Okonkwo", "LIVES_IN", "Belgium", "1996"),
        opt("Chidi Okonkwo", "LIVES_IN", "Nigeria"),
        opt("Chidi Okonkwo", "HAS_ROLE", "footballer"),
        opt("Chidi Okonkwo", "FROM", "Nigeria"),
    ), round="fresh1"),
]

# Fresh round 2 (written and labelled by the documents engineer of the second sitting, committed
# before any code ran on them; shapes not in the dev set: an acquisition announced but not
# closed, a meeting-notes page with a decision and a plan, an email thread with a quoted
# message, a scientist's encyclopedic biography, an organisation's history)
DOCS += [
    Doc("fresh2-news-harbor", "company news", "2025-05-14", """Verity Group agrees to buy \
Harbor Analytics

LONDON, 14 May 2025 - Verity Group said on Wednesday it had agreed to acquire Harbor \
Analytics, a Leeds-based data company, for 120 million pounds. The deal is expected to close \
in the third quarter.

Harbor was founded in 2012 by Priya Raman, who has been its chief executive since 2016. Before \
starting Harbor she worked at Experian for six years. Raman will stay on as head of Verity's \
analytics division after the deal closes.

Verity's chief executive, Tom Ellery, joined the group from Sage in 2019. Last year Verity \
bought the payroll firm Clockwise for 40 million pounds.""", (
        req("Priya Raman", FOUND, "Harbor Analytics", "2012"),
        req("Priya Raman", "HAS_ROLE", "chief executive", "2016"),
        req("Priya Raman", "WORKS_AT", "Experian"),
        req("Tom Ellery", "HAS_ROLE", "chief executive"),
        req("Tom Ellery", "WORKS_AT", "Verity Group", "2019"),
        req("Verity Group", "OWNS", "Clockwise", "2024"),
        opt("Priya Raman", LEAD + ("WORKS_AT",), "Harbor Analytics", "2016"),
        opt("Tom Ellery", "WORKS_AT", "Sage", None, "2019"),
        opt("Tom Ellery", LEAD, "Verity Group"),
        opt("Harbor Analytics", "LIVES_IN", "Leeds"),
        # not a fact: "agreed to acquire" (not closed), "will stay on as head of ..." (future)
    ), round="fresh2"),
    Doc("fresh2-notes-platform", "meeting notes", "2025-06-02", """Platform team weekly sync, \
2 June 2025

Attendees: Rosa Mendes (chair), Dev Patel, Kenji Sato

- Kenji Sato has joined the team from Shopify as a staff engineer; his first day was 26 May.
- Dev Patel now leads the payments migration; Rosa handed it over to him last week.
- Decision: we will freeze the release branch every Thursday.
- Rosa moves to the Lisbon office in July.
- Open question: should we drop support for Python 3.9?""", (
        req("Kenji Sato", "HAS_ROLE", "staff engineer", "2025-05"),
        req("Dev Patel", ("LEADS", "WORKS_ON", "HAS_ROLE"), "payments migration"),
        opt("Kenji Sato", "WORKS_AT", "Shopify", None, "2025-05"),
        opt("Rosa Mendes", "HAS_ROLE", "chair"),
        opt("Rosa Mendes", ("PLANS", "LIVES_IN", "WORKS_AT"), "Lisbon", "2025-07"),
        opt("Rosa Mendes", ("PLANS", "LIVES_IN", "WORKS_AT"), "Lisbon office", "2025-07"),
        opt("Platform team", "DECIDED", "freeze the release branch every Thursday"),
        opt("Rosa Mendes", "DECIDED", "freeze the release branch every Thursday"),
    ), round="fresh2"),
    Doc("fresh2-email-hannah", "email", "2025-03-10", """From: Hannah Weiss
To: Marco Bianchi
Date: 10 March 2025
Subject: Re: introductions

Hi Marco,

Thanks for the intro to Leila. As you know, I left Deloitte in January and I'm now running \
procurement at Nordhaus Logistics in Hamburg. We moved here from Munich last autumn.

Could you send me Leila's CV?

Best,
Hannah

> On 8 March 2025, Marco Bianchi wrote:
> Hannah, meet Leila Haddad, our head of ocean freight. She joined us at Kuehne+Nagel in 2022 \
after five years at Maersk. Leila, Hannah is an old friend from business school.""", (
        req("Hannah Weiss", "WORKS_AT", "Deloitte", None, "2025-01"),
        req("Hannah Weiss", "WORKS_AT", "Nordhaus Logistics"),
        req("Hannah Weiss", "LIVES_IN", "Hamburg", "2024"),
        req("Leila Haddad", "HAS_ROLE", "head of ocean freight"),
        req("Leila Haddad", "WORKS_AT", "Kuehne+Nagel", "2022"),
        opt("Hannah Weiss", ("LEADS", "HAS_ROLE", "WORKS_ON"), "procurement"),
        opt("Hannah Weiss", "LIVES_IN", "Munich", None, "2024"),
        opt("Leila Haddad", "WORKS_AT", "Maersk", None, "2022"),
        opt("Marco Bianchi", "WORKS_AT", "Kuehne+Nagel"),
        opt("Hannah Weiss", ("FRIEND_OF", "KNOWS"), "Marco Bianchi"),
        opt("Marco Bianchi", ("FRIEND_OF", "KNOWS"), "Hannah Weiss"),
        opt("Hannah Weiss", "KNOWS", "Leila Haddad"),
    ), round="fresh2"),
    Doc("fresh2-wiki-vasquez", "encyclopedic", "2021-01-01", """Elena Vasquez ( born 3 March \
1968 ) is a Chilean astronomer and science administrator .

Early life and education .

Vasquez was born in Valparaiso . She received her undergraduate degree from the University of \
Chile in 1990 and her doctorate from the California Institute of Technology in 1996 .

Career .

After postdoctoral work at the Max Planck Institute for Astronomy in Heidelberg , she joined \
the faculty of the University of Arizona in 1999 , where she was promoted to full professor in \
2006 . From 2010 to 2015 she served as director of the Las Campanas Observatory . In 2016 she \
was appointed chair of the astronomy department at Harvard University , a post she held until \
2019 .

Since 2020 she has been president of the American Astronomical Society .

Personal life .

Vasquez married the physicist Tomas Reyes in 1994 ; they divorced in 2009 . She lives in \
Cambridge , Massachusetts .""", (
        req("Elena Vasquez", "FROM", "Valparaiso", "1968"),
        req("Elena Vasquez", SCHOOL, "University of Chile"),
        req("Elena Vasquez", SCHOOL, "California Institute of Technology"),
        req("Elena Vasquez", "WORKS_AT", "University of Arizona", "1999"),
        req("Elena Vasquez", "HAS_ROLE", "full professor", "2006"),
        req("Elena Vasquez", LEAD + ("WORKS_AT",), "Las Campanas Observatory", "2010", "2015"),
        req("Elena Vasquez", LEAD + ("WORKS_AT",), "Harvard University", "2016", "2019"),
        req("Elena Vasquez", LEAD + ("MEMBER_OF",), "American Astronomical Society", "2020"),
        req("Elena Vasquez", "MARRIED_TO", "Tomas Reyes", "1994", "2009"),
        req("Elena Vasquez", "LIVES_IN", "Cambridge"),
        opt("Elena Vasquez", "HAS_ROLE", "director", "2010", "2015"),
        opt("Elena Vasquez", "HAS_ROLE", "chair", "2016", "2019"),
        opt("Elena Vasquez", "HAS_ROLE", "president", "2020"),
        opt("Elena Vasquez", "WORKS_AT", "Max Planck Institute for Astronomy"),
        opt("Elena Vasquez", "HAS_ROLE", "astronomer"),
        opt("Tomas Reyes", "HAS_ROLE", "physicist"),
        opt("Elena Vasquez", "FROM", "Chile"),
    ), round="fresh2"),
    Doc("fresh2-wiki-kestrel", "encyclopedic", "2021-01-01", """Kestrel Airways was a British \
regional airline founded in 1978 by the brothers Alan and Peter Gray . Its head office was in \
Exeter .

History .

The airline began flights between Exeter and the Channel Islands in 1979 . In 1987 Kestrel \
was bought by Bristol Holdings . Ruth Kemble was chief executive from 1990 to 1998 , and under \
her the airline added routes to Dublin and Amsterdam . British Midland acquired Kestrel in \
1999 and merged it into its own operations in 2001 .""", (
        req("Alan Gray", FOUND, "Kestrel Airways", "1978"),
        req("Peter Gray", FOUND, "Kestrel Airways", "1978"),
        req("Bristol Holdings", "OWNS", "Kestrel Airways", "1987"),
        req("Ruth Kemble", LEAD + ("WORKS_AT",), "Kestrel Airways", "1990", "1998"),
        req("British Midland", "OWNS", "Kestrel Airways", "1999"),
        opt("Ruth Kemble", "HAS_ROLE", "chief executive", "1990", "1998"),
        opt("Kestrel Airways", "LIVES_IN", "Exeter"),
        opt("Alan Gray", "SIBLING_OF", "Peter Gray"),
        opt("Peter Gray", "SIBLING_OF", "Alan Gray"),
    ), round="fresh2"),
]

# Fresh round 3 (written and labelled by the documents engineer of the second sitting, committed
# before any code ran on them: a football club's article with its owners and managers, a
# politician's biography with a list of offices, a press release with an announced change)
DOCS += [
    Doc("fresh3-wiki-harlow", "encyclopedic", "2021-01-01", """Harlow Rovers F.C.

Harlow Rovers Football Club is an English football club based in Harlow , Essex .

History .

The club was founded in 1921 . In 1998 the club was bought by local businessman Derek Stone , \
who sold it to the Meridian Sports Group in 2011 . Gareth Price was appointed manager in June \
2012 and led the club to promotion in his first season . He was sacked in 2015 and replaced by \
Lena Ortiz , the first woman to manage the club .

Managers .

- Alan Cole ( 2003–2008 )
- Martin Hughes ( 2008–2012 )
- Gareth Price ( 2012–2015 )
- Lena Ortiz ( 2015– )""", (
        req("Derek Stone", "OWNS", "Harlow Rovers", "1998", "2011"),
        req("Meridian Sports Group", "OWNS", "Harlow Rovers", "2011"),
        req("Alan Cole", LEAD, "Harlow Rovers", "2003", "2008"),
        req("Martin Hughes", LEAD, "Harlow Rovers", "2008", "2012"),
        req("Gareth Price", LEAD, "Harlow Rovers", "2012", "2015"),
        req("Lena Ortiz", LEAD, "Harlow Rovers", "2015"),
        opt("Gareth Price", "HAS_ROLE", "manager", "2012", "2015"),
        opt("Lena Ortiz", "HAS_ROLE", "manager", "2015"),
        opt("Alan Cole", "HAS_ROLE", "manager", "2003", "2008"),
        opt("Martin Hughes", "HAS_ROLE", "manager", "2008", "2012"),
        opt("Harlow Rovers", "LIVES_IN", "Harlow"),
        opt("Derek Stone", "HAS_ROLE", "businessman"),
    ), round="fresh3"),
    Doc("fresh3-wiki-okafor", "encyclopedic", "2021-01-01", """Ruth Okafor

Ruth Okafor ( born 4 May 1961 ) is a Nigerian politician and lawyer who served as Minister of \
Health from 2007 to 2010 .

Early life .

Okafor studied law at the University of Lagos , graduating in 1983 , and was called to the bar \
the following year . She worked as a lawyer at the firm Adeyemi & Co from 1984 to 1995 .

Political career .

- Member of the House of Representatives ( 1999–2007 )
- Minister of Health ( 2007–2010 )
- Senator for Lagos Central ( 2011–2019 )

In 2019 she left the Peoples Democratic Party and joined the All Progressives Congress .""", (
        req("Ruth Okafor", SCHOOL, "University of Lagos"),
        req("Ruth Okafor", "WORKS_AT", "Adeyemi & Co", "1984", "1995"),
        req("Ruth Okafor", "HAS_ROLE", "Member of the House of Representatives", "1999", "2007"),
        req("Ruth Okafor", "HAS_ROLE", "Minister of Health", "2007", "2010"),
        req("Ruth Okafor", "HAS_ROLE", "Senator for Lagos Central", "2011", "2019"),
        req("Ruth Okafor", "MEMBER_OF", "All Progressives Congress", "2019"),
        opt("Ruth Okafor", "MEMBER_OF", "Peoples Democratic Party", None, "2019"),
        opt("Ruth Okafor", "HAS_ROLE", "lawyer", "1984", "1995"),
        opt("Ruth Okafor", "HAS_ROLE", "politician"),
        opt("Ruth Okafor", "MEMBER_OF", "House of Representatives", "1999", "2007"),
        opt("Ruth Okafor", "FROM", "Nigeria"),
    ), round="fresh3"),
    Doc("fresh3-news-brightline", "company news", "2025-09-30", """Brightline Health names \
Omar Haddad chief operating officer

BOSTON, 30 September 2025 - Brightline Health, a telehealth provider, today announced that \
Omar Haddad has joined the company as chief operating officer. Haddad spent eight years at \
Kaiser Permanente, most recently as vice president of operations.

Brightline's chief executive, Julia Brandt, co-founded the company in 2017 with Sam Ito, who \
left in 2022. The company plans to open an office in Chicago next year and is in talks to \
acquire the clinic network CareFirst Partners.""", (
        req("Omar Haddad", "HAS_ROLE", "chief operating officer", "2025-09"),
        req("Omar Haddad", "WORKS_AT", "Brightline Health", "2025-09"),
        req("Julia Brandt", "HAS_ROLE", "chief executive"),
        req("Julia Brandt", FOUND, "Brightline Health", "2017"),
        opt("Omar Haddad", "WORKS_AT", "Kaiser Permanente"),
        opt("Omar Haddad", "HAS_ROLE", "vice president of operations"),
        opt("Sam Ito", FOUND + ("WORKS_AT",), "Brightline Health", "2017", "2022"),
        opt("Julia Brandt", LEAD + ("WORKS_AT",), "Brightline Health"),
        opt("Brightline Health", "LIVES_IN", "Boston"),
        # not a fact: the Chicago office (planned), CareFirst Partners (in talks)
    ), round="fresh3"),
]
