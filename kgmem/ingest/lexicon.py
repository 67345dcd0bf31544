"""Word lists used by the offline extractor (English).

Kept separate from the rules so that they are easy to extend. Everything is lower case and
matched against spaCy lemmas or lower-cased surface forms.
"""

from __future__ import annotations

SPEAKER_PRONOUNS = frozenset(
    {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "im", "i'm"}
)
# someone else one does a thing for ("I got this pup for you": a gift, not one's own pet)
OTHER_PERSON_PRONOUNS = frozenset({"you", "him", "her", "them", "ya"})
THIRD_PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers"})
UNRESOLVABLE_PRONOUNS = frozenset(
    {"you", "your", "yours", "they", "them", "their", "it", "its", "this", "that", "these",
     "those", "who", "which", "what", "someone", "somebody", "anyone", "everyone", "nobody",
     "one", "something", "anything", "everything", "nothing", "there", "here", "all", "both",
     "yourself", "themselves", "itself"}
)
# "my team uses Jira" -> the speaker (only for predicates where the group speaks for the speaker)
COLLECTIVE_NOUNS = frozenset({"team", "company", "family", "household", "office", "startup", "org",
                              "crew", "band", "squad", "troupe", "fam"})
# verbs that look back at a past event now: "I wanted to tell you about my trip last week"
RECALL_VERBS = frozenset({"tell", "talk", "remember", "share", "mention", "show", "post",
                          "recall", "love", "enjoy", "miss"})

# predicates whose facts are events (hold over the period they happened in, not from then on)
EVENT_PREDICATES = frozenset({"VISITED", "ATTENDED", "EXPERIENCED", "CREATED"})

DETERMINERS = frozenset(
    {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "some", "any", "this",
     "that", "these", "those", "another", "every", "each", "no", "one", "two", "three", "four",
     "five", "several", "many", "few", "a few", "all", "both"}
)

# relation nouns after a possessive: "my sister Sarah" -> (speaker, SIBLING_OF, Sarah)
# value: (predicate, direction) where "out" = (owner, P, name) and "in" = (name, P, owner)
RELATION_NOUNS: dict[str, tuple[str, str]] = {
    "sister": ("SIBLING_OF", "out"), "brother": ("SIBLING_OF", "out"),
    "sibling": ("SIBLING_OF", "out"), "sis": ("SIBLING_OF", "out"), "bro": ("SIBLING_OF", "out"),
    "twin": ("SIBLING_OF", "out"),
    "wife": ("MARRIED_TO", "out"), "husband": ("MARRIED_TO", "out"),
    "spouse": ("MARRIED_TO", "out"), "hubby": ("MARRIED_TO", "out"),
    "girlfriend": ("DATING", "out"), "boyfriend": ("DATING", "out"),
    "partner": ("DATING", "out"), "fiance": ("DATING", "out"), "fiancee": ("DATING", "out"),
    "fiancé": ("DATING", "out"), "fiancée": ("DATING", "out"), "gf": ("DATING", "out"),
    "bf": ("DATING", "out"),
    "boss": ("REPORTS_TO", "out"), "manager": ("REPORTS_TO", "out"),
    "supervisor": ("REPORTS_TO", "out"), "lead": ("REPORTS_TO", "out"),
    "friend": ("FRIEND_OF", "out"), "buddy": ("FRIEND_OF", "out"), "bff": ("FRIEND_OF", "out"),
    "pal": ("FRIEND_OF", "out"),
    "mom": ("CHILD_OF", "out"), "mother": ("CHILD_OF", "out"), "mum": ("CHILD_OF", "out"),
    "mommy": ("CHILD_OF", "out"), "dad": ("CHILD_OF", "out"), "father": ("CHILD_OF", "out"),
    "daddy": ("CHILD_OF", "out"), "parent": ("CHILD_OF", "out"), "stepmom": ("CHILD_OF", "out"),
    "stepdad": ("CHILD_OF", "out"),
    "son": ("PARENT_OF", "out"), "daughter": ("PARENT_OF", "out"), "kid": ("PARENT_OF", "out"),
    "child": ("PARENT_OF", "out"), "stepson": ("PARENT_OF", "out"),
    "stepdaughter": ("PARENT_OF", "out"), "baby": ("PARENT_OF", "out"),
    "coworker": ("KNOWS", "out"), "co-worker": ("KNOWS", "out"), "colleague": ("KNOWS", "out"),
    "roommate": ("KNOWS", "out"), "flatmate": ("KNOWS", "out"), "neighbor": ("KNOWS", "out"),
    "neighbour": ("KNOWS", "out"), "classmate": ("KNOWS", "out"), "teammate": ("KNOWS", "out"),
    "mentor": ("KNOWS", "out"), "cousin": ("RELATED_TO", "out"), "aunt": ("RELATED_TO", "out"),
    "uncle": ("RELATED_TO", "out"), "niece": ("RELATED_TO", "out"),
    "nephew": ("RELATED_TO", "out"), "grandma": ("RELATED_TO", "out"),
    "grandmother": ("RELATED_TO", "out"), "grandpa": ("RELATED_TO", "out"),
    "grandfather": ("RELATED_TO", "out"), "grandson": ("RELATED_TO", "out"),
    "granddaughter": ("RELATED_TO", "out"), "in-law": ("RELATED_TO", "out"),
}
# modifiers that turn a relation noun into an ended relation: "my ex-wife Anna"
ENDED_RELATION_MODIFIERS = frozenset({"ex", "ex-", "former", "late"})

PET_NOUNS = frozenset(
    {"dog", "cat", "puppy", "pup", "kitten", "kitty", "hamster", "parrot", "bird", "rabbit",
     "bunny", "fish", "goldfish", "turtle", "tortoise", "snake", "lizard", "gecko", "horse",
     "pony", "ferret", "guinea", "pig", "hedgehog", "rat", "mouse", "chinchilla", "budgie",
     "canary", "cockatiel", "iguana", "axolotl", "chicken", "goat", "doggo", "pupper", "pet",
     "retriever", "labrador", "poodle", "beagle", "terrier", "spaniel", "husky",
     "corgi", "dachshund", "chihuahua", "pug", "bulldog", "collie", "tabby", "dragon",
     "cockatoo", "parakeet", "bearded dragon"}
)
# pet nouns that name no particular animal ("my pets", "the fur babies")
GENERIC_PET_NOUNS = frozenset({"pet", "animal", "critter", "furbaby", "fur-baby", "baby",
                               "friend", "buddy"})
