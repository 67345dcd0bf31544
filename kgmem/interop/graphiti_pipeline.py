"""Run graphiti-core's own ingestion pipeline (``Graphiti.add_episode``) into kgmem's Neo4j.

For users who want exactly graphiti's LLM extraction (its prompts, entity and edge
deduplication, edge dating and invalidation) while reading the graph with kgmem::

    from kgmem.interop.graphiti_pipeline import GraphitiPipeline
    with GraphitiPipeline.from_settings(settings) as gp:   # KGMEM_NEO4J_*, KGMEM_LLM_*
        result = gp.ingest(episodes, group="team-a")      # the dicts Memory.add_episodes takes

* LLM: graphiti's ``OpenAIGenericClient`` (``POST {base_url}/chat/completions`` with a
  ``json_schema`` response format named after graphiti's response model) pointed at
  ``KGMEM_LLM_BASE_URL`` / ``KGMEM_LLM_MODEL`` / ``KGMEM_LLM_API_KEY``. Timeouts and retries of
  429/5xx/timeouts/connection errors are the OpenAI SDK's (``KGMEM_LLM_TIMEOUT``,
  ``KGMEM_LLM_MAX_RETRIES``); graphiti adds its own slower retries on top for rate limits and
  unparsable JSON. Failures surface as :mod:`kgmem.llm` errors naming the episode.
* Embeddings: kgmem's offline MiniLM (384 dims, the size of kgmem's Neo4j vector indexes) through
  :class:`KgmemEmbedder`, or any other kgmem :class:`~kgmem.embed.Embedder` of 384 dims (e.g.
  :class:`kgmem.embed.OpenAIEmbedder` for an OpenAI-compatible ``/embeddings`` endpoint).
* Reranking: :class:`EmbeddingReranker` (cosine of the same embeddings; no network).
  ``add_episode`` itself does not rerank; graphiti's ``search`` recipes with a cross-encoder do.
* Episodes: same group, reference time and source description as in kgmem. A ``message``
  with a speaker is sent as ``"Speaker: text"`` (graphiti's chat convention). Each episode is
  one graphiti transaction: an LLM failure writes nothing for that episode; the ones before it
  stay written. Re-ingesting skips episodes already present (the graphiti episode ``name``
  is ``kgmem-<digest>`` of content, reference time, source and speaker).
* After a run, graphiti's entities get kgmem's lookup keys
  (:meth:`kgmem.store.neo4j.Neo4jStore.adopt_graphiti_entities`), so ``Memory.facts("Alice")``
  finds them. Semantics differ: graphiti closes a fact by editing its edge in place
  (``invalid_at``/``expired_at``), kgmem keeps versions; kgmem reads each graphiti edge as a
  one-version lineage (see docs/graphiti.md).

graphiti's anonymous telemetry is switched off (``GRAPHITI_TELEMETRY_ENABLED=false``) unless
the variable is already set.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError, StoreUnavailableError, missing_extra
from ..llm.client import chat_completions_url
from ..llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMOutputError,
    LLMUnavailableError,
    ResponseFormatUnsupportedError,
)
from ..names import check_group, clean_name
from ..timeutil import parse_instant

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

import numpy as np  # noqa: E402

try:  # an extra: pip install 'kgmem[graphiti]'
    from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
    from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
except ImportError as _exc:
    raise missing_extra("graphiti-core's pipeline (--extractor graphiti)", "graphiti",
                        "graphiti-core") from _exc

if TYPE_CHECKING:
    from graphiti_core import Graphiti

    from ..embed.base import Embedder
    from ..settings import Settings
    from ..store.neo4j import Neo4jStore

# what graphiti's EmbedderClient.create takes (text, texts, or token ids it refuses)
EmbedderInput = str | list[str] | Iterable[int] | Iterable[Iterable[int]]

__all__ = [
    "EmbeddingReranker",
    "GraphitiEpisodeResult",
    "GraphitiIngestResult",
    "GraphitiPipeline",
    "KgmemEmbedder",
    "episode_name",
]

EMBEDDING_DIM = 384  # kgmem's Neo4j vector indexes (kgmem.store.neo4j.schema)
_GRAPHITI_GROUP = re.compile(r"^[A-Za-z0-9_-]+$")
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output")


# ------------------------------------------------------------------------ model clients
class KgmemEmbedder(EmbedderClient):
    """graphiti's ``EmbedderClient`` over a kgmem :class:`~kgmem.embed.Embedder`."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        if embedder is None:
            from ..embed import get_default_embedder

            embedder = get_default_embedder()
        self.embedder = embedder

    @property
    def dim(self) -> int:
        return int(self.embedder.dim)

    @staticmethod
    def _text(input_data: EmbedderInput) -> str:
        if isinstance(input_data, str):
            return input_data
        items = list(input_data)
        if items and all(isinstance(x, str) for x in items):
            return str(items[0])  # like graphiti's OpenAIEmbedder: the first input's vector
        raise InvalidInputError("KgmemEmbedder embeds text, not token ids")

    async def create(self, input_data: EmbedderInput) -> list[float]:
        vec = await asyncio.to_thread(self.embedder.embed_one, self._text(input_data))
        return [float(x) for x in vec]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        if not input_data_list:
            return []
        rows = await asyncio.to_thread(self.embedder.embed, list(input_data_list))
        return [[float(x) for x in row] for row in rows]


