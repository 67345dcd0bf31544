"""The bulk import's CSV (kgmem.store.neo4j.bulk) is the same whether one process writes it or
the parts are split over worker processes (the default on a machine with two cores or more):
byte for byte, with the vectors, and the same clocks handed to ``finish``. No server needed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.store.neo4j.bulk import (
    EmbeddedVectors,
    default_csv_workers,
    write_csv,
    write_csv_parallel,
)
from kgmem.store.neo4j.importer import ExportState
from tests.conftest import ManualClock


def test_one_process_and_worker_processes_write_the_same_files(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    m = Memory(tmp_path / "emb", clock=clock, extractor=None)
    g = "bulk-csv"
    m.assert_facts([{"subject": f"p{i}", "predicate": "LIVES_IN", "object": f"c{i % 7}",
                     "valid_at": f"20{10 + i % 10}-01"} for i in range(120)], group=g)
    clock.advance(hours=1)
    m.assert_facts([{"subject": f"p{i}", "predicate": "LIVES_IN", "object": f"d{i % 3}",
                     "valid_at": "2022-06"} for i in range(0, 120, 4)], group=g)
    m.add_alias("p1", "Pat", group=g)
    assert index_pending(m, embedder=HashingEmbedder(384)) > 0
    one, many = tmp_path / "one", tmp_path / "many"
    one.mkdir()
    many.mkdir()
    s1, s2 = ExportState(), ExportState()
    c1 = write_csv(m.store, [g], one, s1, EmbeddedVectors(m.store))  # type: ignore[arg-type]
    c2 = write_csv_parallel(m.store, [g], many, s2, True)  # type: ignore[arg-type]
    assert c1 == c2 and c1["versions"] > 120
    names = sorted(p.name for p in one.glob("*.csv"))
    assert names == sorted(p.name for p in many.glob("*.csv")) and "versions.csv" in names
    for name in names:
        assert (one / name).read_bytes() == (many / name).read_bytes(), name
    assert (s1.max_ins, s1.last_tx) == (s2.max_ins, s2.last_tx)
    assert ";" in (one / "versions.csv").read_text().splitlines()[1]  # the vector column
    m.close()


def test_the_default_number_of_csv_workers_follows_the_cores(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert default_csv_workers() == 1
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert default_csv_workers() == 1
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert default_csv_workers() == 2
