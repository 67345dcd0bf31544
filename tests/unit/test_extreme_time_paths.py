"""Extreme times on every input path other than REST (issue 13, point 5): the library, the
CLI, the MCP tools, episode files, the offline extractor and query-time windows. Each either
stores a valid instant or answers InvalidTimeError; none raises OverflowError/ValueError."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from kgmem.cli.main import app
from kgmem.embed.hashing import HashingEmbedder
from kgmem.errors import InvalidTimeError
from kgmem.ingest.formats import read_episodes
from kgmem.ingest.temporal import resolve_time
from kgmem.mcp.server import create_server
from kgmem.memory.facade import Memory

MIN_INSTANT = datetime.min.replace(tzinfo=timezone.utc)  # the supported range (kgmem.timeutil)
MAX_INSTANT = datetime.max.replace(tzinfo=timezone.utc)

BAD = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]
EDGES = ["0001-01-01T00:00:00Z", "0001-01-01", "9999-12-31", "9999-12-31T23:59:59.999999Z"]
RELATIVE = ["Yesterday I visited Rome.", "Three days ago I joined Acme.",
            "Last weekend I went to Oslo.", "I moved to Paris last year.",
            "I moved to Paris next year.", "In two weeks I move to Madrid.",
            "Next Monday I start at Acme.", "I have lived in Rome for 3 years.",
            "I will live in Berlin from tomorrow until next month.", "I lived in Lisbon in 9999."]
QUERIES = ["what did Alice do yesterday?", "in the last 3 days", "in the last two years",
           "earlier today", "last Monday", "in our last session", "in May", "3 days ago",
           "since last year", "from yesterday to tomorrow", "what happened on May 8, 2023 "
           "last weekend"]


def test_library_refuses_out_of_range_datetimes_and_strings(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s", extractor=None)
    far_east = timezone(timedelta(hours=14))
    for bad in [*BAD, datetime(1, 1, 1, tzinfo=far_east)]:
        with pytest.raises(InvalidTimeError):
            m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at=bad)
        with pytest.raises(InvalidTimeError):
            m.add_episode("hello", bad)
        with pytest.raises(InvalidTimeError):
            m.facts(known_at=bad)
    with pytest.raises(InvalidTimeError):
        m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", valid_precision="decade")
    assert m.stats()["lineages"] == 0 and m.stats()["episodes"] == 0
    for t in EDGES:  # the edges themselves are stored
        m.add_episode(f"said at {t}", t, extract=False)
    assert {e.reference_time for e in m.episodes()} >= {MIN_INSTANT, MAX_INSTANT}
    m.close()


def test_cli_answers_invalid_time_with_status_2(tmp_path: Path) -> None:
    runner = CliRunner()
    for args in (["assert", "Alice", "LIVES_IN", "Boston", "--valid-at", BAD[0]],
                 ["facts", "--known-at", BAD[1]], ["add", "hello", "--time", BAD[0]],
                 ["search", "Alice", "--valid-at", BAD[0]]):
        r = runner.invoke(app, ["--home", str(tmp_path), "--extractor", "none", "--json",
                                *args])
        assert r.exit_code == 2, (args, r.output)
        err = json.loads(r.output.strip().splitlines()[-1])["error"]
        assert err["type"] == "invalid_time" and "supported range" in err["message"], err


def test_mcp_tools_answer_invalid_time(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s", extractor=None)
    m.assert_fact("A", "LIVES_IN", "B", valid_at="2020")
    server = create_server(memory=m)

    async def call(name: str, args: dict[str, object]) -> str:
        try:
            await server.call_tool(name, args)
        except Exception as exc:  # noqa: BLE001 - the tool error as the client sees it
            return str(exc)
        return "no error"

    async def main() -> list[str]:
        return [await call("remember", {"content": "hi", "reference_time": BAD[0]}),
                await call("assert_fact", {"subject": "A", "predicate": "LIVES_IN",
                                           "object": "B", "valid_at": BAD[1]}),
                await call("facts_as_of", {"valid_at": BAD[0]}),
                await call("recall", {"query": "A", "known_at": BAD[1]}),
                await call("paths", {"a": "A", "b": "B", "valid_at": BAD[0]})]

    for text in anyio.run(main):
        assert "invalid_time" in text and "supported range" in text, text
    m.close()


def test_episode_files_with_impossible_times_are_invalid_time(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("one\n\ntwo\n")
    with pytest.raises(InvalidTimeError):
        list(read_episodes(text, default_time=BAD[0]))
    with pytest.raises(InvalidTimeError):  # the second paragraph would be 1 s past the end
        list(read_episodes(text, default_time="9999-12-31T23:59:59.999999Z"))
    locomo = tmp_path / "locomo.json"
    locomo.write_text(json.dumps([{"sample_id": "c0", "qa": [], "conversation": {
        "session_1_date_time": "1:56 pm on 30 February, 2023",
        "session_1": [{"speaker": "A", "text": "hi", "dia_id": "D1:1"}]}}]))
    with pytest.raises(InvalidTimeError):
        list(read_episodes(locomo))


@pytest.mark.parametrize("ref", ["0001-01-01", "9999-12-31T23:59:59Z"])
def test_relative_dates_past_the_range_do_not_resolve(ref: str) -> None:
    from kgmem.timeutil import parse_instant

    at = parse_instant(ref)
    for text in ["yesterday", "three days ago", "last weekend", "last year", "next year",
                 "in two weeks", "next Monday", "for 3 years", "tomorrow", "in 9999",
                 "in 10000 years"]:
        got = resolve_time(text, at)  # None (unresolvable) or a period inside the range
        if got is not None:
            assert MIN_INSTANT <= got.start and (got.end is None or got.end <= MAX_INSTANT)


def test_offline_extraction_at_the_edges_of_time_stores_every_episode(tmp_path: Path) -> None:
    from kgmem.factory import open_memory
    from kgmem.settings import Settings

    m = open_memory(Settings(_env_file=None, home=str(tmp_path / "s"),  # type: ignore[call-arg]
                             extractor="offline"))
    for ref in ("0001-01-01", "9999-12-31"):
        for text in RELATIVE:
            m.add_episode(text, ref, speaker="Alice")
    assert m.stats()["episodes"] == 2 * len(RELATIVE)
    for v in m.facts(valid_at="0001", valid_to="9999-12-31T23:59:59.999999Z"):
        assert v.valid_at is None or MIN_INSTANT <= v.valid_at <= MAX_INSTANT
    m.close()


@pytest.mark.parametrize("edge", ["0001-01-01T00:00:00Z", "0001-01-03",
                                  "9999-12-31T23:59:59.999999Z", "9999-12-25"])
def test_query_time_windows_saturate_at_the_range(tmp_path: Path, edge: str) -> None:
    m = Memory(tmp_path / "s", extractor=None)
    m.embedder = HashingEmbedder(64)
    for t in ["0001-01-01T00:30Z", "9999-12-31T23:00Z", "2023-05-08"]:
        m.add_episode(f"Alice went to Rome. Yesterday she visited Oslo ({t}).", t,
                      speaker="Bob", extract=False)
    ids = {ep.id for ep in m.episodes()}
    for q in QUERIES:
        for kw in ({"reference_time": edge}, {"known_at": edge}):
            # answers (no OverflowError at the edges of time), and only stored episodes
            hits = m.search(q, **kw)  # type: ignore[arg-type]
            assert {h.id for h in hits if h.kind == "episode"} <= ids
            sessions = m.search_sessions(q, **kw)  # type: ignore[arg-type]
            assert isinstance(sessions, list)
            block = m.context(q, **kw)  # type: ignore[arg-type]
            assert isinstance(block.text, str)
    m.close()