PET_END_VERBS = frozenset({"die", "pass", "lose", "euthanize", "rehome"})

# head nouns of job titles ("senior software engineer", "head of marketing")
ROLE_NOUNS = frozenset(
    {"engineer", "developer", "programmer", "coder", "designer", "manager", "director",
     "nurse", "doctor", "physician", "surgeon", "teacher", "professor", "lecturer", "lawyer",
     "attorney", "accountant", "consultant", "analyst", "scientist", "researcher", "architect",
     "chef", "cook", "baker", "barista", "waiter", "waitress", "server", "bartender", "driver",
     "pilot", "firefighter", "officer", "cop", "policeman", "policewoman", "detective", "writer",
     "author", "journalist", "reporter", "editor", "photographer", "artist", "musician",
     "actor", "actress", "intern", "practitioner", "lead", "head", "ceo", "cto", "cfo", "coo", "cio", "cmo",
     "vp", "svp", "president", "founder", "cofounder", "co-founder", "owner", "dentist",
     "pharmacist", "therapist", "counselor", "counsellor", "electrician", "plumber",
     "carpenter", "mechanic", "technician", "salesperson", "salesman", "saleswoman",
     "recruiter", "librarian", "paramedic", "veterinarian", "vet", "paralegal", "secretary",
     "assistant", "administrator", "admin", "coordinator", "specialist", "supervisor", "clerk",
     "cashier", "banker", "trader", "economist", "tutor", "coach", "trainer", "instructor",
     "principal", "farmer", "soldier", "sergeant", "captain", "entrepreneur", "freelancer",
     "contractor", "nanny", "caregiver", "janitor", "receptionist", "hairdresser", "stylist",
     "tester", "strategist", "marketer", "copywriter", "illustrator", "animator", "producer",
     "dj", "realtor", "agent", "broker", "investor", "associate", "postdoc", "fellow",
     "translator", "interpreter", "guide", "sysadmin", "sre", "pm", "swe", "executive",
     "partner", "chair", "chairman", "chairwoman", "treasurer", "dean", "provost",
     "superintendent", "foreman", "lifeguard", "midwife", "surveyor", "auditor", "actuary",
     "underwriter", "inspector", "sheriff", "judge", "pastor", "priest", "rabbi", "imam",
     "minister", "senator", "mayor", "governor", "ambassador", "diplomat", "ranger", "courier",
     "dispatcher", "operator", "machinist", "welder", "butcher", "florist", "tailor",
     "jeweler", "optometrist", "radiologist", "pediatrician", "dietitian", "nutritionist",
     "physiotherapist", "hygienist", "clinician", "medic", "staffer", "aide",
     "maintainer", "fundraiser", "organizer", "volunteer", "student", "apprentice",
     "webmaster", "modeler", "estimator", "planner", "scheduler", "buyer", "merchandiser",
     "curator", "archivist", "conductor", "composer", "singer", "dancer", "choreographer",
     "comedian", "model", "streamer", "youtuber", "influencer", "blogger", "podcaster",
     # positions in a sports team
     "guard", "forward", "striker", "goalkeeper", "goalie", "quarterback", "pitcher",
     "catcher", "midfielder", "defender", "winger", "shortstop", "linebacker", "center",
     "centre", "fullback", "halfback", "point guard"}
)
# irregular past forms the tagger reads as a base form when they open a chat sentence with the
# subject dropped ("Lost my job as a banker yesterday")
PAST_FORMS = frozenset({"lost", "got", "went", "came", "took", "made", "had", "left", "found",
                        "met", "saw", "won", "ran", "began", "bought", "sold", "brought",
                        "caught", "flew", "drove", "wrote", "broke", "spent", "sent", "gave",
                        "retook", "hurt"})
# what one writes for as a job ("writing articles for an online mag")
PUBLICATION_NOUNS = frozenset({"magazine", "mag", "newspaper", "paper", "blog", "website",
                               "journal", "outlet", "publication", "site", "zine", "newsletter",
                               "column", "podcast"})
ROLE_SUFFIXES = ("ist", "ician", "ologist", "grapher", "smith", "wright")
NOT_ROLES = frozenset(
    {"fan", "member", "person", "guy", "girl", "boy", "man", "woman", "lady", "kid", "vegetarian", "vegan", "christian", "optimist", "pessimist", "perfectionist", "introvert",
     "extrovert", "idiot", "mess", "nerd", "geek", "adult", "parent", "mom", "dad", "friend",
     "list", "wrist", "twist", "mist", "fist", "gist", "part", "bit", "lot", "user",
     "customer", "beginner", "newbie", "expert", "native", "citizen", "resident", "local",
     "tourist", "racist", "cyclist", "morning", "night", "owl", "runner", "eater", "sleeper",
     "smoker", "drinker", "reader", "lover", "feminist", "atheist", "pacifist", "minimalist",
     "fantasist", "loyalist", "purist", "realist", "idealist"}
)
# a "former/retired X" is not a current role
PAST_ROLE_MODIFIERS = frozenset({"former", "retired", "ex", "ex-", "previous", "old", "past"})

# nouns that make "lead/run/manage X" a LEADS fact
TEAM_NOUNS = frozenset(
    {"team", "group", "department", "dept", "division", "org", "organization", "organisation",
     "unit", "squad", "lab", "committee", "office", "practice", "branch", "chapter", "project",
     "program", "programme", "initiative", "function", "crew", "studio", "company", "startup",
     "business", "firm", "agency", "store", "shop", "restaurant", "bakery", "cafe", "clinic",
     "school", "band", "club", "effort", "workstream", "pod", "tribe", "guild", "board",
     "center", "centre", "operation", "operations", "charity", "nonprofit", "foundation",
     "newsroom", "desk", "platform", "product", "track", "area"}
)
CLUB_NOUNS = frozenset(
    {"club", "group", "band", "choir", "chorus", "orchestra", "league", "society",
     "association", "union", "community", "church", "gym", "circle", "guild", "network",
     "council", "committee", "board", "congregation", "fraternity", "sorority", "co-op",
     "coop", "collective", "troupe", "ensemble", "crew", "meetup", "forum", "party",
     "brigade", "squad", "corps", "chapter"}
)
# "I'm in a book club", "I'm finally in the study abroad program": groups one is in (MEMBER_OF)
IN_GROUP_NOUNS = (CLUB_NOUNS - {"community", "party", "meetup", "forum", "network", "circle",
                                "board", "crew", "gym"}) | frozenset(
    {"program", "programme", "cohort", "fellowship", "residency", "apprenticeship",
     "organization", "organisation"})
