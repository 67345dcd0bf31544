"""An episode and the facts extracted from it are one write; extraction errors are recorded on
the episode and retried, never silent (issue 13, point 3). Both stores."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pytest

from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.memory.facade import Memory
from tests.conftest import fresh_group

UTC = timezone.utc


class Scripted:
    """Facts per episode text; texts in ``failing`` raise (until ``heal()``)."""

    name = "scripted"
    version = "7"

    def __init__(self, script: dict[str, list[Any]], failing: Sequence[str] = ()) -> None:
        self.script = script
        self.failing = set(failing)
        self.seen: list[str] = []

    def heal(self) -> None:
        self.failing.clear()

    def extract_many(self, items):  # type: ignore[no-untyped-def]
        texts = [it[0] for it in items]
        self.seen += texts
        for t in texts:
            if t in self.failing:
                raise ValueError(f"year 1 is out of range in {t!r}")
        return [self.script.get(t, []) for t in texts]


def lives(m: Memory, group: str) -> list[tuple[str, str, str]]:
    return sorted((f.subject, f.predicate, f.object)
                  for f in m.facts(valid_at="0001-01-02", valid_to="9999-12-30", group=group))


SCRIPT = {
    "I live in Boston": [ExtractedFact("Ann", "LIVES_IN", "Boston")],
    "I work at Acme": [ExtractedFact("Ann", "WORKS_AT", "Acme")],
    "I like tea": [ExtractedFact("Ann", "LIKES", "tea")],
}


def test_an_extraction_error_is_recorded_on_the_episode_and_a_re_add_retries_it(
        make_memory) -> None:  # type: ignore[no-untyped-def]
    ex = Scripted(SCRIPT, failing=["I work at Acme"])
    m, g = make_memory(extractor=ExtractionPipeline(ex)), fresh_group()
    ep = m.add_episode("I work at Acme", "2024-03-01", speaker="Ann", group=g)
    st = ep.extraction
    assert st is not None and st.status == "failed" and st.attempts == 1
    assert st.error_kind == "ValueError" and "out of range" in (st.error_message or "")
    assert (st.extractor, st.extractor_version) == ("scripted", "7")
    assert m.episode(ep.id, group=g).extraction == st  # durable, not only in the reply
    assert lives(m, g) == []
    ex.heal()
    again = m.add_episode("I work at Acme", "2024-03-01", speaker="Ann", group=g)
    assert again.id == ep.id  # still one episode
    assert again.extraction is not None and again.extraction.status == "done"
    assert again.extraction.attempts == 2 and again.extraction.error_kind is None
    assert lives(m, g) == [("Ann", "WORKS_AT", "Acme")]
    m.add_episode("I work at Acme", "2024-03-01", speaker="Ann", group=g)
    assert ex.seen.count("I work at Acme") == 2  # done: not extracted a third time


def test_one_failing_episode_in_a_batch_fails_alone(make_memory) -> None:  # type: ignore[no-untyped-def]
    ex = Scripted(SCRIPT, failing=["I work at Acme"])
    m, g = make_memory(extractor=ExtractionPipeline(ex)), fresh_group()
    eps = m.add_episodes([{"content": t, "reference_time": f"2024-0{i + 1}-01", "speaker": "Ann"}
                          for i, t in enumerate(SCRIPT)], group=g)
    assert [e.extraction.status for e in eps] == ["done", "failed", "done"]  # type: ignore[union-attr]
    assert lives(m, g) == [("Ann", "LIKES", "tea"), ("Ann", "LIVES_IN", "Boston")]
    assert m.store.extraction_counts(g) == {"done": 2, "failed": 1}


class _Exploding:
    """A fact whose rule name cannot be read: applying it raises inside the write."""

    kind = "assert"
    confidence = 1.0
    subject, predicate, object = "Ann", "LIKES", "coffee"
    valid_at = invalid_at = valid_precision = invalid_precision = None

    @property
    def rule(self) -> str:
        raise RuntimeError("bad fact")


def test_an_error_while_writing_the_facts_rolls_that_episode_back_only(
        make_memory) -> None:  # type: ignore[no-untyped-def]
    script = dict(SCRIPT)
    script["I like coffee"] = [ExtractedFact("Ann", "DRINKS", "water"), _Exploding()]
    m, g = make_memory(extractor=ExtractionPipeline(Scripted(script))), fresh_group()
    texts = ["I live in Boston", "I like coffee", "I like tea"]
    eps = m.add_episodes([{"content": t, "reference_time": f"2024-0{i + 1}-01", "speaker": "Ann"}
                          for i, t in enumerate(texts)], group=g)
    assert [e.extraction.status for e in eps] == ["done", "failed", "done"]  # type: ignore[union-attr]
    assert eps[1].extraction.error_kind == "RuntimeError"  # type: ignore[union-attr]
    # nothing of the failed episode's facts, not even the one before the error
    assert lives(m, g) == [("Ann", "LIKES", "tea"), ("Ann", "LIVES_IN", "Boston")]
    assert [e.id for e in m.episodes(group=g)] == [e.id for e in eps]


def test_facts_the_rules_cannot_place_are_recorded_as_dropped(make_memory) -> None:  # type: ignore[no-untyped-def]
    backwards = ExtractedFact("Ann", "LIVES_IN", "Paris", valid_at=datetime(2020, 1, 1, tzinfo=UTC),
                              invalid_at=datetime(2019, 1, 1, tzinfo=UTC), rule="test")
    script = {"I lived in Paris": [backwards, ExtractedFact("Ann", "LIKES", "Paris")]}
    m, g = make_memory(extractor=ExtractionPipeline(Scripted(script))), fresh_group()
    ep = m.add_episode("I lived in Paris", "2024-01-01", speaker="Ann", group=g)
    st = ep.extraction
    assert st is not None and st.status == "done" and st.facts == 1 and st.dropped == 1
    assert "LIVES_IN Paris" in st.dropped_reasons[0]
    assert lives(m, g) == [("Ann", "LIKES", "Paris")]


def test_extract_failed_retries_exactly_the_failed_and_pending_episodes(
        make_memory) -> None:  # type: ignore[no-untyped-def]
    ex = Scripted(SCRIPT, failing=["I work at Acme", "I like tea"])
    m, g = make_memory(extractor=ExtractionPipeline(ex)), fresh_group()
    m.add_episodes([{"content": t, "reference_time": f"2024-0{i + 1}-01", "speaker": "Ann"}
                    for i, t in enumerate(SCRIPT)], group=g)
    other = fresh_group()
    m.add_episode("I work at Acme", "2024-01-01", speaker="Ann", group=other)  # another group
    ex.heal()
    ex.seen.clear()
    report = m.extract_failed(group=g)
    assert sorted(ex.seen) == ["I like tea", "I work at Acme"]
    assert report.groups[g].retried == 2 and report.groups[g].extracted == 2
    assert lives(m, g) == [("Ann", "LIKES", "tea"), ("Ann", "LIVES_IN", "Boston"),
                           ("Ann", "WORKS_AT", "Acme")]
    assert m.store.extraction_counts(g) == {"done": 3}
    assert m.store.extraction_counts(other) == {"failed": 1}
    ex.seen.clear()
    assert m.extract_failed(group=g).episodes == [] and ex.seen == []


class _StopsEarly:
    """An extractor that reports per-episode outcomes and gives up after the first."""

    def extract_outcomes(self, items):  # type: ignore[no-untyped-def]
        from kgmem.ingest.pipeline import Outcome

        first = [Outcome(facts=[ExtractedFact("Ann", "LIKES", "tea")])]
        return first + [Outcome(error=ConnectionError("endpoint unreachable"), attempted=False)
                        for _ in items[1:]]


def test_episodes_an_extractor_did_not_try_stay_pending(make_memory) -> None:  # type: ignore[no-untyped-def]
    m, g = make_memory(extractor=ExtractionPipeline(_StopsEarly())), fresh_group()
    eps = m.add_episodes([{"content": f"turn {i}", "reference_time": "2024-01-01"}
                          for i in range(3)], group=g)
    states = [e.extraction for e in eps]
    assert [s.status for s in states] == ["done", "pending", "pending"]  # type: ignore[union-attr]
    assert states[1].attempts == 0 and states[1].error_kind == "ConnectionError"  # type: ignore[union-attr]
    m.extractor = ExtractionPipeline(Scripted({"turn 1": [ExtractedFact("Ann", "LIKES", "jam")]}))
    m.extract_failed(group=g)
    assert m.store.extraction_counts(g) == {"done": 3}
    assert lives(m, g) == [("Ann", "LIKES", "jam"), ("Ann", "LIKES", "tea")]


def test_an_episode_stored_without_extraction_is_extracted_when_added_again_with_it(
        make_memory) -> None:  # type: ignore[no-untyped-def]
    m, g = make_memory(extractor=ExtractionPipeline(Scripted(SCRIPT))), fresh_group()
    ep = m.add_episode("I like tea", "2024-01-01", speaker="Ann", group=g, extract=False)
    assert ep.extraction is not None and ep.extraction.status == "skipped"
    assert lives(m, g) == []
    assert m.add_episode("I like tea", "2024-01-01", speaker="Ann", group=g).extraction.status == "done"  # type: ignore[union-attr]
    assert lives(m, g) == [("Ann", "LIKES", "tea")]


def test_bulk_validation_names_every_bad_item_and_writes_nothing(make_memory) -> None:  # type: ignore[no-untyped-def]
    from kgmem.errors import InvalidInputError

    m, g = make_memory(), fresh_group()
    items: list[dict[str, Any]] = [{"content": f"n{i}", "reference_time": "2024"} for i in range(20)]
    items[0]["content"] = " "
    items[19]["reference_time"] = "not a time"
    with pytest.raises(InvalidInputError) as err:
        m.add_episodes(items, group=g)
    assert err.value.details["errors"] == [
        {"index": 0, "field": "content", "message": "episode content must not be empty"},
        {"index": 19, "field": "reference_time", "message": err.value.details["errors"][1][
            "message"]}]
    assert "2 of 20 episodes are invalid" in err.value.message
    assert m.episodes(group=g) == []
