"""Entity types: what kind of thing an entity is (a person, a place, an organisation, a pet...).

An entity gets a type the first time a fact gives it one, and keeps it: from the extractor (named
entity recognition, the rule that found the fact) or, when nobody says, from the predicate's
signature (``LIVES_IN``'s object is a place, ``HAS_PET``'s a pet). A caller may name the types of
an assertion (``Memory.assert_fact(subject_type=..., object_type=...)``). On Neo4j the type is
also a node label (``:Person``, ``:Place``...) for Neo4j Browser styles.
"""

from __future__ import annotations

from typing import Literal, get_args

from .errors import InvalidInputError

EntityType = Literal["person", "place", "organisation", "pet", "thing", "event", "activity",
                     "role", "other"]
ENTITY_TYPES: tuple[str, ...] = get_args(EntityType)

# Neo4j labels, one per type (fixed names: a label is never built from input)
NEO4J_LABELS = {"person": "Person", "place": "Place", "organisation": "Organisation",
                "pet": "Pet", "thing": "Thing", "event": "Event", "activity": "Activity",
                "role": "Role", "other": "Other"}

_PERSON_TO_PERSON = ("MARRIED_TO", "DATING", "ENGAGED_TO", "SIBLING_OF", "PARENT_OF", "CHILD_OF",
                     "FRIEND_OF", "KNOWS", "REPORTS_TO")

# predicate -> (subject type, object type); None: the predicate does not say (a pet likes
# things too; one attends a school or a concert), and the first type an entity gets stays
SIGNATURES: dict[str, tuple[str | None, str | None]] = {
    **{p: ("person", "person") for p in _PERSON_TO_PERSON},
    "LIVES_IN": ("person", "place"),
    "FROM": ("person", "place"),
    "VISITED": ("person", "place"),
    "WORKS_AT": ("person", "organisation"),
    "STUDIES_AT": ("person", "organisation"),
    "RUNS": ("person", "organisation"),
    "VOLUNTEERS_AT": ("person", "organisation"),
    "MEMBER_OF": ("person", "organisation"),
    "MEMBER_OF_TEAM": ("person", "organisation"),
    "LEADS": ("person", "organisation"),
    "HAS_ROLE": ("person", "role"),
    "HAS_PET": ("person", "pet"),
    "OWNS": ("person", "thing"),
    "ATTENDED": ("person", None),
    "EXPERIENCED": ("person", "event"),
    "CREATED": ("person", "thing"),
    "ALLERGIC_TO": ("person", "thing"),
    "HAS_HOBBY": ("person", "activity"),
    "SPEAKS": ("person", "other"),
    "HAS_STATUS": ("person", "other"),
    "AGE": ("person", "other"),
    "LIKES": (None, None),
    "DISLIKES": (None, None),
    "FAVORITE": (None, None),
    "PLANS": ("person", None),
    "USES": ("person", "thing"),
    "WORKS_ON": ("person", None),
    "HAS_DIET": ("person", "other"),
    "AVOIDS": ("person", "thing"),
    "HAS_CONDITION": ("person", "other"),
    "INSTRUCTION": ("person", "other"),
    "DECIDED": ("person", "other"),
    "SCHEDULED_ON": ("event", "other"),
}


def check_entity_type(value: object, field: str = "entity_type") -> str | None:
    """A valid entity type (lower case), or None for none; anything else is refused."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.strip().lower() not in ENTITY_TYPES:
        raise InvalidInputError(
            f"{field} must be one of {', '.join(ENTITY_TYPES)} (got {value!r:.40})", field=field)
    return value.strip().lower()


def signature_types(predicate: str) -> tuple[str | None, str | None]:
    """The (subject, object) types a predicate implies (``(None, None)`` when unknown)."""
    return SIGNATURES.get(predicate, (None, None))
