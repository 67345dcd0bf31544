"""The entity resolver's internal alias keys never reach the search index."""

from __future__ import annotations

from kgmem.memory.facade import Memory


def test_resolver_keys_are_not_indexed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kgmem.retrieve import index_pending

    m = Memory(tmp_path, extractor=None)
    m.add_episode("hi", "2024-01-01", speaker="Alice Chen")
    m.assert_fact("Alice Chen", "LIVES_IN", "Boston", valid_at="2024")
    m.assert_fact("Jonathan Smith", "WORKS_AT", "Acme Corporation", valid_at="2024")
    index_pending(m)  # creates the search tables and backfills
    m.assert_fact("Maria Lopez", "LIVES_IN", "Lisbon", valid_at="2024")
    conn = m.store._conn
    raw = conn.execute("SELECT count(*) FROM aliases WHERE substr(alias,1,2) = char(126,31)")
    assert raw.fetchone()[0] > 0, "the resolver keeps internal keys as aliases"
    names = [n for (n,) in conn.execute("SELECT name FROM search_entity_names")]
    assert names and not any(n.startswith("~\x1f") for n in names)
