"""OpenAIEmbedder at the HTTP boundary: httpx.MockTransport and a real local server
speaking the OpenAI embeddings wire format."""

from __future__ import annotations

import base64
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import numpy as np
import pytest

from kgmem.embed import Embedder, EmbeddingError, EmbeddingHTTPError, OpenAIEmbedder
from kgmem.embed.openai_compat import embeddings_url
from kgmem.errors import InvalidInputError


def fake_vector(text: str, dim: int = 8) -> list[float]:
    rng = np.random.default_rng(sum(text.encode()) + len(text))
    return (rng.normal(size=dim) * 3).tolist()  # deliberately not unit length


def ok_response(request: httpx.Request, dim: int = 8, shuffle: bool = True) -> httpx.Response:
    body = json.loads(request.content)
    data = [
        {"object": "embedding", "index": i, "embedding": fake_vector(t, dim)}
        for i, t in enumerate(body["input"])
    ]
    if shuffle:
        data.reverse()  # servers may return items in any order; "index" decides
    return httpx.Response(
        200,
        json={"object": "list", "data": data, "model": body["model"],
              "usage": {"prompt_tokens": 1, "total_tokens": 1}},
    )


class Recorder:
    def __init__(self, *responses):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        r = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        return r(request) if callable(r) else r


def make(handler, **kw) -> tuple[OpenAIEmbedder, list[float]]:
    sleeps: list[float] = []
    kw.setdefault("api_key", "sk-test")
    emb = OpenAIEmbedder(
        "https://api.example.test/v1", "text-embedding-test",
        transport=httpx.MockTransport(handler), sleep=sleeps.append, **kw,
    )
    return emb, sleeps


def test_success_wire_format():
    rec = Recorder(ok_response)
    emb, sleeps = make(rec, dim=8)
    out = emb.embed(["hello", "", "world"])
    emb.embed(["odd \ud800 text"])  # lone surrogate: sent as U+FFFD instead of crashing
    assert json.loads(rec.requests[-1].content)["input"] == ["odd \ufffd text"]
    rec.requests.pop()
    assert isinstance(emb, Embedder) and emb.name == "openai:text-embedding-test"
    (req,) = rec.requests
    assert req.method == "POST" and str(req.url) == "https://api.example.test/v1/embeddings"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert json.loads(req.content) == {"model": "text-embedding-test",
                                       "input": ["hello", " ", "world"]}
    assert out.shape == (3, 8) and out.dtype == np.float32
    expected = np.array([fake_vector(t) for t in ["hello", " ", "world"]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, atol=1e-6)  # ordered by index, normalised
    assert sleeps == []


def test_retry_on_500_then_success():
    rec = Recorder(httpx.Response(500, json={"error": {"message": "boom"}}), ok_response)
    emb, sleeps = make(rec)
    out = emb.embed(["a"])
    assert out.shape == (1, 8) and emb.dim == 8  # dim learned from the response
    assert len(rec.requests) == 2 and len(sleeps) == 1 and 0 < sleeps[0] <= 0.5


def test_retry_after_header_on_429():
    rec = Recorder(httpx.Response(429, headers={"Retry-After": "2"}, json={}), ok_response)
    emb, sleeps = make(rec)
    emb.embed(["a"])
    assert sleeps == [2.0]


def test_network_error_is_retried():
    calls = {"n": 0}

    def handler(request):
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return ok_response(request)

    emb, sleeps = make(handler)
    assert emb.embed(["a"]).shape == (1, 8) and calls["n"] == 2


def test_4xx_is_a_clear_error_without_retry():
    rec = Recorder(httpx.Response(
        401, json={"error": {"message": "Incorrect API key provided", "type": "auth"}}))
    emb, sleeps = make(rec, api_key="wrong")
    with pytest.raises(EmbeddingHTTPError) as info:
        emb.embed(["a"])
    err = info.value
    assert err.status_code == 401 and len(rec.requests) == 1 and sleeps == []
    assert "HTTP 401" in str(err) and "Incorrect API key provided" in str(err)
    assert "api_key" in str(err) and "text-embedding-test" in str(err)
    assert err.to_dict()["type"] == "embedding_http_error"


def test_404_hints_at_base_url():
    emb, _ = make(Recorder(httpx.Response(404, text="Not Found")))
    with pytest.raises(EmbeddingHTTPError, match="base_url"):
        emb.embed(["a"])


def test_retries_exhausted():
    rec = Recorder(httpx.Response(503, text="overloaded"))
    emb, sleeps = make(rec, retries=2)
    with pytest.raises(EmbeddingHTTPError) as info:
        emb.embed(["a"])
    assert len(rec.requests) == 3 and len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.9
    assert info.value.status_code == 503 and "3 attempt" in str(info.value)
    assert "overloaded" in str(info.value)


@pytest.mark.parametrize(
    "body",
    [
        {"data": []},
        {"nothing": 1},
        {"data": [{"index": 5, "embedding": [1.0]}]},
        {"data": [{"index": 0, "embedding": "not-a-list-or-base64!"}]},
    ],
)
def test_malformed_responses(body):
    emb, _ = make(Recorder(httpx.Response(200, json=body)))
    with pytest.raises(EmbeddingError):
        emb.embed(["a"])


def test_dim_mismatch_and_dimensions_param():
    rec = Recorder(lambda r: ok_response(r, dim=4))
    emb, _ = make(rec, dim=8)
    with pytest.raises(EmbeddingError, match="length 4, expected 8"):
        emb.embed(["a"])
    emb2, _ = make(rec, dim=4, send_dimensions=True)
    emb2.embed(["a"])
    assert json.loads(rec.requests[-1].content)["dimensions"] == 4
    assert emb2.name == "openai:text-embedding-test:4"


def test_base64_embeddings_and_batching():
    def handler(request):
        body = json.loads(request.content)
        data = [{"index": i, "embedding": base64.b64encode(
            np.array(fake_vector(t), dtype="<f4").tobytes()).decode()}
            for i, t in enumerate(body["input"])]
        return httpx.Response(200, json={"data": data})

    rec = Recorder(handler)
    emb, _ = make(rec, batch_size=2)
    out = emb.embed(["a", "b", "c", "d", "e"])
    assert len(rec.requests) == 3 and out.shape == (5, 8)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)


