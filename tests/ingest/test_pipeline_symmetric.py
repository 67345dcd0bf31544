"""The text pipeline ends a symmetric relation stated from the other side."""

from __future__ import annotations

from datetime import datetime, timezone

from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.memory.facade import Memory
from tests.conftest import ManualClock


class _Scripted:
    """An extractor that returns fixed facts per episode text (the rules are tested elsewhere)."""

    def __init__(self, script: dict[str, list[ExtractedFact]]) -> None:
        self.script = script

    def extract_many(self, items):  # type: ignore[no-untyped-def]
        return [self.script.get(text, []) for text, _ref, _speaker in items]


def test_breakup_told_by_the_object_ends_the_relation(tmp_path) -> None:
    script = {
        "Bob: Alice and I got married.": [ExtractedFact("Bob", "MARRIED_TO", "Alice")],
        "Alice: Bob and I split up.": [ExtractedFact("Alice", "MARRIED_TO", "Bob", kind="end")],
    }
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=timezone.utc))
    m = Memory(tmp_path / "m", clock=clock, extractor=ExtractionPipeline(_Scripted(script)))
    m.add_episode("Bob: Alice and I got married.", reference_time="2020-05-01")
    clock.advance(days=1)
    m.add_episode("Alice: Bob and I split up.", reference_time="2023-02-01")
    clock.advance(days=1)
    versions = m.facts("Alice", "MARRIED_TO", valid_at="2021-01-01")
    assert [(v.subject, v.object, v.invalid_at) for v in versions] == [
        ("Bob", "Alice", datetime(2023, 2, 1, tzinfo=timezone.utc))]
    assert m.facts("Alice", "MARRIED_TO") == []  # over now, from either side
    # only the one lineage: the end did not create a second, reversed one
    assert m.stats()["lineages"] == 1
    m.close()
