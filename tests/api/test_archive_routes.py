"""REST archive routes: export the request's group, import it elsewhere (idempotent), refuse
an archive of another group (403) and a truncated one (422 invalid_archive)."""

from __future__ import annotations

import io
import json
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


def _relabel(jsonl: str, header: str | None = None, group_line: str | None = None) -> str:
    """An archive edited by hand: the header's and/or the group line's group renamed."""
    out = []
    for line in jsonl.splitlines(True):
        rec = json.loads(line)
        if rec["kind"] == "header" and header is not None:
            rec["groups"] = [header]
        if rec["kind"] == "group" and group_line is not None:
            rec["group"] = group_line
        out.append(json.dumps(rec) + "\n")
    return "".join(out)


def test_an_archive_cannot_write_into_a_group_its_header_does_not_name(tmp_path: Path) -> None:
    """The route checks the header against X-Group; the group line and every record must
    then be that group too, else a caller of one group writes into another."""
    src = Memory(tmp_path / "a", extractor=None)
    src.add_episode("planted note", "2024-01-01", group="victim", extract=False)
    src.assert_fact("Mallory", "LIVES_IN", "Oslo", valid_at="2020", group="victim")
    buf = io.StringIO()
    src.export(buf, ["victim"])
    dst = Memory(tmp_path / "b", extractor=None)
    dst.assert_fact("Vic", "LIVES_IN", "Paris", group="victim")
    before = dst.export(io.StringIO(), ["victim"])
    with TestClient(create_app(make_settings(), memory=dst)) as b:
        for forged in (_relabel(buf.getvalue(), header="attacker"),  # records of "victim"
                       _relabel(buf.getvalue(), header="attacker", group_line="attacker")):
            r = b.post("/v1/archive/import", json={"jsonl": forged},
                       headers={"X-Group": "attacker"})
            assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_archive"
    assert [(v.subject, v.object) for v in dst.facts(group="victim")] == [("Vic", "Paris")]
    assert dst.episodes(group="victim") == [] and dst.store.counts("attacker") == \
        {k: 0 for k in dst.store.counts("attacker")}
    assert dst.export(io.StringIO(), ["victim"]) == before


def test_an_archive_cannot_point_at_another_groups_entities(tmp_path: Path) -> None:
    """A record of the right group that names an entity or episode of another group (a
    mention, a fact's ends, provenance) would join the two groups: refused."""
    dst = Memory(tmp_path / "b", extractor=None)
    theirs = dst.assert_fact("Vic", "LIVES_IN", "Paris", group="victim")
    src = Memory(tmp_path / "a", extractor=None)
    src.assert_fact("Mal", "LIVES_IN", "Oslo", group="attacker")
    buf = io.StringIO()
    src.export(buf, ["attacker"])
    forged = []
    for line in buf.getvalue().splitlines(True):
        rec = json.loads(line)
        if rec["kind"] == "lineage":
            rec["state"]["subject_id"] = theirs.subject_id
        forged.append(json.dumps(rec) + "\n")
    with TestClient(create_app(make_settings(), memory=dst)) as b:
        r = b.post("/v1/archive/import", json={"jsonl": "".join(forged)},
                   headers={"X-Group": "attacker"})
    assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_archive"
    assert "not in group 'attacker'" in r.json()["error"]["message"]
    assert dst.facts(group="attacker") == []


def test_an_archive_that_collides_with_the_store_is_a_clear_422(tmp_path: Path) -> None:
    """Two episodes of one text (a group holds each text once), or a fact id another group
    holds: a 422 naming it, not a 500 from the store's constraint (nor, on Neo4j, a lineage
    of another group re-labelled)."""
    import uuid

    src = Memory(tmp_path / "a", extractor=None)
    src.add_episode("Ann moved to Oslo", "2024-01-01", group="g1", extract=False)
    src.assert_fact("Ann", "LIVES_IN", "Oslo", group="g1")
    buf = io.StringIO()
    src.export(buf, ["g1"])
    twice = []
    for line in buf.getvalue().splitlines(True):
        twice.append(line)
        rec = json.loads(line)
        if rec["kind"] == "episode":
            rec["episode"]["id"] = str(uuid.uuid4())
            twice.append(json.dumps(rec) + "\n")
    with TestClient(create_app(make_settings(), memory=Memory(tmp_path / "b", extractor=None))
                    ) as b:
        r = b.post("/v1/archive/import", json={"jsonl": "".join(twice)},
                   headers={"X-Group": "g1"})
        assert r.status_code == 422 and "same content" in r.json()["error"]["message"]
    dst = Memory(tmp_path / "c", extractor=None)
    dst.import_(io.StringIO(buf.getvalue().replace('"g1"', '"g0"')))  # same ids, group g0
    with TestClient(create_app(make_settings(), memory=dst)) as b:
        lineage_only = [x for x in buf.getvalue().splitlines(True)
                        if json.loads(x)["kind"] in ("header", "group", "lineage", "end")]
        r = b.post("/v1/archive/import", json={"jsonl": "".join(lineage_only)},
                   headers={"X-Group": "g1"})
        assert r.status_code == 422 and "another group" in r.json()["error"]["message"]
    assert dst.facts(group="g1") == [] and len(dst.facts(group="g0")) == 1
