"""How much a memory matters, from what the extractor found in it (the importance of the
Generative-Agents score, :mod:`kgmem.retrieve.recency`).

Importance is read off the *predicates* of extracted facts, not guessed from words: the
offline extractor (:mod:`kgmem.ingest.offline.rules`) already decided what a turn states.

======================  ======  ===========================================================
tier                    score   predicates
======================  ======  ===========================================================
life event / state      1.0     where one lives, works, studies; whom one is married to or
                                dating; family, pets, age, status; EXPERIENCED (surgery,
                                accident, a death in the family, a breakup), ALLERGIC_TO,
                                RUNS (one's own business)
event                   0.8     VISITED, ATTENDED, CREATED (the extractor's dated events,
                                :data:`kgmem.ingest.lexicon.EVENT_PREDICATES`), PLANS
preference              0.6     LIKES, DISLIKES, FAVORITE, HAS_HOBBY, USES, OWNS, SPEAKS
other relation          0.4     KNOWS, FRIEND_OF, MEMBER_OF, WORKS_ON, VOLUNTEERS_AT,
                                RELATED_TO and any predicate not listed (declared or first
                                used by a group)
co-mention              0.2     MENTIONED_WITH
chit-chat               0.1     an episode nothing was extracted from
======================  ======  ===========================================================

An episode is as important as the most important fact extracted from it (chit-chat when
none); a fact by its predicate; an entity counts as an "other relation" (0.4).
"""

from __future__ import annotations

from collections.abc import Iterable

LIFE, EVENT, PREFERENCE, OTHER, MENTION, CHITCHAT = 1.0, 0.8, 0.6, 0.4, 0.2, 0.1

TIERS: dict[str, float] = {
    **dict.fromkeys(
        ("LIVES_IN", "WORKS_AT", "HAS_ROLE", "LEADS", "REPORTS_TO", "MARRIED_TO", "DATING",
         "STUDIES_AT", "MEMBER_OF_TEAM", "HAS_STATUS", "AGE", "PARENT_OF", "CHILD_OF",
         "SIBLING_OF", "HAS_PET", "EXPERIENCED", "ALLERGIC_TO", "RUNS", "FROM", "HAS_DIET",
         "HAS_CONDITION", "AVOIDS", "INSTRUCTION", "DECIDED", "SCHEDULED_ON"),
        LIFE,
    ),
    **dict.fromkeys(("VISITED", "ATTENDED", "CREATED", "PLANS"), EVENT),
    **dict.fromkeys(
        ("LIKES", "DISLIKES", "FAVORITE", "HAS_HOBBY", "USES", "OWNS", "SPEAKS"), PREFERENCE
    ),
    **dict.fromkeys(
        ("KNOWS", "FRIEND_OF", "MEMBER_OF", "WORKS_ON", "VOLUNTEERS_AT", "RELATED_TO"), OTHER
    ),
    "MENTIONED_WITH": MENTION,
}


def of_predicate(predicate: str) -> float:
    """The importance of a fact with this predicate (an unlisted one: :data:`OTHER`)."""
    return TIERS.get(predicate.upper(), OTHER)


def of_episode(predicates: Iterable[str]) -> float:
    """The importance of an episode given the predicates of the facts extracted from it:
    the highest, or :data:`CHITCHAT` when nothing was extracted."""
    return max((of_predicate(p) for p in predicates), default=CHITCHAT)
