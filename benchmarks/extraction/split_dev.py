"""DEV split: used while developing the extraction rules (failures inspected freely).

Reference times: R1 = Mon 2023-05-08, R2 = Mon 2024-01-15, R3 = Thu 2022-10-20,
R4 = Thu 2023-08-03 (all UTC). Conventions: see README.md.
"""

from __future__ import annotations

from itertools import cycle

from .dataset import f, u

FREE = [
    # ---------------------------------------------------------------- jobs
    u("I work at Google.", [f("WORKS_AT", "Google")], "jobs"),
    u("I got a job at Salesforce!", [f("WORKS_AT", "Salesforce")], "jobs"),
    u("I started at Microsoft last March.", [f("WORKS_AT", "Microsoft", "2023-03")], "jobs"),
    u("I've worked at Stripe for three years now.", [f("WORKS_AT", "Stripe", "2020")], "jobs"),
    u("I work for Accenture as a consultant.",
      [f("WORKS_AT", "Accenture"), f("HAS_ROLE", "consultant")], "jobs"),
    u("Just signed my contract with Adobe, I start next Monday",
      [f("WORKS_AT", "Adobe", "2023-05-15")], "jobs"),
    u("i work at amazon in the logistics team", [f("WORKS_AT", "amazon")], "jobs"),
    u("Two years ago I joined Pinterest.", [f("WORKS_AT", "Pinterest", "2021")], "jobs"),
    u("I've been with Ford since 2012.", [f("WORKS_AT", "Ford", "2012")], "jobs"),
    u("I got hired at Boeing in June.", [f("WORKS_AT", "Boeing", "2023-06")], "jobs", ref="R4"),
    u("I'm a software engineer at Dropbox.",
      [f("HAS_ROLE", "software engineer"), f("WORKS_AT", "Dropbox")], "jobs"),
    u("Work at Intel has been crazy since my team got reorganized.", [f("WORKS_AT", "Intel")], "jobs"),
    u("I just landed a position at JPMorgan.", [f("WORKS_AT", "JPMorgan")], "jobs"),
    u("I started working for the BBC in 2016.", [f("WORKS_AT", "BBC", "2016")], "jobs"),
    # ---------------------------------------------------------------- homes
    u("I moved to Denver last March.", [f("LIVES_IN", "Denver", "2023-03")], "homes"),
    u("I live in San Francisco with my partner.", [f("LIVES_IN", "San Francisco")], "homes"),
    u("We just moved to Portland!", [f("LIVES_IN", "Portland")], "homes"),
    u("I've lived in Chicago since 2015.", [f("LIVES_IN", "Chicago", "2015")], "homes"),
    u("We relocated to Amsterdam in 2020.", [f("LIVES_IN", "Amsterdam", "2020")], "homes"),
    u("I'm moving to Seattle next month.", [f("LIVES_IN", "Seattle", "2023-06")], "homes"),
    u("Two years ago we moved to Atlanta.", [f("LIVES_IN", "Atlanta", "2021")], "homes"),
    u("I live in a small town near Munich.", [f("LIVES_IN", "small town near Munich")], "homes"),
    u("i live in nyc", [f("LIVES_IN", "nyc")], "homes"),
    u("I moved from Boston to Austin in 2021.",
      [f("LIVES_IN", "Boston", "2021", kind="end"), f("LIVES_IN", "Austin", "2021")], "homes"),
    u("We settled in Madrid last summer.", [f("LIVES_IN", "Madrid", "2022-06")], "homes"),
    u("My home is in Oakland.", [f("LIVES_IN", "Oakland")], "homes"),
    u("I currently live in Toronto.", [f("LIVES_IN", "Toronto")], "homes"),
    u("We moved back to Phoenix at the end of June.", [f("LIVES_IN", "Phoenix", "2023-06")], "homes",
      ref="R4"),
    u("I've been living in Singapore for five years.", [f("LIVES_IN", "Singapore", "2018")], "homes"),
    # ---------------------------------------------------------------- roles / leading
    u("I'm a nurse at St. Mary's Hospital.",
      [f("HAS_ROLE", "nurse"), f("WORKS_AT", "St. Mary's Hospital")], "roles"),
    u("I got promoted to staff engineer last month.",
      [f("HAS_ROLE", "staff engineer", "2023-04")], "roles"),
    u("I'm a teacher.", [f("HAS_ROLE", "teacher")], "roles"),
    u("I work as a graphic designer.", [f("HAS_ROLE", "graphic designer")], "roles"),
    u("I became a manager in 2022.", [f("HAS_ROLE", "manager", "2022")], "roles"),
    u("I'm an accountant.", [f("HAS_ROLE", "accountant")], "roles"),
    u("I was promoted to director of engineering two weeks ago.",
      [f("HAS_ROLE", "director of engineering", "2023-04-24")], "roles"),
    u("My job title is product manager.", [f("HAS_ROLE", "product manager")], "roles"),
    u("I'm currently a freelance photographer.", [f("HAS_ROLE", "freelance photographer")], "roles"),
    u("Alice Chen leads the ML team.", [f("LEADS", "ML team", subj="Alice Chen")], "leads"),
    u("Bob took over the data team in March.",
      [f("LEADS", "data team", "2023-03", subj="Bob")], "leads"),
    u("I lead the mobile team.", [f("LEADS", "mobile team")], "leads"),
    u("Priya runs the research group.", [f("LEADS", "research group", subj="Priya")], "leads"),
    u("Since January I've been leading the security team.",
      [f("LEADS", "security team", "2023-01")], "leads"),
    u("Mark manages the support team.", [f("LEADS", "support team", subj="Mark")], "leads"),
    u("I'm the lead of the search team now.", [f("LEADS", "search team")], "leads"),
    u("Yuki became head of the finance department last year.",
      [f("LEADS", "finance department", "2022", subj="Yuki")], "leads"),
    # ---------------------------------------------------------------- relationships
    u("I got married to Anna in 2019.", [f("MARRIED_TO", "Anna", "2019")], "relationships"),
    u("I'm married to David.", [f("MARRIED_TO", "David")], "relationships"),
    u("I'm dating a guy named Sam.", [f("DATING", "Sam")], "relationships"),
    u("My girlfriend Mia loves pottery.",
      [f("DATING", "Mia"), f("LIKES", "pottery", subj="Mia")], "relationships"),
    u("We broke up last month.", [f("DATING", "*", "2023-04", kind="end")], "relationships"),
    u("I broke up with Kyle yesterday.",
      [f("DATING", "Kyle", "2023-05-07", kind="end")], "relationships"),
    u("I divorced Peter in 2018.", [f("MARRIED_TO", "Peter", "2018", kind="end")], "relationships"),
    u("Ben and I have been together since 2020.", [f("DATING", "Ben", "2020")], "relationships"),
    u("My husband Greg is a chef.",
      [f("MARRIED_TO", "Greg"), f("HAS_ROLE", "chef", subj="Greg")], "relationships"),
    u("I started seeing Rachel last fall.", [f("DATING", "Rachel", "2022-09")], "relationships"),
    u("My partner Alex works at Shopify.",
      [f("DATING", "Alex"), f("WORKS_AT", "Shopify", subj="Alex")], "relationships"),
    u("We got divorced last year.", [f("MARRIED_TO", "*", "2022", kind="end")], "relationships"),
    u("My wife Elena and I just celebrated our anniversary.", [f("MARRIED_TO", "Elena")],
      "relationships"),
    # ---------------------------------------------------------------- family / people
    u("My sister Sarah is a lawyer.",
      [f("SIBLING_OF", "Sarah"), f("HAS_ROLE", "lawyer", subj="Sarah")], "family"),
    u("My brother Tom lives in Denver.",
      [f("SIBLING_OF", "Tom"), f("LIVES_IN", "Denver", subj="Tom")], "family"),
    u("My boss Tom is really nice.", [f("REPORTS_TO", "Tom")], "family"),
    u("My manager, Julia Roberts, just got promoted.", [f("REPORTS_TO", "Julia Roberts")], "family"),
    u("My dad Frank retired last year.", [f("CHILD_OF", "Frank")], "family"),
    u("My daughter Lily is learning to swim.", [f("PARENT_OF", "Lily")], "family"),
    u("My friend Jess moved to Berlin.",
      [f("FRIEND_OF", "Jess"), f("LIVES_IN", "Berlin", subj="Jess")], "family"),
    u("My best friend Omar works at Spotify.",
      [f("FRIEND_OF", "Omar"), f("WORKS_AT", "Spotify", subj="Omar")], "family"),
    u("I report to Kevin now.", [f("REPORTS_TO", "Kevin")], "family"),
    u("Diane is my boss.", [f("REPORTS_TO", "Diane")], "family"),
    u("My mother Rosa lives in Lima.",
      [f("CHILD_OF", "Rosa"), f("LIVES_IN", "Lima", subj="Rosa")], "family"),
    u("My son Noah started college in Ohio.", [f("PARENT_OF", "Noah")], "family"),
    u("My coworker Dan is hilarious.", [f("KNOWS", "Dan")], "family"),
    # ---------------------------------------------------------------- pets
    u("My dog Max loves the beach.", [f("HAS_PET", "Max"), f("LIKES", "beach", subj="Max")], "pets"),
    u("I have a cat.", [f("HAS_PET", "cat")], "pets"),
    u("We adopted a rescue dog named Pepper last month.",
      [f("HAS_PET", "Pepper", "2023-04")], "pets"),
    u("I got a kitten yesterday!", [f("HAS_PET", "kitten", "2023-05-07")], "pets"),
    u("I have two cats, Mochi and Tofu.", [f("HAS_PET", "Mochi"), f("HAS_PET", "Tofu")], "pets"),
    u("My hamster Gizmo escaped again lol", [f("HAS_PET", "Gizmo")], "pets"),
    u("Our dog Rex died last week.", [f("HAS_PET", "Rex", "2023-05-01", kind="end")], "pets"),
    u("I own a horse called Duke.", [f("HAS_PET", "Duke")], "pets"),
    u("Walking my dog Bella in the park right now", [f("HAS_PET", "Bella")], "pets"),
    # ---------------------------------------------------------------- preferences
    u("I love sushi.", [f("LIKES", "sushi")], "preferences"),
    u("I hate running.", [f("DISLIKES", "running")], "preferences"),
    u("I enjoy playing chess.", [f("LIKES", "playing chess")], "preferences"),
    u("I really like jazz music.", [f("LIKES", "jazz music")], "preferences"),
    u("I don't like coffee.", [f("DISLIKES", "coffee")], "preferences"),
    u("I'm a big fan of Marvel movies.", [f("LIKES", "Marvel movies")], "preferences"),
    u("I dislike crowded places.", [f("DISLIKES", "crowded places")], "preferences"),
    u("i love reading fantasy novels", [f("LIKES", "reading fantasy novels")], "preferences"),
    u("I adore Italian food.", [f("LIKES", "Italian food")], "preferences"),
    u("My favorite food is ramen.", [f("FAVORITE", "ramen")], "preferences"),
    u("I'm not a fan of spicy food.", [f("DISLIKES", "spicy food")], "preferences"),
    u("I'm obsessed with Taylor Swift.", [f("LIKES", "Taylor Swift")], "preferences"),
    u("Bob hates mornings.", [f("DISLIKES", "mornings", subj="Bob")], "preferences"),
    u("I've always loved gardening.", [f("LIKES", "gardening")], "preferences"),
    # ---------------------------------------------------------------- tools
    u("I use Obsidian.", [f("USES", "Obsidian")], "tools"),
    u("I started using Figma last month.", [f("USES", "Figma", "2023-04")], "tools"),
    u("We use Jira for project tracking.", [f("USES", "Jira")], "tools"),
    u("I switched to Linux in 2020.", [f("USES", "Linux", "2020")], "tools"),
    u("I rely on Todoist to stay organized.", [f("USES", "Todoist")], "tools"),
    u("I've been using ChatGPT a lot for work.", [f("USES", "ChatGPT")], "tools"),
    u("I stopped using Facebook last year.", [f("USES", "Facebook", "2022", kind="end")], "tools"),
    u("I moved from Evernote to Obsidian last week.",
      [f("USES", "Evernote", "2023-05-01", kind="end"), f("USES", "Obsidian", "2023-05-01")], "tools"),
    u("Our team uses GitHub Actions for CI.", [f("USES", "GitHub Actions")], "tools"),
    u("I write all my code in Emacs.", [f("USES", "Emacs")], "tools"),
    # ---------------------------------------------------------------- plans
    u("I'm planning to visit Japan next spring.", [f("PLANS", "Japan")], "plans"),
    u("I plan to learn French.", [f("PLANS", "learn French")], "plans"),
    u("We're going to Italy in July.", [f("PLANS", "Italy")], "plans"),
    u("I'm thinking about getting a dog.", [f("PLANS", "getting a dog")], "plans"),
    u("I want to visit Peru someday.", [f("PLANS", "Peru")], "plans"),
    u("We're planning a trip to Greece this summer.", [f("PLANS", "Greece")], "plans"),
    u("I intend to apply for a master's degree.", [f("PLANS", "apply for a master's degree")], "plans"),
    u("Next year I'm going to run the Boston Marathon.", [f("PLANS", "run the Boston Marathon")],
      "plans"),
    u("Sara plans to move to Canada.", [f("PLANS", "Canada", subj="Sara")], "plans"),
    # ---------------------------------------------------------------- travel
    u("I went to Lisbon last summer.", [f("VISITED", "Lisbon", "2022-06")], "travel"),
    u("We visited Kyoto in April.", [f("VISITED", "Kyoto", "2023-04")], "travel"),
    u("I traveled to Morocco two years ago.", [f("VISITED", "Morocco", "2021")], "travel"),
    u("Spent last weekend in Napa.", [f("VISITED", "Napa", "2023-05-06")], "travel"),
    u("I was in London on business last Tuesday.", [f("VISITED", "London", "2022-10-18")], "travel",
      ref="R3"),
    # ---------------------------------------------------------------- education
    u("I study at MIT.", [f("STUDIES_AT", "MIT")], "education"),
    u("I'm a student at UCLA.", [f("STUDIES_AT", "UCLA")], "education"),
    u("I graduated from Harvard in 2010.", [f("ATTENDED", "Harvard", "2010")], "education"),
    u("I went to Yale.", [f("ATTENDED", "Yale")], "education"),
    u("I'm studying nursing at the University of Toronto.",
      [f("STUDIES_AT", "University of Toronto")], "education"),
    # ---------------------------------------------------------------- third person
    u("Alice works at Acme.", [f("WORKS_AT", "Acme", subj="Alice")], "third_person"),
    u("Bob lives in Seattle.", [f("LIVES_IN", "Seattle", subj="Bob")], "third_person"),
    u("Jake moved to Miami last year.", [f("LIVES_IN", "Miami", "2022", subj="Jake")], "third_person"),
    u("Emily is a doctor.", [f("HAS_ROLE", "doctor", subj="Emily")], "third_person"),
    u("Kim left Netflix in March.", [f("WORKS_AT", "Netflix", "2023-03", kind="end", subj="Kim")],
      "third_person"),
    u("Tom and Lisa got married in 2015.", [f("MARRIED_TO", "Lisa", "2015", subj="Tom")],
      "third_person"),
    u("Maria has a dog named Coco.", [f("HAS_PET", "Coco", subj="Maria")], "third_person"),
    u("Raj joined Google last month.", [f("WORKS_AT", "Google", "2023-04", subj="Raj")],
      "third_person"),
    u("My sister Sarah moved to Paris. She works at Chanel.",
      [f("SIBLING_OF", "Sarah"), f("LIVES_IN", "Paris", subj="Sarah"),
       f("WORKS_AT", "Chanel", subj="Sarah")], "third_person"),
    u("Leo uses Vim.", [f("USES", "Vim", subj="Leo")], "third_person"),
    # ---------------------------------------------------------------- corrections
    u("Actually I never lived in Boston.", [f("LIVES_IN", "Boston", kind="retract")], "corrections"),
    u("Actually, I work at Microsoft, not Google.",
      [f("WORKS_AT", "Google", kind="retract"), f("WORKS_AT", "Microsoft")], "corrections"),
    u("Sorry, I never said I had a dog.", [f("HAS_PET", "dog", kind="retract")], "corrections"),
    u("No wait, I didn't move to Denver, I moved to Austin.",
      [f("LIVES_IN", "Denver", kind="retract"), f("LIVES_IN", "Austin")], "corrections"),
    u("I've never worked at Apple.", [f("WORKS_AT", "Apple", kind="retract")], "corrections"),
    u("Correction: I live in Oakland, not Berkeley.",
      [f("LIVES_IN", "Berkeley", kind="retract"), f("LIVES_IN", "Oakland")], "corrections"),
    u("Actually I'm not married to Tom.", [f("MARRIED_TO", "Tom", kind="retract")], "corrections"),
    u("That's wrong, I never studied at Oxford.",
      [f("STUDIES_AT", "Oxford", kind="retract")], "corrections"),
    # ---------------------------------------------------------------- endings
    u("I no longer work at Google.", [f("WORKS_AT", "Google", kind="end")], "negations"),
    u("I moved out of Boston last year.", [f("LIVES_IN", "Boston", "2022", kind="end")], "negations"),
    u("I quit Facebook in January.", [f("WORKS_AT", "Facebook", "2023-01", kind="end")], "negations"),
    u("I don't work at Oracle anymore.", [f("WORKS_AT", "Oracle", kind="end")], "negations"),
    u("I left my job at Uber last month.", [f("WORKS_AT", "Uber", "2023-04", kind="end")],
      "negations"),
    u("I no longer live in Dallas.", [f("LIVES_IN", "Dallas", kind="end")], "negations"),
    u("We don't have the cat anymore.", [f("HAS_PET", "cat", kind="end")], "negations"),
    u("I'm no longer the manager of the QA team.", [f("LEADS", "QA team", kind="end")],
      "negations"),
    u("I retired from the Navy in 2019.", [f("WORKS_AT", "Navy", "2019", kind="end")], "negations"),
    u("I'm not dating Chris anymore.", [f("DATING", "Chris", kind="end")], "negations"),
    u("I gave up Twitter a while ago.", [f("USES", "Twitter", kind="end")], "negations"),
    u("I was fired from Walmart yesterday.", [f("WORKS_AT", "Walmart", "2023-05-07", kind="end")],
      "negations"),
    # ---------------------------------------------------------------- misc
    u("I'm 29.", [f("AGE", "29")], "misc"),
    u("I speak German.", [f("SPEAKS", "German")], "misc"),
    u("I play the piano.", [f("HAS_HOBBY", "piano")], "misc"),
    u("I joined a book club last month.", [f("MEMBER_OF", "book club", "2023-04")], "misc"),
    u("I'm on the data platform team.", [f("MEMBER_OF_TEAM", "data platform team")], "misc"),
    u("I do yoga every morning.", [f("HAS_HOBBY", "yoga")], "misc"),
    u("I'm fluent in Japanese.", [f("SPEAKS", "Japanese")], "misc"),
    # ---------------------------------------------------------------- no fact
    u("What time is it in Tokyo?", [], "none"),
    u("haha yeah", [], "none"),
    u("Can you help me write an email to my landlord?", [], "none"),
    u("What do you think about Paris?", [], "none"),
    u("Is it going to snow next week?", [], "none"),
    u("Thanks!", [], "none"),
    u("Seattle gets a lot of rain.", [], "none"),
    u("Microsoft released a new version of Windows.", [], "none"),
    u("How many people live in Tokyo?", [], "none"),
    u("I'm not sure what to cook tonight.", [], "none"),
    u("Please summarize this article for me.", [], "none"),
    u("That movie was okay I guess.", [], "none"),
    u("Where should I go for dinner?", [], "none"),
    u("I wonder if Denver is nice in the winter.", [], "none"),
    u("Remind me to call the dentist tomorrow.", [], "none"),
    u("My phone battery died.", [], "none"),
    u("Good morning!", [], "none"),
    u("Do you think I should learn Rust?", [], "none"),
    u("The new Batman movie comes out next Friday.", [], "none"),
    u("What's the capital of Australia?", [], "none"),
    u("Would you rather live in Boston or Chicago?", [], "none"),
]


