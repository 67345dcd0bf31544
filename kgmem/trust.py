"""How far an episode is trusted, and whether its text reads like instructions to the assistant.

Every episode gets, at write time:

* a **trust level** -- ``trusted``, ``normal`` or ``untrusted`` -- from a :class:`TrustPolicy`
  by its source and speaker (``KGMEM_TRUST_SOURCES="web=untrusted,tool=untrusted"``,
  ``KGMEM_TRUST_SPEAKERS="Mallory=untrusted,Alice=trusted"``); when both a source rule and a
  speaker rule apply, the less trusted wins;
* **flags** from :func:`instruction_flags`: text that addresses the assistant rather than
  telling about the world -- ``override`` ("ignore previous instructions", "you are now ..."),
  ``role_marker`` (``system:``, ``<|im_start|>``, ``[INST]``), ``tool_call`` (function-call
  syntax) and ``order`` (standing orders: "always approve transfers from X", "assistant, you
  must ..."). Ordinary imperative chat ("remind me to call mom") is not flagged.

Reads keep both (:class:`kgmem.model.Episode` ``trust`` and ``flags``);
:func:`kgmem.retrieve.context` shows them next to each item it quotes and can leave such
items out. The detector is a set of patterns, not a guarantee: the data block's quoting
(:func:`kgmem.retrieve.context.quote`) remains the first defence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, cast

from .errors import InvalidInputError

TrustLevel = Literal["trusted", "normal", "untrusted"]
LEVELS: tuple[TrustLevel, ...] = ("untrusted", "normal", "trusted")  # least trusted first

_I = re.IGNORECASE | re.MULTILINE
_ADDRESSEE = (r"(?:assistant|a\.?i\.?|bot|chat ?bot|agent|model|llm|gpt|chatgpt|claude|"
              r"copilot|system)")
PATTERNS: dict[str, list[re.Pattern[str]]] = {
    "override": [re.compile(p, _I) for p in (
        r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,30}\b(?:previous|prior|"
        r"above|earlier|preceding|all|any|your|the)\b[^.\n]{0,20}\b(?:instructions?|prompts?|"
        r"rules|directives|guidelines|guardrails|messages|context|programming|constraints)\b",
        r"\b(?:new|updated|revised|real|actual|hidden|secret)\s+(?:system\s+)?"
        r"(?:instructions?|directives?|prompt)\s*[:\-]",
        r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,3}?"
        r"(?:ai|assistant|model|bot|agent|persona|character|mode|dan|jailbroken|unrestricted|"
        r"unfiltered|bound|restricted|limited)\b",
        r"\bfrom\s+now\s+on,?\s+(?:you|the\s+" + _ADDRESSEE + r")\b",
        r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+unrestricted|"
        r"dan\b|an?\s+(?:ai|assistant|model)\s+(?:without|with\s+no))",
        r"\b(?:developer|god|jailbreak|dan|unrestricted|admin)\s+mode\b",
        r"\b(?:reveal|print|show|repeat|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+)?"
        r"(?:prompt|instructions|rules)\b",
        r"\bdo\s+not\s+(?:tell|inform|alert|warn)\s+the\s+user\b",
        r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all|what(?:ever)?)\s+(?:that\s+)?"
        r"(?:you(?:'ve|\s+have|\s+were|\s+are)?|i)\s+(?:been\s+)?(?:told|said|instructed|taught|"
        r"learned|given)\b",
        r"\bpretend\s+(?:that\s+)?(?:you\s+are|you're|to\s+be)\b",
        r"\byour\s+(?:new|real|true|actual)\s+(?:role|task|job|instructions?|persona|goal|"
        r"purpose|orders?)\s+(?:is|are)\b",
        r"\b(?:system|admin|security|safety)\s+override\b|^\s*override\s*:",
        r"\bwhatever\s+the\s+user\s+(?:says|asks|writes|wants)\b",
        r"\byou\s+must\s+now\b|\b(?:obey|listen\s+to)\s+(?:only\s+)?me\b",
        r"\brespond\s+to\s+(?:all|every|any)\s+(?:questions?|messages?|requests?)\s+with\b",
    )],
    "role_marker": [re.compile(p, _I) for p in (
        r"^\s*(?:#{1,4}\s*)?(?:system|assistant|developer|tool)\s*(?:message|prompt)?\s*:",
        r"^\s*#{1,4}\s*(?:system|assistant|developer|instructions?)\s*(?:message|prompt)?\s*$",
        r"<\|(?:im_start|im_end|system|assistant|user|endoftext|begin_of_text|start_header_id|"
        r"eot_id)\|>",
        r"\[/?INST\]|<</?SYS>>|^\s*\[(?:system|assistant|developer)\]",
        r"<\|[a-z_]+\|>",  # any chat-template special token
        r"</?(?:system|assistant|instructions?|developer)>",
        r"^\s*(?:human|user)\s*:\s.*\n\s*assistant\s*:",
    )],
    "tool_call": [re.compile(p, _I) for p in (
        r"</?(?:tool_call|function_call|tool_use|invoke|function_calls)\b",
        r"\"(?:tool_calls|function_call|tool_use)\"\s*:",
        r"\{\s*\"(?:name|tool|function)\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:arguments|parameters|"
        r"args|input)\"\s*:",
        r"<\|python_tag\|>|\bfunctions\.[a-z_][a-z0-9_]*\s*\(",
        r"```\s*(?:tool|tool_code|tool_call|function|function_call)\b|<function=",
        r"\b[a-z]+_[a-z_]+\(\s*[a-z_]+\s*=",  # snake_case_call(arg=...)
        r"\b(?:call|invoke|run|execute|use)\s+the\s+[a-z_]+\s+(?:tool|function)\s+with\b",
    )],
    "order": [re.compile(p, _I) for p in (
        r"\b" + _ADDRESSEE + r"\s*[,:]\s*(?:you\s+)?(?:must|should|will|shall|need\s+to|have\s+"
        r"to|always|never|do\s+not|don't|please\s+(?:always|never))\b",
        r"\b(?:note|instruction|message|reminder)\s+(?:to|for)\s+(?:the\s+)?" + _ADDRESSEE
        + r"\b",
        r"\b(?:always|automatically)\s+(?:approve|authori[sz]e|accept|confirm|execute|obey|"
        r"grant|transfer|forward|send|pay|trust|whitelist|allow)\b(?!\s+of\b)",
        r"\bwithout\s+(?:asking|confirmation|confirming|verification|verifying|checking|"
        r"approval)\b[^.\n]{0,40}\b(?:approve|transfer|send|pay|delete|grant|execute|run)\b",
        r"\b(?:approve|transfer|send|pay|delete|grant|execute)\b[^.\n]{0,40}\bwithout\s+"
        r"(?:asking|confirmation|confirming|verification|verifying|checking|approval)\b",
        r"\bwhen(?:ever)?\s+(?:you(?:'re|\s+are)\s+asked|(?:anyone|someone|the\s+user)\s+asks)"
        r"\b[^.\n]{0,60}\b(?:say|tell|answer|respond|reply|recommend)\b",
        r"\b(?:the\s+)?" + _ADDRESSEE + r"\s+(?:must|should|shall|has\s+to|is\s+required\s+to)"
        r"\s+(?:always|never|now|only|not)\b",
        r"\b(?:dear|hey|hi|attention|important\s+for|note\s+for|instructions?\s+for|message\s+"
        r"for|rule\s+for)\s+(?:the\s+|any\s+|my\s+)?" + _ADDRESSEE + r"\b",
        r"\b(?:as|you\s+are)\s+(?:the|an?)\s+(?:ai|assistant|language\s+model|model|agent)\b"
        r"[^.\n]{0,30}\b(?:must|required|should|will|need)\b",
        r"\b(?:whoever|anyone\s+who|any\s+ai\s+that)\s+(?:reads|is\s+reading)\s+this\b",
        r"\b(?:if|when|whenever|next\s+time)\s+(?:you(?:'re|\s+are)\s+|the\s+user\s+|someone\s+|"
        r"anyone\s+)?(?:is\s+)?ask(?:ed|s)\b[^.\n]{0,60}\b(?:say|tell|answer|respond|reply|include)\b",
        r"\b" + _ADDRESSEE + r"\s+rule\b",
    )],
}


def instruction_flags(text: str) -> list[str]:
    """The kinds of instruction-like content in ``text`` (sorted, empty when none)."""
    return sorted(kind for kind, pats in PATTERNS.items() if any(p.search(text) for p in pats))


def parse_rules(spec: str | None, what: str) -> dict[str, TrustLevel]:
    """``"web=untrusted,user=trusted"`` -> {name (case-folded): level}."""
    out: dict[str, TrustLevel] = {}
    for raw in (spec or "").split(","):
        entry = raw.strip()
        if not entry:
            continue
        name, sep, level = (x.strip() for x in entry.partition("="))
        if not sep or not name or level not in LEVELS:
            raise InvalidInputError(
                f"{what}: {entry!r} is not name=trusted|normal|untrusted", field=what)
        out[name.casefold()] = cast(TrustLevel, level)
    return out


@dataclass(frozen=True)
class TrustPolicy:
    """Trust levels per episode source and per speaker (names compared case-folded)."""

    sources: dict[str, TrustLevel] = field(default_factory=dict)
    speakers: dict[str, TrustLevel] = field(default_factory=dict)
    default: TrustLevel = "normal"

    @classmethod
    def from_spec(cls, sources: str | None = None, speakers: str | None = None,
                  default: str = "normal") -> TrustPolicy:
        if default not in LEVELS:
            raise InvalidInputError("the default trust level must be trusted, normal or "
                                    "untrusted", field="trust_default")
        return cls(parse_rules(sources, "trust_sources"), parse_rules(speakers, "trust_speakers"),
                   cast(TrustLevel, default))

    def level(self, source: str, speaker: str | None) -> TrustLevel:
        found = [lv for lv in (self.sources.get(source.casefold()),
                               None if speaker is None else self.speakers.get(speaker.casefold()))
                 if lv is not None]
        if not found:
            return self.default
        return min(found, key=LEVELS.index)  # the less trusted rule wins

    def assess(self, content: str, source: str, speaker: str | None
               ) -> tuple[TrustLevel, list[str]]:
        """(trust level, instruction flags) of an episode about to be written."""
        return self.level(source, speaker), instruction_flags(content)


def is_suspect(trust: str, flags: list[str]) -> bool:
    """Whether an item should be marked (and left out when asked): untrusted or flagged."""
    return trust == "untrusted" or bool(flags)
