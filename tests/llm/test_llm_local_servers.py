"""What local OpenAI-compatible servers (llama.cpp, llama-cpp-python, Ollama, vLLM) do
differently, replayed exactly: a 500 for json_schema, dropped system messages, replies cut off
at max_tokens, "nothing to extract", requests that outlive kgmem's patience, a server that is
down. The same behaviours against a real llama-cpp-python server: test_llama_server.py."""

from __future__ import annotations

import copy
import json
import time
from datetime import datetime, timezone

import pytest

from kgmem.ingest.llm import DEFAULT_MAX_TOKENS, LLMExtractor, salvage_facts
from kgmem.ingest.llm_prompt import GRAMMAR_SCHEMA
from kgmem.llm import (
    LLMOutputError,
    LLMStats,
    LLMTimeoutError,
    LLMUnavailableError,
    LLMUnreachableError,
    PriceTable,
    ResponseCache,
)
from kgmem.llm.usage import cached_prompt_tokens, format_summary

from .fakeserver import EPISODES, Reply, error, load, ok

UTC = timezone.utc
REF = datetime(2024, 3, 15, 10, tzinfo=UTC)


def reply(content: str, finish: str = "stop", prompt_tokens: int = 1100, **extra) -> Reply:
    """A local server's answer: OpenAI's shape without ``prompt_tokens_details``."""
    body = copy.deepcopy(load("empty"))
    del body["usage"]["prompt_tokens_details"], body["usage"]["completion_tokens_details"]
    body["choices"][0]["message"]["content"] = content
    body["choices"][0]["finish_reason"] = finish
    body["usage"]["prompt_tokens"] = prompt_tokens
    body.update(extra)
    return Reply(200, body)


def roles(req) -> list[str]:
    return [m["role"] for m in req.body["messages"]]


# --------------------------------------------------------------------------- response_format
def test_500_naming_response_format_falls_back_in_one_request(server, make_extractor):
    # llama-cpp-python's real answer to a json_schema response_format (recorded)
    server.push(error("500_llama_cpp_json_schema"), ok("alice_moved"))
    ex = make_extractor(model="smollm2")
    assert len(ex.extract(*EPISODES["alice_moved"][:2], speaker="Alice")) == 3
    assert len(server.requests) == 2 and ex.stats.retries == 0
    assert server.requests[1].body["response_format"] == {"type": "json_object",
                                                          "schema": GRAMMAR_SCHEMA}
    assert ex.response_format_mode == "json_object"


def test_what_the_endpoint_supports_is_remembered_by_the_next_run(server, make_extractor,
                                                                  tmp_path):
    server.push(error("500_llama_cpp_json_schema"), ok("alice_moved"), ok("bob_quit"))
    make_extractor(model="smollm2").extract(*EPISODES["alice_moved"][:2], speaker="Alice")
    again = make_extractor(model="smollm2")  # a new process, the same cache directory
    assert again.response_format_mode == "json_object"
    again.extract(*EPISODES["bob_quit"][:2], speaker="Bob")
    assert len(server.requests) == 3  # no second 500
    assert server.requests[2].body["response_format"]["type"] == "json_object"
    # per base URL + model: another model on the same server starts from json_schema
    assert make_extractor(model="other").response_format_mode == "json_schema"
    caps = ResponseCache(tmp_path / "llm-cache").endpoint_caps(
        server.base_url + "/chat/completions", "smollm2")
    assert caps == {"response_format": "json_object"}


def test_a_500_without_format_words_is_still_an_outage(server, make_extractor):
    server.push(error("500_server_error"), ok("empty"))
    ex = make_extractor(cache=False)
    assert ex.extract("hello", REF) == []
    assert ex.stats.retries == 1 and ex.response_format_mode == "json_schema"