# Second dev batch, written after the first rules worked on the first batch, to widen coverage.
FREE_MORE = [
    u("I've been at Microsoft for about two years.", [f("WORKS_AT", "Microsoft", "2021")], "jobs"),
    u("Just started my first job as a paralegal!", [f("HAS_ROLE", "paralegal")], "jobs"),
    u("I'm an intern at NASA this summer.",
      [f("HAS_ROLE", "intern", "2023-06"), f("WORKS_AT", "NASA", "2023-06")],
      "jobs"),
    # issue 15: a subject one teaches is a role too
    u("I teach math at Lincoln High School.",
      [f("WORKS_AT", "Lincoln High School"), f("HAS_ROLE", "math teacher")], "jobs"),
    u("Currently working remotely for a startup called Loomly.", [f("WORKS_AT", "Loomly")], "jobs"),
    u("I've worked as a pharmacist since 2014.", [f("HAS_ROLE", "pharmacist", "2014")], "roles"),
    u("I got my dream job at Pixar last week!!", [f("WORKS_AT", "Pixar", "2023-05-01")], "jobs"),
    u("We moved into a flat in Glasgow in January.", [f("LIVES_IN", "Glasgow", "2023-01")], "homes"),
    u("I live just outside Philadelphia.", [f("LIVES_IN", "Philadelphia")], "homes"),
    u("My family and I moved to Oslo three years ago.", [f("LIVES_IN", "Oslo", "2020")], "homes"),
    u("These days I live in Lagos.", [f("LIVES_IN", "Lagos")], "homes"),
    u("I'm from Texas but I live in Ohio now.", [f("LIVES_IN", "Ohio")], "homes"),
    u("I lived in Rome from 2015 to 2018.", [f("LIVES_IN", "Rome", "2015", until="2018")], "homes"),
    u("Since last year, Hiro has been heading the analytics team.",
      [f("LEADS", "analytics team", "2022", subj="Hiro")], "leads"),
    u("I'm the team lead for the backend team.", [f("LEADS", "backend team")], "leads"),
    u("Rosa was named head of the sales department in March.",
      [f("LEADS", "sales department", "2023-03", subj="Rosa")], "leads"),
    u("The ML team is led by Alice.", [f("LEADS", "ML team", subj="Alice")], "leads"),
    u("My fiancee Zoe is a vet.", [f("DATING", "Zoe"), f("HAS_ROLE", "vet", subj="Zoe")],
      "relationships"),
    u("Sam and I started dating in 2021.", [f("DATING", "Sam", "2021")], "relationships"),
    u("I split up with my boyfriend Tyler last month.",
      [f("DATING", "Tyler", "2023-04", kind="end")], "relationships"),
    u("My ex-husband Carl lives in Reno.",
      [f("MARRIED_TO", "Carl", kind="end"), f("LIVES_IN", "Reno", subj="Carl")], "relationships"),
    u("We've been married for ten years.", [], "relationships"),
    u("My grandma Rose turned 90 last week.", [f("RELATED_TO", "Rose"),
      f("AGE", "90", "2023-05-01", subj="Rose")], "family"),
    u("My roommate Ana is from Chile.", [f("KNOWS", "Ana")], "family"),
    u("Our neighbor Mr. Kim has three cats.", [f("KNOWS", "Mr. Kim"),
      f("HAS_PET", "cats", subj="Mr. Kim")], "family"),
    u("My cousin Ravi just moved to Dubai.",
      [f("RELATED_TO", "Ravi"), f("LIVES_IN", "Dubai", subj="Ravi")], "family"),
    u("My manager is Priya Shah.", [f("REPORTS_TO", "Priya Shah")], "family"),
    u("We got a golden retriever puppy named Sunny.", [f("HAS_PET", "Sunny")], "pets"),
    u("I have a bearded dragon.", [f("HAS_PET", "bearded dragon")], "pets"),
    u("We had to put our cat Oliver down last month.",
      [f("HAS_PET", "Oliver", "2023-04", kind="end")], "pets"),
    u("I gave my rabbit away last year.", [f("HAS_PET", "rabbit", "2022", kind="end")], "pets"),
    u("I love Korean dramas.", [f("LIKES", "Korean dramas")], "preferences"),
    u("I've never liked olives.", [f("DISLIKES", "olives")], "preferences"),
    u("Honestly I can't stand reality TV.", [f("DISLIKES", "reality TV")], "preferences"),
    u("I'm really into vinyl records these days.", [f("LIKES", "vinyl records")], "preferences"),
    u("Dogs are my favorite animals.", [f("FAVORITE", "Dogs")], "preferences"),
    u("My favourite band is Radiohead.", [f("FAVORITE", "Radiohead")], "preferences"),
    u("Tom really enjoys woodworking.", [f("LIKES", "woodworking", subj="Tom")], "preferences"),
    u("I've been using Linear instead of Jira since March.",
      [f("USES", "Linear", "2023-03")], "tools"),
    u("My team switched from Slack to Teams.",
      [f("USES", "Slack", kind="end"), f("USES", "Teams")], "tools"),
    u("I do all my budgeting in YNAB.", [f("USES", "YNAB")], "tools"),
    u("I deleted Instagram last month.", [f("USES", "Instagram", "2023-04", kind="end")], "tools"),
    u("I'm hoping to visit Vietnam next year.", [f("PLANS", "Vietnam")], "plans"),
    u("I'd love to learn to sail one day.", [f("PLANS", "learn to sail")], "plans"),
    u("We're planning to buy a house in the spring.", [f("PLANS", "buy a house")], "plans"),
    u("I'm going to start therapy next week.", [f("PLANS", "start therapy")], "plans"),
    u("My brother Dev wants to move to Tokyo.",
      [f("SIBLING_OF", "Dev"), f("PLANS", "Tokyo", subj="Dev")], "plans"),
    u("I flew to Bali for my honeymoon in 2019.", [f("VISITED", "Bali", "2019")], "travel"),
    u("We spent two weeks in Portugal last summer.", [f("VISITED", "Portugal", "2022-06")],
      "travel"),
    u("I've been to Japan twice.", [f("VISITED", "Japan")], "travel"),
    u("I'm doing a master's at Columbia.", [f("STUDIES_AT", "Columbia")], "education"),
    u("I finished my degree at NYU in 2012.", [f("ATTENDED", "NYU", "2012")], "education"),
    u("Lena works as a nurse in Berlin.", [f("HAS_ROLE", "nurse", subj="Lena")], "third_person"),
    u("Carlos moved back to Madrid in 2020.", [f("LIVES_IN", "Madrid", "2020", subj="Carlos")],
      "third_person"),
    u("Priya got promoted to VP of Engineering yesterday.",
      [f("HAS_ROLE", "VP of Engineering", "2023-05-07", subj="Priya")], "third_person"),
    u("Jonas quit Spotify last month.",
      [f("WORKS_AT", "Spotify", "2023-04", kind="end", subj="Jonas")], "third_person"),
    u("My coworker Dan lives in Queens and has a dog named Bo.",
      [f("KNOWS", "Dan"), f("LIVES_IN", "Queens", subj="Dan"), f("HAS_PET", "Bo", subj="Dan")],
      "third_person"),
    u("Oops, I meant I live in Portland, Oregon, not Maine.",
      [f("LIVES_IN", "Maine", kind="retract"), f("LIVES_IN", "Portland")], "corrections"),
    u("To clarify, I don't work at Google, I work at Alphabet's X lab.",
      [f("WORKS_AT", "Google", kind="retract")], "corrections"),
    u("Actually we never had a dog.", [f("HAS_PET", "dog", kind="retract")], "corrections"),
    u("Sorry, my sister's name is Kate.", [f("SIBLING_OF", "Kate")], "corrections"),
    u("I'm not working at Stripe anymore.", [f("WORKS_AT", "Stripe", kind="end")], "negations"),
    u("I stopped going to the gym in February.", [], "negations"),
    u("I'm no longer with Verizon.", [f("WORKS_AT", "Verizon", kind="end")], "negations"),
    u("I don't use Windows anymore, switched to a Mac last year.",
      [f("USES", "Windows", kind="end"), f("USES", "Mac", "2022")], "negations"),
    u("Maria doesn't live in Austin anymore.",
      [f("LIVES_IN", "Austin", kind="end", subj="Maria")], "negations"),
    u("I'm 41 and I live in Dublin.", [f("AGE", "41"), f("LIVES_IN", "Dublin")], "misc"),
    u("I speak a bit of Italian.", [f("SPEAKS", "Italian")], "misc"),
    u("I go climbing twice a week.", [f("HAS_HOBBY", "climbing")], "misc"),
    u("I'm part of a running club.", [f("MEMBER_OF", "running club")], "misc"),
    u("Can you tell me where I work?", [], "none"),
    u("Should I move to Denver?", [], "none"),
    u("My friend thinks I should quit my job.", [], "none"),
    u("I read an article about people who live in Tokyo.", [], "none"),
    u("It would be nice to live in Hawaii.", [], "none"),
    u("If I got a job at Google I'd be thrilled.", [], "none"),
    u("What should I name my dog?", [], "none"),
    u("I need to find a new dentist.", [], "none"),
]


