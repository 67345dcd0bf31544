"""Ranking with time and weight (kgmem.retrieve.recency, kgmem.retrieve.importance): the
recency decay against a plain reference, the prior, the Generative-Agents score, and a
question that names a time not being pulled to recent items."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgmem.errors import InvalidInputError
from kgmem.ingest.lexicon import EVENT_PREDICATES
from kgmem.memory.facade import Memory
from kgmem.retrieve import importance, index_pending, search
from kgmem.retrieve.recency import (
    DAY_MICROS,
    DEFAULT_HALF_LIFE_DAYS,
    RECENCY_WEIGHT,
    RankingDefaults,
    check_half_life,
    check_ranking,
    decay,
    minmax,
    prior,
)
from kgmem.settings import Settings
from kgmem.vocabulary import DEFAULT_PREDICATES

from .conftest import at

ages = st.integers(min_value=0, max_value=200 * 365 * DAY_MICROS)
half_lives = st.floats(min_value=0.01, max_value=100_000, allow_nan=False)


def reference(age_days: float, half_life_days: float) -> float:
    """The decay written the obvious way: halves every half-life."""
    return 2.0 ** (-age_days / half_life_days)


@given(ages, half_lives)
def test_decay_matches_the_reference(age: int, h: float) -> None:
    assert decay(age, h) == pytest.approx(reference(age / DAY_MICROS, h), rel=1e-9, abs=1e-300)


@given(ages, ages, half_lives)
def test_decay_is_monotone_in_age(a: int, b: int, h: float) -> None:
    young, old = sorted((a, b))
    assert 0.0 <= decay(old, h) <= decay(young, h) <= 1.0


@given(ages, st.floats(min_value=0.01, max_value=10_000, allow_nan=False))
def test_one_more_half_life_halves_it(age: int, h: float) -> None:
    later = age + round(h * DAY_MICROS)
    assert decay(later, h) == pytest.approx(decay(age, h) / 2, rel=1e-6, abs=1e-300)


@given(ages)
def test_half_life_zero_is_off(age: int) -> None:
    assert decay(age, 0.0) == 1.0 and prior(decay(age, 0.0)) == 1.0


@given(st.floats(min_value=0.0, max_value=1.0))
def test_prior_takes_at_most_its_weight(r: float) -> None:
    assert 1.0 - RECENCY_WEIGHT <= prior(r) <= 1.0


@given(st.dictionaries(st.tuples(st.just("episode"), st.text(min_size=1, max_size=4)),
                       st.floats(min_value=-1e6, max_value=1e6), max_size=20))
def test_minmax_spans_zero_to_one_and_keeps_order(values: dict[tuple[str, str], float]) -> None:
    got = minmax(values)
    assert set(got) == set(values)
    assert all(0.0 <= v <= 1.0 for v in got.values())
    for a in values:
        for b in values:
            if values[a] < values[b]:
                assert got[a] <= got[b]


def test_bad_ranking_options_are_refused_with_the_field() -> None:
    for bad in ("recent", "", None, 3):
        with pytest.raises(InvalidInputError) as e:
            check_ranking(bad)
        assert e.value.details["field"] == "ranking"
    for bad_h in (-1, float("nan"), float("inf"), "90", True, 2e6):
        with pytest.raises(InvalidInputError) as e:
            check_half_life(bad_h)
        assert e.value.details["field"] == "half_life_days"
    assert check_half_life(0) == 0.0 and check_ranking("generative_agents") == "generative_agents"


def test_the_setting_and_the_built_in_default_agree() -> None:
    assert Settings().recency_half_life_days == DEFAULT_HALF_LIFE_DAYS
    assert RankingDefaults().half_life_days == DEFAULT_HALF_LIFE_DAYS


def test_importance_tiers_life_events_over_preferences_over_chit_chat() -> None:
    life = importance.of_episode(["LIVES_IN"])
    event = importance.of_episode(["ATTENDED"])
    pref = importance.of_episode(["LIKES", "MENTIONED_WITH"])
    chit = importance.of_episode([])
    assert life > event > pref > chit
    assert importance.of_episode(["LIKES", "MARRIED_TO"]) == life  # the most telling fact
    # every built-in predicate and every dated event kind the extractor writes has its tier
    assert {s.name for s in DEFAULT_PREDICATES} <= set(importance.TIERS)
    assert set(EVENT_PREDICATES) <= set(importance.TIERS)
    assert importance.of_predicate("SOMETHING_NEW") == importance.OTHER


def _two_turns(mem: Memory) -> tuple[str, str]:
    old = mem.add_episode("I went hiking in the Alps with my sister.", at("2019-06-01T10:00:00"),
                          speaker="Ana")
    new = mem.add_episode("I went hiking in the Rockies with my sister.",
                          at("2024-06-30T10:00:00"), speaker="Ana")
    index_pending(mem)
    return old.id, new.id


ASKED = "2024-07-01T00:00:00+00:00"


def test_recency_orders_same_topic_episodes_by_time(mem: Memory) -> None:
    old, new = _two_turns(mem)
    off = search(mem, "hiking with my sister", kinds="episodes", reference_time=ASKED,
                 half_life_days=0)
    on = search(mem, "hiking with my sister", kinds="episodes", reference_time=ASKED,
                half_life_days=90)
    assert {r.id for r in off} == {r.id for r in on} == {old, new}
    assert [r.id for r in on] == [new, old]
    assert all(r.parts.recency is None for r in off)
    by_id = {r.id: r for r in on}
    # the prior is exactly (1 - w) + w * 0.5 ** (age / half-life), age from the asking time
    for r in off:
        ref = by_id[r.id].reference_time
        assert ref is not None
        age = (datetime.fromisoformat(ASKED) - ref) / timedelta(days=1)
        want = r.score * ((1 - RECENCY_WEIGHT) + RECENCY_WEIGHT * reference(age, 90))
        assert by_id[r.id].score == pytest.approx(want)


def test_age_is_measured_at_the_asking_time_not_the_wall_clock(mem: Memory) -> None:
    old, new = _two_turns(mem)
    # asked in 2019, just after the Alps turn: the 2024 turn lies in the question's future
    # and counts as "now" (recency never rewards the future), the 2019 one is 1 day old
    got = search(mem, "hiking with my sister", kinds="episodes",
                 reference_time="2019-06-02T10:00:00+00:00", half_life_days=1)
    rec = {r.id: r.parts.recency for r in got}
    assert rec[new] == 1.0 and rec[old] == pytest.approx(0.5)


def test_a_question_naming_a_time_is_not_pulled_to_recent_items(mem: Memory) -> None:
    old, new = _two_turns(mem)
    q = "where did I go hiking with my sister in 2019?"
    for ranking in ("fused", "generative_agents"):
        base = search(mem, q, kinds="episodes", reference_time=ASKED, half_life_days=0,
                      ranking=ranking)
        for h in (1, 30, 365):
            got = search(mem, q, kinds="episodes", reference_time=ASKED, half_life_days=h,
                         ranking=ranking)
            assert got[0].id == old
            assert [(r.id, r.score) for r in got] == [(r.id, r.score) for r in base]
            assert all(r.parts.recency is None for r in got)


def test_memory_default_half_life_applies_when_a_search_leaves_it_unset(
        tmp_path, clock) -> None:  # type: ignore[no-untyped-def]
    from kgmem.embed import HashingEmbedder

    m = Memory(tmp_path / "s", clock=clock, extractor=None,
               ranking=RankingDefaults(half_life_days=90))
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    try:
        old, new = _two_turns(m)
        unset = m.search("hiking with my sister", kinds=["episodes"], reference_time=ASKED)
        assert [r.id for r in unset] == [new, old] and unset[0].parts.recency is not None
        off = m.search("hiking with my sister", kinds=["episodes"], reference_time=ASKED,
                       half_life_days=0)
        assert all(r.parts.recency is None for r in off)
    finally:
        m.close()


def test_generative_agents_score_is_relevance_plus_importance_by_hand(
        tmp_path, clock) -> None:  # type: ignore[no-untyped-def]
    from kgmem.embed import HashingEmbedder

    m = Memory(tmp_path / "s", clock=clock)  # the offline extractor decides importance
    m.embedder = HashingEmbedder(64)  # type: ignore[attr-defined]
    try:
        eps = {
            "life": m.add_episode("I moved to Denver.", at("2024-05-01T10:00:00"),
                                  speaker="Ana"),
            "pref": m.add_episode("I love Denver.", at("2024-05-02T10:00:00"), speaker="Ana"),
            "chat": m.add_episode("Denver, wow.", at("2024-05-03T10:00:00"), speaker="Ana"),
        }
        index_pending(m)
        kw = {"kinds": ["episodes"], "reference_time": ASKED, "half_life_days": 0.0}
        fused = {r.id: r.score for r in m.search("Denver", **kw)}  # type: ignore[arg-type]
        got = m.search("Denver", ranking="generative_agents", **kw)  # type: ignore[arg-type]
        imp = {r.id: r.parts.importance for r in got}
        assert [imp[eps[k].id] for k in ("life", "pref", "chat")] == [
            importance.LIFE, importance.PREFERENCE, importance.CHITCHAT]
        lo, hi = min(fused.values()), max(fused.values())
        ilo, ihi = importance.CHITCHAT, importance.LIFE
        for r in got:  # (relevance + importance) / 3, both min-max normalised; no recency
            rel = (fused[r.id] - lo) / (hi - lo) if hi > lo else 0.0
            assert r.score == pytest.approx((rel + (imp[r.id] - ilo) / (ihi - ilo)) / 3)  # type: ignore[operator]
    finally:
        m.close()


def test_bad_options_through_search_are_invalid_input(mem: Memory) -> None:
    with pytest.raises(InvalidInputError) as e:
        search(mem, "x", ranking="newest")  # type: ignore[typeddict-item]
    assert e.value.details["field"] == "ranking"
    with pytest.raises(InvalidInputError) as e:
        mem.search("x", half_life_days=-3)
    assert e.value.details["field"] == "half_life_days"
