"""graphiti-core's own pipeline (``Graphiti.add_episode``) into kgmem's Neo4j, tested at the HTTP
boundary: a local server speaking the OpenAI wire format (tests/llm/fakeserver.py) replays the
hand-authored responses in fixtures/graphiti/ (see its README), routed by the json_schema name
graphiti asks for plus a phrase of the current prompt. Embeddings are kgmem's offline MiniLM;
nothing here touches the network.

Scenario: Alice says "I live in Paris." (2024-01-10), then "I moved to Berlin last month."
(2024-03-15). graphiti closes the Paris edge in place; kgmem reads both edges as history.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("graphiti_core")

from graphiti_core.prompts.dedupe_edges import EdgeDuplicate  # noqa: E402
from graphiti_core.prompts.dedupe_nodes import NodeResolutions  # noqa: E402
from graphiti_core.prompts.extract_edges import EdgeTimestamps, ExtractedEdges  # noqa: E402
from graphiti_core.prompts.extract_nodes import ExtractedEntities  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from kgmem.cli.main import app  # noqa: E402
from kgmem.embed import HashingEmbedder  # noqa: E402
from kgmem.errors import InvalidInputError  # noqa: E402
from kgmem.interop.graphiti_pipeline import (  # noqa: E402
    EmbeddingReranker,
    GraphitiPipeline,
    KgmemEmbedder,
    episode_name,
)
from kgmem.llm.errors import LLMAuthError, LLMUnavailableError  # noqa: E402
from kgmem.memory.facade import Memory  # noqa: E402
from kgmem.settings import Settings  # noqa: E402
from kgmem.store.neo4j.queries import GRAPHITI_REASON  # noqa: E402
from tests.conftest import fresh_group, neo4j_settings, neo4j_store_or_skip  # noqa: E402
from tests.llm.fakeserver import FakeOpenAI, Reply, error  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "graphiti"
MODEL = "gpt-4o-mini"
KEY = "sk-test-graphiti"
PARIS = {"content": "I live in Paris.", "reference_time": "2024-01-10T09:00:00Z",
         "speaker": "Alice", "source_description": "chat with Alice"}
BERLIN = {"content": "I moved to Berlin last month.", "reference_time": "2024-03-15T10:00:00Z",
          "speaker": "Alice", "source_description": "chat with Alice"}
# graphiti 0.31.2's calls per episode, in order (a fresh group; MiniLM embeddings put
# "Berlin" near "Paris", so the second episode asks the node-dedupe prompt too)
CALLS_PARIS = ["ExtractedEntities", "ExtractedEdges", "EdgeTimestamps"]
CALLS_BERLIN = ["ExtractedEntities", "NodeResolutions", "ExtractedEdges", "EdgeDuplicate"]
MODELS = {m.__name__: m for m in (ExtractedEntities, ExtractedEdges, EdgeTimestamps,
                                  NodeResolutions, EdgeDuplicate)}


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def fixtures() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(FIXTURES.glob("*.json"))]


def replay_all(server: FakeOpenAI) -> FakeOpenAI:
    for rec in fixtures():
        server.route_schema(rec["schema"], Reply(200, rec["response"]), rec["contains"])
    return server


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with closing(FakeOpenAI()) as s:
        yield s


@pytest.fixture
def pipeline(server: FakeOpenAI) -> Iterator[Any]:
    made: list[GraphitiPipeline] = []

    def make(**kw: Any) -> GraphitiPipeline:
        neo4j_store_or_skip()
        n = neo4j_settings()
        kw.setdefault("max_retries", 2)
        kw.setdefault("timeout", 10.0)
        gp = GraphitiPipeline(llm_base_url=server.base_url, llm_model=MODEL, llm_api_key=KEY,
                              neo4j_uri=n["uri"], neo4j_user=n["user"] or "neo4j",
                              neo4j_password=n["password"],
                              neo4j_database=n["database"] or "neo4j", **kw)
        made.append(gp)
        return gp

    yield make
    for gp in made:
        gp.close()


def graph_rows(group: str) -> dict[str, list[list[Any]]]:
    store = neo4j_store_or_skip()
    q = store.cypher
    return {
        "episodes": q("MATCH (e:Episodic {group_id: $g}) RETURN e.name, e.content, e.valid_at, "
                      "e.source, e.source_description ORDER BY e.valid_at", g=group),
        "entities": q("MATCH (n:Entity {group_id: $g}) RETURN n.name ORDER BY n.name", g=group),
        "edges": q("MATCH (a:Entity)-[r:RELATES_TO {group_id: $g}]->(b:Entity) RETURN a.name, "
                   "r.name, b.name, r.fact, r.valid_at, r.invalid_at, r.expired_at, r.uuid "
                   "ORDER BY r.valid_at", g=group),
    }


def schemas(server: FakeOpenAI, start: int = 0) -> list[str | None]:
    return [r.schema_name for r in server.requests[start:]]


# ------------------------------------------------------------------ the main scenario
@pytest.mark.neo4j
def test_graphiti_pipeline_writes_the_graph_and_kgmem_reads_it_with_history(
    server: FakeOpenAI, pipeline: Any
) -> None:
    replay_all(server)
    group = fresh_group("gp")
    gp = pipeline()
    r1 = gp.ingest([PARIS], group=group)
    assert schemas(server) == CALLS_PARIS
    assert r1.summary() == {"episodes": 1, "added": 1, "skipped": 0, "edges": 1,
                            "invalidated": 0, "adopted_entities": 2}
    between = datetime.now(timezone.utc)  # graphiti stamps created_at/expired_at by wall clock
    n1 = len(server.requests)
    r2 = gp.ingest([BERLIN], group=group)
    assert schemas(server, n1) == CALLS_BERLIN
    assert r2.summary()["invalidated"] == 1 and r2.summary()["edges"] == 1

    # what graphiti wrote: two episodes, three entities (Alice resolved, not duplicated),
    # two edges, the Paris one closed in place at Berlin's start
    rows = graph_rows(group)
    assert [e[:2] for e in rows["episodes"]] == [
        [episode_name("I live in Paris.", utc(2024, 1, 10, 9), "message", "Alice"),
         "Alice: I live in Paris."],
        [episode_name("I moved to Berlin last month.", utc(2024, 3, 15, 10), "message", "Alice"),
         "Alice: I moved to Berlin last month."],
    ]
    assert [e[2].to_native() for e in rows["episodes"]] == [utc(2024, 1, 10, 9),
                                                            utc(2024, 3, 15, 10)]
    assert {(e[3], e[4]) for e in rows["episodes"]} == {("message", "chat with Alice")}
    assert [e[0] for e in rows["entities"]] == ["Alice", "Berlin", "Paris"]
    (paris, berlin) = rows["edges"]
    assert paris[:4] == ["Alice", "LIVES_IN", "Paris", "Alice lives in Paris"]
    assert paris[4].to_native() == utc(2024, 1, 10, 9)  # from the EdgeTimestamps reply
    assert paris[5].to_native() == utc(2024, 2, 1) and paris[6] is not None
    assert berlin[:4] == ["Alice", "LIVES_IN", "Berlin", "Alice moved to Berlin"]
    assert berlin[4].to_native() == utc(2024, 2, 1) and berlin[5] is None and berlin[6] is None

    # kgmem reads it: current and valid-time views, both edges as Alice's history
    m = Memory(store=gp.store(), extractor=None)

    def objects(**kw: Any) -> list[str]:
        return sorted(f.object for f in m.facts("Alice", "LIVES_IN", group=group, **kw))

    assert objects() == ["Berlin"]
    assert objects(valid_at="2024-01-20") == ["Paris"]
    assert objects(valid_at="2024-01-31T23:59:59Z") == ["Paris"]
    assert objects(valid_at="2024-02-01") == ["Berlin"]  # closed-open intervals
    assert objects(valid_at="2024-01-10T08:59:59Z") == []
    hist = [f for f in m.history("Alice", group=group) if f.predicate == "LIVES_IN"]
    assert [(f.object, f.valid_at, f.invalid_at) for f in hist] == [
        ("Paris", utc(2024, 1, 10, 9), utc(2024, 2, 1)),
        ("Berlin", utc(2024, 2, 1), None),
    ]
    assert {f.reason for f in hist} == {GRAPHITI_REASON}
    assert [f.id for f in hist] == [paris[7], berlin[7]]
    assert all(f.expired_at is None for f in hist)  # graphiti's expired_at is no retraction
    ep1 = rows["episodes"][0]
    assert [m.episode(e, group=group).content for e in hist[0].episodes] == [ep1[1]]
    # the semantic difference: graphiti edited the Paris edge in place, so "as known just
    # before the Berlin episode" kgmem cannot show Paris open-ended any more (kgmem's own
    # pipeline would: it keeps the superseded version)
    assert objects(valid_at="2024-03-01", known_at=between) == []
    assert objects(valid_at="2024-01-20", known_at=between) == ["Paris"]

    # re-ingesting is idempotent: no LLM call, nothing new in the graph
    n2 = len(server.requests)
    again = gp.ingest([PARIS, BERLIN], group=group)
    assert again.summary()["skipped"] == 2 and again.summary()["added"] == 0
    assert len(server.requests) == n2
    assert graph_rows(group) == rows


@pytest.mark.neo4j
def test_request_bodies_carry_model_schema_and_key(server: FakeOpenAI, pipeline: Any) -> None:
    replay_all(server)
    pipeline().ingest([PARIS, BERLIN], group=fresh_group("gp"))
    assert schemas(server) == CALLS_PARIS + CALLS_BERLIN
    for req in server.requests:
        assert req.path == "/v1/chat/completions"
        assert req.headers["authorization"] == f"Bearer {KEY}"
        body = req.body
        assert body["model"] == MODEL
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        rf = body["response_format"]
        assert rf["type"] == "json_schema"
        assert rf["json_schema"]["schema"] == MODELS[rf["json_schema"]["name"]].model_json_schema()
        assert isinstance(body["max_tokens"], int) and body["max_tokens"] > 0
    first = server.requests[0].user_text
    assert "<CURRENT MESSAGE>\nAlice: I live in Paris.\n</CURRENT MESSAGE>" in first
    # the second episode's extraction sees the first as a previous message, with its time
    second = server.requests[len(CALLS_PARIS)].user_text
    assert "Alice: I live in Paris." in second and "2024-01-10T09:00:00" in second
    resolve = server.requests[-1].user_text
    assert "Alice lives in Paris" in resolve and "Alice moved to Berlin" in resolve


@pytest.mark.neo4j
def test_an_openai_compatible_embedder_can_replace_minilm(server: FakeOpenAI, pipeline: Any
                                                         ) -> None:
    """kgmem's OpenAIEmbedder (any /v1/embeddings endpoint) as graphiti's embedder. The local
    server answers embeddings with deterministic word-hash vectors (kgmem's HashingEmbedder,
    384 dims): a computed stand-in, not recorded vectors."""
    from kgmem.embed import OpenAIEmbedder

    vectors = HashingEmbedder(dim=384)

    def embeddings(req: Any) -> Reply:
        texts = req.body["input"]
        rows = vectors.embed(texts)
        return Reply(200, {
            "object": "list", "model": req.body["model"],
            "data": [{"object": "embedding", "index": i, "embedding": [float(x) for x in row]}
                     for i, row in enumerate(rows)],
            "usage": {"prompt_tokens": 4 * len(texts), "total_tokens": 4 * len(texts)}})

    replay_all(server).route_path("/v1/embeddings", embeddings)
    emb = OpenAIEmbedder(server.base_url, "text-embedding-3-small", api_key=KEY, dim=384)
    group = fresh_group("gp")
    try:
        pipeline(embedder=emb).ingest([PARIS, BERLIN], group=group)
    finally:
        emb.close()
    embedded = [r for r in server.requests if r.path == "/v1/embeddings"]
    assert embedded and all(r.body["model"] == "text-embedding-3-small" for r in embedded)
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in embedded)
    # word-hash vectors put "Berlin" far from "Paris": no node-dedupe question this time
    chat = [r.schema_name for r in server.requests if r.path == "/v1/chat/completions"]
    assert chat == CALLS_PARIS + [c for c in CALLS_BERLIN if c != "NodeResolutions"]
    rows = neo4j_store_or_skip().cypher(
        "MATCH (n:Entity {group_id: $g, name: 'Berlin'}) RETURN n.name_embedding", g=group)
    assert rows[0][0] == pytest.approx([float(x) for x in vectors.embed_one("Berlin")], abs=1e-6)
    m = Memory(store=neo4j_store_or_skip(), extractor=None)
    assert [f.object for f in m.facts("Alice", "LIVES_IN", group=group)] == ["Berlin"]


# ------------------------------------------------------------------ errors and retries
@pytest.mark.neo4j
def test_a_server_error_then_success_is_retried(server: FakeOpenAI, pipeline: Any) -> None:
    replay_all(server).push(error("500_server_error", **{"retry-after-ms": "5"}))
    group = fresh_group("gp")
    res = pipeline(max_retries=2).ingest([PARIS], group=group)
    assert res.added == 1
    assert schemas(server) == ["ExtractedEntities", *CALLS_PARIS]  # the 500, then the retry
    assert server.requests[0].body == server.requests[1].body
    assert len(graph_rows(group)["edges"]) == 1


@pytest.mark.neo4j
def test_a_timeout_then_success_is_retried(server: FakeOpenAI, pipeline: Any) -> None:
    replay_all(server).push(Reply(200, {"never": "read"}, delay=3.0))
    group = fresh_group("gp")
    t0 = time.monotonic()
    res = pipeline(timeout=0.5, max_retries=1).ingest([PARIS], group=group)
    assert res.added == 1 and time.monotonic() - t0 < 30
    assert schemas(server) == ["ExtractedEntities", *CALLS_PARIS]
    assert len(graph_rows(group)["edges"]) == 1


@pytest.mark.neo4j
def test_persistent_failure_names_the_episode_keeps_earlier_ones_and_resumes(
    server: FakeOpenAI, pipeline: Any
) -> None:
    # only the first episode's replies exist: the second one's first call gets the server's
    # "unscripted request" 500 on every attempt
    for rec in fixtures():
        if rec["contains"] in ("Alice: I live in Paris.", "Alice lives in Paris"):
            server.route_schema(rec["schema"], Reply(200, rec["response"]), rec["contains"])
    group = fresh_group("gp")
    gp = pipeline(max_retries=1)
    with pytest.raises(LLMUnavailableError) as info:
        gp.ingest([PARIS, BERLIN], group=group)
    err = info.value
    assert "episode 1" in err.message and "HTTP 500" in err.message
    assert "unscripted request" in err.message and err.status_code == 500
    assert err.details["episode"] == episode_name(
        BERLIN["content"], utc(2024, 3, 15, 10), "message", "Alice")
    assert schemas(server) == CALLS_PARIS + ["ExtractedEntities"] * 2  # 1 try + 1 retry
    rows = graph_rows(group)
    assert [e[1] for e in rows["episodes"]] == ["Alice: I live in Paris."]  # nothing half-written
    assert [(e[2], e[5]) for e in rows["edges"]] == [("Paris", None)]
    m = Memory(store=gp.store(), extractor=None)  # what was written before the failure is readable by name
    assert [f.object for f in m.facts("Alice", group=group)] == ["Paris"]
    # once the endpoint answers, re-running skips the stored episode and adds the other
    replay_all(server)
    n = len(server.requests)
    res = gp.ingest([PARIS, BERLIN], group=group)
    assert [e.skipped for e in res.episodes] == [True, False]
    assert schemas(server, n) == CALLS_BERLIN
    assert [e[2] for e in graph_rows(group)["edges"]] == ["Paris", "Berlin"]


@pytest.mark.neo4j
def test_an_auth_error_is_not_retried(server: FakeOpenAI, pipeline: Any) -> None:
    replay_all(server).push(error("401_invalid_api_key"))
    group = fresh_group("gp")
    with pytest.raises(LLMAuthError) as info:
        pipeline().ingest([PARIS], group=group)
    assert "HTTP 401" in info.value.message and "KGMEM_LLM_API_KEY" in info.value.message
    assert len(server.requests) == 1
    assert graph_rows(group)["episodes"] == []


# ------------------------------------------------------------------ configuration (no server)
def test_configuration_errors_are_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("KGMEM_LLM_BASE_URL", "KGMEM_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(InvalidInputError, match="KGMEM_LLM_BASE_URL"):
        GraphitiPipeline.from_settings(Settings(_env_file=None))
    with pytest.raises(LLMAuthError, match="KGMEM_LLM_API_KEY"):
        GraphitiPipeline(llm_base_url="https://api.openai.com/v1", llm_model=MODEL)
    with pytest.raises(InvalidInputError, match="http"):
        GraphitiPipeline(llm_base_url="localhost:11434", llm_model=MODEL)
    with pytest.raises(InvalidInputError, match="384"):
        GraphitiPipeline(llm_base_url="http://127.0.0.1:9/v1", llm_model=MODEL,
                         embedder=HashingEmbedder())  # 64 dims
    gp = GraphitiPipeline.from_settings(
        Settings(_env_file=None, llm_base_url="http://127.0.0.1:9", llm_model="llama3.1"),
        embedder=HashingEmbedder(dim=384))
    assert gp.base_url == "http://127.0.0.1:9/v1" and gp.model == "llama3.1"
    # every episode is validated before anything is sent or written
    with pytest.raises(InvalidInputError, match="letters, digits"):
        gp.prepare([PARIS], group="team.a")  # kgmem allows '.', graphiti does not
    with pytest.raises(InvalidInputError, match="episode 1: reference_time"):
        gp.prepare([PARIS, {"content": "x"}], group="g")
    with pytest.raises(InvalidInputError, match="must hold JSON"):
        gp.prepare([{"content": "not json", "reference_time": "2024-01-01", "source": "json"}])
    eps = gp.prepare([PARIS, {"content": "A memo.", "reference_time": "2024-01-01",
                              "source": "text"}], group="g")
    assert [(e.source, e.body) for e in eps] == [("message", "Alice: I live in Paris."),
                                                 ("text", "A memo.")]


def test_embedder_and_reranker_adapters_use_kgmem_embeddings() -> None:
    import asyncio

    emb = KgmemEmbedder(HashingEmbedder(dim=384))
    one = asyncio.run(emb.create("Alice lives in Paris"))
    same = asyncio.run(emb.create(["Alice lives in Paris"]))
    batch = asyncio.run(emb.create_batch(["Alice lives in Paris", "Bob"]))
    assert len(one) == 384 and one == same == batch[0]
    with pytest.raises(InvalidInputError):
        asyncio.run(emb.create([1, 2, 3]))
    ranked = asyncio.run(EmbeddingReranker(emb).rank(
        "where does Alice live", ["Bob plays chess", "Alice lives in Paris"]))
    assert [p for p, _ in ranked] == ["Alice lives in Paris", "Bob plays chess"]
    assert ranked[0][1] > ranked[1][1]


# ------------------------------------------------------------------ the CLI
@pytest.mark.neo4j
def test_cli_ingest_with_the_graphiti_extractor(
    server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    neo4j_store_or_skip()
    replay_all(server)
    n = neo4j_settings()
    for k, v in {"KGMEM_LLM_BASE_URL": server.base_url, "KGMEM_LLM_MODEL": MODEL,
                 "KGMEM_LLM_API_KEY": KEY, "KGMEM_LLM_MAX_RETRIES": "0",
                 "KGMEM_NEO4J_URI": n["uri"], "KGMEM_NEO4J_DATABASE": n["database"]}.items():
        monkeypatch.setenv(k, v or "")
    f = tmp_path / "chat.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in (PARIS, BERLIN)))
    group = fresh_group("gp")
    runner = CliRunner()
    args = ["--store", "neo4j", "--group", group, "--json", "ingest", str(f),
            "--extractor", "graphiti"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"extractor": "graphiti", "episodes": 2, "added": 2,
                                    "skipped": 0, "edges": 2, "invalidated": 1,
                                    "adopted_entities": 3}
    assert schemas(server) == CALLS_PARIS + CALLS_BERLIN
    r = runner.invoke(app, ["--store", "neo4j", "--group", group, "--json", "facts", "-s", "Alice"])
    assert r.exit_code == 0, r.output
    assert [f["object"] for f in json.loads(r.stdout)] == ["Berlin"]
    r = runner.invoke(app, args)  # idempotent
    assert json.loads(r.stdout)["skipped"] == 2 and len(server.requests) == 7
    # the embedded store cannot take graphiti's writes: a clear error, exit status 2
    r = runner.invoke(app, ["--home", str(tmp_path / "h"), "ingest", str(f),
                            "--extractor", "graphiti"])
    assert r.exit_code == 2 and "--store neo4j" in r.output
    # the global option works for ingest (as above) and is refused elsewhere, not ignored
    r = runner.invoke(app, ["--store", "neo4j", "--group", group, "--json",
                            "--extractor", "graphiti", "ingest", str(f)])
    assert r.exit_code == 0 and json.loads(r.stdout)["skipped"] == 2, r.output
    r = runner.invoke(app, ["--home", str(tmp_path / "h"), "--extractor", "graphiti", "add",
                            "I live in Oslo.", "--time", "2024-01-01"])
    assert r.exit_code == 2 and "kgmem ingest" in r.output