# "my book club", "my vegan diet group", "my church": groups a possessive makes one a member of
POSSESSED_GROUP_NOUNS = frozenset(
    {"club", "group", "band", "choir", "chorus", "orchestra", "society", "association",
     "church", "guild", "congregation", "fraternity", "sorority", "troupe", "ensemble",
     "squad", "brigade", "chapter"})
SCHOOL_WORDS = frozenset(
    {"university", "college", "school", "institute", "academy", "polytechnic", "conservatory",
     "seminary", "univ", "uni", "elementary", "kindergarten", "preschool"}
)
KNOWN_SCHOOLS = frozenset(
    {"mit", "harvard", "yale", "stanford", "princeton", "oxford", "cambridge", "berkeley",
     "ucla", "usc", "nyu", "columbia", "cornell", "caltech", "mcgill", "eth", "epfl", "upenn",
     "penn", "duke", "brown", "dartmouth", "georgetown", "cmu", "carnegie mellon", "uchicago",
     "northwestern", "lse", "imperial", "ucl", "kings", "sorbonne", "tsinghua", "peking",
     "waterloo", "ut austin", "umich", "uw", "gatech", "georgia tech", "purdue", "rice",
     "vanderbilt", "tufts", "ubc", "uoft", "eth zurich", "insead", "wharton"}
)
JOB_NOUNS = frozenset(
    {"job", "position", "role", "internship", "gig", "work", "contract", "offer", "post",
     "placement", "residency", "apprenticeship", "career", "employment"}
)
HOME_NOUNS = frozenset(
    {"apartment", "flat", "house", "home", "place", "condo", "condominium", "studio", "loft",
     "townhouse", "bungalow", "cabin", "dorm", "room", "residence", "duplex"}
)
# where one comes from ("my hometown is Leeds"; "home town", "home country" by compound)
ORIGIN_NOUNS = frozenset({"hometown", "homeland", "birthplace", "motherland"})
# "I grew up a lot": maturing, not growing up somewhere
GROWN_MUCH = frozenset({"lot", "much", "so", "fast", "quickly", "really", "since"})
# common nouns acceptable as a place one lives in (beside GPE/LOC/FAC entities)
PLACE_NOUNS = frozenset(
    {"town", "city", "village", "suburb", "suburbs", "countryside", "area", "neighborhood",
     "neighbourhood", "state", "country", "island", "coast", "outskirts", "downtown",
     "uptown", "midtown", "province", "region", "county", "burbs", "hometown", "capital"}
)
NOT_PLACES = frozenset(
    {"house", "apartment", "flat", "home", "place", "room", "office", "team", "role",
     "position", "job", "department", "car", "bed", "area", "building", "floor", "bathroom",
     "kitchen", "hospital", "school", "church", "gym", "store", "shop", "park", "beach",
     "mountains", "hotel", "airport", "station", "country", "city", "town", "states", "abroad",
     "it", "there", "here", "one", "stuff", "thing", "things", "way", "direction", "point",
     "phase", "stage", "step", "level", "version", "plan", "idea", "topic", "subject",
     "question", "problem", "issue", "page", "section", "chapter", "meeting", "call"}
)
NOT_EMPLOYERS = frozenset(
    {"home", "night", "nights", "weekends", "weekend", "moment", "time", "end", "start",
     "beginning", "least", "most", "best", "all", "it", "this", "that", "office", "desk",
     "computer", "laptop", "pace", "speed", "level", "rate", "hour", "hours", "day", "days",
     "lunch", "dinner", "breakfast", "school", "university", "college", "hospital", "first",
     "times", "once", "last", "length", "work", "remote", "remotely", "distance", "random",
     "living", "a living", "free", "myself", "cost", "price", "loss", "scale", "bay",
     "ease", "peace", "war", "risk", "heart", "hand", "hands", "fun", "pleasure", "money",
     "cash", "food", "city"}
)
HOBBY_DO = frozenset(
    {"yoga", "pilates", "crossfit", "karate", "judo", "taekwondo", "jiu-jitsu", "jiu", "ballet",
     "gymnastics", "kickboxing", "boxing", "zumba", "tai", "meditation", "crosswords",
     "crossword", "puzzles", "sudoku", "woodworking", "pottery", "calligraphy", "archery",
     "fencing", "parkour", "triathlons", "marathons", "improv", "karaoke", "origami",
     "embroidery", "knitting", "crochet", "photography", "gardening", "birdwatching",
     "aikido", "wrestling", "rowing", "spinning", "weights", "weightlifting", "powerlifting"}
)
GO_HOBBIES = frozenset(
    {"hiking", "climbing", "bouldering", "skiing", "snowboarding", "running", "jogging",
     "swimming", "fishing", "camping", "surfing", "sailing", "cycling", "biking", "kayaking",
     "canoeing", "diving", "scuba", "skating", "bowling", "dancing", "hunting", "golfing",
     "rowing", "paddleboarding", "birding", "birdwatching", "backpacking", "snorkeling"}
)
NOT_HOBBIES = frozenset(
    {"role", "part", "game", "games", "trick", "tricks", "joke", "jokes", "music", "it",
     "that", "this", "video", "card", "cards", "along", "around", "favorites", "dumb",
     "safe", "fair", "host", "victim", "devil"}
)
NOT_LIKES = frozenset(
    {"it", "that", "this", "them", "you", "him", "her", "they", "everything", "anything",
     "something", "nothing", "one", "idea", "sound", "way", "what", "how", "when", "which",
     "here", "there", "so", "lot", "thanks", "thank", "help", "see", "know", "hear", "much",
     "so much", "making sure", "sure"}
)
LIKE_VERBS = frozenset({"love", "like", "enjoy", "adore", "prefer", "fancy", "dig", "relish"})
DISLIKE_VERBS = frozenset(
    {"hate", "dislike", "detest", "loathe", "despise", "abhor", "resent"}
)
LIKE_ADJ = {  # "be obsessed with", "be into", ...
    "obsessed": "with", "crazy": "about", "passionate": "about", "nuts": "about",
    "mad": "about", "keen": "on", "fond": "of", "addicted": "to", "hooked": "on",
}
PLAN_VERBS = frozenset(
    {"plan", "intend", "hope", "want", "aim", "consider", "wish", "mean", "expect", "prepare",
     "think", "dream", "look", "decide", "try", "save", "hop"}
)
TRAVEL_VERBS = frozenset(
    {"visit", "go", "travel", "move", "relocate", "fly", "head", "return", "tour", "see",
     "explore", "backpack", "emigrate", "drive"}
)
TRIP_NOUNS = frozenset(
    {"trip", "visit", "vacation", "holiday", "journey", "tour", "move", "relocation",
     "getaway", "honeymoon", "roadtrip", "road", "flight", "cruise", "pilgrimage", "hike",
     "vacay"}
)
MODALS = frozenset({"might", "may", "could", "would", "should", "'d", "must", "ought", "shall"})
FUTURE_AUX = frozenset({"will", "'ll", "shall", "wo", "gon", "gonna"})
REPORT_VERBS = frozenset({"say", "tell", "mention", "claim", "write", "type"})
IRREALIS_VERBS = frozenset(
    {"wonder", "ask", "doubt", "imagine", "pretend", "suppose", "guess", "dream", "fear",
     "worry", "if", "whether", "suggest", "recommend", "remind", "tell", "teach", "help",
     "let", "make", "wish"}
)
# of those, the ones that report a fact in a that-clause ("excited to tell you I started a
# class"): irrealis only over an infinitive ("told him to go")
IRREALIS_ONLY_XCOMP = frozenset({"tell", "remind", "teach", "help", "let", "make"})
CORRECTION_CUES = (
    "actually", "correction", "sorry", "no,", "no wait", "wait,", "wait ", "oops", "i meant",
    "i mean", "to clarify", "my bad", "that's wrong", "that is wrong", "that's not right",
    "that's not true", "not true", "i misspoke", "let me correct", "scratch that", "wrong,",
    "no no", "nope",
)
LANGUAGES = frozenset(
    {"english", "spanish", "french", "german", "italian", "portuguese", "japanese", "chinese",
     "mandarin", "cantonese", "korean", "russian", "arabic", "hindi", "urdu", "bengali",
     "punjabi", "dutch", "swedish", "norwegian", "danish", "finnish", "polish", "czech",
     "greek", "turkish", "hebrew", "persian", "farsi", "vietnamese", "thai", "indonesian",
     "malay", "tagalog", "swahili", "ukrainian", "romanian", "hungarian", "catalan",
     "basque", "irish", "welsh", "latin", "sign", "asl", "tamil", "telugu", "marathi",
     "gujarati", "afrikaans", "zulu", "amharic", "yoruba", "igbo", "hausa", "serbian",
     "croatian", "bulgarian", "slovak", "slovenian", "lithuanian", "latvian", "estonian",
     "icelandic"}
)