class EmbeddingReranker(CrossEncoderClient):
    """An offline stand-in for a cross-encoder: passages by cosine similarity to the query,
    using the same embedder (bi-encoder scores in [-1, 1], best first)."""

    def __init__(self, embedder: KgmemEmbedder) -> None:
        self.embedder = embedder

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        rows = await self.embedder.create_batch([query, *passages])
        m = np.asarray(rows, dtype=np.float32)
        scores = m[1:] @ m[0]  # kgmem embedders return unit rows
        order = sorted(range(len(passages)), key=lambda i: -float(scores[i]))
        return [(passages[i], float(scores[i])) for i in order]


# ------------------------------------------------------------------------ episodes
@dataclass(frozen=True)
class _Episode:
    index: int
    group: str
    name: str
    body: str
    source: str  # graphiti EpisodeType value: message | text | json
    source_description: str
    reference_time: datetime


def episode_name(content: str, reference_time: datetime, source: str, speaker: str | None
                 ) -> str:
    """The graphiti episode name kgmem gives an episode (stable: the idempotency key)."""
    digest = hashlib.sha256(
        "\x1f".join([content, reference_time.isoformat(), source, speaker or ""]).encode()
    ).hexdigest()
    return f"kgmem-{digest[:24]}"


def _prepare(i: int, item: Any, group: str) -> _Episode:
    where = f"episode {i}: "
    if not isinstance(item, dict):
        raise InvalidInputError(f"{where}must be an object", index=i)
    g = check_group(item.get("group") or group)
    if not _GRAPHITI_GROUP.match(g):
        raise InvalidInputError(
            f"{where}graphiti-core accepts only letters, digits, '-' and '_' in a group id, "
            f"got {g!r}", field="group", index=i)
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError(f"{where}episode content must not be empty", field="content",
                                index=i)
    if item.get("reference_time") is None:
        raise InvalidInputError(f"{where}reference_time is required", field="reference_time",
                                index=i)
    ref = parse_instant(item["reference_time"], "reference_time")
    speaker = item.get("speaker")
    if speaker is not None:
        speaker = clean_name(speaker, "speaker")
    source = str(item.get("source") or "message")
    if source == "json":
        try:
            json.loads(content)
        except ValueError as exc:
            raise InvalidInputError(f"{where}a json episode must hold JSON: {exc}",
                                    field="content", index=i) from exc
        kind, body = "json", content
    elif source == "message":
        kind, body = "message", f"{speaker}: {content}" if speaker else content
    else:
        kind, body = "text", content
    desc = str(item.get("source_description") or f"kgmem {source}")
    return _Episode(i, g, episode_name(content, ref, source, speaker), body, kind, desc, ref)


# ------------------------------------------------------------------------ results
@dataclass
class GraphitiEpisodeResult:
    name: str
    group: str
    uuid: str | None
    skipped: bool = False
    nodes: int = 0
    edges: int = 0
    invalidated: int = 0


