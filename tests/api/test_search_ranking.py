"""GET /v1/search takes the ranking options of Memory.search: ``ranking`` (fused |
generative_agents) and ``half_life_days`` (recency; 0 = off), on both stores; a bad value is
a 422 in the stable error shape, naming the parameter."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.embed import HashingEmbedder
from tests.conftest import ManualClock, fresh_group

from .conftest import assert_error, client_for

Q = "hiking trip with my sister"


@pytest.fixture
def world(make_memory, store_kind):  # type: ignore[no-untyped-def]
    m = make_memory(clock=ManualClock(datetime(2024, 7, 1, tzinfo=timezone.utc)))  # asked then
    m.embedder = HashingEmbedder(384)
    g = fresh_group("rank")
    old = m.add_episode("A hiking trip with my sister in the Alps.", "2019-06-01T10:00:00Z",
                        speaker="Ana", group=g)
    new = m.add_episode("A hiking trip with my sister in the Rockies.", "2024-06-30T10:00:00Z",
                        speaker="Ana", group=g)
    c = client_for(m)
    c.headers["X-Group"] = g
    yield c, old.id, new.id
    if store_kind == "neo4j":  # the server is shared: leave nothing behind
        m.erase(whole_group=True, group=g)


def _search(c, **params):  # type: ignore[no-untyped-def]
    r = c.get("/v1/search", params={"q": Q, "kinds": "episodes", **params})
    assert r.status_code == 200, r.text
    return r.json()["items"]


def test_recency_orders_by_time_and_off_leaves_scores_alone(world) -> None:  # type: ignore[no-untyped-def]
    c, old, new = world
    on = _search(c, half_life_days=90)
    assert [i["id"] for i in on] == [new, old]
    assert all(i["parts"]["recency"] is not None for i in on)
    off = _search(c, half_life_days=0)
    assert {i["id"] for i in off} == {old, new}
    assert all(i["parts"]["recency"] is None for i in off)


def test_generative_agents_mode(world) -> None:  # type: ignore[no-untyped-def]
    c, old, new = world
    got = _search(c, ranking="generative_agents", half_life_days=90)
    assert {i["id"] for i in got} == {old, new}
    assert all(i["parts"]["importance"] is not None and 0 <= i["score"] <= 1 for i in got)
    rec = {i["id"]: i["parts"]["recency"] for i in got}
    assert rec[new] > rec[old]


@pytest.mark.parametrize("params, field", [
    ({"ranking": "newest"}, "ranking"),
    ({"half_life_days": -1}, "half_life_days"),
    ({"half_life_days": "soon"}, "half_life_days"),
    ({"half_life_days": 2e6}, "half_life_days"),
])
def test_bad_ranking_options_are_422(world, params, field) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = world
    r = c.get("/v1/search", params={"q": Q, **params})
    assert_error(r, 422, "invalid_input")
    assert field in r.text


def _context(c, **params):  # type: ignore[no-untyped-def]
    r = c.get("/v1/context", params={"q": Q, **params})
    assert r.status_code == 200, r.text
    return r.json()["context"]


def test_context_takes_the_ranking_options(world) -> None:  # type: ignore[no-untyped-def]
    """GET /v1/context ranks its snippets as Memory.context does: with recency the newer of two
    equal matches is quoted first; the options are checked as on /v1/search."""
    c, _, _ = world
    text = _context(c, half_life_days=90)
    assert text.index("Rockies") < text.index("Alps"), text
    ga = _context(c, ranking="generative_agents", half_life_days=90)
    assert "Rockies" in ga and "Alps" in ga


@pytest.mark.parametrize("params, field", [
    ({"ranking": "newest"}, "ranking"),
    ({"half_life_days": -1}, "half_life_days"),
])
def test_bad_context_ranking_options_are_422(world, params, field) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = world
    r = c.get("/v1/context", params={"q": Q, **params})
    assert_error(r, 422, "invalid_input")
    assert field in r.text