# Small gazetteers that correct frequent NER mistakes on chat text (companies and software
# tagged GPE/PERSON, or missed). Lower case; matched on the token or entity text.
KNOWN_ORGS = frozenset(
    {"google", "alphabet", "meta", "facebook", "amazon", "apple", "microsoft", "netflix",
     "spotify", "airbnb", "uber", "lyft", "tesla", "spacex", "nvidia", "intel", "amd", "ibm",
     "oracle", "salesforce", "adobe", "stripe", "shopify", "twitter", "linkedin", "pinterest",
     "snap", "snapchat", "tiktok", "bytedance", "dropbox", "atlassian", "mozilla", "openai",
     "anthropic", "deepmind", "deloitte", "accenture", "mckinsey", "bcg", "bain", "pwc", "kpmg",
     "ey", "goldman sachs", "goldman", "jpmorgan", "jp morgan", "morgan stanley", "citi",
     "citibank", "wells fargo", "bank of america", "hsbc", "barclays", "deutsche bank", "ubs",
     "blackrock", "fidelity", "visa", "mastercard", "paypal", "coinbase", "robinhood",
     "walmart", "target", "costco", "starbucks", "mcdonald's", "nike", "adidas", "samsung",
     "sony", "huawei", "xiaomi", "siemens", "bosch", "sap", "airbus", "boeing",
     "lockheed martin", "ford", "general motors", "toyota", "honda", "bmw", "volkswagen",
     "mercedes", "pfizer", "moderna", "johnson & johnson", "novartis", "roche", "merck",
     "unilever", "procter & gamble", "nestle", "coca-cola", "pepsico", "disney",
     "warner bros", "hbo", "bbc", "cnn", "reuters", "bloomberg", "canva", "duolingo", "etsy",
     "ebay", "zillow", "doordash", "instacart", "palantir", "snowflake", "databricks",
     "cloudflare", "datadog", "twilio", "hubspot", "zapier", "reddit", "yelp", "expedia",
     "ikea", "lego", "red cross", "unicef", "nasa", "navy", "army", "nhs", "mayo clinic",
     "kaiser", "cvs", "walgreens", "verizon", "at&t", "t-mobile", "comcast", "vodafone",
     "chanel", "gucci", "lvmh", "dell", "hp", "cisco", "vmware", "qualcomm", "tsmc", "asml",
     "infosys", "wipro", "rakuten", "nintendo", "ubisoft", "epic games", "riot games", "valve",
     "blizzard", "pixar", "wework", "grubhub", "square", "intuit", "workday", "servicenow",
     "autodesk", "unity", "roblox", "peloton", "wayfair", "chewy", "patagonia", "rei",
     "whole foods", "kroger", "home depot", "lowe's", "fedex", "ups", "dhl", "maersk",
     "shell", "bp", "exxon", "chevron", "total", "capgemini", "ernst & young",
     "jpmorgan chase", "chase", "american express", "amex", "capital one", "nordstrom"}
)
KNOWN_PRODUCTS = frozenset(
    {"obsidian", "notion", "evernote", "trello", "asana", "jira", "confluence", "slack",
     "zoom", "discord", "figma", "sketch", "photoshop", "lightroom", "excel", "powerpoint",
     "google docs", "google sheets", "gmail", "outlook", "vs code", "vscode", "visual studio",
     "vim", "neovim", "emacs", "intellij", "pycharm", "xcode", "sublime", "git", "docker",
     "kubernetes", "terraform", "linux", "ubuntu", "debian", "arch", "windows", "macos", "ios",
     "android", "chrome", "firefox", "safari", "chatgpt", "claude", "copilot", "todoist",
     "omnifocus", "roam", "logseq", "onenote", "python", "javascript", "typescript", "rust",
     "java", "ruby", "django", "flask", "fastapi", "react", "vue", "angular", "postgres",
     "postgresql", "mysql", "sqlite", "mongodb", "redis", "airtable", "clickup", "linear",
     "basecamp", "tableau", "power bi", "whatsapp", "telegram", "signal", "instagram",
     "youtube", "kindle", "anki", "strava", "fitbit", "garmin", "headspace", "1password",
     "lastpass", "bitwarden", "github actions", "jenkins", "circleci", "vercel", "heroku",
     "aws", "azure", "gcp", "bigquery", "snowflake", "dbt", "airflow", "spark", "pandas",
     "numpy", "pytorch", "tensorflow", "jupyter", "rstudio", "matlab", "blender", "unity",
     "unreal", "premiere", "final cut", "davinci resolve", "ableton", "logic pro", "garageband",
     "procreate", "canva", "miro", "loom", "calendly", "superhuman", "arc", "brave", "opera",
     "duckduckgo", "bing", "perplexity", "gemini", "midjourney", "grammarly", "zotero",
     "mendeley", "overleaf", "latex", "markdown", "bear", "craft", "ulysses", "scrivener",
     "things", "ticktick", "habitica", "ynab", "mint", "splitwise", "venmo", "revolut",
     "monzo", "wise", "mastodon", "bluesky", "threads", "tumblr", "substack",
     "medium", "wordpress", "squarespace", "wix", "webflow", "shopify", "zsh", "bash", "tmux",
     "iterm", "warp", "homebrew", "nix", "cursor", "zed", "helix", "nano", "kakoune",
     "duolingo", "spotify", "netflix", "dropbox", "reddit", "twitter", "facebook", "tiktok",
     "linkedin", "pinterest", "snapchat", "uber", "lyft", "airbnb", "etsy", "ebay", "zillow",
     "doordash", "instacart", "paypal", "coinbase", "robinhood", "peloton", "hubspot",
     "salesforce", "zapier"}
)

