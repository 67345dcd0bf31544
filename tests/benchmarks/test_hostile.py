"""The hostile-input table of benchmarks/hostile.py on the embedded store: every case answers
as expected, none with a 5xx, and no refused request changes the store (a digest of every
row of every table before and after each request)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import hostile


def test_hostile_requests_are_refused_without_half_writes(tmp_path: Path) -> None:
    s = hostile.open_store("embedded", tmp_path)
    assert s is not None
    try:
        rows = hostile.run_cases(s)
    finally:
        s.cleanup()
    assert {r["category"] for r in rows} >= {"extreme times", "bad JSON", "wrong types",
                                             "huge values", "unknown fields", "unicode junk",
                                             "bulk atomicity"}
    assert [r for r in rows if r["status"] >= 500] == []
    assert [r["name"] for r in rows if r["half_written"]] == []
    assert [(r["name"], r["status"]) for r in rows if not r["as_expected"]] == []
    accepted = [r for r in rows if r["status"] < 400]
    assert accepted and all(r["changed_store"] for r in accepted)  # the digest sees writes
