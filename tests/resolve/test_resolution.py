"""Entity resolution within a group, on every store (docs/entity-resolution.md).

Names that must become one entity, names that must stay apart, and the records every
non-exact resolution leaves.
"""

from __future__ import annotations

import pytest

from kgmem.core.resolve import ExactResolver
from tests.conftest import fresh_group
from tests.resolve.helpers import said


def eid(m, name, g):  # type: ignore[no-untyped-def]
    return m.entity(name, group=g)["entity"].id


def n_entities(m, g):  # type: ignore[no-untyped-def]
    return len(m.entities(group=g, limit=1000))


# ------------------------------------------------------------------ the issue's example
def test_issue_example_short_name_first(make_memory, clock) -> None:
    """"Alice", "alice" and "Alice Chen" (said of the same person) are one entity;
    "Alice Wong" is another."""
    m, g = make_memory(clock=clock), fresh_group()
    a = said(m, "Alice", "LIVES_IN", "Boston", group=g)
    b = said(m, "alice", "WORKS_AT", "Acme", group=g)
    c = said(m, "Alice Chen", "HAS_ROLE", "engineer", group=g)
    assert a.subject_id == b.subject_id == c.subject_id
    assert eid(m, "Alice Chen", g) == eid(m, "ALICE", g) == a.subject_id
    w = said(m, "Alice Wong", "LIVES_IN", "Paris", group=g)
    assert w.subject_id != a.subject_id
    ent = m.entity("Alice", group=g)["entity"]
    assert ent.aliases == ["Alice Chen"]
    assert {f.object for f in m.facts("Alice Chen", group=g)} == {"Boston", "Acme", "engineer"}
    assert [f.object for f in m.facts("Alice Wong", group=g)] == ["Paris"]
    [r] = m.resolutions(group=g)
    assert (r.name, r.entity_id, r.method, r.score) == ("Alice Chen", a.subject_id,
                                                        "person_full", 1.0)
    assert (r.role, r.predicate, r.group) == ("subject", "HAS_ROLE", g)
    assert r.at == clock.t
    assert r.facts == [{"fact_id": c.fact_id, "role": "subject"}]


