"""A local OpenAI-compatible server for the QA tests: the chat-completions wire format of
tests/llm/fakeserver.py, answering each request from a table keyed by (protocol, role,
question) -- the question read back out of the published prompt it arrives in -- so a test
sees exactly which prompt was sent. Unknown requests get HTTP 500."""

from __future__ import annotations

import re
from typing import Any

from benchmarks import qa_prompts as P
from tests.llm.fakeserver import FakeOpenAI, Reply, Seen

_MEM0_JUDGE_Q = re.compile(r"Now it's time for the real question:\nQuestion: (.*?)\nGold answer:",
                           re.S)
_LOCOMO_Q = re.compile(r"\nQuestion: (.*?) Short answer:\n$", re.S)
_LME_READER_Q = re.compile(r"\nQuestion: (.*?)\nAnswer:$", re.S)
_LME_JUDGE_Q = re.compile(r"\n\nQuestion: (.*?)\n\n", re.S)
_MEM0_READER_Q = re.compile(r"\n    Question: (.*?)\n    Answer:", re.S)


def identify(body: dict[str, Any]) -> tuple[str, str, str]:
    """(protocol, role, question) of a request built by benchmarks.qa_prompts."""
    msg = body["messages"][0]
    text = msg["content"]
    if msg["role"] == "system" and "intelligent memory assistant" in text:
        return "mem0", "reader", _MEM0_READER_Q.search(text).group(1)  # type: ignore[union-attr]
    if text.startswith("\nYour task is to label an answer"):
        return "mem0", "judge", _MEM0_JUDGE_Q.search(text).group(1)  # type: ignore[union-attr]
    if text.endswith(" Short answer:\n"):
        q = _LOCOMO_Q.search(text).group(1)  # type: ignore[union-attr]
        return "locomo", "reader", q.split(P.LOCOMO_TEMPORAL_SUFFIX)[0].split(
            " Select the correct answer:")[0]
    if text.startswith("I will give you several history chats"):
        return "longmemeval", "reader", _LME_READER_Q.search(text).group(1)  # type: ignore[union-attr]
    if text.startswith("I will give you a"):
        return "longmemeval", "judge", _LME_JUDGE_Q.search(text).group(1)  # type: ignore[union-attr]
    raise AssertionError(f"unknown prompt: {text[:80]!r}")


def chat_body(content: str, model: str, prompt_tokens: int, completion_tokens: int
              ) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1764400001,
            "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


class QAServer(FakeOpenAI):
    """``answers[(protocol, role, question)] = reply text``; usage: prompt tokens = prompt
    characters // 4, completion tokens = reply words (so costs are checkable)."""

    def __init__(self, answers: dict[tuple[str, str, str], str]) -> None:
        super().__init__()
        self.answers = answers
        self.seen: list[tuple[str, str, str]] = []

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
        key = identify(seen.body)
        self.seen.append(key)
        if key not in self.answers:
            return Reply(500, {"error": {"message": f"unscripted {key}", "type": "test"}})
        content = self.answers[key]
        prompt = sum(len(m["content"]) for m in seen.body["messages"]) // 4
        return Reply(200, chat_body(content, f"{seen.body['model']}-2024-07-18", prompt,
                                    len(content.split())))