# --------------------------------------------------------------------------- chat precision
# Plans: complements that are conversational, not plans ("I'd love to check it out").
CONVERSATIONAL_VERBS = frozenset(
    {"check", "share", "fill", "tell", "say", "know", "hear", "thank", "talk", "chat", "catch",
     "ask", "let", "keep", "remember", "send", "show", "hang", "grab", "help", "see", "meet",
     "reach", "hug", "congratulate", "update", "mention", "add", "brag", "stand", "wait",
     "listen", "look", "give", "put", "hope", "think", "explain", "be", "have", "do", "come",
     "stay", "apologize", "apologise", "welcome", "hold", "bring", "follow",
     "find", "figure", "focus", "enjoy", "appreciate", "support", "encourage", "inspire",
     "motivate", "remind", "clarify", "confirm", "double", "touch", "circle", "loop", "swing"}
)
# With weak plan verbs (want, hope, would love, wish) only these count as plans.
PLAN_ACTIVITY_VERBS = frozenset(
    {"learn", "visit", "travel", "move", "relocate", "start", "open", "launch", "buy", "adopt",
     "get", "run", "study", "apply", "build", "write", "publish", "take", "join", "try", "go",
     "volunteer", "retire", "quit", "become", "finish", "complete", "save", "climb", "hike",
     "explore", "create", "found", "teach", "compete", "train", "record", "release",
     "renovate", "sell", "marry", "propose", "switch", "change", "pursue", "attend", "enroll",
     "graduate", "return", "fly", "tour", "plant", "grow", "invest", "host", "organize",
     "organise", "backpack", "cycle", "sail", "swim", "ski", "surf", "dive", "camp", "hire",
     "expand", "leave", "work", "retrain", "master", "practice", "practise", "read", "watch",
     "attempt", "compose", "paint", "design", "develop", "make", "cook", "bake", "celebrate",
     "throw", "plan", "drive", "ride", "see"}
)
# Liked "things" that are compliments or conversation, not preferences.
VAGUE_LIKES = frozenset(
    {"step", "experience", "time", "moment", "support", "advice", "tip", "tips", "idea",
     "ideas", "suggestion", "suggestions", "chance", "opportunity", "feeling", "vibe", "vibes",
     "energy", "attitude", "commitment", "dedication", "passion", "spirit", "progress",
     "effort", "pic", "pics", "photo", "photos", "picture", "pictures", "post", "update",
     "news", "message", "thought", "thoughts", "plan", "plans", "way", "part", "bit", "one",
     "ones", "thing", "things", "stuff", "sound", "look", "rest", "result", "results",
     "outcome", "response", "answer", "question", "point", "view", "perspective", "mindset",
     "approach", "help", "kindness", "enthusiasm", "job", "work", "connection", "rush",
     "journey", "process", "challenge", "goal", "goals", "dream", "dreams", "memory",
     "memories", "day", "days", "week", "weekend", "night", "life", "place", "spot", "sense",
     "fact", "reminder", "inspiration", "motivation", "encouragement", "words", "story",
     "company", "creativity", "project", "projects",
     # reactions to something shown or said ("I love the color and texture")
     "color", "colors", "colour", "colours", "texture", "smell", "taste", "lesson", "freedom",
     "structure", "theme", "inclusivity", "details", "detail", "design", "atmosphere",
     "activity", "activities", "kind", "kinds", "type", "types", "sort", "sorts", "genre",
     "genres", "variety", "same"}
)
# Objects too generic to be a fact on their own, whatever the predicate ("part of my life",
# "all kinds of cars", "playing some different genres").
GENERIC_OBJECTS = frozenset(
    {"kind", "kinds", "sort", "sorts", "type", "types", "genre", "genres", "variety", "part",
     "parts", "lot", "lots", "bunch", "couple", "life", "journey", "family", "something",
     "anything", "everything", "nothing", "stuff", "thing", "things", "same", "rest", "job",
     "one", "ones", "kids", "friends", "people", "future", "world"}
)
# A bare gerund that says nothing without its object ("I enjoy watching", "fan of being").
GENERIC_GERUNDS = frozenset(
    {"being", "making", "watching", "playing", "helping", "doing", "getting", "having",
     "going", "coming", "seeing", "trying", "taking", "putting", "keeping", "working"}
)
# Adjectives that do not make a vague liked noun specific ("my new job", "the whole thing").
UNINFORMATIVE_ADJ = frozenset(
    {"new", "old", "current", "own", "whole", "same", "other", "first", "last", "next",
     "little", "small", "latest", "recent", "entire", "usual", "certain", "particular"}
)
# "take a look", "have a chance": a light verb with one of these says nothing about a plan.
LIGHT_PLAN_OBJECTS = frozenset(
    {"look", "peek", "glance", "break", "rest", "breath", "nap", "chance", "part", "step",
     "moment", "minute", "second", "picture", "pic", "photo", "note", "care", "time", "turn",
     "try", "shot", "listen", "read", "ride", "walk"}
)

