"""Extraction in worker processes (``ExtractionPipeline(workers=2)``, kgmem.ingest.parallel)
yields the same facts, in the same order, as in-process extraction; a run whose worker
fails is extracted again in-process."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.offline import OfflineExtractor
from kgmem.ingest.pipeline import ExtractionPipeline, make_extractor
from kgmem.memory.facade import Memory
from kgmem.settings import Settings

REF = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
TURNS = [
    ("I moved to Denver last month with my partner Alex.", "Ann"),
    ("She started a new job at Acme in March.", "Ann"),
    ("My dog Max loves the beach. We adopted him two years ago.", "Bob"),
    ("Actually I never lived in Boston.", "Bob"),
    ("I've been working at Initech since 2019, and I hate it.", "Cara"),
    ("We broke up last week.", "Cara"),
    ("I graduated from MIT in 2015 and joined Google right after.", "Dan"),
    ("Since we last talked, I got a cat named Luna.", "Dan"),
]


def _items() -> list[tuple[str, datetime, str | None]]:
    return [(t, REF, who) for t, who in TURNS] * 3


def test_workers_give_the_same_facts_in_order() -> None:
    # batch_chars small enough for several runs (a run is the unit a worker gets)
    inproc = ExtractionPipeline(OfflineExtractor(), batch_chars=120)
    par = ExtractionPipeline(OfflineExtractor(), batch_chars=120, workers=2)
    try:
        a = inproc.extract(_items())
        b = par.extract(_items())
        assert len(par.worker_pids()) >= 1  # the pool really ran
    finally:
        par.close()
    assert sum(len(o.facts) for o in a) >= 10
    assert [repr(list(o.facts)) for o in a] == [repr(list(o.facts)) for o in b]
    assert all(o.error is None and o.attempted for o in b)


class FailsInWorkers:
    """Raises in a worker process (a pickled copy), extracts in the parent."""

    def __init__(self) -> None:
        self.in_worker = False

    def __getstate__(self) -> dict[str, bool]:
        return {"in_worker": True}

    def extract_many(self, items):  # type: ignore[no-untyped-def]
        if self.in_worker:
            raise RuntimeError("worker broke")
        return [[ExtractedFact("Ann", "LIKES", "tea")] if "tea" in it[0] else [] for it in items]


def test_a_failed_worker_run_is_redone_in_process() -> None:
    p = ExtractionPipeline(FailsInWorkers(), batch_chars=10, workers=2)
    try:
        out = p.extract([("I like tea", REF, "Ann"), ("nothing here", REF, "Ann"),
                         ("more tea please", REF, "Ann")])
    finally:
        p.close()
    assert [len(o.facts) for o in out] == [1, 0, 1]
    assert all(o.error is None for o in out)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_memory_close_stops_the_workers(tmp_path: Path) -> None:
    """KGMEM_EXTRACT_WORKERS reaches the offline pipeline, and Memory.close stops the worker
    processes it started (they are reaped, not left for interpreter exit)."""
    pipeline = make_extractor(Settings(extract_workers=2, home=tmp_path / "s"))
    assert pipeline is not None and pipeline.workers == 2
    pipeline.batch_chars = 120  # several runs, so the workers are used
    m = Memory(tmp_path / "store", extractor=pipeline)
    report = m.ingest([{"content": t, "reference_time": REF, "speaker": who}
                       for t, who in TURNS], group="g")
    assert report.summary()["groups"]["g"]["facts"] >= 5
    pids = pipeline.worker_pids()
    assert pids and all(_alive(p) for p in pids)
    m.close()
    assert pipeline.worker_pids() == []
    assert not any(_alive(p) for p in pids)
