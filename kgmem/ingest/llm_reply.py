"""What an LLM reply holds: the ``facts`` array read leniently out of the reply text
(:func:`parse_reply`), the complete facts of a reply cut off at ``max_tokens``
(:func:`salvage_facts`), and each fact validated (:class:`LLMFact`). Pure: no I/O."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kgmem.vocabulary import normalize_predicate

__all__ = ["BadReply", "LLMFact", "parse_reply", "salvage_facts"]

_NULLS = frozenset({"", "null", "none", "n/a", "na", "unknown", "nil"})
_KIND_ALIASES = {"assert": "assert", "asserted": "assert", "add": "assert", "holds": "assert",
                 "end": "end", "ended": "end", "ends": "end", "invalidate": "end",
                 "stop": "end", "stopped": "end",
                 "retract": "retract", "retracted": "retract", "retraction": "retract",
                 "correction": "retract", "never": "retract"}
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```\s*$", re.S)


class BadReply(ValueError):
    """The reply is not usable JSON of the expected shape (triggers the repair request).
    ``reason`` is the key it is counted under in ``stats.rejected``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def parse_reply(content: str | None) -> list[Any]:
    """The ``facts`` array from a model reply. Tolerates code fences, ``<think>`` blocks,
    prose around one JSON object, and a bare top-level array; ``{}`` and ``{"facts": null}``
    mean nothing to extract. Raises ``ValueError``."""
    if content is None or not content.strip():
        raise BadReply("the reply is empty", "empty")
    text = _THINK.sub("", content).strip()
    m = _FENCE.match(text)
    if m:
        text = m.group(1).strip()
    try:  # strict=False: raw newlines in strings (a grammar-constrained local model writes them)
        obj = json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        start, end = text.find("{"), text.rfind("}")
        obj = None
        if 0 <= start < end:
            try:
                obj = json.loads(text[start:end + 1], strict=False)
            except ValueError:
                obj = None
        if obj is None:
            raise BadReply(f"it is not valid JSON ({exc.msg} at position {exc.pos})",
                            "not_json") from None
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        facts = obj.get("facts")
        if isinstance(facts, list):
            return facts
        if not obj or (facts is None and "facts" in obj):
            return []  # {} / {"facts": null}: the model found nothing to extract
        if facts is None and {"subject", "predicate", "object"} <= obj.keys():
            return [obj]  # a single fact without the wrapper
        raise BadReply('the JSON object has no "facts" array', "no_facts_array")
    raise BadReply(f"the JSON is a {type(obj).__name__}, expected an object with \"facts\"",
                    "no_facts_array")


_FACTS_START = re.compile(r'"facts"\s*:\s*\[')


def salvage_facts(content: str | None) -> list[Any]:
    """The complete fact objects at the start of a reply that was cut off (finish_reason
    ``length``): ``{"facts": [{...}, {...}, {"subj`` gives the first two."""
    text = _THINK.sub("", content or "")
    m = _FACTS_START.search(text)
    pos = m.end() if m else text.find("[") + 1
    if pos <= 0:
        return []
    decoder = json.JSONDecoder(strict=False)
    out: list[Any] = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            return out
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out
        out.append(obj)


class LLMFact(BaseModel):
    """One fact as the model returns it (validated; lenient about harmless variations).
    ``start_time``/``end_time`` are the words of the turn that date it, not dates."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    turn: str = ""
    subject: str = Field(min_length=1, max_length=300)
    predicate: str = Field(min_length=1, max_length=100)
    object: str = Field(min_length=1, max_length=500)
    start_time: str | None = None
    end_time: str | None = None
    kind: Literal["assert", "end", "retract"] = "assert"
    confidence: float = 0.8
    evidence: str = ""

    @field_validator("subject", "object", mode="before")
    @classmethod
    def _scalar_to_str(cls, v: Any) -> Any:
        if isinstance(v, bool) or v is None:
            return v
        return str(v) if isinstance(v, (int, float)) else v

    @field_validator("turn", mode="before")
    @classmethod
    def _turn(cls, v: Any) -> Any:
        if v is None:
            return ""
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("predicate")
    @classmethod
    def _predicate(cls, v: str) -> str:
        return normalize_predicate(v)

    @field_validator("start_time", "end_time", mode="before")
    @classmethod
    def _time_words(cls, v: Any) -> Any:
        if v is None or (isinstance(v, str) and v.strip().lower() in _NULLS):
            return None
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

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