SINGLE_WORD_PLANS = frozenset(
    {"volunteer", "retire", "travel", "relocate", "emigrate", "graduate", "propose", "marry",
     "backpack", "surf", "ski", "swim", "hike", "camp", "dive", "move", "cycle", "sail"}
)
EVALUATIVE_ADJ = frozenset(
    {"inspiring", "great", "amazing", "talented", "good", "wonderful", "awesome", "brilliant",
     "incredible", "fantastic", "terrible", "bad", "best", "worst", "excellent", "fabulous",
     "lovely", "nice", "cool", "impressive", "famous", "renowned", "legendary", "super",
     "true", "real", "total", "huge", "big", "busy", "proud", "happy", "lucky", "beautiful"}
)
# "almost"/"nearly" on the verb: it did not happen ("I almost moved to Denver")
HEDGES = frozenset({"maybe", "perhaps", "possibly", "probably", "hopefully", "someday", "almost",
                    "nearly"})
NOT_PET_MODIFIERS = frozenset({"stuffed", "toy", "plush", "robot", "robotic", "wild", "stray",
                               "neighbor", "neighbour", "neighbors", "neighbours", "virtual"})
# a title before a name belongs to it: "Dr Patel", "Aunt May"
NAME_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "aunt", "uncle"})
# words between a possessive and its relation noun: "my ex-husband Carl", "my best friend"
RELATION_PREMODIFIERS = frozenset(
    {"ex", "-", "ex-", "former", "late", "best", "old", "new", "little", "big", "older",
     "younger", "dear", "twin", "oldest", "youngest", "baby", "step", "good", "close", "sweet"}
)
# capitalised sentence-initial words that are not names ("Work is crazy", "Finally ...")
NOT_NAMES = frozenset(
    {"work", "life", "music", "coffee", "tea", "food", "school", "college", "home", "family",
     "everyone", "everybody", "nobody", "someone", "today", "tomorrow", "yesterday", "mom",
     "dad", "mum", "grandma", "grandpa", "honey", "babe", "dude", "bro", "man", "people",
     "things", "stuff", "nothing", "something", "everything", "weather", "traffic", "rain",
     "snow", "winter", "summer", "spring", "fall", "autumn", "breakfast", "lunch", "dinner",
     "money", "time", "love", "sleep", "travel", "running", "hiking", "cooking", "reading",
     "gaming", "yoga", "jazz", "pizza", "sushi", "ramen", "wine", "beer", "chocolate",
     "just", "also", "finally", "recently", "actually", "honestly", "basically", "anyway",
     "well", "so", "then", "now", "yeah", "yes", "no", "ok", "okay", "sure", "maybe", "still",
     "lately", "apparently", "unfortunately", "luckily", "sadly", "hopefully", "literally",
     "definitely", "probably", "seriously", "totally", "really", "currently", "eventually"}
)
# adverbs left out of a plan's verb phrase ("I really want to learn Spanish someday")
VAGUE_ADVERBS = frozenset({"someday", "eventually", "soon", "really", "definitely", "finally",
                           "maybe", "probably", "also", "too", "again", "sometime", "ever"})
# number words for ages ("I'm thirty")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
                "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
                "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
                "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
# "head of engineering" is a role, not an employer named Engineering
DEPARTMENTS = frozenset(
    {"engineering", "marketing", "sales", "product", "design", "finance", "operations", "hr",
     "research", "legal", "it", "data", "growth", "people", "support", "technology", "security",
     "infrastructure", "communications", "strategy", "partnerships", "content", "analytics",
     "platform", "procurement", "compliance", "accounting", "development", "education",
     "admissions", "nursing", "surgery", "medicine", "radiology", "pediatrics", "customer"}
)
# "finished my degree at MIT": what one finishes at a school
DEGREE_WORDS = frozenset(
    {"degree", "phd", "master", "masters", "bachelor", "bachelors", "mba", "doctorate",
     "studies", "diploma", "undergrad", "thesis", "dissertation", "program", "programme",
     "course", "bootcamp", "residency"}
)