@dataclass
class GraphitiIngestResult:
    episodes: list[GraphitiEpisodeResult] = field(default_factory=list)
    adopted_entities: int = 0

    @property
    def added(self) -> int:
        return sum(not e.skipped for e in self.episodes)

    @property
    def skipped(self) -> int:
        return sum(e.skipped for e in self.episodes)

    def summary(self) -> dict[str, int]:
        return {
            "episodes": len(self.episodes),
            "added": self.added,
            "skipped": self.skipped,
            "edges": sum(e.edges for e in self.episodes),
            "invalidated": sum(e.invalidated for e in self.episodes),
            "adopted_entities": self.adopted_entities,
        }


# ------------------------------------------------------------------------ errors
def _llm_error(exc: BaseException, ep: _Episode, base_url: str) -> LLMError | None:
    """A kgmem LLM error for an exception raised by graphiti's LLM client (None: not one)."""
    import openai
    from graphiti_core.llm_client.errors import EmptyResponseError, RateLimitError
    from pydantic import ValidationError

    where = f"graphiti extraction of episode {ep.index} ({ep.name}) via {base_url}"
    details: dict[str, Any] = {"episode": ep.name, "index": ep.index, "url": base_url}
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        msg = f"{where}: HTTP {status}: {getattr(exc, 'message', None) or exc}"
        if status in (401, 403):
            return LLMAuthError(msg + " (check KGMEM_LLM_API_KEY)", status_code=status, **details)
        if status == 400 and any(w in str(exc).lower() for w in _FORMAT_WORDS):
            return ResponseFormatUnsupportedError(
                msg + " (the server rejects json_schema response formats; try "
                "structured_output_mode='json_object')", status_code=status, **details)
        if status < 500 and status not in (408, 409, 425, 429):
            return LLMBadRequestError(msg, status_code=status, **details)
        return LLMUnavailableError(msg + " (after retries)", status_code=status, **details)
    if isinstance(exc, openai.APITimeoutError):
        return LLMUnavailableError(f"{where}: timed out on every attempt", **details)
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailableError(f"{where}: cannot connect: {exc}", **details)
    if isinstance(exc, RateLimitError):
        return LLMUnavailableError(f"{where}: rate limited on every attempt", status_code=429,
                                   **details)
    if isinstance(exc, (EmptyResponseError, json.JSONDecodeError, ValidationError)):
        return LLMOutputError(f"{where}: unusable model output: {exc}", **details)
    return None


