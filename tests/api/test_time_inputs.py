"""Every time-taking REST route with arbitrary times, on both stores (issue 13, point 5).

``0001-01-01T00:00:00+14:00`` and ``9999-12-31T23:59:59-14:00`` used to answer 500 on every
route (OverflowError). Now any time string is either stored/read as the instant the one parser
(kgmem.timeutil) gives, or a 422 ``invalid_time`` with the stable error JSON: never a 5xx.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kgmem.embed.hashing import HashingEmbedder
from kgmem.errors import InvalidTimeError
from kgmem.timeutil import parse_instant

from .conftest import assert_error, client_for

EXTREMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999Z", "9999", "0001", "9999-12-31", "0000", "10000-01-01"]
ASKING = "what did Alice do yesterday, in the last 3 days and last Monday?"


def _iso(local: datetime, offset: int) -> str:
    sign = "-" if offset < 0 else "+"
    return f"{local.isoformat()}{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"


iso_times = st.builds(
    _iso,
    st.one_of(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(1, 1, 2)),
              st.datetimes(min_value=datetime(9999, 12, 30), max_value=datetime(9999, 12, 31,
                                                                                23, 59, 59)),
              st.datetimes(min_value=datetime(1, 1, 1))),
    st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1),
)
# header values must be visible ASCII; query and body values may be anything
header_safe = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=40)
time_strings = st.one_of(st.sampled_from(EXTREMES), iso_times, header_safe,
                         st.from_regex(r"\A[0-9]{1,5}(-[0-9]{1,2}(-[0-9]{1,2})?)?\Z"),
                         st.text(max_size=70))


@dataclass
class Routes:
    c: TestClient
    fact: str  # a fact valid from 2021 (invalidated repeatedly)
    other: str  # a fact whose start is corrected repeatedly


Check = Callable[[Routes, str, datetime | None], None]


def _ok(resp: Any, status: int = 200) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    return resp.json()  # type: ignore[no-any-return]


def _episode(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post("/v1/episodes", json={"content": f"note {uuid.uuid4()}",
                                          "reference_time": t, "extract": False})
    if want is not None:
        ep = _ok(resp, 201)
        back = _ok(r.c.get(f"/v1/episodes/{ep['id']}"))
        assert parse_instant(back["reference_time"]) == want


def _bulk(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post("/v1/episodes/bulk", json={"episodes": [
        {"content": f"bulk {uuid.uuid4()}", "reference_time": t, "extract": False}]})
    if want is not None:
        assert parse_instant(_ok(resp, 201)["items"][0]["reference_time"]) == want


def _assert_start(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post("/v1/facts", json={"subject": "Carol", "predicate": "VISITED",
                                       "object": f"Place {uuid.uuid4().hex[:8]}", "valid_at": t})
    if want is not None:
        v = _ok(resp, 201)
        assert parse_instant(v["valid_at"]) == want
        hist = _ok(r.c.get(f"/v1/facts/{v['fact_id']}/history"))["items"]
        assert [parse_instant(h["valid_at"]) for h in hist] == [want]


def _assert_end(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post("/v1/facts", json={"subject": "Carol", "predicate": "VISITED",
                                       "object": f"Place {uuid.uuid4().hex[:8]}",
                                       "invalid_at": t})
    if want is not None:
        assert parse_instant(_ok(resp, 201)["stated_invalid_at"]) == want


def _invalidate(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post(f"/v1/facts/{r.fact}/invalidate", json={"at": t})
    if want is not None:
        if want <= parse_instant("2021"):
            assert_error(resp, 422, "invalid_interval")
        else:
            _ok(resp)
            latest = _ok(r.c.get(f"/v1/facts/{r.fact}/history"))["items"][-1]
            assert parse_instant(latest["stated_invalid_at"]) == want


def _correct(r: Routes, t: str, want: datetime | None) -> None:
    resp = r.c.post(f"/v1/facts/{r.other}/correct", json={"valid_at": t})
    if want is not None:
        _ok(resp)


def _reads(r: Routes, t: str, want: datetime | None) -> None:
    fact_id = r.fact
    for path, params in [
        ("/v1/facts", {"valid_at": t}), ("/v1/facts", {"known_at": t}),
        ("/v1/facts", {"subject": "Alice", "valid_at": t, "known_at": t}),
        (f"/v1/facts/{fact_id}/history", {"known_at": t, "valid_at": t}),
        ("/v1/entities/Alice", {"valid_at": t, "known_at": t}),
        ("/v1/entities/Alice/history", {"known_at": t}), ("/v1/entities", {"known_at": t}),
        ("/v1/episodes", {"known_at": t}), ("/v1/changes", {"since": t}),
        ("/v1/changes", {"known_at": t}),
        ("/v1/paths", {"a": "Alice", "b": "Boston", "valid_at": t, "known_at": t}),
        ("/v1/paths", {"a": "Alice", "b": "Boston", "known_at": t, "mode": "sequenced"}),
        ("/v1/search", {"q": ASKING, "valid_at": t}), ("/v1/search", {"q": ASKING, "known_at": t}),
        ("/v1/search/sessions", {"q": ASKING, "known_at": t}),
        ("/v1/context", {"q": ASKING, "known_at": t, "valid_at": t}),
    ]:
        resp = r.c.get(path, params=params)
        if want is not None:
            _ok(resp)
    for params in ({"valid_at": "0001", "valid_to": t}, {"known_at": "0001", "known_to": t}):
        resp = r.c.get("/v1/facts", params=params)
        if want is not None and want > parse_instant("0001"):
            _ok(resp)
    resp = r.c.get(f"/v1/facts/{fact_id}", params={"valid_at": t})
    if want is not None:
        assert resp.status_code in (200, 404), resp.text


def _headers(r: Routes, t: str, want: datetime | None) -> None:
    if not t.isascii() or not t.isprintable() or t != t.strip():
        return  # not a header value an HTTP client can send
    for name in ("X-Valid-At", "X-Known-At"):
        resp = r.c.get("/v1/facts", headers={name: t})
        if want is not None:
            _ok(resp)


ROUTES: list[Check] = [_episode, _bulk, _assert_start, _assert_end, _invalidate, _correct,
                       _reads, _headers]


@pytest.fixture
def routes(make_memory, store_kind: str) -> Routes:  # type: ignore[no-untyped-def]
    from tests.conftest import fresh_group

    m = make_memory()
    m.embedder = HashingEmbedder(384)
    g = fresh_group("times")
    m.add_episode("Alice moved to Boston. Yesterday she visited Oslo.", "2021-01-05",
                  group=g, speaker="Alice", extract=False)
    fact = m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g).fact_id
    other = m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022", group=g).fact_id
    c = client_for(m)
    c.headers["X-Group"] = g
    return Routes(c, fact, other)


def _run_all(r: Routes, t: str) -> None:
    try:
        want: datetime | None = parse_instant(t)
    except InvalidTimeError:
        want = None
    seen: list[Any] = []
    orig = r.c.request

    def recording(*a: Any, **kw: Any) -> Any:
        resp = orig(*a, **kw)
        seen.append(resp)
        return resp

    r.c.request = recording  # type: ignore[method-assign]
    try:
        for check in ROUTES:
            check(r, t, want)
    finally:
        r.c.request = orig  # type: ignore[method-assign]
    for resp in seen:
        assert resp.status_code < 500, (t, resp.request.url, resp.text)
        if want is None and resp.status_code >= 400:
            # a time the parser refuses: invalid_time, or FastAPI's length limit (64)
            err = assert_error(resp, 422)
            assert err["type"] == "invalid_time" or len(t) > 64, (t, err)
    if want is None:  # every route refused it
        assert all(resp.status_code == 422 for resp in seen if resp.request.method == "POST")


def test_any_time_on_any_route_is_stored_as_parsed_or_invalid_time(routes: Routes,
                                                                   store_kind: str) -> None:
    n = 25 if store_kind == "embedded" else 10

    @settings(max_examples=n, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(t=time_strings)
    @example(t=EXTREMES[0])
    @example(t=EXTREMES[1])
    def run(t: str) -> None:
        _run_all(routes, t)

    run()
