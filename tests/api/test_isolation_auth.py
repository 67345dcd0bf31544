"""Groups are isolated over HTTP, and API keys (optionally limited to groups) are enforced
before any route or store access."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kgmem.memory.facade import Memory
from tests.conftest import STORES, fresh_group, neo4j_store_or_skip

from .conftest import assert_error, client_for


def _seed_group(c: TestClient, group: str, city: str, employer: str) -> dict[str, Any]:
    h = {"X-Group": group}
    ep = c.post("/v1/episodes", headers=h,
                json={"content": f"Alice lives in {city}", "reference_time": "2021"}).json()
    f = c.post("/v1/facts", headers=h, json={"subject": "Alice", "predicate": "LIVES_IN",
                                             "object": city, "valid_at": "2021",
                                             "episode": ep["id"]}).json()
    g = c.post("/v1/facts", headers=h, json={"subject": "Alice", "predicate": "WORKS_AT",
                                             "object": employer, "valid_at": "2021"}).json()
    c.post("/v1/facts", headers=h, json={"subject": "Bob", "predicate": "WORKS_AT",
                                         "object": employer, "valid_at": "2021"})
    return {"episode": ep["id"], "fact": f["fact_id"], "change": g["change_id"],
            "alice": f["subject_id"]}


class _SearchingMemory(Memory):
    """Used only while Memory lacks search/context: the retrieval package's functions when
    present, else a keyword stand-in."""

    def search(self, query, valid_at=None, known_at=None, limit=10, kinds=None,  # type: ignore[no-untyped-def]
               group="default"):
        try:
            from kgmem.retrieve import search
        except ImportError:
            return [{"kind": "fact", "id": f.fact_id, "text": f.fact, "score": 1.0}
                    for f in self.facts(group=group, valid_at=valid_at, known_at=known_at)
                    if any(w.lower() in f.fact.lower() for w in query.split())][:limit]
        extra = {} if kinds is None else {"kinds": kinds}
        return search(self, query, valid_at=valid_at, known_at=known_at, limit=limit,
                      group=group, **extra)

    def context(self, query, budget_tokens=1000, valid_at=None, known_at=None,  # type: ignore[no-untyped-def]
                group="default"):
        try:
            from kgmem.retrieve import context
        except ImportError:
            hits = self.search(query, valid_at, known_at, group=group)
            return "\n".join(h["text"] for h in hits)
        return context(self, query, budget_tokens=budget_tokens, valid_at=valid_at,
                       known_at=known_at, group=group)


@pytest.fixture(params=STORES)
def two_groups(request, tmp_path):  # type: ignore[no-untyped-def]
    """Two seeded groups behind one API, on each store (fresh group names: on Neo4j the
    server is shared with every other test)."""
    cls = Memory if hasattr(Memory, "search") and hasattr(Memory, "context") else (
        _SearchingMemory)
    if request.param == "embedded":
        m = cls(tmp_path / "store")
    else:
        m = cls(store=neo4j_store_or_skip(), extractor=None)
    ga, gb = fresh_group("team-a"), fresh_group("team-b")
    with client_for(m) as c:
        a = {**_seed_group(c, ga, "Boston", "Acme"), "group": ga}
        b = {**_seed_group(c, gb, "Lisbon", "Globex"), "group": gb}
        yield c, a, b
    if request.param == "embedded":
        m.close()
    else:
        for g in (ga, gb):
            m.erase(group=g, whole_group=True)


def test_reads_never_cross_groups(two_groups) -> None:  # type: ignore[no-untyped-def]
    c, a, b = two_groups
    for group, own, other, mine, theirs in ((a["group"], a, b, "Boston", "Lisbon"),
                                            (b["group"], b, a, "Lisbon", "Boston")):
        h = {"X-Group": group}
        reads = [
            c.get("/v1/facts", headers=h),
            c.get("/v1/facts", headers=h, params={"subject": "Alice"}),
            c.get("/v1/entities", headers=h),
            c.get("/v1/entities/Alice", headers=h),
            c.get("/v1/entities/Alice/history", headers=h),
            c.get("/v1/episodes", headers=h),
            c.get("/v1/changes", headers=h),
            c.get("/v1/paths", headers=h, params={"a": "Alice", "b": "Bob"}),
            c.get("/v1/search", headers=h, params={"q": f"Alice lives {mine} {theirs}"}),
            c.get("/v1/context", headers=h, params={"q": f"Alice lives {mine} {theirs}"}),
        ]
        for r in reads:
            assert r.status_code == 200, r.text
            body = r.json()
            body.pop("query", None)  # search/context echo the query, which names both
            text = str(body)
            assert theirs not in text and other["fact"] not in text, r.request.url
            assert other["episode"] not in text and other["alice"] not in text
        assert mine in reads[0].text and mine in reads[-1].json()["context"]
        # the other group's ids are unknown here
        assert_error(c.get(f"/v1/facts/{other['fact']}", headers=h), 404)
        assert_error(c.get(f"/v1/facts/{other['fact']}/history", headers=h), 404)
        assert_error(c.get(f"/v1/episodes/{other['episode']}", headers=h), 404)
        assert_error(c.get(f"/v1/entities/{other['alice']}", headers=h), 404)
        assert_error(c.get("/v1/paths", headers=h,
                           params={"a": own["alice"], "b": other["alice"]}), 404)
        assert c.get(f"/v1/facts/{own['fact']}", headers=h).status_code == 200


def test_writes_never_cross_groups(two_groups) -> None:  # type: ignore[no-untyped-def]
    c, a, b = two_groups
    h = {"X-Group": a["group"]}
    assert_error(c.post(f"/v1/facts/{b['fact']}/retract", headers=h), 404)
    assert_error(c.post(f"/v1/facts/{b['fact']}/invalidate", headers=h,
                        json={"at": "2024"}), 404)
    assert_error(c.post(f"/v1/facts/{b['fact']}/correct", headers=h,
                        json={"object": "Paris"}), 404)
    assert_error(c.post(f"/v1/changes/{b['change']}/undo", headers=h), 404)
    assert_error(c.delete(f"/v1/episodes/{b['episode']}", headers=h), 404)
    assert_error(c.delete(f"/v1/entities/{b['alice']}", headers=h), 404)
    # erasing Alice in team-a leaves team-b's Alice alone
    assert c.delete("/v1/entities/Alice", headers=h).status_code == 200
    prof = c.get("/v1/entities/Alice", headers={"X-Group": b["group"]}).json()
    assert sorted(f["object"] for f in prof["facts"]) == ["Globex", "Lisbon"]
    # a group nobody wrote to sees nothing
    assert c.get("/v1/facts", headers={"X-Group": fresh_group("empty")}).json()["items"] == []


def test_no_keys_configured_means_open(client: TestClient) -> None:
    assert client.get("/v1/facts").status_code == 200


KEYS = "admin-key,alpha-key=team-a,ab-key=team-a|team-b"


@pytest.fixture
def keyed(memory: Memory):  # type: ignore[no-untyped-def]
    with client_for(memory, api_keys=KEYS) as c:
        yield c


def test_missing_or_wrong_key_is_401_before_the_store(keyed: TestClient, memory: Memory,
                                                      monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("store touched")

    monkeypatch.setattr(memory.store, "write", boom)
    monkeypatch.setattr(memory.store, "facts", boom)
    monkeypatch.setattr(memory.store, "last_tx_time", boom)
    for r in (
        keyed.get("/v1/facts"),
        keyed.get("/v1/facts", headers={"Authorization": "Bearer nope"}),
        keyed.get("/v1/facts", headers={"X-API-Key": "admin-key-x"}),
        keyed.get("/v1/facts", headers={"Authorization": "Basic admin-key"}),
        keyed.post("/v1/facts", json={"subject": "A", "predicate": "P", "object": "B"}),
        keyed.post("/v1/facts", content=b"{not json"),
        keyed.get("/ready"),
        keyed.get("/v1/does-not-exist"),
    ):
        err = assert_error(r, 401, "unauthorized")
        assert "key" in err["message"]
        assert r.headers["www-authenticate"] == "Bearer"
    assert keyed.get("/health").status_code == 200
    assert keyed.get("/openapi.json").status_code == 200


def test_valid_keys_and_group_limits(keyed: TestClient) -> None:
    admin = {"Authorization": "Bearer admin-key"}
    assert keyed.get("/v1/facts", headers=admin).status_code == 200
    assert keyed.get("/v1/facts", headers={**admin, "X-Group": "any"}).status_code == 200
    assert keyed.get("/ready", headers={"X-API-Key": "admin-key"}).status_code == 200

    alpha = {"X-API-Key": "alpha-key", "X-Group": "team-a"}
    body = {"subject": "A", "predicate": "KNOWS", "object": "B"}
    assert keyed.post("/v1/facts", headers=alpha, json=body).status_code == 201
    assert len(keyed.get("/v1/facts", headers=alpha).json()["items"]) == 1
    for group in ("team-b", "default"):
        h = {**alpha, "X-Group": group}
        assert_error(keyed.get("/v1/facts", headers=h), 403, "forbidden")
        assert_error(keyed.post("/v1/facts", headers=h, json=body), 403, "forbidden")
    # no X-Group header means the default group, which alpha may not use
    assert_error(keyed.get("/v1/facts", headers={"X-API-Key": "alpha-key"}), 403)

    ab = {"Authorization": "Bearer ab-key"}
    assert keyed.get("/v1/facts", headers={**ab, "X-Group": "team-b"}).status_code == 200
    assert keyed.get("/v1/entities", headers={**ab, "X-Group": "team-a"}).status_code == 200
    assert_error(keyed.get("/v1/entities", headers={**ab, "X-Group": "team-c"}), 403)


def test_bad_key_config_is_rejected() -> None:
    from api.middleware import parse_api_keys

    assert parse_api_keys(None) == [] and parse_api_keys(" ") == []
    keys = parse_api_keys("k1, k2=a|b ,")
    assert [(k.key, k.groups) for k in keys] == [("k1", None), ("k2", frozenset({"a", "b"}))]
    for bad in ("=a", "k="):
        with pytest.raises(ValueError):
            parse_api_keys(bad)
