"""What an extractor is: the one seam between the pipeline and the ways of reading text.

Two ship with kgmem: :class:`kgmem.ingest.offline.OfflineExtractor` (rules over a spaCy
parse) and :class:`kgmem.ingest.llm.LLMExtractor` (an OpenAI-compatible model). Any object
with the same ``extract_many`` can be handed to :class:`kgmem.ingest.pipeline.ExtractionPipeline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from .facts import ExtractedFact

Item = tuple[str, datetime, "str | None"]  # (text, reference time, speaker)


@runtime_checkable
class Extractor(Protocol):
    """Text in, facts out, nothing written: one list of facts per item, in order.

    Optional, read with ``getattr`` by the pipeline: ``name`` and ``version`` (recorded in
    each episode's extraction state) and ``extract_outcomes(items)``, which reports each
    item's failure itself instead of raising for the batch; ``reads_pieces = True`` asks the
    pipeline to hand the pieces of a long episode after the first as mappings
    ``{"text", "reference_time", "speaker", "continues": True}`` (one text read on)."""

    def extract_many(self, items: Sequence[Item]) -> list[list[ExtractedFact]]: ...
