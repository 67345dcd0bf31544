"""Search with extracted facts next to the episodes they came from, on both stores.

Extracted facts are short paraphrases that all name the conversation's people. A fact that
shares only a name with the query must not push the episode that answers it down; a fact
points first to the source episode that best matches the query; and an episode ranks at
least as high as a fact extracted from it.
"""

from __future__ import annotations

from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search

from .conftest import at

LIKES = ["helping people", "creating art", "making positive impact", "pottery", "classical music",
         "camping trips", "live music", "hiking"]


def _chat(m: Memory, g: str) -> dict[str, str]:
    """Caroline's turns, each with the (rule-extractor-like) fact drawn from it; one popular
    fact ("Caroline likes helping people") is stated in five turns."""
    ids: dict[str, str] = {}
    day = 1
    for like in LIKES:
        ep = m.add_episode(f"You know me, I really enjoy {like} on weekends.",
                           at(f"2023-05-{day:02d}T10:00:00"), speaker="Caroline", group=g)
        ids[like] = ep.id
        m.assert_fact("Caroline", "likes", like, group=g, episode=ep.id,
                      fact=f"Caroline likes {like}")
        day += 1
    for n in range(4):  # the popular fact, repeated in later turns
        ep = m.add_episode(f"Helping people is what keeps me going, honestly ({n}).",
                           at(f"2023-06-{n + 1:02d}T10:00:00"), speaker="Caroline", group=g)
        m.assert_fact("Caroline", "likes", "helping people", valid_at=at("2023-05-01T10:00:00"),
                      group=g, episode=ep.id, fact="Caroline likes helping people")
    ans = m.add_episode("My research on adoption agencies is my dream project this month.",
                        at("2023-07-01T10:00:00"), speaker="Caroline", group=g)
    ids["answer"] = ans.id
    m.assert_fact("Caroline", "does research on", "adoption agencies", group=g,
                  episode=ans.id, fact="Caroline does research on adoption agencies")
    m.add_episode("Cool! What did it look like?", at("2023-07-01T10:01:00"), speaker="Mel",
                  group=g)
    index_pending(m)
    return ids


def test_the_episode_stating_the_answer_leads_and_name_only_facts_do_not_flood(smem):
    m, g = smem
    ids = _chat(m, g)
    res = search(m, "What did Caroline research?", group=g, kinds=("episodes", "facts"),
                 limit=10)
    # the verbatim episode first; the fact extracted from it is found, points to it and
    # ranks after it (never the other way round; facts weigh FACT_LIST_WEIGHT of a turn's
    # list, so other turns may come between them)
    assert res[0].kind == "episode" and res[0].id == ids["answer"]
    hit = [r for r in res if r.text == "Caroline does research on adoption agencies"]
    assert hit and hit[0].episode_ids == [ids["answer"]]
    # facts that share only the (much-discussed) name "Caroline" with the query no longer
    # take the top: before, keyword + graph + vector all ranked them first by that name
    top5 = [r.text for r in res[:5]]
    assert "Caroline likes helping people" not in top5
    assert sum(1 for r in res[:5] if r.kind == "fact") <= 2


def test_a_query_about_the_name_alone_still_gets_its_facts(smem):
    m, g = smem
    _chat(m, g)
    res = search(m, "Caroline", group=g, kinds=("facts",), limit=20)
    texts = {r.text for r in res}
    assert {f"Caroline likes {x}" for x in LIKES} <= texts


def test_a_named_entity_few_facts_touch_still_finds_its_fact(smem):
    m, g = smem
    _chat(m, g)
    # "helping people" is an entity of one fact: naming it is specific
    res = search(m, "Who keeps going by helping people?", group=g,
                 kinds=("episodes", "facts"), limit=10)
    # found among the ten; the three turns that say "helping people" verbatim may come first
    # (facts weigh FACT_LIST_WEIGHT of a turn's list)
    assert "Caroline likes helping people" in [r.text for r in res]


def test_a_fact_points_first_to_its_source_that_matches_the_query(smem):
    m, g = smem
    ids = _chat(m, g)
    res = search(m, "Who keeps going by helping people?", group=g,
                 kinds=("episodes", "facts"), limit=10)
    fact = next(r for r in res if r.kind == "fact" and r.text == "Caroline likes helping people")
    assert len(fact.episode_ids) == 5  # the whole provenance is still there ...
    # ... best first: a turn that matches the query, not the first turn that said it
    best = fact.episode_ids[0]
    assert best != ids["helping people"]
    episode_rank = [r.id for r in res if r.kind == "episode"]
    score = {r.id: r.score for r in res if r.kind == "episode"}
    assert score[best] == max(score[e] for e in episode_rank if e in fact.episode_ids)
    # equal scores are broken as the episode list breaks them: the first source is the
    # highest-ranked of the fact's sources (near-identical turns tie here)
    assert best == next(e for e in episode_rank if e in fact.episode_ids)
    assert set(fact.episode_ids[1:]) >= set(episode_rank[1:5]) - {ids["helping people"]}


def test_the_fact_weight_moves_facts_against_episodes_only(smem):
    """The default weight of the fact lists (search.FACT_LIST_WEIGHT, chosen on LoCoMo dev)
    scales all four alike: facts searched alone keep exactly the order and relative scores
    they have at weight 1; with episodes, no fact ranks higher than at weight 1."""
    from kgmem.retrieve.search import FACT_LIST_WEIGHT

    m, g = smem
    _chat(m, g)
    ones = dict.fromkeys(("keyword_facts", "vector_facts", "graph_facts", "episode_facts"), 1.0)
    q = "What does Caroline like doing on weekends?"
    alone = search(m, q, group=g, kinds=("facts",), limit=20)
    alone_w1 = search(m, q, group=g, kinds=("facts",), limit=20, weights=ones)
    assert [r.id for r in alone] == [r.id for r in alone_w1]
    assert [round(r.score / FACT_LIST_WEIGHT, 9) for r in alone] == [
        round(r.score, 9) for r in alone_w1]
    both = search(m, q, group=g, kinds=("episodes", "facts"), limit=20)
    both_w1 = search(m, q, group=g, kinds=("episodes", "facts"), limit=20, weights=ones)
    rank = {r.id: n for n, r in enumerate(both)}
    rank_w1 = {r.id: n for n, r in enumerate(both_w1)}
    facts = [i for i, n in rank_w1.items() if any(r.id == i and r.kind == "fact" for r in both_w1)]
    assert facts and all(rank.get(i, 99) >= rank_w1[i] for i in facts)
