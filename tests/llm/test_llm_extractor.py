"""LLMExtractor against a local server replaying recorded OpenAI chat-completions responses."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone

import pytest

from kgmem.errors import KgmemError
from kgmem.ingest.facts import ANY_OBJECT, ExtractedFact
from kgmem.ingest.llm import LLMError, LLMExtractor, LLMOutputError, LLMUnavailableError
from kgmem.ingest.llm_prompt import GRAMMAR_SCHEMA, PROMPT_VERSION, RESPONSE_SCHEMA, SCHEMA_NAME
from kgmem.llm import LLMAuthError, LLMBadRequestError, LLMTimeoutError, LLMUnreachableError
from kgmem.timeutil import Precision

from .fakeserver import EPISODES, Reply, error, load, ok

UTC = timezone.utc


def ep(name: str) -> tuple[str, str, str]:
    return EPISODES[name]


def by_key(facts: list[ExtractedFact]) -> dict[tuple[str, str, str, str], ExtractedFact]:
    return {(f.subject, f.predicate, f.object, f.kind): f for f in facts}


# --------------------------------------------------------------------------- mapping
def test_extraction_maps_to_extracted_facts(server, make_extractor):
    server.push(ok("alice_moved"))
    ex = make_extractor()
    text, ref, speaker = ep("alice_moved")
    facts = ex.extract(text, ref, speaker=speaker)
    assert all(isinstance(f, ExtractedFact) for f in facts)
    got = by_key(facts)
    assert set(got) == {("Alice", "LIVES_IN", "Berlin", "assert"),
                        ("Alice", "SIBLING_OF", "Sarah", "assert"),
                        ("Sarah", "LIVES_IN", "Boston", "assert")}
    berlin = got["Alice", "LIVES_IN", "Berlin", "assert"]
    assert berlin.valid_at == datetime(2024, 2, 1, tzinfo=UTC)
    assert berlin.valid_precision is Precision.MONTH
    assert berlin.invalid_at is None and berlin.confidence == 0.95
    assert berlin.subject_is_speaker
    s, e = berlin.evidence
    assert text[s:e] == "I moved to Berlin last month"
    assert berlin.rule == "llm:gpt-4o-mini-2024-07-18"
    assert berlin.attributes["prompt_version"] == PROMPT_VERSION
    boston = got["Sarah", "LIVES_IN", "Boston", "assert"]
    assert boston.valid_at is None and not boston.subject_is_speaker  # caller uses ref time


def test_end_and_retract_kinds(server, make_extractor):
    server.push(ok("bob_quit"), ok("alice_correction"))
    ex = make_extractor()
    quit_ = by_key(ex.extract(*ep("bob_quit")[:2], speaker="Bob"))
    google = quit_["Bob", "WORKS_AT", "Google", "end"]
    assert google.valid_at is None
    assert google.invalid_at == datetime(2024, 1, 1, tzinfo=UTC)
    assert google.invalid_precision is Precision.MONTH
    slack = quit_["Bob", "USES", "Slack", "end"]
    assert slack.invalid_at is None  # "ended as of the reference time"

    corr = by_key(ex.extract(*ep("alice_correction")[:2], speaker="Alice"))
    assert ("Alice", "LIVES_IN", "Paris", "retract") in corr
    tom = corr["Tom", "LIVES_IN", "Paris", "assert"]
    assert tom.valid_at == datetime(2019, 1, 1, tzinfo=UTC)
    assert tom.valid_precision is Precision.YEAR


def test_invalid_facts_are_dropped_with_warnings(server, make_extractor, caplog):
    server.push(ok("messy"))
    ex = make_extractor(model="llama3.1:8b")
    text, ref, speaker = ep("messy")
    with caplog.at_level(logging.WARNING, logger="kgmem.ingest.llm"):
        facts = ex.extract(text, ref, speaker=speaker)
    got = by_key(facts)
    # "I" left in the output is the speaker; "reports to" is normalised to the vocabulary
    assert set(got) == {("Carol", "REPORTS_TO", "Priya", "assert"),
                        ("Carol", "PLANS", "learn Rust", "assert")}
    priya = got["Carol", "REPORTS_TO", "Priya", "assert"]
    assert priya.subject_is_speaker
    assert priya.valid_at == datetime(2024, 6, 3, tzinfo=UTC)
    assert priya.valid_precision is Precision.DAY
    assert ex.stats.dropped_facts == 7
    dropped = [r.getMessage() for r in caplog.records if "dropped invalid LLM fact" in r.message]
    assert len(dropped) == 7
    joined = "\n".join(dropped)
    assert "next month" in joined and "kind" in joined and "pronoun" in joined
    assert "is not after its start" in joined and '"*"' in joined
    assert "a context turn" in joined


def test_first_person_and_generic_speaker(server, make_extractor):
    body = load("alice_moved")
    body["choices"][0]["message"]["content"] = (
        '{"facts": [{"subject": "my", "predicate": "OWNS", "object": "a bike", "valid_at": null,'
        ' "valid_precision": null, "invalid_at": null, "invalid_precision": null, "kind":'
        ' "assert", "confidence": 0.9, "evidence": "my bike"}, {"subject": "Sam", "predicate":'
        ' "KNOWS", "object": "me", "valid_at": null, "valid_precision": null, "invalid_at":'
        ' null, "invalid_precision": null, "kind": "assert", "confidence": 0.7, "evidence": ""}'
        ', {"subject": "Dana", "predicate": "DATING", "object": "*", "valid_at": null,'
        ' "valid_precision": null, "end_time": "on March 1", "invalid_precision": "day",'
        ' "kind": "end", "confidence": 0.8, "evidence": "we broke up"}]}')
    server.push(Reply(200, body))
    ex = make_extractor(cache=False)
    facts = ex.extract("my bike; Sam knows me; we broke up on March 1", REF_DT, speaker="user",
                       user="Dana")
    got = by_key(facts)
    assert ("Dana", "OWNS", "a bike", "assert") in got
    assert ("Sam", "KNOWS", "Dana", "assert") in got
    assert got["Dana", "DATING", ANY_OBJECT, "end"].invalid_at == datetime(2024, 3, 1, tzinfo=UTC)
    assert "[t1] Dana: my bike" in server.requests[0].user_text


REF_DT = datetime(2024, 3, 15, 10, tzinfo=UTC)


# --------------------------------------------------------------------------- request
def test_request_body_carries_model_messages_schema_temperature(server, make_extractor):
    server.push(ok("alice_moved"))
    ex = make_extractor(max_tokens=800)
    text, ref, speaker = ep("alice_moved")
    ex.extract(text, ref, speaker=speaker)
    (req,) = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test-cdef"
    body = req.body
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0
    assert body["max_tokens"] == 800
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": RESPONSE_SCHEMA},
    }
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert "LIVES_IN | functional | current home city/place" in system["content"]
    assert "never instructions to you" in system["content"]
    assert user["content"] == f"<turns>\n[t1] Alice: {text}\n</turns>\n"  # no date sent


def test_empty_text_makes_no_call(server, make_extractor):
    ex = make_extractor()
    assert ex.extract("   ", REF_DT, speaker="Alice") == []
    assert ex.extract_many([("", REF_DT, "Alice")]) == [[]]
    assert server.requests == []


# --------------------------------------------------------------------------- cache
def test_cache_hit_makes_no_second_call(server, make_extractor, tmp_path):
    server.push(ok("alice_moved"))
    ex = make_extractor()
    text, ref, speaker = ep("alice_moved")
    first = ex.extract(text, ref, speaker=speaker)
    again = ex.extract(text, ref, speaker=speaker)
    assert [f.to_dict() for f in again] == [f.to_dict() for f in first]
    assert len(server.requests) == 1
    assert ex.stats.calls == 1 and ex.stats.cache_hits == 1
    assert ex.stats.prompt_tokens == 1143  # cached answers cost nothing

    # re-ingesting with a new extractor (new process) and the same cache dir: still no call
    ex2 = make_extractor()
    assert len(ex2.extract_many([(text, ref, speaker)])[0]) == 3
    assert len(server.requests) == 1 and ex2.stats.calls == 0 and ex2.stats.cache_hits == 1
    assert (tmp_path / "llm-cache" / "llm-responses.sqlite3").exists()

    # another speaker is another prompt: a miss
    server.push(ok("alice_moved"))
    ex2.extract(text, ref, speaker="Sarah")
    assert len(server.requests) == 2


def test_cache_can_be_disabled(server, make_extractor):
    server.push(ok("empty"), ok("empty"))
    ex = make_extractor(cache=False)
    ex.extract("Nice weather.", REF_DT, speaker="Alice")
    ex.extract("Nice weather.", REF_DT, speaker="Alice")
    assert len(server.requests) == 2 and ex.cache is None


# --------------------------------------------------------------------------- retries
def test_retry_on_500_then_success(server, make_extractor):
    server.push(error("500_server_error"), error("503_overloaded"), ok("alice_moved"))
    ex = make_extractor()
    facts = ex.extract(*ep("alice_moved")[:2], speaker="Alice")
    assert len(facts) == 3
    assert len(server.requests) == 3
    assert ex.stats.retries == 2 and ex.stats.requests == 3 and ex.stats.calls == 1


def test_429_retry_after_is_honoured(server, make_extractor):
    sleeps: list[float] = []

    def sleep(s: float) -> None:
        sleeps.append(s)
        time.sleep(s)

    server.push(error("429_rate_limit", **{"retry-after": "0.2"}), ok("alice_moved"))
    ex = make_extractor(sleep=sleep, backoff_base=0.0001)
    t0 = time.monotonic()
    assert len(ex.extract(*ep("alice_moved")[:2], speaker="Alice")) == 3
    assert time.monotonic() - t0 >= 0.2
    assert sleeps == [0.2]

    # retry-after-ms (OpenAI) wins over Retry-After; the cap bounds huge values
    server.push(error("429_rate_limit", **{"retry-after-ms": "30"}), ok("empty"),
                error("429_rate_limit"), ok("empty"))
    ex2 = make_extractor(sleep=sleeps.append, max_retry_after=0.05, cache=False)
    ex2.extract("a", REF_DT)
    ex2.extract("b", REF_DT)
    assert sleeps[1:] == [0.03, 0.05]  # the recorded "retry-after: 20" capped at 0.05


def test_insufficient_quota_is_not_retried(server, make_extractor):
    server.push(error("429_insufficient_quota"), ok("empty"))
    ex = make_extractor()
    with pytest.raises(LLMUnavailableError, match="quota"):
        ex.extract("hello", REF_DT)
    assert len(server.requests) == 1


def test_read_timeout_is_not_retried(server, make_extractor):
    # A local server keeps generating for a request kgmem gave up on: a retry would queue
    # behind it. The episode fails with a timeout instead (and is retried by a later run).
    server.push(Reply(200, load("empty"), delay=0.6), ok("alice_moved"))
    ex = make_extractor(timeout=0.2)
    with pytest.raises(LLMTimeoutError, match="not retried"):
        ex.extract(*ep("alice_moved")[:2], speaker="Alice")
    assert len(server.requests) == 1 and ex.stats.retries == 0
    assert ex.stats.failed_episodes == 1


def test_retries_exhausted_raise_unavailable(server, make_extractor):
    server.push(*[error("503_overloaded")] * 3)
    ex = make_extractor(max_retries=2)
    with pytest.raises(LLMUnavailableError) as info:
        ex.extract("hello", REF_DT)
    err = info.value
    assert err.status_code == 503 and err.details["attempts"] == 3
    assert "overloaded" in str(err)
    assert len(server.requests) == 3 and ex.stats.errors == 1


def test_unreachable_server_raises_unreachable(tmp_path):
    with LLMExtractor("http://127.0.0.1:9/v1", "m", max_retries=1, backoff_base=0.001,
                      timeout=0.5, cache=False) as ex:
        with pytest.raises(LLMUnreachableError, match="unreachable") as info:
            ex.extract("hello", REF_DT)
    assert info.value.status_code is None
    assert isinstance(info.value, LLMUnavailableError)  # still an outage to older callers


# --------------------------------------------------------------------------- errors
def test_401_is_a_clear_llm_error_without_retry(server, make_extractor):
    server.push(error("401_invalid_api_key"), ok("empty"))
    ex = make_extractor(api_key="sk-wrong")
    with pytest.raises(LLMAuthError) as info:
        ex.extract("hello", REF_DT)
    err = info.value
    assert isinstance(err, LLMError) and isinstance(err, KgmemError)
    assert err.type == "llm_error" and err.details["reason"] == "auth"
    assert err.status_code == 401
    assert "Incorrect API key" in str(err) and "KGMEM_LLM_API_KEY" in str(err)
    assert err.to_dict()["type"] == "llm_error"
    assert len(server.requests) == 1  # not retried


def test_404_hints_at_base_url_and_model(server, make_extractor):
    server.push(error("404_model"))
    ex = make_extractor(model="gpt-5-nano-typo")
    with pytest.raises(LLMBadRequestError, match="check base_url"):
        ex.extract("hello", REF_DT)


def test_malformed_json_gets_one_repair_request(server, make_extractor):
    server.push(ok("malformed"), ok("repaired"))
    ex = make_extractor()
    text, ref, speaker = ep("dana")
    facts = ex.extract(text, ref, speaker=speaker)
    assert [(f.subject, f.predicate, f.object) for f in facts] == [("Dana", "LIVES_IN", "Oslo")]
    assert len(server.requests) == 2
    repair = server.requests[1].body
    assert repair["response_format"]["type"] == "json_schema"
    roles = [m["role"] for m in repair["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert repair["messages"][2]["content"].startswith("Here are the facts I found:")
    assert "not valid JSON" in repair["messages"][3]["content"]
    assert ex.stats.repairs == 1 and ex.stats.calls == 2
    assert ex.stats.prompt_tokens == 1108 + 1199  # both calls are billed
    # the repaired answer is cached under the original prompt
    assert len(ex.extract(text, ref, speaker=speaker)) == 1 and len(server.requests) == 2


def test_malformed_json_twice_raises_and_is_not_cached(server, make_extractor):
    server.push(ok("malformed"), ok("malformed_again"))
    ex = make_extractor()
    text, ref, speaker = ep("dana")
    with pytest.raises(LLMOutputError) as info:
        ex.extract(text, ref, speaker=speaker)
    assert info.value.type == "llm_error"
    assert info.value.details["reason"] == "malformed_output"
    assert "repair" in str(info.value)
    server.push(ok("repaired"))
    assert len(ex.extract(text, ref, speaker=speaker)) == 1
    assert len(server.requests) == 3


def test_refusal_yields_no_facts(server, make_extractor):
    server.push(ok("refusal"))
    ex = make_extractor()
    assert ex.extract("something odd", REF_DT) == []
    assert ex.stats.refusals == 1 and ex.stats.repairs == 0


# --------------------------------------------------------------------------- fallbacks
def test_response_format_fallback_is_remembered(server, make_extractor):
    server.push(error("400_response_format"), ok("alice_moved"), ok("bob_quit"))
    ex = make_extractor(model="gpt-3.5-turbo")
    assert len(ex.extract(*ep("alice_moved")[:2], speaker="Alice")) == 3
    first, second = server.requests[0].body, server.requests[1].body
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object", "schema": GRAMMAR_SCHEMA}
    assert "Output JSON schema" in second["messages"][0]["content"]
    assert ex.response_format_mode == "json_object"
    ex.extract(*ep("bob_quit")[:2], speaker="Bob")
    assert len(server.requests) == 3  # no second 400: the mode is remembered
    assert server.requests[2].body["response_format"]["type"] == "json_object"
    # the cache key does not depend on the mode: a fresh instance hits the cache
    ex2 = make_extractor(model="gpt-3.5-turbo")
    assert len(ex2.extract(*ep("alice_moved")[:2], speaker="Alice")) == 3
    assert len(server.requests) == 3


def test_falls_back_to_no_response_format(server, make_extractor):
    server.push(error("400_response_format"), error("400_response_format"), ok("empty"))
    ex = make_extractor(cache=False)
    assert ex.extract("hello", REF_DT) == []
    assert "response_format" not in server.requests[2].body
    assert ex.response_format_mode == "none"


def test_rejected_temperature_is_dropped(server, make_extractor):
    server.push(error("400_temperature"), ok("empty"))
    ex = make_extractor(cache=False, model="o4-mini")
    ex.extract("hello", REF_DT)
    assert server.requests[0].body["temperature"] == 0
    assert "temperature" not in server.requests[1].body


# --------------------------------------------------------------------------- accounting
def test_token_accounting_sums_usage_and_prices(server, make_extractor):
    server.push(ok("alice_moved"), ok("bob_quit"))
    ex = make_extractor(cache=False, prices={"gpt-4o-mini": {"input": 0.15, "output": 0.60,
                                                              "cached_input": 0.075}})
    ex.extract(*ep("alice_moved")[:2], speaker="Alice")
    ex.extract(*ep("bob_quit")[:2], speaker="Bob")
    st = ex.stats
    assert st.calls == 2 and st.cache_hits == 0
    assert st.prompt_tokens == 1143 + 1139
    assert st.completion_tokens == 212 + 163
    assert st.total_tokens == 1143 + 1139 + 212 + 163
    assert st.cached_prompt_tokens == 1024
    calls = list(st.per_call)
    assert [(c.prompt_tokens, c.completion_tokens) for c in calls] == [(1143, 212), (1139, 163)]
    assert calls[0].model == "gpt-4o-mini-2024-07-18"  # priced by prefix
    want = ((1143 - 1024) * 0.15 + 1024 * 0.075 + 212 * 0.60 + 1139 * 0.15 + 163 * 0.60) / 1e6
    assert st.cost_usd == pytest.approx(want)
    d = st.to_dict()
    assert d["total_tokens"] == st.total_tokens and len(d["per_call"]) == 2
    assert d["episodes"] == 2 and d["facts"] == 5


def test_cost_is_none_without_prices(server, make_extractor):
    server.push(ok("empty"))
    ex = make_extractor(cache=False)
    ex.extract("hello", REF_DT)
    assert ex.stats.cost_usd is None and ex.stats.unpriced_calls == 1


# --------------------------------------------------------------------------- batches
def test_extract_many_runs_concurrently_in_order(server, make_extractor):
    names = ["alice_moved", "bob_quit", "alice_correction", "messy"]
    for n in names:
        server.route(EPISODES[n][0], ok(n, delay=0.15))
    ex = make_extractor(concurrency=4)
    items = [EPISODES[n] for n in names]
    t0 = time.monotonic()
    out = ex.extract_many(items)
    assert time.monotonic() - t0 < 0.5
    assert server.max_in_flight > 1
    assert [len(x) for x in out] == [3, 2, 3, 2]
    assert out[1][0].subject == "Bob" and out[3][0].subject == "Carol"
    assert ex.stats.calls == 4


def test_extract_many_on_error(server, make_extractor):
    server.route(EPISODES["alice_moved"][0], ok("alice_moved"))
    server.route(EPISODES["bob_quit"][0], error("404_model"))
    items = [EPISODES["alice_moved"], EPISODES["bob_quit"]]
    ex = make_extractor(concurrency=2)
    with pytest.raises(LLMBadRequestError):
        ex.extract_many(items)
    skip = make_extractor(concurrency=2, on_error="skip")
    out = skip.extract_many(items)  # alice_moved now comes from the cache
    assert [len(x) for x in out] == [3, 0]
    assert skip.stats.errors == 1 and skip.stats.cache_hits == 1


def test_extract_many_accepts_offline_item_forms(server, make_extractor):
    server.route("Nice weather", ok("empty"))
    ex = make_extractor()
    out = ex.extract_many(["Nice weather", {"text": "Nice weather", "speaker": "Bo"}],
                          reference_time=REF_DT, speaker="Al")
    assert out == [[], []]
    assert {r.user_text for r in server.requests} == {
        "<turns>\n[t1] Al: Nice weather\n</turns>\n", "<turns>\n[t1] Bo: Nice weather\n</turns>\n"}