# things one goes to, takes part in or attends (ATTENDED, an event)
EVENT_NOUNS = frozenset(
    {"event", "meetup", "meeting", "mtg", "gathering", "party", "celebration", "ceremony", "wedding",
     "funeral", "memorial", "reunion", "festival", "fest", "fair", "carnival", "parade",
     "rally", "protest", "vigil", "concert", "gig", "show", "performance", "recital", "musical",
     "opera", "ballet", "exhibition", "exhibit", "expo", "convention", "conference", "summit",
     "seminar", "workshop", "webinar", "lecture", "keynote", "class", "course", "lesson",
     "retreat", "camp", "bootcamp", "tournament", "competition", "comp", "contest",
     "championship", "match", "race", "marathon", "5k", "10k", "triathlon", "tour", "trip",
     "roadtrip", "vacation", "cruise", "hike", "picnic", "barbecue", "bbq", "cookout",
     "potluck", "fundraiser", "gala", "auction", "screening", "premiere", "hackathon",
     "tasting", "cook-off", "scrimmage", "tryout", "tryouts", "audition", "playdate",
     "sleepover", "prom", "graduation", "orientation", "trivia", "quiz", "jamboree", "rodeo",
     "session", "getaway", "honeymoon", "excursion", "outing", "expedition", "pilgrimage",
     "interview", "presentation", "speech", "get-together", "together", "tourney", "exam"}
)
# events too vague to remember without a kind ("went to an event", "made it in my class")
VAGUE_EVENTS = frozenset({"event", "events", "session", "class", "course", "lesson", "meeting",
                          "thing", "show", "game"})
# "a support group", "a book club meeting": a group one goes to as an event
EVENT_GROUP_MODIFIERS = frozenset({"support", "study", "prayer", "discussion", "therapy",
                                   "writing", "reading", "book"})
# places one visits (VISITED from "went to the beach"), beyond named places
VISIT_PLACE_NOUNS = frozenset(
    {"beach", "park", "museum", "zoo", "aquarium", "gallery", "center", "centre", "library",
     "lake", "mountains", "mountain", "forest", "woods", "waterfall", "castle", "temple",
     "cathedral", "island", "farm", "vineyard", "winery", "market", "garden", "gardens",
     "resort", "spa", "coast", "countryside", "ranch", "canyon", "river", "theme park",
     "cabin", "lodge", "national park", "landmark", "monument", "ruins", "shrine", "coastline",
     "desert", "valley", "volcano", "cave", "reef", "harbor", "harbour", "pier", "boardwalk",
     "trail", "observatory", "planetarium", "arboretum", "sanctuary", "reserve", "shelter"}
)
# places one only "visits" as an outing when the verb says so ("I visited a veteran's hospital",
# "I just visited a travel agency"), not when one goes there ("went to the hospital")
VISITED_PLACE_NOUNS = frozenset({"hospital", "agency", "restaurant", "memorial", "church",
                                 "clinic", "store", "shop", "cafe", "café", "bakery", "factory",
                                 "studio", "stadium", "arena", "school", "campus", "office",
                                 "headquarters", "brewery", "distillery", "mosque", "synagogue"})
# a good time had somewhere: "had a blast at the fair"
GOOD_TIME_NOUNS = frozenset({"time", "blast", "fun", "ball", "day", "night", "evening",
                             "weekend", "experience"})
# whom one teaches, not what: "teaching others" is no "others teacher"
TAUGHT_PEOPLE = frozenset({"others", "people", "kids", "children", "students", "folks", "adults",
                           "beginners", "everyone", "everybody", "classes", "lessons"})
# "this charity thing", "a birthday do", "family day": a vague head made an event by its modifier
EVENT_HEADS = frozenset({"thing", "do", "day", "night", "evening", "weekend", "drive", "walk",
                         "game", "sale", "reading"})
EVENT_COMPOUNDS = frozenset(
    {"charity", "fundraising", "birthday", "wedding", "graduation", "holiday", "christmas",
     "halloween", "networking", "community", "family", "game", "movie", "karaoke", "trivia",
     "quiz", "open", "awareness", "pride", "bake", "volunteer", "volunteering", "school",
     "benefit", "yard", "garage", "rummage", "basketball", "football", "baseball", "soccer",
     "hockey", "volleyball", "poetry", "book"}
)
# where one goes inside a place ("went to a place in London", "a cafe in Rome")
VENUE_NOUNS = frozenset({"place", "spot", "restaurant", "cafe", "bar", "pub", "shop", "store",
                         "hotel", "venue", "museum", "studio", "house", "club"})
# one's own business ("my clothing store", "my own bakery") -> RUNS
BUSINESS_NOUNS = frozenset(
    {"business", "biz", "company", "startup", "shop", "store", "boutique", "bakery", "cafe",
     "restaurant", "salon", "agency", "firm", "practice", "clinic", "brand", "label",
     "brewery", "franchise", "food truck", "bistro", "diner", "bar", "gallery", "nursery",
     "kennel", "daycare", "consultancy", "studio", "venture", "e-shop", "etsy"}
)
# "studio", "gallery", "practice", "bar" alone are often not one's business: only with a kind
# ("my dance studio") or "own"
# one's own show or channel is run like a business, but only when told as one's own
BUSINESS_NEEDS_OWN = frozenset({"show", "podcast", "channel", "blog", "vlog"})
BUSINESS_NEEDS_KIND = frozenset({"studio", "gallery", "practice", "bar", "label", "brand",
                                 "nursery", "company", "firm"})
NOT_OWN_BUSINESS_MODIFIERS = frozenset({"favorite", "favourite", "local", "usual", "go-to",
                                        "regular", "future", "dream", "ideal", "old"})
# things one owns: "my old car", "my new guitar", "my sneaker collection" -> OWNS
POSSESSION_NOUNS = frozenset(
    {"car", "truck", "bike", "bicycle", "motorcycle", "motorbike", "scooter", "van", "suv",
     "jeep", "boat", "yacht", "rv", "camper", "caravan", "guitar", "piano", "violin", "cello",
     "drum", "drums", "ukulele", "keyboard", "camera", "collection", "tesla", "prius",
     "convertible", "minivan", "kayak", "canoe", "telescope", "account", "sailboat",
     "trophy"}
)
# everyday things: owned from when they were bought or got ("I bought a new laptop"), not
# from a passing "my phone battery died"
ACQUIRED_NOUNS = frozenset({"laptop", "computer", "tablet", "phone", "smartphone", "iphone",
                            "shoe", "sneaker"})