class _NoMissingPropertyNotes(logging.Filter):
    """Drops the Neo4j server's "property key does not exist" notifications (01N52): graphiti
    reads optional properties (e.g. ``reference_time``) a fresh graph has never held."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "property key does not exist" not in record.getMessage()


@contextmanager
def _quiet_neo4j_notes() -> Iterator[None]:
    log = logging.getLogger("neo4j.notifications")
    flt = _NoMissingPropertyNotes()
    log.addFilter(flt)
    try:
        yield
    finally:
        log.removeFilter(flt)


# ------------------------------------------------------------------------ the pipeline
class GraphitiPipeline:
    """graphiti-core's ``add_episode`` for kgmem episodes, into kgmem's Neo4j database."""

    def __init__(
        self,
        *,
        llm_base_url: str,
        llm_model: str,
        llm_api_key: str | None = None,
        neo4j_uri: str = "bolt://127.0.0.1:7687",
        neo4j_user: str = "neo4j",
        neo4j_password: str | None = None,
        neo4j_database: str = "neo4j",
        embedder: Embedder | None = None,
        store: Neo4jStore | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        structured_output_mode: str = "json_schema",
        max_tokens: int | None = None,
    ) -> None:
        if not llm_base_url:
            raise InvalidInputError(
                "graphiti extraction needs an OpenAI-compatible endpoint: set KGMEM_LLM_BASE_URL "
                "(e.g. http://localhost:11434/v1) or KGMEM_LLM_API_KEY for api.openai.com",
                field="llm_base_url")
        # chat_completions_url validates the URL and adds /v1 to a bare host
        self.base_url = chat_completions_url(llm_base_url)[: -len("/chat/completions")]
        if not llm_model:
            raise InvalidInputError("graphiti extraction needs a model (KGMEM_LLM_MODEL)",
                                    field="llm_model")
        if not llm_api_key and "api.openai.com" in self.base_url:
            raise LLMAuthError("graphiti extraction on api.openai.com needs KGMEM_LLM_API_KEY",
                               url=self.base_url)
        if structured_output_mode not in ("json_schema", "json_object"):
            raise InvalidInputError("structured_output_mode must be json_schema or json_object")
        self.model = llm_model
        self.api_key = llm_api_key
        self.neo4j: dict[str, Any] = dict(uri=neo4j_uri, user=neo4j_user, password=neo4j_password,
                          database=neo4j_database or "neo4j")
        self.embedder = KgmemEmbedder(embedder)
        if self.embedder.dim != EMBEDDING_DIM:
            raise InvalidInputError(
                f"kgmem's Neo4j vector indexes hold {EMBEDDING_DIM}-dim vectors; the embedder "
                f"{getattr(self.embedder.embedder, 'name', '?')!r} has {self.embedder.dim}")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.structured_output_mode = structured_output_mode
        self.max_tokens = max_tokens
        self._store = store
        self._own_store = False

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any
                      ) -> GraphitiPipeline:
        """From :class:`kgmem.settings.Settings` (``KGMEM_NEO4J_*``, ``KGMEM_LLM_BASE_URL``,
        ``KGMEM_LLM_MODEL``, ``KGMEM_LLM_API_KEY``, ``KGMEM_LLM_TIMEOUT``,
        ``KGMEM_LLM_MAX_RETRIES``, ``KGMEM_LLM_MAX_TOKENS``); ``overrides`` win."""
        from ..ingest.llm import DEFAULT_BASE_URL

        if settings is None:
            from ..settings import Settings

            settings = Settings()
        key = settings.llm_api_key
        base = settings.llm_base_url or (DEFAULT_BASE_URL if key else None)
        kw: dict[str, Any] = dict(
            llm_base_url=base, llm_model=settings.llm_model, llm_api_key=key,
            neo4j_uri=settings.neo4j_uri, neo4j_user=settings.neo4j_user,
            neo4j_password=settings.neo4j_password, neo4j_database=settings.neo4j_database,
            timeout=settings.llm_timeout, max_retries=settings.llm_max_retries,
            max_tokens=settings.llm_max_tokens,
        )
        kw.update(overrides)
        return cls(**kw)

    # -------------------------------------------------------------- building graphiti
    def graphiti(self) -> Graphiti:
        """A ``Graphiti`` wired to this pipeline's endpoint, embedder and Neo4j (call inside
        a running event loop: graphiti's driver starts building its indexes at once)."""
        from graphiti_core import Graphiti
        from graphiti_core.driver.neo4j_driver import Neo4jDriver
        from graphiti_core.llm_client.config import LLMConfig
        from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
        from openai import AsyncOpenAI

        n = self.neo4j
        driver = Neo4jDriver(n["uri"], n["user"], n["password"], n["database"])
        key = self.api_key or "no-key"  # the SDK insists on one; local servers ignore it
        client = AsyncOpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout,
                             max_retries=self.max_retries)
        config = LLMConfig(api_key=key, model=self.model, base_url=self.base_url,
                           small_model=self.model)
        kw: dict[str, Any] = {"structured_output_mode": self.structured_output_mode}
        if self.max_tokens:
            kw["max_tokens"] = self.max_tokens
        llm = OpenAIGenericClient(config=config, client=client, **kw)
        return Graphiti(graph_driver=driver, llm_client=llm, embedder=self.embedder,
                        cross_encoder=EmbeddingReranker(self.embedder))

    def prepare(self, items: Iterable[Mapping[str, object]], group: str = "default"
                ) -> list[_Episode]:
        """Validate every episode (before anything is written)."""
        return [_prepare(i, item, group) for i, item in enumerate(items)]

    # -------------------------------------------------------------- running
    async def aingest(self, items: Iterable[Mapping[str, object]], group: str = "default",
                      on_episode: Callable[[int], None] | None = None
                      ) -> GraphitiIngestResult:
        """``add_episode`` for each new episode, in order (graphiti needs them sequential).
        Episodes already in the graph are skipped (see :func:`episode_name`)."""
        episodes = self.prepare(items, group)
        with _quiet_neo4j_notes():
            return await self._run(episodes, on_episode)

    async def _run(self, episodes: list[_Episode], on_episode: Callable[[int], None] | None
                   ) -> GraphitiIngestResult:
        from graphiti_core.nodes import EpisodeType
        from neo4j.exceptions import AuthError, ServiceUnavailable

        result = GraphitiIngestResult()
        g = self.graphiti()
        where = f"Neo4j at {self.neo4j['uri']} (database {self.neo4j['database']!r})"
        try:
            try:
                init = getattr(g.driver, "_init_task", None)  # index creation, started in init
                if init is not None:
                    await init
                else:
                    await g.build_indices_and_constraints()
            except (ServiceUnavailable, OSError) as exc:
                raise StoreUnavailableError(f"cannot reach {where}: {exc}") from exc
            except AuthError as exc:
                raise StoreUnavailableError(f"{where} refused the credentials: {exc}") from exc
            for ep in episodes:
                present = await self._existing_uuid(g, ep)
                if present is not None:
                    result.episodes.append(GraphitiEpisodeResult(ep.name, ep.group, present,
                                                                 skipped=True))
                else:
                    try:
                        r = await g.add_episode(
                            name=ep.name, episode_body=ep.body,
                            source_description=ep.source_description,
                            reference_time=ep.reference_time, source=EpisodeType(ep.source),
                            group_id=ep.group)
                    except Exception as exc:
                        mapped = _llm_error(exc, ep, self.base_url)
                        if mapped is None:
                            raise
                        raise mapped from exc
                    # r.edges = this episode's edges + older edges it invalidated (edited
                    # in place by graphiti; they do not cite this episode)
                    mine = [e for e in r.edges if r.episode.uuid in e.episodes]
                    result.episodes.append(GraphitiEpisodeResult(
                        ep.name, ep.group, r.episode.uuid, nodes=len(r.nodes),
                        edges=len(mine), invalidated=len(r.edges) - len(mine)))
                if on_episode is not None:
                    on_episode(1)
        finally:
            await g.close()
        return result

    @staticmethod
    async def _existing_uuid(g: Graphiti, ep: _Episode) -> str | None:
        records, _, _ = await g.driver.execute_query(
            "MATCH (e:Episodic {group_id: $g, name: $n}) RETURN e.uuid AS uuid LIMIT 1",
            g=ep.group, n=ep.name, routing_="r")
        return records[0]["uuid"] if records else None

    def ingest(self, items: Iterable[Mapping[str, object]], group: str = "default",
               on_episode: Callable[[int], None] | None = None) -> GraphitiIngestResult:
        """Synchronous :meth:`aingest` plus kgmem's adoption of the new entities (also of
        the episodes written before a failure, which is then re-raised)."""
        items = list(items)
        groups = sorted({e.group for e in self.prepare(items, group)})
        try:
            result = asyncio.run(self.aingest(items, group, on_episode))
        except Exception:
            with suppress(Exception):  # the original error matters more
                self._adopt(groups)
            raise
        result.adopted_entities = self._adopt(groups)
        return result

    def _adopt(self, groups: list[str]) -> int:
        store = self.store()
        return sum(store.adopt_graphiti_entities(g) for g in groups)

    # -------------------------------------------------------------- kgmem side
    def store(self) -> Neo4jStore:
        """The kgmem store reading the same database (given, or opened on first use)."""
        if self._store is None:
            from ..store.neo4j import Neo4jStore

            n = self.neo4j
            self._store = Neo4jStore(uri=n["uri"], user=n["user"], password=n["password"],
                                     database=n["database"])
            self._own_store = True
        return self._store

    def close(self) -> None:
        if self._own_store and self._store is not None:
            self._store.close()
        self._store = None

    def __enter__(self) -> GraphitiPipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

