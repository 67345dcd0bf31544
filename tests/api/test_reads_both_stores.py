"""The read routes on every store tier (embedded and Neo4j, via ``make_memory``): the same
bi-temporal answers over HTTP."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import ManualClock

from .conftest import Seeded, client_for, seed


@pytest.fixture
def seeded(make_memory, clock: ManualClock) -> Seeded:  # type: ignore[no-untyped-def]
    return seed(make_memory(clock=clock), clock)


def _client(s: Seeded):  # type: ignore[no-untyped-def]
    c = client_for(s.memory)
    c.headers["X-Group"] = s.group
    return c


def objects(resp) -> list[str]:  # type: ignore[no-untyped-def]
    assert resp.status_code == 200, resp.text
    return sorted(f["object"] for f in resp.json()["items"])


def test_facts_as_of_valid_time(seeded: Seeded) -> None:
    c = _client(seeded)
    q = {"subject": "Alice", "predicate": "LIVES_IN"}
    assert objects(c.get("/v1/facts", params={**q, "valid_at": "2022-06-01"})) == ["Boston"]
    assert objects(c.get("/v1/facts", params={**q, "valid_at": "2024"})) == ["Denver"]
    assert objects(c.get("/v1/facts", params={**q, "valid_at": "2019"})) == []
    assert objects(c.get("/v1/facts", params=q)) == ["Denver"]  # now


def test_facts_as_of_known_time(seeded: Seeded) -> None:
    """Before Denver was learnt, Boston was believed to hold open-ended (also in 2024)."""
    c = _client(seeded)
    q = {"subject": "Alice", "predicate": "lives in", "valid_at": "2024"}
    assert objects(c.get("/v1/facts", params={**q, "known_at": seeded.t0.isoformat()})) == [
        "Boston"]
    assert objects(c.get("/v1/facts", params={**q, "known_at": seeded.t1.isoformat()})) == [
        "Denver"]
    before = (seeded.t0 - timedelta(seconds=1)).isoformat()
    assert objects(c.get("/v1/facts", params={**q, "known_at": before})) == []


def test_facts_ranges(seeded: Seeded) -> None:
    c = _client(seeded)
    q = {"subject": "Alice", "predicate": "LIVES_IN"}
    r = c.get("/v1/facts", params={**q, "valid_at": "2020", "valid_to": "2025"})
    assert objects(r) == ["Boston", "Denver"]
    r = c.get("/v1/facts", params={**q, "valid_at": "2024", "known_at": seeded.t0.isoformat(),
                                   "known_to": seeded.t2.isoformat()})
    assert objects(r) == ["Boston", "Denver"]  # old open-ended Boston version + Denver


def test_facts_filters_and_pagination(seeded: Seeded) -> None:
    c = _client(seeded)
    assert objects(c.get("/v1/facts", params={"object": "Acme", "valid_at": "2024"})) == [
        "Acme", "Acme"]
    assert objects(c.get("/v1/facts", params={"subject": "Bob"})) == ["Acme"]
    assert objects(c.get("/v1/facts", params={"subject": "Nobody"})) == []
    first = c.get("/v1/facts", params={"valid_at": "2024", "limit": 2}).json()
    assert len(first["items"]) == 2 and first["next_offset"] == 2
    rest = c.get("/v1/facts", params={"valid_at": "2024", "limit": 2, "offset": 2}).json()
    assert len(rest["items"]) == 1 and rest["next_offset"] is None
    ids = {f["fact_id"] for f in first["items"] + rest["items"]}
    assert ids == {seeded.denver, seeded.alice_acme, seeded.bob_acme}


def test_headers_set_times_and_query_wins(seeded: Seeded) -> None:
    c = _client(seeded)
    q = {"subject": "Alice", "predicate": "LIVES_IN"}
    h = {"X-Valid-At": "2022-06-01"}
    assert objects(c.get("/v1/facts", params=q, headers=h)) == ["Boston"]
    assert objects(c.get("/v1/facts", params={**q, "valid_at": "2024"}, headers=h)) == ["Denver"]
    h2 = {"X-Valid-At": "2024", "X-Known-At": seeded.t0.isoformat()}
    assert objects(c.get("/v1/facts", params=q, headers=h2)) == ["Boston"]
    r = c.get("/v1/entities/Alice", headers=h)
    assert sorted(f["object"] for f in r.json()["facts"]) == ["Acme", "Boston"]


def test_one_fact_visible_version(seeded: Seeded) -> None:
    c = _client(seeded)
    r = c.get(f"/v1/facts/{seeded.boston}", params={"valid_at": "2022"})
    assert r.status_code == 200 and r.json()["object"] == "Boston"
    assert r.json()["invalid_at"].startswith("2023-03-01")
    r = c.get(f"/v1/facts/{seeded.boston}", params={"valid_at": "2024",
                                                     "known_at": seeded.t0.isoformat()})
    assert r.status_code == 200 and r.json()["invalid_at"] is None
    r = c.get(f"/v1/facts/{seeded.boston}", params={"valid_at": "2024"})
    assert r.status_code == 404 and r.json()["error"]["details"]["visible"] is False
    assert c.get("/v1/facts/no-such-fact").status_code == 404


def test_fact_and_entity_history(seeded: Seeded) -> None:
    c = _client(seeded)
    r = c.get(f"/v1/facts/{seeded.boston}/history")
    versions = r.json()["items"]
    assert len(versions) == 2  # open-ended, then closed by Denver
    assert seeded.episode_id in [e for v in versions for e in v["episodes"]]
    as_known = c.get(f"/v1/facts/{seeded.boston}/history",
                     params={"known_at": seeded.t0.isoformat()}).json()["items"]
    assert len(as_known) == 1 and as_known[0]["expired_at"] is None
    r = c.get("/v1/entities/alice/history")
    assert r.status_code == 200
    assert {v["fact_id"] for v in r.json()["items"]} >= {seeded.boston, seeded.denver,
                                                         seeded.alice_acme}
    assert c.get("/v1/entities/Nobody/history").status_code == 404
    assert c.get(f"/v1/facts/{seeded.group}/history").status_code == 404


def test_entities_list_and_profile(seeded: Seeded) -> None:
    c = _client(seeded)
    names = [e["name"] for e in c.get("/v1/entities").json()["items"]]
    assert sorted(names) == ["Acme", "Alice", "Bob", "Boston", "Denver"]
    page = c.get("/v1/entities", params={"limit": 2}).json()
    assert len(page["items"]) == 2 and page["next_offset"] == 2
    early = c.get("/v1/entities", params={"known_at": seeded.t0.isoformat()}).json()["items"]
    assert sorted(e["name"] for e in early) == ["Alice", "Boston"]
    prof = c.get("/v1/entities/Alice", params={"valid_at": "2024"}).json()
    assert prof["entity"]["name"] == "Alice"
    assert sorted(f["object"] for f in prof["facts"]) == ["Acme", "Denver"]
    acme = c.get("/v1/entities/Acme").json()
    assert sorted(f["subject"] for f in acme["incoming"]) == ["Alice", "Bob"]
    assert c.get("/v1/entities/Nobody").status_code == 404


def test_episodes_read(seeded: Seeded) -> None:
    c = _client(seeded)
    page = c.get("/v1/episodes").json()
    assert [e["id"] for e in page["items"]] == [seeded.episode_id]
    one = c.get(f"/v1/episodes/{seeded.episode_id}").json()
    assert one["content"] == "Alice moved to Boston in 2021."
    before = (seeded.t0 - timedelta(seconds=1)).isoformat()
    assert c.get(f"/v1/episodes/{seeded.episode_id}",
                 params={"known_at": before}).status_code == 404


def test_changes_since(seeded: Seeded) -> None:
    c = _client(seeded)
    all_changes = c.get("/v1/changes", params={"since": "2000"}).json()["items"]
    assert [ch["kind"] for ch in all_changes] == ["assert"] * 4
    later = c.get("/v1/changes", params={"since": seeded.t1.isoformat()}).json()["items"]
    assert {f for ch in later for f in ch["fact_ids"]} == {seeded.alice_acme, seeded.bob_acme}
    capped = c.get("/v1/changes", params={"since": "2000",
                                          "known_at": seeded.t1.isoformat()}).json()["items"]
    assert len(capped) == 2
    first = c.get("/v1/changes", params={"since": "2000", "limit": 3}).json()
    rest = c.get("/v1/changes", params={"since": "2000", "limit": 3,
                                        "after": first["items"][-1]["id"]}).json()
    assert [ch["id"] for ch in first["items"] + rest["items"]] == [
        ch["id"] for ch in all_changes]
    assert first["next_offset"] == 3 and rest["next_offset"] is None
    assert c.get("/v1/changes", params={"after": "no-such-change"}).status_code == 404


def test_entity_profile_carries_the_summary_as_known_at(seeded: Seeded) -> None:
    c = _client(seeded)
    now = c.get("/v1/entities/Alice").json()["entity"]["summary"]
    assert now.startswith("Now: Alice lives in Denver (since 2023-03); Alice works at Acme "
                          "(since 2022). Before: Alice lives in Boston (2021 to 2023-03).")
    assert "“Alice moved to Boston in 2021.”" in now  # its telling episode
    then = c.get("/v1/entities/Alice", params={"known_at": seeded.t0.isoformat()}).json()
    assert then["entity"]["summary"].startswith("Now: Alice lives in Boston (since 2021).")
    before = (seeded.t0 - timedelta(seconds=1)).isoformat()
    assert c.get("/v1/entities/Alice",
                 params={"known_at": before}).json()["entity"]["summary"] == ""


def test_paths(seeded: Seeded) -> None:
    c = _client(seeded)
    r = c.get("/v1/paths", params={"a": "Alice", "b": "Bob", "max_hops": 2})
    paths = r.json()["items"]
    assert len(paths) == 1 and len(paths[0]["hops"]) == 2
    assert {h["fact"]["fact_id"] for h in paths[0]["hops"]} == {seeded.alice_acme,
                                                                 seeded.bob_acme}
    # Boston -> Alice -> Acme: in 2022 (slice) yes, in 2024 no (Alice left Boston)
    q = {"a": "Boston", "b": "Acme"}
    assert len(c.get("/v1/paths", params={**q, "valid_at": "2022-06"}).json()["items"]) == 1
    assert c.get("/v1/paths", params={**q, "valid_at": "2024"}).json()["items"] == []
    seq = c.get("/v1/paths", params={**q, "mode": "sequenced"}).json()["items"]
    assert len(seq) == 1 and seq[0]["valid_from"].startswith("2022-01-01")
    assert seq[0]["valid_to"].startswith("2023-03-01")
    assert c.get("/v1/paths", params={"a": "Alice", "b": "Nobody"}).status_code == 404


def test_search_and_context(seeded: Seeded) -> None:
    c = _client(seeded)
    r = c.get("/v1/search", params={"q": "Where does Alice live?", "valid_at": "2024"})
    assert r.status_code == 200, r.text
    assert "Denver" in r.text
    r = c.get("/v1/context", params={"q": "Where does Alice live?", "budget_tokens": 300})
    assert r.status_code == 200, r.text
    assert "Denver" in r.json()["context"]


def test_session_search(seeded: Seeded) -> None:
    c = _client(seeded)
    r = c.get("/v1/search/sessions", params={"q": "Where did Alice move?"})
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert [i["episode_ids"] for i in items] == [[seeded.episode_id]]
    assert items[0]["start"].startswith("2021-01-05") and items[0]["episodes"] == 1
    assert set(items[0]["parts"]) == {"episodes", "keyword", "episodes_rank", "keyword_rank"}
    # the episode was said in 2021: asking about the world of 2020 finds no session
    r = c.get("/v1/search/sessions", params={"q": "Where did Alice move?", "valid_at": "2020"})
    assert r.status_code == 200 and r.json()["items"] == []
    assert c.get("/v1/search/sessions", params={"q": "x", "limit": 0}).status_code == 422
