"""End to end: recorded LLM answers -> ExtractionPipeline -> Memory.add_episode -> facts with
provenance; and construction from settings (``KGMEM_EXTRACTOR=llm``)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem import Memory
from kgmem.ingest.episodes import extract_stored
from kgmem.ingest.llm import LLMError, LLMExtractor
from kgmem.ingest.pipeline import ExtractionPipeline, make_extractor
from kgmem.settings import Settings
from kgmem.timeutil import Precision

from .fakeserver import EPISODES, ok

UTC = timezone.utc


def add(m: Memory, name: str):
    text, ref, speaker = EPISODES[name]
    return m.add_episode(text, ref, speaker=speaker)


def test_facts_land_in_memory_with_provenance(server, make_extractor, tmp_path):
    for name in ("alice_paris", "alice_moved", "alice_correction", "bob_google", "bob_quit"):
        server.route(EPISODES[name][0], ok(name))
    ex = make_extractor()
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        e_paris = add(m, "alice_paris")
        e_moved = add(m, "alice_moved")

        (berlin,) = m.facts(subject="Alice", predicate="LIVES_IN")
        assert berlin.object == "Berlin"
        assert berlin.valid_at == datetime(2024, 2, 1, tzinfo=UTC)
        assert berlin.valid_precision is Precision.MONTH
        assert berlin.episodes == [e_moved.id]
        assert "llm:gpt-4o-mini-2024-07-18" in berlin.reason
        # LIVES_IN is functional: Paris (valid from the episode's reference time) was closed
        (paris,) = m.facts(subject="Alice", predicate="LIVES_IN",
                           valid_at=datetime(2024, 1, 20, tzinfo=UTC))
        assert paris.object == "Paris" and paris.episodes == [e_paris.id]
        assert paris.valid_at == datetime(2024, 1, 10, 9, tzinfo=UTC)
        assert paris.invalid_at == datetime(2024, 2, 1, tzinfo=UTC)
        (sarah,) = m.facts(subject="Sarah", predicate="LIVES_IN")
        assert sarah.object == "Boston" and sarah.valid_at == datetime(2024, 3, 15, 10, tzinfo=UTC)

        # "Actually, I never lived in Paris": the Paris fact is retracted
        add(m, "alice_correction")
        assert m.facts(subject="Alice", predicate="LIVES_IN",
                       valid_at=datetime(2024, 1, 20, tzinfo=UTC)) == []
        (tom,) = m.facts(subject="Tom", predicate="LIVES_IN")
        assert tom.object == "Paris" and tom.valid_precision is Precision.YEAR

        # end: Bob quit Google in January -> the WORKS_AT fact is invalidated then
        add(m, "bob_google")
        add(m, "bob_quit")
        (google,) = m.facts(subject="Bob", predicate="WORKS_AT",
                            valid_at=datetime(2023, 12, 1, tzinfo=UTC))
        assert google.valid_at == datetime(2019, 1, 1, tzinfo=UTC)
        assert google.invalid_at == datetime(2024, 1, 1, tzinfo=UTC)
        assert m.facts(subject="Bob", predicate="WORKS_AT") == []
        assert m.facts(subject="Bob", predicate="USES") == []

        calls = len(server.requests)
        assert calls == 5 and ex.stats.calls == 5
        add(m, "alice_moved")  # the same episode again: idempotent, no extraction
        assert len(server.requests) == calls

    # re-ingesting everything into a fresh memory costs no calls (response cache)
    ex2 = make_extractor()
    with Memory(tmp_path / "mem2", extractor=ExtractionPipeline(ex2)) as m2:
        for name in ("alice_paris", "alice_moved", "alice_correction"):
            add(m2, name)
        assert [f.object for f in m2.facts(subject="Alice", predicate="LIVES_IN")] == ["Berlin"]
    assert len(server.requests) == calls
    assert ex2.stats.cache_hits == 3 and ex2.stats.calls == 0


def test_extracting_stored_episodes_batches_them(server, make_extractor, tmp_path):
    for name in ("alice_moved", "bob_google"):
        server.route(EPISODES[name][0], ok(name, delay=0.05))
    pipe = ExtractionPipeline(make_extractor(concurrency=2))
    with Memory(tmp_path / "mem", extractor=None) as m:
        eps = [add(m, "alice_moved"), add(m, "bob_google")]
        touched = [r.touched for r in extract_stored(m, pipe, eps, force=True)]
        assert [len(t) for t in touched] == [3, 2]
        assert {f.object for f in m.facts(subject="Bob")} == {"Google", "Slack"}


def test_from_settings_and_make_extractor(server, tmp_path, monkeypatch):
    monkeypatch.setenv("KGMEM_LLM_CACHE_DIR", str(tmp_path / "env-cache"))
    monkeypatch.setenv("KGMEM_LLM_TIMEOUT", "7.5")
    monkeypatch.setenv("KGMEM_LLM_CONCURRENCY", "2")
    monkeypatch.setenv("KGMEM_LLM_PRICES", '{"gpt-4o-mini": [0.15, 0.6]}')
    monkeypatch.setenv("KGMEM_LLM_BACKOFF_BASE", "0.001")
    settings = Settings(extractor="llm", llm_base_url=server.base_url, llm_model="gpt-4o-mini",
                        llm_api_key="sk-from-settings", home=tmp_path / "home")
    pipe = make_extractor(settings)
    assert isinstance(pipe, ExtractionPipeline)
    ex = pipe.extractor
    assert isinstance(ex, LLMExtractor)
    try:
        assert ex.client.timeout == 7.5 and ex.concurrency == 2
        assert ex.cache is not None and ex.cache.directory == tmp_path / "env-cache"
        server.push(ok("alice_moved"))
        text, ref, speaker = EPISODES["alice_moved"]
        assert len(ex.extract(text, ref, speaker=speaker)) == 3
        assert server.requests[0].headers["authorization"] == "Bearer sk-from-settings"
        assert ex.stats.cost_usd == pytest.approx((1143 * 0.15 + 212 * 0.6) / 1e6)
    finally:
        ex.close()

    override = LLMExtractor.from_settings(settings, cache=False, model="other-model")
    assert override.cache is None and override.model == "other-model"
    override.close()


def test_openai_without_key_fails_fast(monkeypatch, tmp_path):
    monkeypatch.delenv("KGMEM_LLM_API_KEY", raising=False)
    monkeypatch.delenv("KGMEM_LLM_BASE_URL", raising=False)
    with pytest.raises(LLMError, match="KGMEM_LLM_API_KEY"):
        LLMExtractor.from_settings(Settings(extractor="llm", llm_api_key=None,
                                            llm_base_url=None), cache=False)


def _items(*names: str) -> list[dict]:
    return [{"content": EPISODES[n][0], "reference_time": EPISODES[n][1],
             "speaker": EPISODES[n][2]} for n in names]


def test_llm_failures_are_recorded_and_a_rerun_retries_exactly_them(server, make_extractor,
                                                                    tmp_path):
    from .fakeserver import Reply, load

    bad = load("empty")
    bad["choices"][0]["message"]["content"] = "no JSON here"
    server.route(EPISODES["alice_moved"][0], ok("alice_moved"))
    server.route(EPISODES["bob_quit"][0], Reply(200, bad))  # and its repair
    ex = make_extractor(concurrency=1)  # on_error="raise": successes are kept all the same
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        report = m.ingest(_items("alice_moved", "bob_quit"))
        assert report.summary()["groups"]["default"]["failed"] == 1
        assert {f.object for f in m.facts(subject="Alice")} == {"Berlin", "Sarah"}
        states = {e.content: e.extraction for e in m.episodes()}
        bob = states[EPISODES["bob_quit"][0]]
        assert bob.status == "failed" and bob.error_kind == "llm_error"
        assert "did not return the facts JSON" in bob.error_message
        assert states[EPISODES["alice_moved"][0]].status == "done"

        server.routes.clear()
        server.route(EPISODES["bob_quit"][0], ok("bob_quit"))
        sent = len(server.requests)
        again = m.ingest(_items("alice_moved", "bob_quit"))
        assert len(server.requests) == sent + 1  # only Bob's episode, once
        assert again.summary()["groups"]["default"]["retried"] == 1
        assert ex.stats.cache_hits == 0  # Alice's episode was not extracted again
        assert {e.extraction.status for e in m.episodes()} == {"done"}


def test_an_unreachable_endpoint_leaves_the_rest_pending_with_the_reason(tmp_path):
    ex = LLMExtractor("http://127.0.0.1:9/v1", "m", max_retries=1, backoff_base=0.001,
                      cache=False, concurrency=1)
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        m.ingest(_items("alice_moved", "bob_quit", "dana"))
        states = [e.extraction for e in m.episodes()]
        assert sorted(s.status for s in states) == ["failed", "pending", "pending"]
        assert all("unreachable" in (s.error_message or "") for s in states)
        assert ex.stats.requests == 2  # the first episode's attempts only
