"""What a context block spends its budget on, on both stores: near-duplicate facts collapsed
into one line, facts in the order search ranks them, what is true first (in search and in
the block), the budget kept on the text a client receives (library and REST; MCP in
tests/mcp/test_mcp_recall_budget.py)."""

from __future__ import annotations

from kgmem.embed import count_tokens
from kgmem.retrieve import context
from kgmem.retrieve.packing import collapse_facts, fact_lines_for

from .test_context import _data_lines


def test_a_fact_said_many_times_is_one_line_with_count_and_dates(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    for i, (obj, day) in enumerate([("dog", "2023-03-02"), ("dogs", "2023-05-10"),
                                    ("dog", "2023-06-01"), ("big dog", "2023-08-20")]):
        ep = m.add_episode(f"Audrey: my {obj} is so cute ({i})", f"{day}T10:00:00Z",
                           speaker="Audrey", group=g)
        m.assert_fact("Audrey", "HAS_PET", obj, valid_at=day, episode=ep.id, group=g)
    m.assert_fact("Audrey", "LIKES", "hiking", valid_at="2023-01", group=g)
    # one episode line: the fact line stands for the times it was said that are not shown
    block = context(m, "What pets does Audrey have? dog", budget_tokens=600, group=g,
                    max_episodes=1)
    body = _data_lines(block.text)
    pets = [ln for ln in body if ln.startswith('- "Audrey has pet')]
    assert len(pets) == 1, body
    assert "said 3 times" in pets[0] or "said 4 times" in pets[0]
    assert "2023-" in pets[0].split("said")[1]  # the dates it was said
    assert block.tokens == count_tokens(block.text) <= 600
    # every time it was said is shown: the fact line would repeat them and is left out
    full = context(m, "What pets does Audrey have? dog", budget_tokens=600, group=g)
    assert len(full.episodes) == 4 and not [ln for ln in _data_lines(full.text)
                                            if ln.startswith('- "Audrey has pet')]


def test_collapse_keeps_distinct_objects_apart(mem):  # type: ignore[no-untyped-def]
    a = mem.assert_fact("Maya", "LIKES", "pizza")
    b = mem.assert_fact("Maya", "LIKES", "sushi")
    c = mem.assert_fact("Maya", "LIKES", "pizza margherita")
    groups = collapse_facts([a, b, c])
    assert [[v.fact for v in grp.versions] for grp in groups] == [
        ["Maya likes pizza", "Maya likes pizza margherita"], ["Maya likes sushi"]]
    assert fact_lines_for(200) < fact_lines_for(500) < fact_lines_for(1000)


def _boston_then_denver(m, g):  # type: ignore[no-untyped-def]
    old = m.add_episode("I live in Boston.", "2019-05-01T10:00:00Z", speaker="Maya", group=g)
    new = m.add_episode("I moved to Denver last month.", "2023-04-10T10:00:00Z",
                        speaker="Maya", group=g)
    m.assert_fact("Maya", "LIVES_IN", "Boston", valid_at="2019-05-01", episode=old.id, group=g)
    m.assert_fact("Maya", "LIVES_IN", "Denver", valid_at="2023-03", episode=new.id, group=g)
    return old, new


def test_search_puts_the_current_fact_above_the_superseded_episode(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    old, _new = _boston_then_denver(m, g)
    results = m.search("Where does Maya live?", group=g, limit=10)
    texts = [r.text for r in results]
    assert texts[0] == "Maya lives in Denver", texts  # before the entity Maya, too
    boston = next(r for r in results if r.id == old.id)
    assert boston.parts.superseded == 1.0
    assert texts.index("Maya lives in Denver") < texts.index("I live in Boston.")
    # as of 2020 the Boston episode is current again: nothing is marked
    then = m.search("Where does Maya live?", group=g, limit=10, valid_at="2020-06-01")
    assert all(r.parts.superseded is None for r in then)


def test_a_past_event_told_after_it_ended_is_not_superseded(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    ep = m.add_episode("I went to a support group yesterday.", "2023-05-08T13:00:00Z",
                       speaker="Caroline", group=g)
    m.assert_fact("Caroline", "ATTENDED", "support group", valid_at="2023-05-07",
                  invalid_at="2023-05-08", episode=ep.id, group=g)
    block = context(m, "When did Caroline go to the support group?", budget_tokens=300,
                    group=g)
    assert "superseded" not in block.text and "ended" not in block.text.split("episodes:")[1]
    assert block.superseded == []


def test_rest_context_budget_is_the_text_received(smem):  # type: ignore[no-untyped-def]
    from tests.api.conftest import client_for

    m, g = smem
    _boston_then_denver(m, g)
    for i in range(30):
        m.add_episode(f"Maya and I talked about Denver hikes, trail number {i}.",
                      f"2023-05-{1 + i % 28:02d}T09:00:00Z", speaker="Sam", group=g)
    c = client_for(m)
    for budget in (50, 200, 500):
        r = c.get("/v1/context", params={"q": "Where does Maya live?", "budget_tokens": budget},
                  headers={"X-Group": g})
        assert r.status_code == 200, r.text
        text = r.json()["context"]
        assert r.json()["tokens"] == count_tokens(text) <= budget
        if budget >= 200:
            assert "Denver" in text


def test_a_fact_line_only_when_it_says_what_the_shown_episode_does_not(smem):  # type: ignore[no-untyped-def]
    """The episode that states a fact is shown: the fact line would repeat it, unless the
    question asks for a time (the fact carries the resolved date)."""
    m, g = smem
    assert not m.predicate("HAS_PET", group=g).functional  # one pet does not end another
    ep = m.add_episode("We got a guinea pig yesterday, the kids adore him.",
                       "2023-07-15T10:00:00Z", speaker="Melanie", group=g)
    m.assert_fact("Melanie", "HAS_PET", "guinea pig", valid_at="2023-07-14", episode=ep.id,
                  group=g)
    what = context(m, "What pet does Melanie have? guinea pig", budget_tokens=300, group=g)
    assert [e.id for e in what.episodes] == [ep.id] and what.facts == []
    when = context(m, "When did Melanie get the guinea pig?", budget_tokens=300, group=g)
    assert [e.id for e in when.episodes] == [ep.id]
    assert [v.fact for v in when.facts] == ["Melanie has pet guinea pig"]
    assert "(since 2023-07-14)" in when.text