def test_url_and_argument_validation():
    assert embeddings_url("http://localhost:8080") == "http://localhost:8080/v1/embeddings"
    assert embeddings_url("http://h/v1/") == "http://h/v1/embeddings"
    assert embeddings_url("https://h/openai/deployments/x") == (
        "https://h/openai/deployments/x/embeddings")
    with pytest.raises(InvalidInputError):
        OpenAIEmbedder("localhost:8080", "m")
    with pytest.raises(InvalidInputError):
        OpenAIEmbedder("http://h/v1", "")
    emb, _ = make(Recorder(ok_response))
    with pytest.raises(InvalidInputError):
        emb.embed("bare string")
    assert emb.embed([]).shape[0] == 0


# --- a real local server (loopback only) -------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    fail_first = 0
    seen: list[dict] = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                "body": body})
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            payload, status = b'{"error": {"message": "try later"}}', 503
        else:
            data = [{"object": "embedding", "index": i, "embedding": fake_vector(t, 16)}
                    for i, t in enumerate(body["input"])]
            payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
            status = 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture()
def local_server():
    _Handler.seen = []
    _Handler.fail_first = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_real_server_roundtrip_with_retry(local_server):
    _Handler.fail_first = 1
    with OpenAIEmbedder(local_server, "local-model", backoff=0.01, timeout=5) as emb:
        out = emb.embed(["alpha", "beta"])
        assert out.shape == (2, 16) and emb.dim == 16 and emb.requests == 2
    assert [s["path"] for s in _Handler.seen] == ["/v1/embeddings"] * 2
    assert _Handler.seen[0]["auth"] is None  # no key, no header
    assert _Handler.seen[-1]["body"] == {"model": "local-model", "input": ["alpha", "beta"]}


def test_connection_refused_gives_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    emb = OpenAIEmbedder(f"http://127.0.0.1:{port}", "m", retries=1, backoff=0.01, timeout=2)
    with pytest.raises(EmbeddingHTTPError) as info:
        emb.embed(["x"])
    assert info.value.status_code is None and "ConnectError" in str(info.value)