# --------------------------------------------------------------------------- system role
def test_dropped_system_message_moves_the_instructions_to_the_user_message(server,
                                                                          make_extractor):
    # llama-cpp-python --chat_format gemma: the prompt counts only the user message
    server.push(reply('{"facts": []}', prompt_tokens=60), ok("alice_moved"), ok("bob_quit"))
    ex = make_extractor()
    facts = ex.extract(*EPISODES["alice_moved"][:2], speaker="Alice")
    assert len(facts) == 3  # the answer given without instructions was not used
    first, second = server.requests[0], server.requests[1]
    assert roles(first) == ["system", "user"] and roles(second) == ["user"]
    user = second.body["messages"][0]["content"]
    assert user.startswith("You extract facts") and "<turns>" in user
    assert ex.instructions == "user" and ex.stats.rejected == {"system_dropped": 1}
    # remembered: the next run starts with the user layout
    again = make_extractor()
    again.extract(*EPISODES["bob_quit"][:2], speaker="Bob")
    assert roles(server.requests[2]) == ["user"] and len(server.requests) == 3


def test_a_kept_system_message_is_not_second_guessed(server, make_extractor):
    server.push(ok("alice_moved"), reply('{"facts": []}', prompt_tokens=60))
    ex = make_extractor(cache=False)
    ex.extract(*EPISODES["alice_moved"][:2], speaker="Alice")
    ex.extract("ok", REF)  # a later small count does not flip the layout
    assert [roles(r) for r in server.requests] == [["system", "user"]] * 2


def test_instructions_setting_user_sends_no_system_message(server, make_extractor):
    server.push(ok("empty"))
    ex = make_extractor(instructions="user", response_format="json_object")
    ex.extract("Nice weather.", REF, speaker="Alice")
    (msg,) = server.requests[0].body["messages"]
    assert msg["role"] == "user" and "Output JSON schema" in msg["content"]
    assert msg["content"].index("You extract facts") < msg["content"].index("<turns>")


# --------------------------------------------------------------------------- replies
@pytest.mark.parametrize("content", ['{"facts": []}', "{}", '{"facts": null}', "[]"])
def test_an_empty_result_is_nothing_to_extract_without_repair(server, make_extractor, content):
    server.push(reply(content))
    ex = make_extractor(cache=False)
    assert ex.extract("Nice weather today.", REF, speaker="Alice") == []
    assert len(server.requests) == 1 and ex.stats.repairs == 0 and ex.stats.rejected == {}


def test_a_cut_off_reply_keeps_its_complete_facts_without_repair(server, make_extractor):
    full = json.loads(load("alice_moved")["choices"][0]["message"]["content"])
    text = json.dumps(full)
    cut = text[:text.index(json.dumps(full["facts"][2])) + 40]  # inside the third fact
    server.push(reply(cut, finish="length"))
    ex = make_extractor()
    facts = ex.extract(*EPISODES["alice_moved"][:2], speaker="Alice")
    assert [f.object for f in facts] == [full["facts"][0]["object"], full["facts"][1]["object"]]
    assert len(server.requests) == 1 and ex.stats.truncated_replies == 1
    # cached like any answer: the same episode again costs nothing and gives the same facts
    assert len(ex.extract(*EPISODES["alice_moved"][:2], speaker="Alice")) == 2
    assert len(server.requests) == 1


def test_a_reply_cut_off_before_any_fact_fails_without_repair(server, make_extractor):
    server.push(reply('{"facts": [{"subject": "Alice", "predic', finish="length"))
    ex = make_extractor()
    with pytest.raises(LLMOutputError, match="KGMEM_LLM_MAX_TOKENS") as info:
        ex.extract("I live in Oslo.", REF, speaker="Alice")
    assert info.value.details["rejected"] == "cut_off"
    assert len(server.requests) == 1 and ex.stats.rejected == {"cut_off": 1}


def test_salvage_facts_reads_only_complete_objects():
    assert salvage_facts('{"facts": [{"a": 1}, {"b": "x}"}, {"c": ') == [{"a": 1}, {"b": "x}"}]
    assert salvage_facts('[{"a": 1},{"b"') == [{"a": 1}]
    assert salvage_facts('{"facts": [') == [] and salvage_facts("nothing") == []


def test_max_tokens_is_sent_by_default_and_zero_sends_none(server, make_extractor):
    server.push(ok("empty"), ok("empty"))
    make_extractor(cache=False).extract("a", REF)
    make_extractor(cache=False, max_tokens=0).extract("a", REF)
    assert server.requests[0].body["max_tokens"] == DEFAULT_MAX_TOKENS
    assert "max_tokens" not in server.requests[1].body