# verbs that end owning something ("sold my car", "donated my old car", "shut down my account")
GIVE_UP_VERBS = frozenset({"sell", "donate", "give", "shut", "close", "scrap", "trade",
                           "total", "wreck", "crash", "lose", "gift"})
# verbs that start owning something ("bought a new car", "got a Prius")
ACQUIRE_VERBS = frozenset({"buy", "purchase", "get", "acquire", "lease", "inherit", "build",
                           "receive"})
# things kept for what they mean, owned when the speaker says they have, keep, got or
# treasure one ("this necklace is special to me", "they gave me a medal"): rules.keepsakes
KEEPSAKE_NOUNS = frozenset(
    {"necklace", "bracelet", "ring", "earring", "pendant", "locket", "brooch", "watch",
     "medal", "plaque", "certificate", "figurine", "statue", "statuette", "sculpture", "vase",
     "bowl", "quilt", "jersey", "autograph", "poster", "scrapbook", "heirloom", "keepsake",
     "souvenir", "memento", "trinket"}
)
# owned when had or kept ("I have a painting in my room"), while "my painting" is mostly one
# the speaker made
KEPT_ONLY_NOUNS = frozenset({"painting", "artwork"})
# "my prized possession, a signed basketball": the noun after it is a thing one owns
TREASURE_NOUNS = frozenset({"possession", "keepsake", "treasure", "heirloom", "memento"})
# what a thing is to its owner ("is special to me", "is a constant reminder")
TREASURED_WORDS = frozenset({"special", "precious", "sentimental", "dear", "meaningful",
                             "reminder", "treasure", "keepsake", "memento", "possession"})
# verbs by which one comes to have a thing ("I won a trophy", "I got a medal")
RECEIVE_THING_VERBS = frozenset({"win", "earn", "receive", "get", "inherit"})
# verbs of "these figurines I bought", "this plaque I keep on my desk"
KEEP_THING_VERBS = RECEIVE_THING_VERBS | frozenset({"buy", "keep", "have", "find", "purchase"})
# verbs by which one is given a thing ("they gave me a medal")
GIVE_THING_VERBS = frozenset({"give", "gift", "award", "present", "hand", "send"})
# verbs that start or end one's own business
OPEN_BUSINESS_VERBS = frozenset({"open", "start", "launch", "found", "establish", "set",
                                 "build", "create"})
CLOSE_BUSINESS_VERBS = frozenset({"close", "shut", "sell", "fold"})
# what one joins or signs up for and then belongs to (MEMBER_OF), beyond clubs
MEMBERSHIP_NOUNS = CLUB_NOUNS | frozenset(
    {"program", "programme", "class", "course", "organization", "organisation", "nonprofit",
     "charity", "movement", "cohort", "academy", "gym", "studio", "league", "initiative",
     "mentorship", "fellowship", "residency", "internship", "apprenticeship", "bootcamp",
     "camp", "crew", "platform", "subreddit", "server", "discord", "chat", "facebook"}
)
# a class or course one starts attending ("started a weekend yoga class")
CLASS_NOUNS = frozenset({"class", "course", "program", "programme", "lesson", "lessons",
                         "bootcamp", "workshop", "training"})
# health and life events one has or goes through (EXPERIENCED, an event)
LIFE_EVENT_NOUNS = frozenset(
    {"surgery", "operation", "procedure", "transplant", "accident", "crash", "injury",
     "concussion", "stroke", "seizure", "miscarriage", "breakup", "break-up", "divorce",
     "separation", "layoff", "diagnosis", "chemo", "chemotherapy", "biopsy", "c-section",
     "breakdown", "burnout", "relapse", "illness", "infection", "flu", "covid", "pneumonia",
     "fracture", "heart attack", "panic attack", "bypass", "appendectomy", "mastectomy",
     "vasectomy", "ivf", "checkup", "scare"}
)
# an injury told as a verb: "I broke my arm" -> "broken arm"
INJURY_VERBS = {"break": "broken", "sprain": "sprained", "fracture": "fractured",
                "tear": "torn", "twist": "twisted", "dislocate": "dislocated", "hurt": "hurt",
                "injure": "injured", "pull": "pulled", "bruise": "bruised", "burn": "burned"}
BODY_PARTS = frozenset(
    {"arm", "leg", "ankle", "wrist", "knee", "back", "hip", "shoulder", "elbow", "foot", "hand",
     "finger", "toe", "neck", "nose", "rib", "ribs", "collarbone", "jaw", "acl", "meniscus",
     "hamstring", "muscle", "tooth", "skull", "spine", "pelvis", "thumb", "heel", "calf"}
)
# relatives whose death is the speaker's life event ("my grandma passed away")
DEATH_VERBS = frozenset({"die", "pass"})
# a photo one took ("I took this pic at the lake")
PHOTO_NOUNS = frozenset({"picture", "photo", "pic", "snapshot", "snap", "shot", "selfie"})
# sitting a test or an exam ("I failed the driving test", "retook the aptitude test")
EXAM_VERBS = frozenset({"fail", "pass", "retake", "ace", "flunk", "sit", "take", "nail"})
EXAM_NOUNS = frozenset({"test", "exam", "examination"})
# one's children as nouns ("the wife and kids"): the PARENT_OF relation nouns, and boy / girl
KID_NOUNS = frozenset(
    {n for n, (pred, _dir) in RELATION_NOUNS.items() if pred == "PARENT_OF"} | {"boy", "girl"})
# the speaker's child told before its name ("our one-year-old ... his name is Kyle")
CHILD_WORDS = KID_NOUNS | {"newborn", "toddler", "little"}
# unnamed spouses: "my wife and I", "my husband and kids" -> HAS_STATUS married
SPOUSE_NOUNS = frozenset({"wife", "husband", "hubby", "spouse", "missus", "mrs"})
FIANCE_NOUNS = frozenset({"fiance", "fiancee", "fiancé", "fiancée"})
# the one a speaker has a wedding with ("my girlfriend and I had our wedding")
PARTNER_NOUNS = FIANCE_NOUNS | frozenset({"girlfriend", "boyfriend", "partner", "gf", "bf"})
