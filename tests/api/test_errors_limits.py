"""One error shape everywhere, request-size and list-length limits, and the retrieval routes'
translation of whatever Memory.search/Memory.context return."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from fastapi.testclient import TestClient

from kgmem.memory.facade import Memory
from kgmem.retrieve.models import ContextBlock, ScoreParts, SearchResult

from .conftest import assert_error, client_for


def test_validation_errors_use_the_error_shape(client: TestClient) -> None:
    err = assert_error(client.get("/v1/facts", params={"limit": 0}), 422, "invalid_input")
    assert err["details"]["errors"][0]["loc"] == ["query", "limit"]
    assert_error(client.get("/v1/facts", params={"limit": 100_000}), 422, "invalid_input")
    assert_error(client.get("/v1/paths", params={"a": "x"}), 422, "invalid_input")
    assert_error(client.get("/v1/paths", params={"a": "x", "b": "y", "max_hops": 9}), 422)
    assert_error(client.get("/v1/paths", params={"a": "x", "b": "y", "mode": "other"}), 422)
    assert_error(client.post("/v1/facts", content=b"{nope",
                             headers={"content-type": "application/json"}), 422)
    assert_error(client.post("/v1/facts", json=[1, 2]), 422, "invalid_input")
    assert_error(client.get("/v1/facts", headers={"X-Group": "no spaces"}), 422)
    assert_error(client.get("/v1/facts", headers={"X-Group": "x" * 129}), 422)


def test_time_errors(client: TestClient) -> None:
    err = assert_error(client.get("/v1/facts", params={"known_at": "soon"}), 422, "invalid_time")
    assert err["details"]["field"] == "known_at"
    assert_error(client.get("/v1/facts", headers={"X-Valid-At": "nope"}), 422, "invalid_time")
    # the header is not even parsed when the query parameter wins
    assert client.get("/v1/facts", params={"valid_at": "2024"},
                      headers={"X-Valid-At": "nope"}).status_code == 200
    assert_error(client.get("/v1/facts", params={"valid_at": "2024", "valid_to": "2023"}),
                 422, "invalid_input")
    assert_error(client.get("/v1/changes", params={"since": "someday"}), 422, "invalid_time")


def test_http_errors_use_the_error_shape(client: TestClient) -> None:
    assert_error(client.get("/v2/facts"), 404, "not_found")
    assert_error(client.delete("/v1/facts"), 405, "method_not_allowed")
    assert_error(client.get("/v1/entities/Nobody"), 404, "not_found")


def test_unexpected_errors_are_500_without_internals(memory: Memory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def boom(*a: Any, **k: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(memory, "entities", boom)
    c = TestClient(client_for(memory).app, raise_server_exceptions=False)
    err = assert_error(c.get("/v1/entities"), 500, "internal_error")
    assert "secret" not in err["message"]


def test_request_too_large(memory: Memory) -> None:
    with client_for(memory, max_request_bytes=1000) as c:
        big = {"content": "x" * 2000, "reference_time": "2024"}
        err = assert_error(c.post("/v1/episodes", json=big), 413, "request_too_large")
        assert err["details"]["max_request_bytes"] == 1000

        def chunks():  # type: ignore[no-untyped-def]
            yield b'{"content": "'
            for _ in range(20):
                yield b"y" * 100
            yield b'", "reference_time": "2024"}'

        # no Content-Length (chunked): the body itself is measured
        r = c.post("/v1/episodes", content=chunks(), headers={"content-type": "application/json"})
        assert_error(r, 413, "request_too_large")
        assert c.get("/v1/episodes").json()["items"] == []
        small = {"content": "fits", "reference_time": "2024"}
        assert c.post("/v1/episodes", json=small).status_code == 201

        def small_chunks():  # type: ignore[no-untyped-def]
            yield b'{"content": "chunked", '
            yield b'"reference_time": "2024"}'

        r = c.post("/v1/episodes", content=small_chunks(),
                   headers={"content-type": "application/json"})
        assert r.status_code == 201 and r.json()["content"] == "chunked"
        assert_error(c.post("/v1/episodes", content=b"{}",
                            headers={"content-length": "abc"}), 400)


def test_list_lengths_are_bounded(memory: Memory) -> None:
    for i in range(7):
        memory.assert_fact(f"E{i}", "KNOWS", "Hub")
    with client_for(memory, max_list=3) as c:
        page = c.get("/v1/facts", params={"limit": 1000}).json()
        assert page["limit"] == 3 and len(page["items"]) == 3 and page["next_offset"] == 3
        seen, offset = [], 0
        while offset is not None:
            page = c.get("/v1/facts", params={"limit": 1000, "offset": offset}).json()
            seen += [f["fact_id"] for f in page["items"]]
            offset = page["next_offset"]
        assert len(seen) == len(set(seen)) == 7
        ents = c.get("/v1/entities", params={"offset": 6}).json()
        assert len(ents["items"]) == 2 and ents["next_offset"] is None


# ------------------------------------------------ retrieval routes (stubbed library)
class _Stub(Memory):
    result: Any = None
    calls: list[dict[str, Any]] = []

    def search(self, query, **kw):  # type: ignore[no-untyped-def]
        self.calls.append({"query": query, **kw})
        return self.result

    def context(self, query, **kw):  # type: ignore[no-untyped-def]
        self.calls.append({"query": query, **kw})
        return self.result


def test_search_route_returns_the_librarys_results_with_the_request_passed_on(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = _Stub(tmp_path / "s")
    hit = SearchResult(kind="fact", id="f1", text="Alice lives in Denver", score=0.9,
                       parts=ScoreParts(keyword=1.5), entity_ids=["e1", "e2"])
    m.result, m.calls = [hit], []
    with client_for(m) as c:
        r = c.get("/v1/search", params={"q": "where", "limit": 5, "kinds": ["fact", "entity"],
                                        "known_at": "2024"},
                  headers={"X-Group": "g1", "X-Valid-At": "2023"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == {"query": "where", "items": [hit.model_dump(mode="json")], "index_pending": 0}
    call = m.calls[0]
    assert call["limit"] == 5 and call["kinds"] == ["fact", "entity"] and call["group"] == "g1"
    assert call["valid_at"].year == 2023 and call["known_at"].year == 2024


def test_context_route_returns_the_blocks_text_citations_and_times(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = _Stub(tmp_path / "s")
    at = datetime(2024, 1, 1, tzinfo=timezone.utc)
    m.result = ContextBlock(text="FACTS: Denver", tokens=7, budget_tokens=200, truncated=True,
                            valid_at=at, known_at=at)
    m.calls = []
    with client_for(m) as c:
        r = c.get("/v1/context", params={"q": "where", "budget_tokens": 200})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "query": "where", "budget_tokens": 200, "context": "FACTS: Denver", "tokens": 7,
        "truncated": True, "facts": [], "episodes": [],
        "details": {"valid_at": "2024-01-01T00:00:00Z", "known_at": "2024-01-01T00:00:00Z",
                    "time_window": None, "superseded": [], "flagged": []},
    }
    assert m.calls[0]["budget_tokens"] == 200 and m.calls[0]["group"] == "default"
