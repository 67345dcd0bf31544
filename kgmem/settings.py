"""One settings class for the library, CLI, API and MCP server (environment: ``KGMEM_*``).

Plain configuration: :func:`kgmem.factory.open_memory` builds a Memory from it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


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

    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None

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
