"""One end-to-end check with the real offline MiniLM embedder (semantic, not lexical)."""

from __future__ import annotations

import pytest

from kgmem.memory.facade import Memory
from kgmem.retrieve import search

from .conftest import StepClock


@pytest.fixture(scope="module")
def minilm(tmp_path_factory):
    import os

    os.environ.setdefault("KGMEM_CACHE_DIR", str(tmp_path_factory.mktemp("kgmem-cache")))
    from kgmem.embed.onnx_minilm import OnnxMiniLM

    return OnnxMiniLM()


def test_paraphrase_found_by_meaning_with_minilm(tmp_path, minilm):
    m = Memory(tmp_path / "s", clock=StepClock(), extractor=None)
    m.embedder = minilm
    ref = "2023-05-08T10:00:00Z"
    target = m.add_episode("We finally brought home a little puppy from the animal rescue.", ref,
                           speaker="Jo")
    m.add_episode("The quarterly tax forms are due next Friday.", ref, speaker="Al")
    m.add_episode("I repainted the kitchen cabinets a pale green.", ref, speaker="Jo")
    m.add_episode("Traffic on the bridge was terrible this morning.", ref, speaker="Al")
    # no content word in common with the target: only the vector side can find it
    res = search(m, "adopting a dog", kinds=("episodes",), limit=2)
    assert res[0].id == target.id
    assert res[0].parts.keyword is None and res[0].parts.vector > 0.3
    m.close()
