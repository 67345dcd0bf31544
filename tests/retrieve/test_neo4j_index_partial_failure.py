"""Indexing on Neo4j survives an episode whose chunk write fails (issue 13: an episode erased by
another process between the MATCH and the CREATE of its chunks raised EntityNotFound and stopped
``index_pending`` for every group). Here the failing write is real: a vector with NaN, which
``db.create.setNodeVectorProperty`` refuses; the other episodes of the batch get their chunks."""

from __future__ import annotations

import numpy as np
import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve import index_pending, search
from tests.conftest import fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j

POISON = "zzpoisonedchunkzz"


class RefusedForOneText(HashingEmbedder):
    """Hashing vectors, except NaN for any text holding POISON (Neo4j refuses to store it).
    Its own model name: on a shared server other processes index every group's episodes with
    their embedders, and their chunks must not count as this one's."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.name = f"refusing-hashing-{dim}"

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = super()._embed(texts)
        for i, t in enumerate(texts):
            if POISON in t:
                out[i, :] = np.nan
        return out


def test_one_failing_episode_write_leaves_the_others_indexed() -> None:
    g = fresh_group("idxfail")
    m = Memory(store=neo4j_store_or_skip(), extractor=None)
    m.embedder = RefusedForOneText(384)
    good = m.add_episode("We planted tomatoes in the garden", "2023-05-08T10:00:00Z", group=g)
    m.add_episode(f"{POISON} gardening note", "2023-05-09T10:00:00Z", group=g)
    try:
        index_pending(m)  # raised neo4j ClientError for the whole batch before
        got = [r.id for r in search(m, "tomatoes garden", kinds=("episodes",), group=g)]
        assert got[:1] == [good.id]
        store = m.store
        with store.driver.session(database=store.database) as s:  # type: ignore[attr-defined]
            rows = s.run("MATCH (e:Episodic {group_id: $g})-[:KGMEM_CHUNK]->(c:KgmemChunk) "
                         "WHERE c.model = $model RETURN e.uuid AS u, count(c) AS n",
                         g=g, model=m.embedder.name).data()
        assert {r["u"]: r["n"] for r in rows} == {good.id: 1}
    finally:
        m.erase(whole_group=True, group=g)
