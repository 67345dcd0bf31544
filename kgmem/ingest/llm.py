"""Optional LLM fact extraction through any OpenAI-compatible chat-completions endpoint.

``LLMExtractor(base_url, model, api_key=None, ...)`` offers the same interface as
:class:`kgmem.ingest.offline.OfflineExtractor` -- ``extract(text, reference_time, speaker=None,
user=None)`` and ``extract_many(items)`` returning :class:`ExtractedFact` lists -- so
:class:`kgmem.ingest.pipeline.ExtractionPipeline` uses either unchanged
(``KGMEM_EXTRACTOR=llm`` selects this one via :meth:`LLMExtractor.from_settings`).

Per episode: **one** ``POST {base_url}/chat/completions`` with the versioned prompt
(:mod:`kgmem.ingest.llm_prompt`) and a strict ``json_schema`` response format. Servers that
reject that format (HTTP 400 about ``response_format``) are retried with ``json_object`` and
then with no response format (the schema goes into the prompt); the working mode is remembered
per instance. Models that reject ``temperature`` get it dropped the same way.

* **Retries**: 408/409/425/429/5xx, timeouts and network errors, exponential backoff with
  jitter, ``Retry-After`` honoured (:class:`kgmem.llm.ChatClient`).
* **Errors**: :class:`LLMError` (``type`` ``"llm_error"``) and subclasses: 401/403 ->
  :class:`LLMAuthError`; a reply that is not the JSON asked for gets one repair request, then
  :class:`LLMOutputError`.
* **Validation**: each fact is validated with pydantic; invalid facts are dropped with a
  logged warning (never an exception). I/me/my left in the output are mapped to the speaker.
* **Cache**: responses are stored in SQLite under ``cache_dir`` keyed by sha256 of (model,
  prompt version, messages): re-ingesting the same episodes makes no calls.
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
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

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
    PriceTable,
    ResponseCache,
    ResponseFormatUnsupportedError,
    cache_key,
)
from kgmem.names import normalize_name
from kgmem.timeutil import Precision, parse_instant, parse_instant_with_precision, to_utc
from kgmem.vocabulary import Vocabulary, normalize_predicate

from . import llm_prompt as P
from .facts import ANY_OBJECT, ExtractedFact, normalize_item, resolve_speaker

__all__ = [
    "DEFAULT_BASE_URL",
    "LLMAuthError",
    "LLMError",
    "LLMExtractor",
    "LLMFact",
    "LLMOutputError",
    "LLMSettings",
    "LLMUnavailableError",
    "parse_reply",
]

log = logging.getLogger("kgmem.ingest.llm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
FORMAT_MODES = ("json_schema", "json_object", "none")

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours",
                           "ourselves", "speaker", "the speaker"})
_PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers", "they", "them", "their",
                       "it", "its", "you", "your", "yours", "this", "that", "someone"})
_NULLS = frozenset({"", "null", "none", "n/a", "na", "unknown", "nil"})
_KIND_ALIASES = {"assert": "assert", "asserted": "assert", "add": "assert", "holds": "assert",
                 "end": "end", "ended": "end", "ends": "end", "invalidate": "end",
                 "stop": "end", "stopped": "end",
                 "retract": "retract", "retracted": "retract", "retraction": "retract",
                 "correction": "retract", "never": "retract"}
_PRECISION_RANK = {Precision.YEAR: 0, Precision.MONTH: 1, Precision.DAY: 2, Precision.INSTANT: 3}
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```\s*$", re.S)


def default_cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "kgmem" / "llm"


class LLMSettings(BaseSettings):
    """Extra knobs of the LLM extractor, from ``KGMEM_LLM_*`` environment variables
    (``base_url``/``model``/``api_key`` come from :class:`kgmem.settings.Settings`)."""

    model_config = SettingsConfigDict(env_prefix="KGMEM_LLM_", env_file=".env", extra="ignore")

    timeout: float = 30.0
    max_retries: int = 4
    backoff_base: float = 0.5
    cache: bool = True
    cache_dir: Path | None = None
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int | None = None
    prices: dict[str, Any] | None = None  # JSON: {"gpt-4o-mini": [0.15, 0.6]} (USD / 1M tok)
    response_format: Literal["json_schema", "json_object", "none"] = "json_schema"
    on_error: Literal["raise", "skip"] = "raise"


# --------------------------------------------------------------------------- validation
class _BadReply(ValueError):
    """The reply is not usable JSON of the expected shape (triggers the repair request)."""


def parse_reply(content: str | None) -> list[Any]:
    """The ``facts`` array from a model reply. Tolerates code fences, ``<think>`` blocks,
    prose around one JSON object, and a bare top-level array. Raises ``ValueError``."""
    if content is None or not content.strip():
        raise _BadReply("the reply is empty")
    text = _THINK.sub("", content).strip()
    m = _FENCE.match(text)
    if m:
        text = m.group(1).strip()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        start, end = text.find("{"), text.rfind("}")
        obj = None
        if 0 <= start < end:
            try:
                obj = json.loads(text[start:end + 1])
            except ValueError:
                obj = None
        if obj is None:
            raise _BadReply(f"it is not valid JSON ({exc.msg} at position {exc.pos})") from None
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        facts = obj.get("facts")
        if isinstance(facts, list):
            return facts
        if facts is None and {"subject", "predicate", "object"} <= obj.keys():
            return [obj]  # a single fact without the wrapper
        raise _BadReply('the JSON object has no "facts" array')
    raise _BadReply(f"the JSON is a {type(obj).__name__}, expected an object with \"facts\"")


class LLMFact(BaseModel):
    """One fact as the model returns it (validated; lenient about harmless variations)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    subject: str = Field(min_length=1, max_length=300)
    predicate: str = Field(min_length=1, max_length=100)
    object: str = Field(min_length=1, max_length=500)
    valid_at: str | None = None
    valid_precision: Precision | None = None
    invalid_at: str | None = None
    invalid_precision: Precision | None = None
    kind: Literal["assert", "end", "retract"] = "assert"
    confidence: float = 0.8
    evidence: str = ""

    @field_validator("subject", "object", mode="before")
    @classmethod
    def _scalar_to_str(cls, v: Any) -> Any:
        if isinstance(v, bool) or v is None:
            return v
        return str(v) if isinstance(v, (int, float)) else v

    @field_validator("predicate")
    @classmethod
    def _predicate(cls, v: str) -> str:
        return normalize_predicate(v)

    @field_validator("valid_at", "invalid_at", mode="before")
    @classmethod
    def _time_text(cls, v: Any) -> Any:
        if v is None or (isinstance(v, str) and v.strip().lower() in _NULLS):
            return None
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("valid_precision", "invalid_precision", mode="before")
    @classmethod
    def _precision(cls, v: Any) -> Any:
        if v is None or (isinstance(v, str) and v.strip().lower() in _NULLS):
            return None
        return v.strip().lower() if isinstance(v, str) else v

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, v: Any) -> Any:
        if v is None:
            return "assert"
        if isinstance(v, str):
            return _KIND_ALIASES.get(v.strip().lower(), v.strip().lower())
        return v

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, v: Any) -> Any:
        if v is None:
            return 0.8
        if isinstance(v, bool):
            raise ValueError("confidence must be a number")
        if isinstance(v, str):
            v = float(v.strip().rstrip("%")) / (100 if v.strip().endswith("%") else 1)
        v = float(v)
        if v != v or v < 0 or v > 100:
            raise ValueError("confidence must be between 0 and 1")
        return v / 100 if v > 1 else v

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence(cls, v: Any) -> Any:
        return "" if v is None else v


