"""kill -9 on Neo4j (issue 32), as a tier CI runs: the database killed while library and HTTP
writers write, and the Neo4j-backed API process killed while HTTP writers write. Writers
re-send an unacknowledged item until it is acknowledged; afterwards every acknowledged write
is stored, once. The database kill uses a private server (benchmarks/neo4j_private.py, its
own home, data and ports, borrowing the fetched jars), never the shared one. The recovery
times are printed, not asserted (``python -m benchmarks neo4j-outage`` reports them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.neo4j_outage import run_api_kills, run_db_kills
from tests.conftest import neo4j_settings, neo4j_store_or_skip

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def _show(capsys: pytest.CaptureFixture[str], lines: list[str]) -> None:
    with capsys.disabled():
        print("\n" + "\n".join(lines))


@pytest.mark.timeout(600)
def test_kill_9_of_neo4j_loses_no_acknowledged_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    neo4j_store_or_skip()  # CI set Neo4j up (its jars are fetched); locally: skip without it
    lines: list[str] = []
    result = run_db_kills(tmp_path, kills=1, lib_writers=3, api_writers=2, warm=3.0,
                          down=1.0, after=1.0, log=lines.append)
    _show(capsys, lines)
    assert result["acknowledged"] > 0, result
    assert result["lost"] == 0 and result["duplicates"] == 0, result["examples"]
    assert result["unexpected_errors"] == 0, json.dumps(result["writers"])
    (rnd,) = result["rounds"]
    assert rnd["writers_recovered"] == rnd["writers"], rnd  # no restart of kgmem needed
    # while the database was down the API said so: /ready answered, and only 503; so did a
    # search, a read and a write (in bounded time: the benchmark prints the seconds)
    assert rnd["ready_while_down"] and set(rnd["ready_while_down"]) == {"503"}, rnd
    assert {r["status"] for r in rnd["routes_while_down"].values()} == {503}, rnd
    # and /ready said 200 again once the server was back and warmed up
    assert rnd["ready_200_after_s"] is not None, rnd
    # and every writer saw the outage as an expected, retryable error
    assert all(w["expected_errors"] for w in result["writers"]), result["writers"]


@pytest.mark.timeout(400)
def test_kill_9_of_the_neo4j_backed_api_loses_no_acknowledged_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    neo4j_store_or_skip()
    lines: list[str] = []
    result = run_api_kills(tmp_path, str(neo4j_settings()["uri"]), kills=2, writers_n=4,
                           warm=2.0, log=lines.append)
    _show(capsys, lines)
    assert result["acknowledged"] >= 20, result
    assert result["lost"] == 0 and result["duplicates"] == 0, result["examples"]
    assert result["unexpected_errors"] == 0, json.dumps(result["writers"])
