"""Optional LLM fact extraction through any OpenAI-compatible chat-completions endpoint.

``LLMExtractor(base_url, model, api_key=None, ...)`` offers the same interface as
:class:`kgmem.ingest.offline.OfflineExtractor` -- ``extract(text, reference_time, speaker=None,
user=None)`` and ``extract_many(items)`` returning :class:`ExtractedFact` lists -- so
:class:`kgmem.ingest.pipeline.ExtractionPipeline` uses either unchanged
(``KGMEM_EXTRACTOR=llm`` selects this one via :meth:`LLMExtractor.from_settings`).

Per sitting: **one** ``POST {base_url}/chat/completions`` with the versioned prompt
(:mod:`kgmem.ingest.llm_prompt`) holding a conversation's consecutive turns (cut into chunks
when long: :mod:`kgmem.ingest.llm_turns`) and a strict ``json_schema`` response format. Each
fact names its turn; the words that date it are resolved by kgmem against that turn's time
(:mod:`kgmem.ingest.llm_time`); the reply is read and validated by
:mod:`kgmem.ingest.llm_reply`. Servers that reject the format are asked again with
``json_object`` and then with no response format (the schema goes into the prompt); the
working mode is remembered per endpoint. Models that reject ``temperature`` get it dropped
the same way.

* **Retries**: 408/409/425/429/5xx, timeouts and network errors, exponential backoff with
  jitter, ``Retry-After`` honoured (:class:`kgmem.llm.ChatClient`).
* **Errors**: :class:`LLMError` (``type`` ``"llm_error"``) and subclasses: 401/403 ->
  :class:`LLMAuthError`; a reply that is not the JSON asked for gets one repair request, then
  :class:`LLMOutputError`.
* **Validation**: each fact is validated with pydantic; invalid facts are dropped with a
  logged warning (never an exception). I/me/my left in the output are mapped to the speaker.
* **Cache**: responses are stored in SQLite under ``cache_dir`` keyed by sha256 of (model,
  prompt version, messages): re-ingesting the same sittings makes no calls.
* **Accounting**: :attr:`LLMExtractor.stats` (:class:`kgmem.llm.LLMStats`) sums ``usage``
  tokens per call, counts calls / cache hits / retries, and prices calls from ``prices``
  (USD per 1M tokens, per model).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from kgmem.errors import InvalidInputError
from kgmem.llm import (
    ChatClient,
    ChatResult,
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMOutputError,
    LLMStats,
    LLMUnavailableError,
    LLMUnreachableError,
    PriceTable,
    ResponseCache,
    ResponseFormatUnsupportedError,
    cache_key,
)
from kgmem.names import normalize_name
from kgmem.settings import (
    DEFAULT_LLM_CHUNK_TOKENS,
    DEFAULT_LLM_CONTEXT_TURNS,
    DEFAULT_LLM_CONTEXT_WINDOW,
    DEFAULT_LLM_MAX_TOKENS,
    Settings,
)
from kgmem.timeline import is_interval
from kgmem.timeutil import parse_instant, to_utc
from kgmem.vocabulary import Vocabulary

from . import llm_prompt as P
from .facts import ANY_OBJECT, ExtractedFact, normalize_item, resolve_speaker
from .llm_reply import BadReply, LLMFact, parse_reply, salvage_facts
from .llm_time import in_text, resolve_fact_times
from .llm_turns import Chunk, Turn, estimate_tokens, plan_chunks

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_TOKENS",
    "EpisodeOutcome",
    "LLMAuthError",
    "LLMError",
    "LLMExtractor",
    "LLMFact",
    "LLMOutputError",
    "LLMUnavailableError",
    "ends_batch",
    "parse_reply",
    "primary_error",
    "salvage_facts",
]

log = logging.getLogger("kgmem.ingest.llm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
FORMAT_MODES = ("json_schema", "json_object", "none")
# the extractor's defaults live with the settings (kgmem.settings says what each bounds)
DEFAULT_MAX_TOKENS = DEFAULT_LLM_MAX_TOKENS
DEFAULT_CHUNK_TOKENS = DEFAULT_LLM_CHUNK_TOKENS
DEFAULT_CONTEXT_TURNS = DEFAULT_LLM_CONTEXT_TURNS
DEFAULT_CONTEXT_WINDOW = DEFAULT_LLM_CONTEXT_WINDOW

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours",
                           "ourselves", "speaker", "the speaker"})
_PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers", "they", "them", "their",
                       "it", "its", "you", "your", "yours", "this", "that", "someone"})


def default_cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "kgmem" / "llm"


def _span(text: str, quote: str) -> tuple[int, int]:
    q = quote.strip().strip('"\u201c\u201d\'')
    if not q:
        return (0, 0)
    i = text.find(q)
    if i < 0:
        i = text.lower().find(q.lower())
    return (i, i + len(q)) if i >= 0 else (0, 0)


# --------------------------------------------------------------------------- extractor
@dataclass
class EpisodeOutcome:
    """What extraction did for one episode of a batch: its facts, or the error that left it
    without any (to be retried later). ``attempted=False``: not sent at all, because an
    earlier error stopped the batch (``error`` says which). The shape of
    :class:`kgmem.ingest.pipeline.Outcome`, which records it on the episode."""

    facts: list[ExtractedFact] = field(default_factory=list)
    error: LLMError | None = None
    attempted: bool = True

    @property
    def ok(self) -> bool:
        return self.error is None


def ends_batch(exc: LLMError) -> bool:
    """Errors every later request would hit too: stop the batch instead of trying them all."""
    if isinstance(exc, (LLMUnreachableError, LLMAuthError)):
        return True
    if isinstance(exc, LLMUnavailableError) and exc.details.get("code") == "insufficient_quota":
        return True
    return isinstance(exc, LLMBadRequestError) and exc.status_code == 404


class LLMExtractor:
    """Fact extraction with an OpenAI-compatible chat model (see the module docstring).

    ``cache_dir``: where the SQLite response cache lives (default ``$KGMEM_LLM_CACHE_DIR`` via
    :meth:`from_settings`, else ``~/.cache/kgmem/llm``); ``cache=False`` disables caching (and
    the memory of what the endpoint supports lasts only as long as the instance).
    ``prices``: ``{model: (input, output[, cached_input])}`` in USD per 1M tokens.
    ``concurrency``: threads used by :meth:`extract_many`. ``on_error``: ``"raise"`` (default)
    re-raises a failed episode after the batch ran (successful answers are cached, and
    :meth:`extract_outcomes` keeps their facts); ``"skip"`` logs it and returns no facts for
    that episode. Either way an unreachable endpoint, a rejected key or an unknown model stops
    the batch at once. ``timeout`` bounds one HTTP request, ``episode_timeout`` one episode
    (retries and the repair request included); ``max_tokens`` (default
    :data:`DEFAULT_MAX_TOKENS`, ``None`` or 0 for the server's default) bounds the reply.
    ``instructions``: ``"system"`` sends them as the system message, ``"user"`` at the start of
    the user message (for chat formats without a system role), ``"auto"`` (default) starts
    with the system message and switches to ``"user"`` when the server's prompt token count
    shows that the system message was dropped. ``vocabulary``: the predicates offered to the
    model (default :data:`kgmem.vocabulary.DEFAULT_PREDICATES`);
    ``allow_new_predicates=False`` drops facts whose predicate is not in it.
    ``transport``/``sleep`` are test injection points; ``extra_body`` is merged into every
    request (e.g. ``{"seed": 7}`` or Ollama ``{"options": {"num_ctx": 8192}}``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        cache_dir: str | Path | None = None,
        temperature: float | None = 0.0,
        *,
        cache: bool = True,
        concurrency: int = 4,
        prices: Mapping[str, Any] | None = None,
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        episode_timeout: float = 300.0,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 60.0,
        response_format: str = "json_schema",
        instructions: str = "auto",
        vocabulary: Vocabulary | None = None,
        allow_new_predicates: bool = True,
        on_error: str = "raise",
        chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
        context_turns: int = DEFAULT_CONTEXT_TURNS,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if response_format not in FORMAT_MODES:
            raise InvalidInputError(f"response_format must be one of {FORMAT_MODES}",
                                    field="response_format")
        if instructions not in ("auto", *P.LAYOUTS):
            raise InvalidInputError("instructions must be 'auto', 'system' or 'user'",
                                    field="instructions")
        if on_error not in ("raise", "skip"):
            raise InvalidInputError("on_error must be 'raise' or 'skip'", field="on_error")
        if episode_timeout <= 0:
            raise InvalidInputError("episode_timeout must be > 0", field="episode_timeout")
        self.stats = LLMStats()
        self.client = ChatClient(
            base_url, model, api_key, timeout, max_retries,
            backoff_base=backoff_base, max_backoff=max_backoff, max_retry_after=max_retry_after,
            headers=headers, transport=transport, sleep=sleep,
            on_request=lambda: self.stats.add(requests=1),
            on_retry=self._on_retry,
        )
        self.model = self.client.model
        self.base_url = base_url
        self.prompt_version = P.PROMPT_VERSION
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.episode_timeout = float(episode_timeout)
        self.concurrency = max(1, int(concurrency))
        self.prices = PriceTable(prices)
        self.vocabulary = vocabulary or Vocabulary()
        self.allow_new_predicates = allow_new_predicates
        self.on_error = on_error
        self.chunk_tokens = int(chunk_tokens)
        self.context_turns = max(0, int(context_turns))
        self.context_window = int(context_window)
        self.extra_body = dict(extra_body or {})
        self.response_format_mode = response_format
        self.instructions = "system" if instructions == "auto" else instructions
        self._detect_layout = instructions == "auto"
        self._send_temperature = temperature is not None
        self._lock = threading.Lock()
        self.cache: ResponseCache | None = None
        if cache:
            self.cache = ResponseCache(cache_dir if cache_dir is not None else default_cache_dir())
            self._recall_endpoint()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any) -> LLMExtractor:
        """Build from :class:`kgmem.settings.Settings` (``KGMEM_LLM_BASE_URL``,
        ``KGMEM_LLM_MODEL``, ``KGMEM_LLM_API_KEY``, ``KGMEM_LLM_TIMEOUT``,
        ``KGMEM_LLM_CACHE_DIR``, ``KGMEM_LLM_PRICES``, ...)."""
        if settings is None:
            settings = Settings()
        base_url = getattr(settings, "llm_base_url", None) or DEFAULT_BASE_URL
        api_key: Any = getattr(settings, "llm_api_key", None)
        if api_key is not None and hasattr(api_key, "get_secret_value"):
            api_key = api_key.get_secret_value()
        if not api_key and "api.openai.com" in base_url:
            raise LLMAuthError(
                "the LLM extractor needs an API key for api.openai.com: set KGMEM_LLM_API_KEY "
                "(or KGMEM_LLM_BASE_URL for a local server such as http://localhost:11434/v1)",
                url=base_url,
            )
        kw: dict[str, Any] = dict(
            base_url=base_url,
            model=getattr(settings, "llm_model", None) or "gpt-4o-mini",
            api_key=api_key,
            timeout=settings.llm_timeout,
            episode_timeout=settings.llm_episode_timeout,
            max_retries=settings.llm_max_retries,
            cache_dir=settings.llm_cache_dir,
            temperature=settings.llm_temperature,
            cache=settings.llm_cache,
            concurrency=settings.llm_concurrency,
            prices=settings.llm_prices,
            max_tokens=settings.llm_max_tokens,
            backoff_base=settings.llm_backoff_base,
            response_format=settings.llm_response_format,
            instructions=settings.llm_instructions,
            on_error=settings.llm_on_error,
            chunk_tokens=settings.llm_chunk_tokens,
            context_turns=settings.llm_context_turns,
            context_window=settings.llm_context_window,
        )
        kw.update(overrides)
        return cls(**kw)

    def close(self) -> None:
        self.client.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> LLMExtractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ public API
    def extract(
        self,
        text: str,
        reference_time: datetime | str,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[ExtractedFact]:
        """Facts in one episode said at ``reference_time`` (naive = UTC) by ``speaker``
        (one request: a sitting of one turn).

        ``valid_at``/``invalid_at`` are ``None`` when the text gives no date (the caller uses
        the episode's reference time). Raises :class:`LLMError` if the endpoint fails."""
        if not isinstance(text, str) or not text.strip():
            return []
        turn = Turn(0, text, _utc(reference_time), speaker, user)
        self.stats.add(episodes=1)
        try:
            return self._extract_chunk(Chunk((turn,)))[0]
        except LLMError:
            self.stats.add(errors=1, failed_episodes=1)
            raise

    @property
    def chunk_budget(self) -> int:
        """Most estimated tokens of turns in one request: ``chunk_tokens``, bounded by what
        ``context_window`` leaves after the instructions and the reply (0: one turn each)."""
        if self.chunk_tokens <= 0:
            return 0
        instructions = estimate_tokens(P.build_messages("", vocabulary=self.vocabulary)[0]
                                       ["content"])
        if self.response_format_mode != "json_schema":
            instructions += estimate_tokens(P.schema_instructions())
        room = self.context_window - instructions - (self.max_tokens or 0)
        return max(0, min(self.chunk_tokens, room))

    def extract_outcomes(
        self,
        items: Iterable[str | Mapping[str, Any] | tuple],
        reference_time: datetime | None = None,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[EpisodeOutcome]:
        """One :class:`EpisodeOutcome` per item, in input order, whatever ``on_error`` says:
        the facts of the episodes that succeeded and the error of each that failed.

        Items are read as conversations in the order given: consecutive turns of one
        ``group`` (a mapping key; none for tuples) at most a sitting apart go to the model in
        one request (:func:`kgmem.ingest.llm_turns.plan_chunks`), so a failed request fails
        each of its episodes. After an error that every request would hit
        (:func:`ends_batch`: unreachable endpoint, bad key, unknown model) the requests not
        yet started are not sent and their episodes carry that error."""
        turns = [_turn(i, it, reference_time, speaker, user) for i, it in enumerate(items)]
        outcomes: list[EpisodeOutcome] = [EpisodeOutcome() for _ in turns]
        chunks = plan_chunks(turns, self.chunk_budget, self.context_turns)
        self.stats.add(episodes=len(turns))
        stop: list[LLMError] = []

        def run(chunk: Chunk) -> None:
            n = len(chunk.turns)
            if stop:
                for t in chunk.turns:
                    outcomes[t.index] = EpisodeOutcome(error=stop[0], attempted=False)
                self.stats.add(failed_episodes=n)
                return
            try:
                facts = self._extract_chunk(chunk)
            except LLMError as exc:
                self.stats.add(errors=1, failed_episodes=n)
                for t in chunk.turns:
                    outcomes[t.index] = EpisodeOutcome(error=exc)
                if ends_batch(exc):
                    stop.append(exc)
                log.error("LLM extraction failed for %d episode(s) of the batch (from %d): %s",
                          n, chunk.turns[0].index, exc)
                return
            for t, fs in zip(chunk.turns, facts, strict=True):
                outcomes[t.index] = EpisodeOutcome(fs)

        workers = min(self.concurrency, len(chunks))
        if workers <= 1:
            for c in chunks:
                run(c)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kgmem-llm") as ex:
                list(ex.map(run, chunks))
        if stop:
            left = sum(not o.attempted for o in outcomes)
            log.error("LLM extraction stopped: %s (%d episode(s) of the batch not sent)",
                      stop[0], left)
        return outcomes

    def extract_many(
        self,
        items: Iterable[str | Mapping[str, Any] | tuple],
        reference_time: datetime | None = None,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[list[ExtractedFact]]:
        """Like :meth:`OfflineExtractor.extract_many`: items are ``(text, reference_time[,
        speaker[, user]])`` tuples, mappings with ``text``..., or strings (using the keyword
        arguments). One request per sitting (see :meth:`extract_outcomes`), ``concurrency``
        at a time; results in input order.
        With ``on_error="raise"`` a failure is raised after the batch: the error that stopped
        it, else the first by position."""
        outcomes = self.extract_outcomes(items, reference_time, speaker, user)
        if self.on_error == "raise":
            failure = primary_error(outcomes)
            if failure is not None:
                raise failure
        return [o.facts for o in outcomes]

    # ------------------------------------------------------------------ the endpoint
    def _recall_endpoint(self) -> None:
        """Start from what earlier runs learnt about this endpoint (base URL + model)."""
        assert self.cache is not None
        caps = self.cache.endpoint_caps(self.client.url, self.model)
        mode = caps.get("response_format")
        if mode in FORMAT_MODES and FORMAT_MODES.index(mode) > FORMAT_MODES.index(
                self.response_format_mode):
            self.response_format_mode = mode
        if self._detect_layout and caps.get("instructions") in P.LAYOUTS:
            self.instructions = caps["instructions"]
            self._detect_layout = False

    def _remember(self, **caps: str) -> None:
        if self.cache is not None:
            self.cache.remember_endpoint(self.client.url, self.model, **caps)

    def _downgrade(self, mode: str, exc: LLMError) -> bool:
        """Step below ``mode`` after the server refused it; False when nothing is left."""
        nxt = {"json_schema": "json_object", "json_object": "none"}.get(mode)
        if nxt is None:
            return False
        with self._lock:
            if FORMAT_MODES.index(self.response_format_mode) < FORMAT_MODES.index(nxt):
                log.warning("LLM server refused response_format %r (HTTP %s: %s); using %r from "
                            "now on", mode, exc.status_code,
                            str(exc.details.get("server_message"))[:200], nxt)
                self.response_format_mode = nxt
                self._remember(response_format=nxt)
        return True

    def _system_dropped(self, result: ChatResult, sent: list[dict[str, str]]) -> bool:
        """The server counted too few prompt tokens for the system message to be in them
        (llama-cpp-python's gemma chat format drops it silently). Checked until the first
        reply that shows it was kept."""
        if not self._detect_layout or sent[0]["role"] != "system":
            return False
        prompt = result.usage.get("prompt_tokens")
        if not isinstance(prompt, int) or prompt <= 0:
            return False
        system = len(sent[0]["content"])
        rest = sum(len(m["content"]) for m in sent[1:])
        if prompt * 4 >= rest + 0.4 * system:  # ~4 characters a token
            with self._lock:
                self._detect_layout = False
            return False
        with self._lock:
            if self._detect_layout:
                log.warning("LLM server counted %d prompt tokens for a %d-character system "
                            "message: it was dropped (a chat format without a system role); "
                            "putting the instructions in the user message from now on",
                            prompt, system)
                self._detect_layout = False
                self.instructions = "user"
                self._remember(instructions="user")
        return True

    # ------------------------------------------------------------------ internals
    def _on_retry(self, attempt: int, wait: float, why: str) -> None:
        self.stats.add(retries=1)
        log.warning("LLM request retry %d in %.2fs after %s", attempt, wait, why)

    def _extract_chunk(self, chunk: Chunk) -> list[list[ExtractedFact]]:
        """The facts of each of the chunk's turns, from one request (or the cache). A reply
        cut off at ``max_tokens`` keeps the facts of the turns it finished and asks again for
        the turns after them (with the earlier ones as context)."""
        turns, context = chunk.prompt_turns()
        messages = P.build_turn_messages(turns, context, self.vocabulary)
        key = cache_key(self.model, self.prompt_version, messages)
        self.stats.add(chunks=1, context_turns=len(chunk.context))
        raw: list[Any] | None = None
        result: ChatResult | None = None
        if self.cache is not None:
            body = self.cache.get(key)
            if body is not None:
                try:
                    result = ChatResult.from_body(body, self.model)
                    raw = self._facts_of(result, count=False)
                    self.stats.add(cache_hits=1)
                except (LLMError, ValueError):
                    raw = None  # unusable cache row: ask again
        if raw is None:
            t0 = time.monotonic()
            try:
                result, raw = self._call(messages, t0 + self.episode_timeout)
            except LLMOutputError as exc:
                if exc.details.get("rejected") != "cut_off" or len(chunk.turns) < 2:
                    raise
                log.warning("LLM reply cut off before its first fact; asking for the %d turns "
                            "in two halves", len(chunk.turns))
                first, second = chunk.split()
                return self._extract_chunk(first) + self._extract_chunk(second)
            except LLMBadRequestError as exc:
                if not _too_long(exc) or len(chunk.turns) < 2:
                    raise
                size = sum(estimate_tokens(t.text) for t in (*chunk.context, *chunk.turns))
                with self._lock:  # later batches are planned to fit
                    self.chunk_tokens = max(1, min(self.chunk_tokens, size // 2))
                log.warning("the request did not fit the server's context (%s); asking for the "
                            "%d turns in two halves and cutting sittings at %d tokens from now "
                            "on (set KGMEM_LLM_CONTEXT_WINDOW to the server's context size)",
                            str(exc.details.get("server_message"))[:160], len(chunk.turns),
                            self.chunk_tokens)
                first, second = chunk.split(keep=min(2, self.context_turns))
                return self._extract_chunk(first) + self._extract_chunk(second)
            finally:
                self.stats.request_done(time.monotonic() - t0)
            if self.cache is not None:
                self.cache.put(key, result.raw, self.model, self.prompt_version,
                               text="\n".join(t.text for t in chunk.turns),
                               texts=[t.text for t in (*chunk.context, *chunk.turns)])
        assert result is not None
        out = self._convert(raw, chunk, result.model or self.model)
        if result.finish_reason == "length" and len(chunk.turns) > 1:
            named = [pos for pos, facts in enumerate(out) if facts]
            rest = max(named[-1] if named else 0, 1)  # the last turn named may be unfinished
            if rest < len(chunk.turns):
                log.warning("LLM reply cut off at max_tokens=%s after turn %d of %d; asking "
                            "again for the rest", self.max_tokens, rest, len(chunk.turns))
                keep = (*chunk.context, *chunk.turns[:rest])[-self.context_turns:] \
                    if self.context_turns else ()
                self.stats.add(facts=sum(len(f) for f in out[:rest]))
                remaining = Chunk(chunk.turns[rest:], keep)
                if rest * 4 < len(chunk.turns) and len(remaining.turns) > 1:
                    # little progress (a model looping on one turn): halves, so a sitting
                    # costs O(n log n) turns of prompt, not O(n^2)
                    first, second = remaining.split()
                    return (out[:rest] + self._extract_chunk(first)
                            + self._extract_chunk(second))
                return out[:rest] + self._extract_chunk(remaining)
        self.stats.add(facts=sum(len(f) for f in out))
        return out

    def _payload(self, messages: list[dict[str, str]], mode: str) -> dict[str, Any]:
        sent = P.arrange(messages, self.instructions, schema=mode != "json_schema")
        payload: dict[str, Any] = {"model": self.model, "messages": sent}
        if self._send_temperature and self.temperature is not None:
            payload["temperature"] = self.temperature
        rf = P.response_format(mode)
        if rf is not None:
            payload["response_format"] = rf
        if self.max_tokens:
            payload["max_tokens"] = self.max_tokens
        payload.update(self.extra_body)
        return payload

    def _send(self, messages: list[dict[str, str]], deadline: float
              ) -> tuple[ChatResult, dict[str, Any]]:
        """One successful response, downgrading the response format / dropping temperature
        when the server refuses them (remembered for the endpoint)."""
        while True:
            mode = self.response_format_mode
            payload = self._payload(messages, mode)
            try:
                return self.client.complete(payload, deadline), payload
            except ResponseFormatUnsupportedError as exc:
                if not self._downgrade(mode, exc):
                    raise
            except LLMBadRequestError as exc:
                msg = str(exc.details.get("server_message") or "").lower()
                if "temperature" in msg and "temperature" in payload:
                    with self._lock:
                        if self._send_temperature:
                            log.warning("LLM model rejected temperature=%s; not sending it from "
                                        "now on", self.temperature)
                        self._send_temperature = False
                    continue
                raise

    def _record(self, result: ChatResult, purpose: str = "extract") -> None:
        self.stats.record_call(result.model, result.usage, self.prices, self.model,
                               result.latency_s, purpose, body=result.raw)

    def _call(self, messages: list[dict[str, str]], deadline: float
              ) -> tuple[ChatResult, list[Any]]:
        result, payload = self._send(messages, deadline)
        self._record(result)
        if self._system_dropped(result, payload["messages"]):
            self.stats.reject("system_dropped")  # answered without instructions: ask again
            result, payload = self._send(messages, deadline)
            self._record(result)
        try:
            return result, self._facts_of(result)
        except BadReply as bad:
            self.stats.reject(bad.reason)
            if bad.reason == "cut_off":  # a repair would be cut off the same way
                raise self._output_error(bad, result, None) from None
            first_error = str(bad)
        self.stats.add(repairs=1)
        log.warning("LLM reply unusable (%s); sending one repair request", first_error)
        repair = {**payload, "messages": P.repair_messages(
            payload["messages"], result.content or "", first_error)}
        fixed = self.client.complete(repair, deadline)
        self._record(fixed, purpose="repair")
        try:
            return fixed, self._facts_of(fixed)
        except BadReply as bad:
            self.stats.reject(bad.reason)
            raise self._output_error(bad, fixed, first_error) from None

    def _output_error(self, bad: BadReply, result: ChatResult, first_error: str | None
                      ) -> LLMOutputError:
        if first_error is None:
            what = (f"{bad}; raise KGMEM_LLM_MAX_TOKENS (now {self.max_tokens}) if the "
                    "episode has many facts")
        else:
            what = f"even after a repair request: {bad} (first reply: {first_error})"
        return LLMOutputError(
            f"model {self.model!r} at {self.client.url} did not return the facts JSON, {what}; "
            f"reply starts {(result.content or '')[:120]!r}",
            url=self.client.url, model=self.model, finish_reason=result.finish_reason,
            rejected=bad.reason,
        )

    def _facts_of(self, result: ChatResult, count: bool = True) -> list[Any]:
        if result.refusal:
            if count:
                self.stats.add(refusals=1)
            log.warning("LLM refused to extract facts: %s", result.refusal[:200])
            return []
        try:
            return parse_reply(result.content)
        except BadReply as bad:
            if result.finish_reason != "length":
                raise
            kept = salvage_facts(result.content)
            if not kept:
                raise BadReply(f"the reply was cut off (finish_reason=length) before its "
                                f"first complete fact ({bad})", "cut_off") from None
        if count:
            self.stats.add(truncated_replies=1)
            log.warning("LLM reply cut off at max_tokens=%s; keeping its %d complete fact(s)",
                        self.max_tokens, len(kept))
        return kept

    def _convert(self, raw: list[Any], chunk: Chunk, model: str) -> list[list[ExtractedFact]]:
        """The reply's valid facts, per turn of the chunk (by the turn each names)."""
        out: list[list[ExtractedFact]] = [[] for _ in chunk.turns]
        position = {t.index: pos for pos, t in enumerate(chunk.turns)}
        seen: set[tuple[int, tuple[str, str, str, str]]] = set()
        known = set(self.vocabulary.names())
        for n, item in enumerate(raw):
            try:
                if not isinstance(item, Mapping):
                    raise ValueError(f"a fact must be a JSON object, got {type(item).__name__}")
                f = LLMFact.model_validate(item)
                turn = _turn_of(f, chunk)
                fact = self._to_fact(f, turn, model)
                if not self.allow_new_predicates and fact.predicate not in known:
                    raise ValueError(f"predicate {fact.predicate} is not in the vocabulary")
            except (ValidationError, ValueError) as exc:
                self.stats.add(dropped_facts=1)
                reason = "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
                ) if isinstance(exc, ValidationError) else str(exc)
                log.warning("dropped invalid LLM fact #%d %s: %s", n, _short(item), reason)
                continue
            who = resolve_speaker(turn.speaker, turn.user)
            fact.subject_is_speaker = normalize_name(fact.subject) == normalize_name(who)
            if (turn.index, fact.key()) in seen:
                continue
            seen.add((turn.index, fact.key()))
            out[position[turn.index]].append(fact)
        return out

    def _to_fact(self, f: LLMFact, turn: Turn, model: str) -> ExtractedFact:
        who = resolve_speaker(turn.speaker, turn.user)
        subject = _resolve_person(f.subject, who, "subject")
        obj = f.object if f.object == ANY_OBJECT else _resolve_person(f.object, who, "object")
        if obj == ANY_OBJECT and f.kind != "end":
            raise ValueError('object "*" is only allowed on "end" facts')
        times = resolve_fact_times(f.start_time, f.end_time, f.kind, turn.text,
                                   turn.reference_time, turn.last_sitting)
        if times.unquoted:
            self.stats.add(unquoted_times=times.unquoted)
            log.info("LLM fact %s %s %s: time words %r / %r are not in its turn; ignored",
                     subject, f.predicate, obj, f.start_time, f.end_time)
        if not is_interval(times.valid_at, times.invalid_at):
            raise ValueError(f"its end ({f.end_time!r}) is not after its start "
                             f"({f.start_time!r})")
        said = [w for w in (f.start_time, f.end_time) if w and in_text(w, turn.text)]
        return ExtractedFact(
            subject=subject,
            predicate=f.predicate,
            object=obj,
            valid_at=times.valid_at,
            valid_precision=times.valid_precision,
            invalid_at=times.invalid_at,
            invalid_precision=times.invalid_precision,
            kind=f.kind,
            confidence=f.confidence,
            evidence=_span(turn.text, f.evidence),
            rule=f"llm:{model}",
            time_text="; ".join(said) or None,
            attributes={"evidence_text": f.evidence, "prompt_version": self.prompt_version,
                        "model": model, "start_time": f.start_time, "end_time": f.end_time},
        )


_TOO_LONG = re.compile(r"context|exceed|too long|maximum .*length|n_ctx|too many tokens", re.I)


def _too_long(exc: LLMBadRequestError) -> bool:
    """The server refused the request for its length (llama.cpp: "Requested tokens (5210)
    exceed context window of 4096"; OpenAI, vLLM: "maximum context length")."""
    return exc.status_code in (400, 413, 422) and bool(
        _TOO_LONG.search(str(exc.details.get("server_message") or "")))


def _utc(value: datetime | str) -> datetime:
    return to_utc(parse_instant(value, "reference_time") if isinstance(value, str) else value)


def _turn(i: int, item: str | Mapping[str, Any] | tuple, reference_time: datetime | None,
          speaker: str | None, user: str | None) -> Turn:
    """One batch item as a :class:`Turn` (a mapping may add ``group`` and ``last_sitting``)."""
    text, ref, who, usr = normalize_item(item, reference_time, speaker, user)
    extra = item if isinstance(item, Mapping) else {}
    last = extra.get("last_sitting")
    return Turn(i, text if isinstance(text, str) else "", _utc(ref), who, usr,
                extra.get("group"), _utc(last) if last is not None else None)


def _turn_of(f: LLMFact, chunk: Chunk) -> Turn:
    """The turn a fact comes from: the one it names; with no name, the only turn, or the one
    turn its evidence quotes."""
    if f.turn:
        turn = chunk.turn(f.turn)
        if turn is None:
            why = "a context turn" if f.turn.strip("[] ").lower().startswith("c") else \
                "no turn of the request"
            raise ValueError(f"turn {f.turn!r} is {why}")
        return turn
    if len(chunk.turns) == 1:
        return chunk.turns[0]
    quoting = [t for t in chunk.turns if f.evidence and _span(t.text, f.evidence) != (0, 0)]
    if len(quoting) == 1:
        return quoting[0]
    raise ValueError("it names no turn")


def _resolve_person(name: str, who: str, field: str) -> str:
    low = name.strip().lower()
    if low in _FIRST_PERSON:
        return who
    if low in _PRONOUNS:
        raise ValueError(f"{field} {name!r} is an unresolved pronoun")
    return name


def primary_error(outcomes: Iterable[EpisodeOutcome]) -> LLMError | None:
    """The error to report for a batch: the one that stopped it, else the first failure."""
    errors = [o.error for o in outcomes if o.error is not None]
    return next((e for e in errors if ends_batch(e)), errors[0] if errors else None)


def _short(item: Any) -> str:
    try:
        text = json.dumps(item, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(item)
    return text if len(text) <= 160 else text[:157] + "..."