def test_issue_example_full_name_first(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    c = said(m, "Alice Chen", "WORKS_AT", "Acme", group=g)
    a = said(m, "Alice", "LIVES_IN", "Boston", group=g)
    b = said(m, "Bob", "MARRIED_TO", "alice", group=g)
    assert a.subject_id == b.object_id == c.subject_id
    w = said(m, "Alice Wong", "LIVES_IN", "Paris", group=g)
    assert w.subject_id != c.subject_id
    assert m.entity("Alice Chen", group=g)["entity"].aliases == ["Alice"]
    [r] = m.resolutions(group=g)
    assert (r.name, r.method, r.entity) == ("Alice", "person_short", "Alice Chen")
    # the alias also carried the MARRIED_TO object ("alice" normalises to the alias)
    assert r.facts == [{"fact_id": a.fact_id, "role": "subject"},
                       {"fact_id": b.fact_id, "role": "object"}] or r.facts == [
        {"fact_id": b.fact_id, "role": "object"}, {"fact_id": a.fact_id, "role": "subject"}]


def test_two_full_names_with_different_last_names_never_merge(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    for name in ("Alice Chen", "Alice Wong", "Alice Chan", "Alicia Chen"):
        said(m, name, "LIVES_IN", "Boston", group=g)
    ids = {eid(m, n, g) for n in ("Alice Chen", "Alice Wong", "Alice Chan", "Alicia Chen")}
    assert len(ids) == 4
    assert m.resolutions(group=g) == []


# ------------------------------------------------------------------ person names: ambiguity
def test_short_name_is_ambiguous_once_two_full_name_persons_share_it(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    chen = said(m, "Alice Chen", "WORKS_AT", "Acme", group=g).subject_id
    wong = said(m, "Alice Wong", "WORKS_AT", "Initech", group=g).subject_id
    a = said(m, "Alice", "LIVES_IN", "Boston", group=g).subject_id
    assert a not in (chen, wong)
    assert m.resolutions(group=g) == []


def test_full_name_not_attached_while_another_full_name_person_shares_the_first_name(
        make_memory) -> None:
    m, g = make_memory(), fresh_group()
    alice = said(m, "Alice", "LIVES_IN", "Boston", group=g).subject_id
    assert said(m, "Alice Chen", "WORKS_AT", "Acme", group=g).subject_id == alice
    wong = said(m, "Alice Wong", "WORKS_AT", "Initech", group=g).subject_id
    lee = said(m, "Alice Lee", "WORKS_AT", "Globex", group=g).subject_id
    assert len({alice, wong, lee}) == 3
    # a known alias keeps resolving exactly: "Alice" is still the first Alice
    assert said(m, "Alice", "HAS_HOBBY", "chess", group=g).subject_id == alice
    assert [r.name for r in m.resolutions(group=g)] == ["Alice Chen"]


def test_short_name_resolution_needs_a_person_context(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    chen = said(m, "Alice Chen", "WORKS_AT", "Acme", group=g).subject_id
    # "Alice" as the object of LIKES / LIVES_IN says nothing about being a person
    x = said(m, "Bob", "LIKES", "Alice", group=g).object_id
    y = said(m, "Bob", "LIVES_IN", "Georgia", group=g).object_id
    assert chen not in (x, y)


def test_person_rules_need_person_evidence_on_the_known_entity(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    # "Alice Chen" only ever appeared as something liked: no person evidence
    chen = said(m, "Bob", "LIKES", "Alice Chen", group=g).object_id
    a = said(m, "Alice", "LIVES_IN", "Boston", group=g).subject_id
    assert a != chen
    # ... and "Jordan" the country never takes a person's full name
    jordan = said(m, "Bob", "VISITED", "Jordan", group=g).object_id
    jl = said(m, "Jordan Lee", "LIVES_IN", "Boston", group=g).subject_id
    assert jl != jordan
    # evidence can arrive later: then the rule applies
    carol = said(m, "Bob", "LIKES", "Carol Diaz", group=g).object_id
    said(m, "Carol Diaz", "WORKS_AT", "Acme", group=g)
    assert said(m, "Carol", "LIVES_IN", "Boston", group=g).subject_id == carol


# ------------------------------------------------------------------ places and organisations
@pytest.mark.parametrize("first", ["Boston", "Boston Dynamics"])
def test_boston_never_merges_into_boston_dynamics(make_memory, first) -> None:
    m, g = make_memory(), fresh_group()
    rows = {"Boston": ("Alice", "LIVES_IN"), "Boston Dynamics": ("Alice", "WORKS_AT")}
    order = [first, *(n for n in rows if n != first)]
    ids = [said(m, rows[n][0], rows[n][1], n, group=g).object_id for n in order]
    assert ids[0] != ids[1]
    assert m.resolutions(group=g) == []


def test_boston_stays_apart_even_with_noisy_person_evidence(make_memory) -> None:
    """A place that was once (wrongly) used like a person is not a person to merge with."""
    m, g = make_memory(), fresh_group()
    boston = said(m, "Alice", "LIVES_IN", "Boston", group=g).object_id
    said(m, "Boston", "KNOWS", "Alice", group=g)  # extraction noise
    bd = said(m, "Boston Dynamics", "KNOWS", "Bob", group=g).subject_id
    m.add_episode("hi", reference_time="2024-01-01", speaker="Boston Dynamics Inc", group=g,
                  extract=False)
    assert bd != boston and eid(m, "Boston Dynamics Inc", g) not in (bd, boston)
    assert m.resolutions(group=g) == []


def test_acme_corp_and_acme_corporation_are_one_organisation(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    corp = said(m, "Alice", "WORKS_AT", "Acme Corp.", group=g).object_id
    assert said(m, "Bob", "WORKS_AT", "Acme Corporation", group=g).object_id == corp
    assert said(m, "Carol", "WORKS_AT", "ACME corp", group=g).object_id == corp
    inc = said(m, "Dan", "WORKS_AT", "Acme Inc", group=g).object_id
    bare = said(m, "Erin", "WORKS_AT", "Acme", group=g).object_id
    assert len({corp, inc, bare}) == 3  # another legal form, or a dropped word: kept apart
    [r] = m.resolutions(group=g)
    assert (r.name, r.method, r.entity) == ("Acme Corporation", "variant", "Acme Corp.")


def test_full_form_first_then_abbreviation(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    full = said(m, "Alice", "WORKS_AT", "Globex International Corporation",
                         group=g).object_id
    assert said(m, "Bob", "WORKS_AT", "Globex Intl Corp", group=g).object_id == full


def test_accents_are_a_variant(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    a = said(m, "José García", "LIVES_IN", "Madrid", group=g).subject_id
    assert said(m, "Jose Garcia", "WORKS_AT", "Acme", group=g).subject_id == a
    assert m.resolutions(group=g)[0].method == "variant"


# ------------------------------------------------------------------ typos
def test_typo_merges_into_the_known_name(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    js = said(m, "Jonathan Smith", "WORKS_AT", "Acme", group=g).subject_id
    v = said(m, "Jonathan Smtih", "LIVES_IN", "Boston", group=g)
    assert v.subject_id == js and v.subject == "Jonathan Smith"
    ms = said(m, "Alice", "WORKS_AT", "Microsoft", group=g).object_id
    assert said(m, "Bob", "WORKS_AT", "Microsfot", group=g).object_id == ms
    recs = {r.name: r for r in m.resolutions(group=g)}
    assert recs["Jonathan Smtih"].method == "fuzzy"
    assert 0.85 <= recs["Jonathan Smtih"].score < 1
    assert recs["Jonathan Smtih"].facts == [{"fact_id": v.fact_id, "role": "subject"}]
    assert m.entity("Jonathan Smith", group=g)["entity"].aliases == ["Jonathan Smtih"]


@pytest.mark.parametrize("known,other", [
    ("Jonathan Smith", "Jonathan Smyth"),  # substitution in a short word: another name
    ("Marie Curie", "Maria Curie"),
    ("Daniel Craig", "Danielle Craig"),  # two edits
    ("Room 101", "Room 102"),  # different numbers
    ("person12", "person13"),
    ("Catherine Zeta", "Katherine Zeta"),  # different first letter
    ("Paris", "Parish"),  # one-word names need 7+ letters
    ("Jonathan Smith", "Jonathan Smith Jr"),  # word count differs
])
def test_near_names_that_stay_apart(make_memory, known, other) -> None:
    m, g = make_memory(), fresh_group()
    a = said(m, "Bob", "KNOWS", known, group=g).object_id
    b = said(m, "Carol", "KNOWS", other, group=g).object_id
    assert a != b
    assert m.resolutions(group=g) == []


def test_a_typo_close_to_two_known_names_is_ambiguous(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    a = said(m, "Bob", "KNOWS", "Elizabeth Martins", group=g).object_id
    b = said(m, "Bob", "KNOWS", "Elizabeth Marntis", group=g).object_id
    assert a != b  # two edits apart
    c = said(m, "Bob", "KNOWS", "Elizabeth Martnis", group=g).object_id  # a swap from each
    assert c not in (a, b)
    assert m.resolutions(group=g) == []


def test_a_place_typo_never_lands_on_a_person(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    person = said(m, "Charlotte Wilson", "WORKS_AT", "Acme", group=g).subject_id
    place = said(m, "Bob", "LIVES_IN", "Charlotte Wilsom", group=g).object_id
    assert place != person


# ------------------------------------------------------------------ speakers
def test_speaker_is_a_person_identity(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.add_episode("hello", reference_time="2024-01-01", speaker="Caroline", group=g,
                  extract=False)
    caroline = eid(m, "Caroline", g)
    # a full name said about the speaker attaches to the speaker (a person)...
    assert said(m, "Caroline Smith", "LIVES_IN", "Boston", group=g).subject_id == caroline
    # ...but a speaker label is an identity: another label never merges into it
    m.add_episode("hi", reference_time="2024-01-01", speaker="Carolina", group=g, extract=False)
    m.add_episode("hey", reference_time="2024-01-01", speaker="Carolin", group=g, extract=False)
    assert len({caroline, eid(m, "Carolina", g), eid(m, "Carolin", g)}) == 3
    # a typo in text still finds the speaker
    assert said(m, "Bob", "KNOWS", "Carolline", group=g).object_id == caroline


def test_first_person_and_full_name_in_text_resolve_to_the_speaker(make_memory) -> None:
    pytest.importorskip("spacy")
    from kgmem.ingest.pipeline import make_extractor

    m, g = make_memory(extractor=make_extractor()), fresh_group()
    m.add_episode("I live in Boston.", reference_time="2024-01-01", speaker="Alice", group=g)
    m.add_episode("Alice Chen works at Acme.", reference_time="2024-01-02", speaker="Bob",
                  group=g)
    facts = m.facts("Alice", group=g)
    assert {f.object for f in facts} == {"Boston", "Acme"}
    assert {f.subject_id for f in facts} == {eid(m, "Alice Chen", g)}
    [r] = m.resolutions(group=g)
    assert (r.name, r.method, r.entity) == ("Alice Chen", "person_full", "Alice")


# ------------------------------------------------------------------ switches and seams
def test_exact_resolver_is_still_available(make_memory) -> None:
    m, g = make_memory(resolver=ExactResolver()), fresh_group()
    a = said(m, "Alice Chen", "WORKS_AT", "Acme", group=g).subject_id
    assert said(m, "Alice", "LIVES_IN", "Boston", group=g).subject_id != a
    assert said(m, "alice chen", "LIVES_IN", "Boston", group=g).subject_id == a


def test_groups_are_resolved_separately(make_memory) -> None:
    m, g1, g2 = make_memory(), fresh_group(), fresh_group()
    said(m, "Alice Chen", "WORKS_AT", "Acme", group=g1)
    said(m, "Alice", "LIVES_IN", "Boston", group=g2)
    assert n_entities(m, g2) == 2
    assert m.resolutions(group=g2) == []
