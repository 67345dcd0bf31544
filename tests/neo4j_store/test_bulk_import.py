"""The neo4j-admin bulk load (``kgmem neo4j import`` + ``finish-import``) gives a database whose
reads equal the embedded store's at every (valid_at, known_at), with the embedded store's
vectors copied unchanged, and on which writing goes on.

It replaces the whole database of a server, so it runs against a dedicated one, never the
suite's shared server: by default a server of its own (home ``.neo4j/bulk-test``, Bolt port
``KGMEM_NEO4J_BULK_BOLT_PORT`` 7697, HTTP ``KGMEM_NEO4J_BULK_HTTP_PORT`` 7484), started by
scripts/neo4j.sh for this module (its jars from the same Maven cache as the suite's server),
stopped, imported into and started again by the test, and stopped at the end. Under
``CI=true`` a server that does not start fails the test; elsewhere it skips.
``KGMEM_NEO4J_BULK_HOME`` names an existing dedicated home instead (then the environment's
``KGMEM_NEO4J_*`` ports and ``KGMEM_NEO4J_URI`` are that server's, as before).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending
from kgmem.store.neo4j import Neo4jStore
from kgmem.store.neo4j.bulk import EmbeddedVectors, finish, write_and_import
from tests.conftest import ManualClock, fresh_group
from tests.neo4j_server.helpers import in_ci

pytestmark = pytest.mark.neo4j
REPO = Path(__file__).resolve().parents[2]


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


@dataclass(frozen=True)
class BulkServer:
    home: Path
    env: dict[str, str]
    uri: str

    def run(self, cmd: str) -> None:
        subprocess.run(["bash", str(REPO / "scripts" / "neo4j.sh"), cmd], env=self.env,
                       check=True, stdout=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def bulk_server() -> Iterator[BulkServer]:
    given = os.environ.get("KGMEM_NEO4J_BULK_HOME")
    if given:
        yield BulkServer(Path(given), {**os.environ, "KGMEM_NEO4J_HOME": given},
                         os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687"))
        return
    bolt = os.environ.get("KGMEM_NEO4J_BULK_BOLT_PORT", "7697")
    home = REPO / ".neo4j" / "bulk-test"
    server = BulkServer(home, {
        **os.environ, "KGMEM_NEO4J_HOME": str(home), "KGMEM_NEO4J_BOLT_PORT": bolt,
        "KGMEM_NEO4J_HTTP_PORT": os.environ.get("KGMEM_NEO4J_BULK_HTTP_PORT", "7484"),
        "KGMEM_NEO4J_HEAP": "512m", "KGMEM_NEO4J_PAGECACHE": "64m"}, f"bolt://127.0.0.1:{bolt}")
    try:
        server.run("start")
    except (subprocess.CalledProcessError, OSError) as exc:
        message = f"a dedicated Neo4j for the bulk import did not start ({exc})"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield server
    finally:
        server.run("stop")


def test_bulk_loaded_groups_read_the_same_with_the_same_vectors(tmp_path, bulk_server) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock(utc(2024, 1, 1))
    src = Memory(tmp_path / "emb", clock=clock, extractor=None)
    g, other = fresh_group("bulk"), fresh_group("bulk2")
    times = [clock()]

    def tick() -> None:
        clock.advance(hours=1)
        times.append(clock())

    src.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2019-05", group=g)
    b = src.facts("Alice", group=g)[0]
    tick()
    a = src.assert_fact("Alice", "LIVES_IN", "Austin", valid_at="2021", group=g)
    src.assert_fact("Alice", "LIVES_IN", "Denver", valid_at="2023-03", group=g)
    src.assert_fact("Alice", "KNOWS", "Bob", valid_at="2018", group=g)
    src.add_alias("Alice", "Ally", group=g)
    tick()
    src.retract(a.fact_id, group=g)
    tick()
    wrong = src.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2020", invalid_at="2022", group=g)
    src.invalidate(b.fact_id, "2020-06-01", group=g)
    tick()
    src.correct(wrong.fact_id, object="Globex", group=g)
    tick()
    src.undo(src.changes(times[0] - timedelta(days=1), group=g)[-1].id, group=g)
    src.assert_facts([{"subject": f"p{i}", "predicate": "LIVES_IN", "object": f"c{i % 5}",
                       "valid_at": f"20{10 + i % 10}-01"} for i in range(60)], group=other)
    tick()
    assert index_pending(src, embedder=HashingEmbedder(384)) > 0

    bulk_server.run("stop")
    try:
        res = write_and_import(src.store, [g, other], bulk_server.home)  # type: ignore[arg-type]
    finally:
        bulk_server.run("start")
    assert res["vectors"] == "hashing-384"
    dst_store = Neo4jStore(uri=bulk_server.uri, ensure_indexes=False)
    try:
        finish(src.store, dst_store, bulk_server.home / "import" / "kgmem")  # type: ignore[arg-type]
        dst = Memory(store=dst_store, clock=clock, extractor=None)
        ks = sorted({t + d for t in times for d in (timedelta(0), timedelta(microseconds=-1))})
        vs = [utc(y, m, 1) for y in range(2017, 2026) for m in (1, 6)]
        for grp in (g, other):
            for k in ks:
                for v in vs:
                    assert dst.facts(valid_at=v, known_at=k, group=grp) == src.facts(
                        valid_at=v, known_at=k, group=grp), (grp, v, k)
            assert dst.changes(times[0] - timedelta(days=1), group=grp) == src.changes(
                times[0] - timedelta(days=1), group=grp)
            assert dst.entities(group=grp, limit=1000) == src.entities(group=grp, limit=1000)
            assert dst.stats(grp) == src.stats(grp)
        for name in ("Alice", "Bob", "Ally"):
            assert dst.history(name, group=g) == src.history(name, group=g)

        # vectors: the embedded store's, bit for bit, on every entity and version
        vecs = EmbeddedVectors(src.store)  # type: ignore[arg-type]
        rows = dst_store.cypher("MATCH ()-[r:RELATES_TO]->() WHERE r.group_id IN $gs "
                            "RETURN r.fact_id, r.fact, r.fact_embedding", gs=[g, other])
        want = vecs._lookup(
            "SELECT t.fact_id, t.text, v.vec FROM search_fact_texts t CROSS JOIN search_vectors v "
            "ON v.kind = 'fact' AND v.item = CAST(t.id AS TEXT) WHERE t.fact_id IN ({})",
            list({r[0] for r in rows}))
        assert rows and all(r[2] is not None for r in rows)
        for fid, text, got in rows:
            assert np.array_equal(np.asarray(got, dtype=np.float32),
                                  np.frombuffer(want[(fid, text)], dtype=np.float32)), fid
        ents = dst_store.cypher("MATCH (e:Entity) WHERE e.group_id IN $gs "
                            "RETURN e.uuid, e.name, e.name_embedding", gs=[g, other])
        assert len(ents) == src.stats(g)["entities"] + src.stats(other)["entities"]
        assert all(e[2] is not None and len(e[2]) == 384 for e in ents)

        # life goes on on Neo4j: the clock and the timeline rules continue
        clock.advance(hours=1)
        dst.assert_fact("Ally", "LIVES_IN", "Paris", valid_at="2024-06", group=g)
        assert [f.object for f in dst.facts("Alice", "LIVES_IN", valid_at="2024-07-01",
                                            group=g)] == ["Paris"]
    finally:
        dst_store.close()
        src.close()


def test_the_import_command_refuses_without_overwrite(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from kgmem.cli.main import app

    res = CliRunner().invoke(app, ["--home", str(tmp_path / "emb"), "neo4j", "import",
                                   "--neo4j-home", str(tmp_path / "home")])
    assert res.exit_code == 2
    assert "--overwrite" in res.output
    assert not (tmp_path / "home").exists()  # nothing written
