"""POST /v1/episodes(/bulk): all or nothing, bad items named by index, extraction failures
recorded on the episode and retried (issue 13, points 3 and 7)."""

from __future__ import annotations

from typing import Any

from kgmem.ingest.facts import ExtractedFact
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.memory.facade import Memory
from tests.ingest.test_extraction_state import Scripted

from .conftest import assert_error, client_for


def test_bulk_with_a_bad_last_item_writes_nothing_and_names_the_item(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Memory(tmp_path / "s") as m, client_for(m) as c:
        eps: list[dict[str, Any]] = [{"content": f"note {i}", "reference_time": "2024-01-01"}
                                     for i in range(20)]
        eps[19]["reference_time"] = "the day after tomorrow-ish"
        err = assert_error(c.post("/v1/episodes/bulk", json={"episodes": eps}), 422)
        assert err["details"]["errors"][0]["index"] == 19
        assert err["details"]["errors"][0]["field"] == "reference_time"
        assert "episode 19" in err["message"]
        assert c.get("/v1/episodes").json()["items"] == []  # not the 19 before it either


def test_bulk_is_one_write_with_the_facts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ex = Scripted({"I like tea": [ExtractedFact("Ann", "LIKES", "tea")]})
    with Memory(tmp_path / "s", extractor=ExtractionPipeline(ex)) as m, client_for(m) as c:
        eps = [{"content": t, "reference_time": "2024-01-01", "speaker": "Ann"}
               for t in ("hello", "I like tea")]
        r = c.post("/v1/episodes/bulk", json={"episodes": eps})
        assert r.status_code == 201, r.text
        assert [e["extraction"]["status"] for e in r.json()["items"]] == ["done", "done"]
        assert [f["object"] for f in c.get("/v1/facts").json()["items"]] == ["tea"]


def test_an_extraction_error_answers_201_with_it_recorded_and_a_retry_extracts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ex = Scripted({"I like tea": [ExtractedFact("Ann", "LIKES", "tea")]}, failing=["I like tea"])
    body = {"content": "I like tea", "reference_time": "2024-01-01", "speaker": "Ann"}
    with Memory(tmp_path / "s", extractor=ExtractionPipeline(ex)) as m, client_for(m) as c:
        r = c.post("/v1/episodes", json=body)
        assert r.status_code == 201, r.text
        st = r.json()["extraction"]
        assert st["status"] == "failed" and st["error_kind"] == "ValueError"
        assert c.get(f"/v1/episodes/{r.json()['id']}").json()["extraction"] == st
        assert c.get("/v1/facts").json()["items"] == []
        ex.heal()
        again = c.post("/v1/episodes", json=body)
        assert again.json()["id"] == r.json()["id"]
        assert again.json()["extraction"]["status"] == "done"
        assert again.json()["extraction"]["attempts"] == 2
        assert [f["object"] for f in c.get("/v1/facts").json()["items"]] == ["tea"]