# --------------------------------------------------------------------------- time
def test_episode_timeout_bounds_retries_and_backoff(server, make_extractor):
    server.push(*[error("503_overloaded")] * 10)
    ex = make_extractor(cache=False, max_retries=9, backoff_base=0.2, episode_timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(LLMUnavailableError) as info:
        ex.extract("hello", REF)
    assert time.monotonic() - t0 < 1.5
    assert len(server.requests) < 10 and "503" in str(info.value)
    assert not isinstance(info.value, LLMUnreachableError)  # the server did answer


def test_episode_timeout_cuts_the_request_timeout(server, make_extractor):
    server.push(Reply(200, load("empty"), delay=1.0))
    ex = make_extractor(cache=False, timeout=30, episode_timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeoutError):
        ex.extract("hello", REF)
    assert time.monotonic() - t0 < 0.9


# --------------------------------------------------------------------------- batches
def test_an_unreachable_endpoint_stops_the_batch_with_that_message(tmp_path):
    items = [(f"I live in city {i}.", REF, "Alice") for i in range(6)]
    with LLMExtractor("http://127.0.0.1:9/v1", "m", max_retries=2, backoff_base=0.001,
                      cache=False, concurrency=1) as ex:
        outcomes = ex.extract_outcomes(items)
        assert ex.stats.requests == 3  # the first episode's attempts only
        assert all(isinstance(o.error, LLMUnreachableError) for o in outcomes)
        assert [o.attempted for o in outcomes] == [True] + [False] * 5
        assert ex.stats.failed_episodes == 6 and ex.stats.episodes == 6
        with pytest.raises(LLMUnreachableError, match="unreachable"):
            ex.extract_many(items)


def test_outcomes_keep_the_facts_of_episodes_that_succeeded(server, make_extractor):
    # on_error="raise" too: extract_outcomes never drops a success for another's failure
    server.route(EPISODES["alice_moved"][0], ok("alice_moved"))
    server.route(EPISODES["bob_quit"][0], reply("not json at all"))  # and its repair
    ex = make_extractor(concurrency=1)
    bad, good = ex.extract_outcomes([EPISODES["bob_quit"], EPISODES["alice_moved"]])
    assert isinstance(bad.error, LLMOutputError) and bad.attempted and bad.facts == []
    assert good.ok and {f.object for f in good.facts} == {"Berlin", "Sarah", "Boston"}
    with pytest.raises(LLMOutputError):  # extract_many still raises for the failure
        ex.extract_many([EPISODES["bob_quit"], EPISODES["alice_moved"]])


# --------------------------------------------------------------------------- figures
def test_cached_prompt_tokens_from_each_server_kind():
    assert cached_prompt_tokens({"prompt_tokens_details": {"cached_tokens": 1024}}) == 1024
    assert cached_prompt_tokens({}, {"timings": {"cache_n": 1090, "prompt_n": 12}}) == 1090
    assert cached_prompt_tokens({}, {"tokens_cached": 7}) == 7
    assert cached_prompt_tokens({"prompt_tokens": 5}, {}) is None  # llama-cpp-python


def test_summary_figures(server, make_extractor):
    server.push(reply("{}"), reply("nope"), reply("still nope"),
                reply('{"facts": []}', timings={"cache_n": 1000, "prompt_n": 100}))
    ex = make_extractor(cache=False, on_error="skip", concurrency=1)
    ex.extract_many([("a", REF), ("b", REF), ("c", REF)])
    s = ex.stats.summary()
    assert s["episodes"] == 3 and s["failed_episodes"] == 1 and s["requests"] == 4
    assert s["rejected"] == {"not_json": 2} and s["repairs"] == 1
    assert s["tokens_in"] == 4 * 1100 and s["cached_prompt_tokens"] == 1000
    assert s["request_seconds"]["n"] == 3 and s["request_seconds"]["max"] >= 0
    assert s["chunks"] == 3  # three texts dated alike: three sittings
    line = format_summary(s)
    assert "4 requests" in line and "2 rejected replies (not_json 2)" in line
    assert "tokens 4,400 in" in line and "cached 1,000" in line


def test_cached_tokens_not_reported_say_so():
    st = LLMStats()
    st.record_call("m", {"prompt_tokens": 10, "completion_tokens": 2}, PriceTable(), "m")
    assert st.summary()["cached_prompt_tokens"] is None
    assert "cached not reported by the server" in format_summary(st.summary())