# Third dev batch: longer, messier, multi-sentence chat (written before running it).
FREE_LONG = [
    u("Hey! So I finally moved to Denver last March, and I started at Google a few weeks later.",
      [f("LIVES_IN", "Denver", "2023-03"), f("WORKS_AT", "Google")], "homes"),
    u("ugh work is crazy. I'm a product manager at Asana and my boss Kelly keeps adding "
      "meetings", [f("HAS_ROLE", "product manager"), f("WORKS_AT", "Asana"),
                   f("REPORTS_TO", "Kelly")], "jobs"),
    u("We adopted a cat named Miso in January and she already rules the house lol",
      [f("HAS_PET", "Miso", "2023-01")], "pets"),
    # issue 15: an unnamed spouse says the speaker is married
    u("my husband and I just got back from Lisbon, it was amazing",
      [f("VISITED", "Lisbon"), f("HAS_STATUS", "married")], "travel"),
    u("I used to live in Chicago but I moved to Austin two years ago.",
      [f("LIVES_IN", "Austin", "2021")], "homes"),
    u("Quick update: I left Deloitte in February and joined a startup called Finch.",
      [f("WORKS_AT", "Deloitte", "2023-02", kind="end"), f("WORKS_AT", "Finch")], "jobs"),
    u("Not sure if I told you but my daughter Ava started college at Purdue.",
      [f("PARENT_OF", "Ava")], "family"),
    u("Honestly I don't really like coffee, I mostly drink tea.",
      [f("DISLIKES", "coffee")], "preferences"),
    u("Yeah I've been vegan since 2019.", [], "misc"),
    u("btw I switched to Obsidian for notes last month and I love it",
      [f("USES", "Obsidian", "2023-04")], "tools"),
    u("My brother Luis and his wife Carmen live in Seville.",
      [f("SIBLING_OF", "Luis"), f("MARRIED_TO", "Carmen", subj="Luis"),
       f("LIVES_IN", "Seville", subj="Luis"), f("LIVES_IN", "Seville", subj="Carmen")], "family"),
    u("Since I moved to Berlin in 2020 I've been learning German.",
      [f("LIVES_IN", "Berlin", "2020")], "homes"),
    u("I'm thinking of quitting my job at Amazon.",
      [f("PLANS", "quitting my job at Amazon")], "plans"),
    u("Our team lead, Marcus, is leaving the company next month.", [], "third_person"),
    u("I got engaged to Priya last weekend!!", [], "relationships"),
    u("I have two kids, Max and Lily.", [f("PARENT_OF", "Max"), f("PARENT_OF", "Lily")], "family"),
    u("Work update: I got promoted to senior designer last week.",
      [f("HAS_ROLE", "senior designer", "2023-05-01")], "roles"),
    u("I'm a big Arsenal fan.", [f("LIKES", "Arsenal")], "preferences"),
    u("I play bass in a jazz band on weekends.", [f("HAS_HOBBY", "bass")], "misc"),
    u("My wife works at Kaiser as a nurse.", [f("HAS_STATUS", "married")], "relationships"),
    u("We're expecting our first baby in September!", [], "family"),
    # issue 15: signing up for a class is joining it
    u("I just signed up for a pottery class.", [f("MEMBER_OF", "pottery class")], "misc"),
    u("Actually, scratch that, I moved to Austin in 2020, not 2021.",
      [f("LIVES_IN", "Austin", "2020")], "corrections"),
    u("No no, my sister lives in Paris, my brother Tom lives in Rome.",
      [f("SIBLING_OF", "Tom"), f("LIVES_IN", "Rome", subj="Tom")], "corrections"),
    u("I don't have kids.", [], "negations"),
    u("I haven't worked at IBM since 2019.", [f("WORKS_AT", "IBM", "2019", kind="end")],
      "negations"),
    u("I moved back home to Ohio after college.", [f("LIVES_IN", "Ohio")], "homes"),
    u("Tina runs a bakery in Brooklyn.", [f("LEADS", "bakery", subj="Tina")], "third_person"),
    u("I'm currently reading Dune and loving it.", [], "none"),
    u("I've been learning Japanese on Duolingo for a year.",
      [f("USES", "Duolingo", "2022")], "tools"),
]

