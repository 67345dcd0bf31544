"""Every write route on the embedded store, and what the reads show afterwards."""

from __future__ import annotations

from fastapi.testclient import TestClient

from kgmem.memory.facade import Memory
from tests.conftest import ManualClock

from .conftest import assert_error


def _assert(c: TestClient, **body: object) -> dict:
    r = c.post("/v1/facts", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_add_episode_is_idempotent(client: TestClient) -> None:
    body = {"content": "I moved to Paris.", "reference_time": "2024-05-01T10:00:00Z",
            "speaker": "Alice", "source": "message"}
    r1 = client.post("/v1/episodes", json=body)
    r2 = client.post("/v1/episodes", json=body)
    assert r1.status_code == r2.status_code == 201
    assert r1.json()["id"] == r2.json()["id"]
    assert r1.json()["reference_time"] == "2024-05-01T10:00:00Z"
    assert client.get(f"/v1/episodes/{r1.json()['id']}").json()["speaker"] == "Alice"
    assert [e["name"] for e in client.get("/v1/entities").json()["items"]] == ["Alice"]


def test_bulk_episodes_in_order_and_retry_safe(client: TestClient) -> None:
    eps = [{"content": f"note {i}", "reference_time": f"2024-01-{i + 1:02d}"} for i in range(5)]
    r = client.post("/v1/episodes/bulk", json={"episodes": eps})
    assert r.status_code == 201
    ids = [e["id"] for e in r.json()["items"]]
    assert [e["content"] for e in r.json()["items"]] == [e["content"] for e in eps]
    again = client.post("/v1/episodes/bulk", json={"episodes": eps}).json()["items"]
    assert [e["id"] for e in again] == ids
    page = client.get("/v1/episodes", params={"limit": 2, "offset": 3}).json()
    assert [e["id"] for e in page["items"]] == ids[3:5] and page["next_offset"] is None
    page = client.get("/v1/episodes", params={"limit": 2}).json()
    assert [e["id"] for e in page["items"]] == ids[:2] and page["next_offset"] == 2


def test_bulk_limited_by_max_list(memory: Memory) -> None:
    from .conftest import client_for

    with client_for(memory, max_list=3) as c:
        eps = [{"content": f"n{i}", "reference_time": "2024"} for i in range(4)]
        err = assert_error(c.post("/v1/episodes/bulk", json={"episodes": eps}), 422,
                           "invalid_input")
        assert err["details"]["max"] == 3
        assert c.get("/v1/episodes").json()["items"] == []  # nothing half-written
        assert c.get("/v1/episodes", params={"limit": 50}).json()["limit"] == 3
    empty = TestClient(c.app).post("/v1/episodes/bulk", json={"episodes": []})
    assert_error(empty, 422, "invalid_input")


def test_erase_episode(client: TestClient) -> None:
    ep = client.post("/v1/episodes", json={"content": "Bob likes tea",
                                           "reference_time": "2024"}).json()
    f = _assert(client, subject="Bob", predicate="LIKES", object="tea", episode=ep["id"])
    assert f["valid_at"].startswith("2024-01-01")  # episode reference time is the default
    r = client.delete(f"/v1/episodes/{ep['id']}")
    assert r.status_code == 200
    assert r.json()["kind"] == "episode" and r.json()["counts"]["facts"] == 1
    assert_error(client.get(f"/v1/episodes/{ep['id']}"), 404, "not_found")
    assert_error(client.get(f"/v1/facts/{f['fact_id']}"), 404, "not_found")
    assert_error(client.delete(f"/v1/episodes/{ep['id']}"), 404)


def test_assert_invalidate_correct_retract_undo(client: TestClient, clock: ManualClock) -> None:
    f = _assert(client, subject="Alice", predicate="works at", object="Acme", valid_at="2020")
    assert f["predicate"] == "WORKS_AT" and f["valid_precision"] == "year"
    fid = f["fact_id"]
    same = _assert(client, subject="alice", predicate="WORKS_AT", object="Acme",
                   valid_at="2020")
    assert same["fact_id"] == fid  # identical assertion returns the existing fact

    clock.advance(hours=1)
    r = client.post(f"/v1/facts/{fid}/invalidate", json={"at": "2023-06", "reason": "left"})
    assert r.status_code == 200 and r.json()["kind"] == "invalidate"
    inv_change = r.json()["id"]
    assert client.get(f"/v1/facts/{fid}", params={"valid_at": "2023-07"}).status_code == 404
    got = client.get(f"/v1/facts/{fid}", params={"valid_at": "2022"}).json()
    assert got["invalid_at"].startswith("2023-06-01") and got["invalid_precision"] == "month"

    clock.advance(hours=1)
    r = client.post(f"/v1/facts/{fid}/correct", json={"object": "Initech"})
    assert r.status_code == 200 and r.json()["kind"] == "correct"
    assert client.get(f"/v1/facts/{fid}", params={"valid_at": "2022"}).json()["object"] == (
        "Initech")
    # the invalidate can no longer be undone: a later change depends on it
    assert_error(client.post(f"/v1/changes/{inv_change}/undo"), 409, "conflict")

    clock.advance(hours=1)
    r = client.post(f"/v1/facts/{fid}/retract", json={"reason": "wrong person"})
    assert r.status_code == 200 and r.json()["kind"] == "retract"
    retract_change = r.json()["id"]
    assert_error(client.get(f"/v1/facts/{fid}", params={"valid_at": "2022"}), 404)
    assert_error(client.post(f"/v1/facts/{fid}/retract"), 409, "conflict")
    assert_error(client.post(f"/v1/facts/{fid}/invalidate", json={"at": "2024"}), 409)

    clock.advance(hours=1)
    r = client.post(f"/v1/changes/{retract_change}/undo")
    assert r.status_code == 200 and r.json()["kind"] == "undo"
    assert r.json()["undoes"] == retract_change
    assert client.get(f"/v1/facts/{fid}", params={"valid_at": "2022"}).json()["object"] == (
        "Initech")
    assert_error(client.post(f"/v1/changes/{retract_change}/undo"), 409, "conflict")
    assert_error(client.post("/v1/changes/nope/undo"), 404, "not_found")
    kinds = [c["kind"] for c in client.get("/v1/changes").json()["items"]]
    assert kinds == ["assert", "invalidate", "correct", "retract", "undo"]


def test_retract_without_body(client: TestClient) -> None:
    fid = _assert(client, subject="A", predicate="KNOWS", object="B")["fact_id"]
    r = client.post(f"/v1/facts/{fid}/retract")
    assert r.status_code == 200 and r.json()["reason"] == "retracted"


def test_write_errors(client: TestClient) -> None:
    assert_error(client.post("/v1/facts/nope/invalidate", json={"at": "2024"}), 404)
    assert_error(client.post("/v1/facts/nope/correct", json={"object": "X"}), 404)
    fid = _assert(client, subject="A", predicate="KNOWS", object="B", valid_at="2020")["fact_id"]
    assert_error(client.post(f"/v1/facts/{fid}/invalidate", json={"at": "2019"}), 422,
                 "invalid_interval")
    assert_error(client.post(f"/v1/facts/{fid}/correct", json={}), 422, "invalid_input")
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "!!",
                                                "object": "B"}), 422, "invalid_input")
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "P", "object": "B",
                                                "valid_at": "2020", "invalid_at": "2019"}),
                 422, "invalid_interval")
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "P", "object": "B",
                                                "valid_at": "yesterday-ish"}), 422,
                 "invalid_time")
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "P", "object": "B",
                                                "episode": "missing"}), 404, "not_found")
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "P", "object": "B",
                                                "surprise": 1}), 422, "invalid_input")
    assert_error(client.post("/v1/episodes", json={"content": "   ",
                                                   "reference_time": "2024"}), 422)


