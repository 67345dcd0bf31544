"""``Store.search_backends()`` (kgmem.store.base): the registry a store keeps of the search
backends open over it; kgmem.retrieve caches its backends there and an erase asks each of them
to forget what it erased (embedding nothing: the backlog is the indexer's, issue 32). The same tests run on the embedded store and on Neo4j."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.errors import NotFoundError
from kgmem.memory.facade import Memory
from kgmem.retrieve.backend import get_backend
from tests.conftest import fresh_group


class _Probe:
    """A search backend that records what it was asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def index_pending(self, batch_size: int = 256, max_items: int | None = None) -> int:
        self.calls.append(("index_pending", ""))
        return 0

    def forget_erased(self, group: str) -> None:
        self.calls.append(("forget_erased", group))


def test_search_backends_is_one_mapping_that_search_caches_into(
    make_memory: Callable[..., Memory],
) -> None:
    m = make_memory(extractor=None)
    registry = m.store.search_backends()
    assert m.store.search_backends() is registry  # the same mapping on every call
    emb, other = HashingEmbedder(384), HashingEmbedder(384)  # 384: Neo4j's vector indexes
    try:
        be = get_backend(m, emb)
        assert [k for k, v in registry.items() if v is be] == [(emb.name, id(emb))]
        assert get_backend(m, emb) is be  # cached, not rebuilt
        assert get_backend(m, other) is not be  # one backend per embedder
        assert sum(v is be for v in registry.values()) == 1
    finally:  # the Neo4j store is shared by the whole test session: leave no backend behind
        for e in (emb, other):
            registry.pop((e.name, id(e)), None)


def test_erase_asks_every_registered_backend_to_forget_and_embeds_nothing(
    make_memory: Callable[..., Memory],
) -> None:
    m = make_memory(extractor=None)
    group = fresh_group()
    ep = m.add_episode("Maya moved to Denver.", reference_time="2023-03-01", group=group)
    m.assert_fact("Maya", "LIVES_IN", "Denver", group=group)
    registry = m.store.search_backends()
    probes = [_Probe(), _Probe()]
    keys: list[Hashable] = [("probe", id(p)) for p in probes]
    for k, p in zip(keys, probes):
        registry[k] = p
    try:
        m.erase(episode=ep.id, group=group)
        assert [p.calls for p in probes] == [[("forget_erased", group)]] * 2
        m.erase(entity="Maya", group=group)
        assert [len(p.calls) for p in probes] == [2, 2]
        m.erase(whole_group=True, group=group)
        assert [len(p.calls) for p in probes] == [3, 3]
        # a failed erase (no entity of that name) refreshes nothing
        before = [len(p.calls) for p in probes]
        with pytest.raises(NotFoundError):
            m.erase(entity="Nobody", group=group)
        assert [len(p.calls) for p in probes] == before
    finally:  # the Neo4j store is shared by the whole test session
        for k in keys:
            registry.pop(k, None)