# ------------------------------------------------------------------ templates (dev fillers)
_T_TIMES_R1 = [  # phrase, expected (relative to R1 = 2023-05-08)
    ("last March", "2023-03"), ("in 2019", "2019"), ("yesterday", "2023-05-07"),
    ("two years ago", "2021"), ("last summer", "2022-06"), ("a week ago", "2023-05-01"),
    ("last month", "2023-04"), ("in December", "2022-12"), ("three months ago", "2023-02"),
    ("last Friday", "2023-05-05"), ("early 2020", "2020"), ("on April 2nd", "2023-04-02"),
    ("in March 2021", "2021-03"), ("last fall", "2022-09"), ("ten years ago", "2013"),
]
_T_PEOPLE = ["Alice", "Bob", "Chen Wei", "Daniela", "Ethan", "Sofia Rossi", "Kwame", "Ingrid"]
_T_CITIES = ["Denver", "Austin", "Lisbon", "Kyoto", "Boston", "Cape Town", "Melbourne", "Zurich"]
_T_ORGS = ["Google", "Acme Corp", "Airbus", "Stripe", "Mozilla", "Deutsche Bank", "Nike", "Samsung"]
_T_TEAMS = ["ML team", "payments team", "growth team", "infra team", "design team"]
_T_ROLES = ["senior engineer", "data analyst", "product manager", "nurse practitioner", "architect"]