def test_clock_backwards_is_409(client: TestClient, clock: ManualClock) -> None:
    _assert(client, subject="A", predicate="KNOWS", object="B")
    clock.advance(days=-1)
    assert_error(client.post("/v1/facts", json={"subject": "A", "predicate": "KNOWS",
                                                "object": "C"}), 409, "clock_went_backwards")


def test_erase_entity(client: TestClient) -> None:
    _assert(client, subject="Carol", predicate="LIVES_IN", object="Oslo")
    _assert(client, subject="Dan", predicate="KNOWS", object="Carol")
    r = client.delete("/v1/entities/carol")
    assert r.status_code == 200 and r.json()["kind"] == "entity"
    assert r.json()["counts"]["facts"] == 2
    assert_error(client.get("/v1/entities/Carol"), 404)
    assert client.get("/v1/facts").json()["items"] == []
    assert_error(client.delete("/v1/entities/Carol"), 404)
    erase = [c for c in client.get("/v1/changes").json()["items"] if c["kind"] == "erase"]
    assert len(erase) == 1
    assert_error(client.post(f"/v1/changes/{erase[0]['id']}/undo"), 409, "conflict")


def test_health_and_ready(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    r = client.get("/ready")
    assert r.status_code == 200 and r.json() == {"status": "ready", "store": "EmbeddedStore"}


def test_ready_503_when_store_closed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from .conftest import client_for

    m = Memory(tmp_path / "s", extractor=None)
    m.close()
    with client_for(m) as c:
        assert_error(c.get("/ready"), 503, "store_unavailable")
        assert c.get("/health").status_code == 200


def test_app_opens_memory_from_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from api.app import create_app

    from .conftest import make_settings

    app = create_app(make_settings(home=tmp_path / "home"))
    with TestClient(app) as c:
        assert c.get("/ready").status_code == 200
        assert c.post("/v1/facts", json={"subject": "A", "predicate": "KNOWS",
                                         "object": "B"}).status_code == 201
    assert app.state.memory is None  # closed at shutdown
    assert (tmp_path / "home" / "kgmem.sqlite3").exists()
