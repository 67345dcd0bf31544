"""The Neo4j background indexer finds groups with a backlog by an index seek, not by scanning
the whole graph (issue 32): every kgmem write sets a ``backlog`` token on its groups' clocks
(in the transaction that writes the items); a round embeds those groups and clears a token
only if no write set a new one meanwhile. A whole-graph scan still runs on the first round
and every few minutes, for items written without kgmem."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from kgmem.embed import HashingEmbedder
from kgmem.memory.facade import Memory
from kgmem.retrieve.backend import get_backend
from tests.conftest import fresh_group, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j


def _token(store: Any, group: str) -> str | None:
    rows = store.cypher("MATCH (k:KgmemClock {group_id: $g}) RETURN k.backlog", g=group)
    return rows[0][0] if rows else None


def test_backlog_groups_come_from_the_clock_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    store = neo4j_store_or_skip()
    m = Memory(store=store, extractor=None)
    g, quiet = fresh_group("backlog"), fresh_group("quiet")
    emb = HashingEmbedder(384)
    emb.name = f"hashing-backlog-{uuid.uuid4().hex[:8]}"  # its own chunks on the shared server
    reads: Any = get_backend(m, emb)
    try:
        m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", group=g)
        m.add_episode("Alice moved to Boston.", "2021-01-05", group=g, extract=False)
        first = _token(store, g)
        assert first is not None and (g, first) in reads.backlog_groups()
        assert _token(store, quiet) is None  # a group nobody wrote to has no clock

        # one round over the marked groups (only this test's: the server is shared), no scan
        marked = reads.backlog_groups
        monkeypatch.setattr(reads, "backlog_groups",
                            lambda: [r for r in marked() if r[0] == g])
        monkeypatch.setattr(reads, "scan_backlog_groups",
                            lambda: pytest.fail("no whole-graph scan before it is due"))
        reads._last_full_scan = float("inf")
        assert reads.index_round(per_group=64) >= 3  # Alice, Boston, the fact, the episode
        assert reads.pending(g) == 0
        assert _token(store, g) is None  # ran dry: cleared

        # a write after the token was read keeps the group marked
        m.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022", group=g)
        second = _token(store, g)
        assert second is not None
        m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2022", group=g)
        reads.clear_backlog(g, second)  # stale token: a newer write set another
        assert _token(store, g) not in (None, second)
    finally:
        m.erase(group=g, whole_group=True)