def _when(text: str | None, precision: Precision | None, field: str
          ) -> tuple[datetime | None, Precision | None]:
    if text is None:
        return None, None
    try:
        when, parsed = parse_instant_with_precision(text, field)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{field} {text!r} is not an ISO 8601 time") from exc
    if precision is not None and _PRECISION_RANK[precision] < _PRECISION_RANK[parsed]:
        parsed = precision  # "2023-05-01" given with precision month -> month
    if parsed is Precision.YEAR:
        when = when.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    elif parsed is Precision.MONTH:
        when = when.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    elif parsed is Precision.DAY:
        when = when.replace(hour=0, minute=0, second=0, microsecond=0)
    return when, parsed


def _span(text: str, quote: str) -> tuple[int, int]:
    q = quote.strip().strip('"\u201c\u201d\'')
    if not q:
        return (0, 0)
    i = text.find(q)
    if i < 0:
        i = text.lower().find(q.lower())
    return (i, i + len(q)) if i >= 0 else (0, 0)


# --------------------------------------------------------------------------- extractor
class LLMExtractor:
    """Fact extraction with an OpenAI-compatible chat model (see the module docstring).

    ``cache_dir``: where the SQLite response cache lives (default ``$KGMEM_LLM_CACHE_DIR`` via
    :meth:`from_settings`, else ``~/.cache/kgmem/llm``); ``cache=False`` disables caching.
    ``prices``: ``{model: (input, output[, cached_input])}`` in USD per 1M tokens.
    ``concurrency``: threads used by :meth:`extract_many`. ``on_error``: ``"raise"`` (default)
    re-raises the first failed episode after the whole batch ran (successful answers are
    cached); ``"skip"`` logs it and returns no facts for that episode. ``vocabulary``: the
    predicates offered to the model (default :data:`kgmem.vocabulary.DEFAULT_PREDICATES`);
    ``allow_new_predicates=False`` drops facts whose predicate is not in it.
    ``transport``/``sleep`` are test injection points; ``extra_body`` is merged into every
    request (e.g. ``{"seed": 7}`` or Ollama ``{"options": {"num_ctx": 8192}}``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        cache_dir: str | Path | None = None,
        temperature: float | None = 0.0,
        *,
        cache: bool = True,
        concurrency: int = 4,
        prices: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 60.0,
        response_format: str = "json_schema",
        vocabulary: Vocabulary | None = None,
        allow_new_predicates: bool = True,
        on_error: str = "raise",
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if response_format not in FORMAT_MODES:
            raise InvalidInputError(f"response_format must be one of {FORMAT_MODES}",
                                    field="response_format")
        if on_error not in ("raise", "skip"):
            raise InvalidInputError("on_error must be 'raise' or 'skip'", field="on_error")
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
        self.concurrency = max(1, int(concurrency))
        self.prices = PriceTable(prices)
        self.vocabulary = vocabulary or Vocabulary()
        self.allow_new_predicates = allow_new_predicates
        self.on_error = on_error
        self.extra_body = dict(extra_body or {})
        self.response_format_mode = response_format
        self._send_temperature = temperature is not None
        self._lock = threading.Lock()
        self.cache: ResponseCache | None = None
        if cache:
            self.cache = ResponseCache(cache_dir if cache_dir is not None else default_cache_dir())

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_settings(cls, settings: Any = None, **overrides: Any) -> LLMExtractor:
        """Build from :class:`kgmem.settings.Settings` (``KGMEM_LLM_BASE_URL``,
        ``KGMEM_LLM_MODEL``, ``KGMEM_LLM_API_KEY``) plus :class:`LLMSettings`
        (``KGMEM_LLM_TIMEOUT``, ``KGMEM_LLM_CACHE_DIR``, ``KGMEM_LLM_PRICES``, ...)."""
        if settings is None:
            from kgmem.settings import Settings

            settings = Settings()
        extra = LLMSettings()
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
            timeout=extra.timeout,
            max_retries=extra.max_retries,
            cache_dir=extra.cache_dir,
            temperature=extra.temperature,
            cache=extra.cache,
            concurrency=extra.concurrency,
            prices=extra.prices,
            max_tokens=extra.max_tokens,
            backoff_base=extra.backoff_base,
            response_format=extra.response_format,
            on_error=extra.on_error,
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
        """Facts in one episode said at ``reference_time`` (naive = UTC) by ``speaker``.

        ``valid_at``/``invalid_at`` are ``None`` when the text gives no date (the caller uses
        the episode's reference time). Raises :class:`LLMError` if the endpoint fails."""
        try:
            return self._extract_one(text, reference_time, speaker, user)
        except LLMError:
            self.stats.add(errors=1)
            raise

    def extract_many(
        self,
        items: Iterable[str | Mapping[str, Any] | tuple],
        reference_time: datetime | None = None,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[list[ExtractedFact]]:
        """Like :meth:`OfflineExtractor.extract_many`: items are ``(text, reference_time[,
        speaker[, user]])`` tuples, mappings with ``text``..., or strings (using the keyword
        arguments). One call per episode, ``concurrency`` at a time; results in input order."""
        norm = [normalize_item(it, reference_time, speaker, user) for it in items]
        if not norm:
            return []
        results: list[list[ExtractedFact] | None] = [None] * len(norm)
        errors: list[tuple[int, LLMError]] = []

        def run(i: int) -> None:
            try:
                results[i] = self._extract_one(*norm[i])
            except LLMError as exc:
                self.stats.add(errors=1)
                errors.append((i, exc))
                results[i] = []
                if self.on_error == "skip":
                    log.error("LLM extraction failed for episode %d of the batch, skipped: %s",
                              i, exc)

        workers = min(self.concurrency, len(norm))
        if workers == 1:
            for i in range(len(norm)):
                run(i)
                if errors and self.on_error == "raise" and isinstance(
                        errors[-1][1], LLMAuthError):
                    break  # a bad key fails every call: stop at once
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kgmem-llm") as ex:
                list(ex.map(run, range(len(norm))))
        if errors and self.on_error == "raise":
            raise min(errors, key=lambda e: e[0])[1]
        return [r or [] for r in results]

    # ------------------------------------------------------------------ internals
    def _on_retry(self, attempt: int, wait: float, why: str) -> None:
        self.stats.add(retries=1)
        log.warning("LLM request retry %d in %.2fs after %s", attempt, wait, why)

    def _extract_one(self, text: str, reference_time: datetime | str, speaker: str | None,
                     user: str | None) -> list[ExtractedFact]:
        if not isinstance(text, str) or not text.strip():
            return []
        ref = to_utc(parse_instant(reference_time, "reference_time")
                     if isinstance(reference_time, str) else reference_time)
        who = resolve_speaker(speaker, user)
        messages = P.build_messages(text, ref, speaker, user, self.vocabulary)
        key = cache_key(self.model, self.prompt_version, messages)
        self.stats.add(episodes=1)
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
            result, raw = self._call(messages)
            if self.cache is not None:
                self.cache.put(key, result.raw, self.model, self.prompt_version)
        assert result is not None
        facts = self._convert(raw, text, who, result.model or self.model)
        self.stats.add(facts=len(facts))
        return facts

    def _payload(self, messages: list[dict[str, str]], mode: str) -> dict[str, Any]:
        sent = messages if mode == "json_schema" else P.with_schema_instructions(messages)
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

    def _send(self, messages: list[dict[str, str]]) -> tuple[ChatResult, dict[str, Any]]:
        """One successful response, downgrading the response format / dropping temperature
        when the server rejects them (remembered for this instance)."""
        while True:
            mode = self.response_format_mode
            payload = self._payload(messages, mode)
            try:
                return self.client.complete(payload), payload
            except ResponseFormatUnsupportedError as exc:
                nxt = {"json_schema": "json_object", "json_object": "none"}.get(mode)
                if nxt is None:
                    raise
                with self._lock:
                    if FORMAT_MODES.index(self.response_format_mode) < FORMAT_MODES.index(nxt):
                        log.warning("LLM server rejected response_format %r (%s); using %r "
                                    "from now on", mode, exc.details.get("server_message"), nxt)
                        self.response_format_mode = nxt
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

    def _call(self, messages: list[dict[str, str]]) -> tuple[ChatResult, list[Any]]:
        result, payload = self._send(messages)
        self.stats.record_call(result.model, result.usage, self.prices, self.model,
                               result.latency_s)
        try:
            return result, self._facts_of(result)
        except _BadReply as bad:
            first_error = str(bad)
        self.stats.add(repairs=1)
        log.warning("LLM reply unusable (%s); sending one repair request", first_error)
        repair = {**payload, "messages": P.repair_messages(
            payload["messages"], result.content or "", first_error)}
        fixed = self.client.complete(repair)
        self.stats.record_call(fixed.model, fixed.usage, self.prices, self.model,
                               fixed.latency_s, purpose="repair")
        try:
            return fixed, self._facts_of(fixed)
        except _BadReply as bad:
            raise LLMOutputError(
                f"model {self.model!r} at {self.client.url} did not return the facts JSON, "
                f"even after a repair request: {bad} (first reply: {first_error}); "
                f"reply starts {(fixed.content or '')[:120]!r}",
                url=self.client.url, model=self.model, finish_reason=fixed.finish_reason,
            ) from None

    def _facts_of(self, result: ChatResult, count: bool = True) -> list[Any]:
        if result.refusal:
            if count:
                self.stats.add(refusals=1)
            log.warning("LLM refused to extract facts: %s", result.refusal[:200])
            return []
        if not (result.content or "").strip() and result.finish_reason == "length":
            raise _BadReply("the reply was cut off (finish_reason=length)")
        try:
            return parse_reply(result.content)
        except _BadReply as bad:
            if result.finish_reason == "length":
                raise _BadReply(f"{bad}; the reply was cut off (finish_reason=length)") from None
            raise

    def _convert(self, raw: list[Any], text: str, who: str, model: str) -> list[ExtractedFact]:
        out: list[ExtractedFact] = []
        seen: set[tuple[str, str, str, str]] = set()
        known = set(self.vocabulary.names())
        who_key = normalize_name(who)
        for n, item in enumerate(raw):
            try:
                if not isinstance(item, Mapping):
                    raise ValueError(f"a fact must be a JSON object, got {type(item).__name__}")
                fact = self._to_fact(LLMFact.model_validate(item), text, who, model)
                if not self.allow_new_predicates and fact.predicate not in known:
                    raise ValueError(f"predicate {fact.predicate} is not in the vocabulary")
            except (ValidationError, ValueError) as exc:
                self.stats.add(dropped_facts=1)
                reason = "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
                ) if isinstance(exc, ValidationError) else str(exc)
                log.warning("dropped invalid LLM fact #%d %s: %s", n, _short(item), reason)
                continue
            fact.subject_is_speaker = normalize_name(fact.subject) == who_key
            if fact.key() in seen:
                continue
            seen.add(fact.key())
            out.append(fact)
        return out

    def _to_fact(self, f: LLMFact, text: str, who: str, model: str) -> ExtractedFact:
        subject = _resolve_person(f.subject, who, "subject")
        obj = f.object if f.object == ANY_OBJECT else _resolve_person(f.object, who, "object")
        if obj == ANY_OBJECT and f.kind != "end":
            raise ValueError('object "*" is only allowed on "end" facts')
        valid_at, valid_p = _when(f.valid_at, f.valid_precision, "valid_at")
        invalid_at, invalid_p = _when(f.invalid_at, f.invalid_precision, "invalid_at")
        if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
            raise ValueError(f"invalid_at {f.invalid_at} is not after valid_at {f.valid_at}")
        return ExtractedFact(
            subject=subject,
            predicate=f.predicate,
            object=obj,
            valid_at=valid_at,
            valid_precision=valid_p,
            invalid_at=invalid_at,
            invalid_precision=invalid_p,
            kind=f.kind,
            confidence=f.confidence,
            evidence=_span(text, f.evidence),
            rule=f"llm:{model}",
            time_text=None,
            attributes={"evidence_text": f.evidence, "prompt_version": self.prompt_version,
                        "model": model},
        )


def _resolve_person(name: str, who: str, field: str) -> str:
    low = name.strip().lower()
    if low in _FIRST_PERSON:
        return who
    if low in _PRONOUNS:
        raise ValueError(f"{field} {name!r} is an unresolved pronoun")
    return name


def _short(item: Any) -> str:
    try:
        text = json.dumps(item, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(item)
    return text if len(text) <= 160 else text[:157] + "..."
