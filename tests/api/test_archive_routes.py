"""REST archive routes: export the request's group, import it elsewhere (idempotent), refuse
an archive of another group (403) and a truncated one (422 invalid_archive)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from kgmem.memory.facade import Memory

from .conftest import make_settings


def test_export_then_import_into_another_store(tmp_path: Path) -> None:
    src = Memory(tmp_path / "a", extractor=None)
    f = src.assert_fact("Ann", "LIVES_IN", "Oslo", valid_at="2020", group="g1")
    src.correct(f.fact_id, object="Rome", group="g1")
    dst = Memory(tmp_path / "b", extractor=None)
    with TestClient(create_app(make_settings(), memory=src)) as a, \
            TestClient(create_app(make_settings(), memory=dst)) as b:
        out = a.post("/v1/archive/export", headers={"X-Group": "g1"})
        assert out.status_code == 200 and out.json()["counts"]["lineage"] == 1
        jsonl = out.json()["jsonl"]
        wrong = b.post("/v1/archive/import", json={"jsonl": jsonl}, headers={"X-Group": "g2"})
        assert wrong.status_code == 403 and wrong.json()["error"]["type"] == "forbidden"
        cut = "".join(jsonl.splitlines(True)[:-1])
        bad = b.post("/v1/archive/import", json={"jsonl": cut}, headers={"X-Group": "g1"})
        assert bad.status_code == 422 and bad.json()["error"]["type"] == "invalid_archive"
        for skipped in (False, True):
            r = b.post("/v1/archive/import", json={"jsonl": jsonl}, headers={"X-Group": "g1"})
            assert r.status_code == 200, r.text
            assert (r.json()["skipped"].get("lineage", 0) == 1) is skipped
    assert [v.object for v in dst.history(f.fact_id, group="g1")] == ["Oslo", "Rome"]
    assert dst.history(f.fact_id, group="g1") == src.history(f.fact_id, group="g1")