_JOB_T = [
    "I started at {org} {t}.",
    "I got a job at {org} {t}.",
    "{t_cap} I started working for {org}.",
    "I joined {org} {t}, it's been great.",
]
_HOME_T = [
    "I moved to {city} {t}.",
    "We moved to {city} {t}.",
    "{t_cap} I moved to {city}.",
    "I relocated to {city} {t}.",
]
_ROLE_T = [
    "I was promoted to {role} {t}.",
    "{t_cap} I became {a_role}.",
]
_LEAD_T = [
    ("{p} leads the {team}.", False),
    ("{p} took over the {team} {t}.", True),
    ("{t_cap} {p} started leading the {team}.", True),
]
_THIRD_T = [
    ("{p} works at {org}.", "WORKS_AT", "org"),
    ("{p} lives in {city}.", "LIVES_IN", "city"),
    ("{p} works for {org}.", "WORKS_AT", "org"),
    ("{p} is based in {city}.", "LIVES_IN", "city"),
]
_END_T = [
    ("I no longer work at {org}.", "WORKS_AT", "org"),
    ("I don't live in {city} anymore.", "LIVES_IN", "city"),
    ("I left {org} {t}.", "WORKS_AT", "org"),
    ("I moved out of {city} {t}.", "LIVES_IN", "city"),
]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _templates():
    out = []
    times = cycle(_T_TIMES_R1)
    orgs, cities, people = cycle(_T_ORGS), cycle(_T_CITIES), cycle(_T_PEOPLE)
    teams, roles = cycle(_T_TEAMS), cycle(_T_ROLES)
    for tpl in _JOB_T:
        for _ in range(3):
            phrase, iso = next(times)
            org = next(orgs)
            out.append(u(tpl.format(org=org, t=phrase, t_cap=_cap(phrase)),
                         [f("WORKS_AT", org, iso)], "jobs", source="template"))
    for tpl in _HOME_T:
        for _ in range(3):
            phrase, iso = next(times)
            city = next(cities)
            out.append(u(tpl.format(city=city, t=phrase, t_cap=_cap(phrase)),
                         [f("LIVES_IN", city, iso)], "homes", source="template"))
    for tpl in _ROLE_T:
        for _ in range(3):
            phrase, iso = next(times)
            role = next(roles)
            a_role = ("an " if role[0] in "aeiou" else "a ") + role
            out.append(u(tpl.format(role=role, a_role=a_role, t=phrase, t_cap=_cap(phrase)),
                         [f("HAS_ROLE", role, iso)], "roles", source="template"))
    for tpl, timed in _LEAD_T:
        for _ in range(2):
            phrase, iso = next(times)
            p, team = next(people), next(teams)
            out.append(u(tpl.format(p=p, team=team, t=phrase, t_cap=_cap(phrase)),
                         [f("LEADS", team, iso if timed else None, subj=p)], "leads",
                         source="template"))
    for tpl, pred, slot in _THIRD_T:
        for _ in range(2):
            p = next(people)
            obj = next(orgs) if slot == "org" else next(cities)
            out.append(u(tpl.format(p=p, org=obj, city=obj), [f(pred, obj, subj=p)],
                         "third_person", source="template"))
    for tpl, pred, slot in _END_T:
        for _ in range(2):
            obj = next(orgs) if slot == "org" else next(cities)
            if "{t}" in tpl:
                phrase, iso = next(times)
            else:
                phrase, iso = "", None
            out.append(u(tpl.format(org=obj, city=obj, t=phrase),
                         [f(pred, obj, iso, kind="end")], "negations", source="template"))
    return out


ITEMS = FREE + _templates() + FREE_MORE + FREE_LONG
