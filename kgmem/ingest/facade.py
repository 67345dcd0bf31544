"""What ingestion needs of the facade (:class:`kgmem.memory.facade.Memory`), as a protocol.

:mod:`kgmem.ingest.episodes` and :mod:`kgmem.ingest.pipeline` write through the facade's own
write steps (the clock, entity resolution, assertions and lineage changes, each inside an open
write), so that an episode and its facts are one transaction. They take the facade through
this protocol (Memory passes itself) and never import it: the layers stay one-way,
memory -> ingest -> resolve -> store.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, Protocol

from ..core.predicates import Predicates
from ..model import Change, Entity, Episode
from ..store.base import LineageState, Store, WriteTx
from ..timeutil import Precision
from ..trust import TrustPolicy

TimeLike = datetime | str


class IngestFacade(Protocol):
    """The facade's write steps that ingestion runs inside its own writes."""

    store: Store
    _predicates: Predicates
    trust: TrustPolicy  # the trust level and flags of each new episode (kgmem.trust)

    @property
    def extractor(self) -> object: ...  # an ExtractionPipeline, or None (no extraction)

    def index(self) -> int: ...
    def _tick(self, w: WriteTx, *groups: str, replaying: datetime | None = None) -> datetime: ...
    def _resolve_entity(self, w: WriteTx, group: str, name_or_id: str, now: datetime,
                        role: str = "other", predicate: str | None = None,
                        mention: bool = False) -> Entity: ...
    def _parse_assertion(
        self, subject: str, predicate: str, object: str, valid_at: TimeLike | None,
        invalid_at: TimeLike | None, group: str, episode: str | Episode | None,
        fact: str | None, reason: str, valid_precision: Precision | None = None,
        invalid_precision: Precision | None = None, from_text: bool = False,
        subject_type: str | None = None, object_type: str | None = None,
    ) -> dict[str, Any]: ...
    def _assert_in_tx(self, w: WriteTx, now: datetime, a: dict[str, Any]) -> str: ...
    def _change_lineage(
        self, group: str, fact_id: str, kind: Literal["invalidate", "retract", "correct"],
        edit: Callable[..., LineageState], reason: str, needs_tx: bool = False,
        tx: tuple[WriteTx, datetime | None] | None = None,
    ) -> Change: ...
