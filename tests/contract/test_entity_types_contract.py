"""Entity types on both stores (issue 15): from the predicate's signature, from the caller,
from extraction; the first type an entity gets stays; on Neo4j also a node label; through the
library, REST and MCP."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from kgmem import Memory
from kgmem.entity_types import ENTITY_TYPES, NEO4J_LABELS
from kgmem.errors import InvalidInputError
from kgmem.ingest.offline import OfflineExtractor
from tests.conftest import fresh_group
from tests.mcp.test_mcp_stdio import _structured

T0 = datetime(2023, 5, 10, 12, 0, tzinfo=timezone.utc)


def types(m: Memory, group: str, *names: str) -> list[str | None]:
    return [m.entity(n, group=group)["entity"].type for n in names]


def test_the_predicate_types_its_subject_and_object(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2020", group=g)
    m.assert_fact("Alice", "HAS_PET", "Rex", group=g)
    m.assert_fact("Alice", "WORKS_AT", "Acme", group=g)
    assert types(m, g, "Alice", "Boston", "Rex", "Acme") == [
        "person", "place", "pet", "organisation"]


def test_a_callers_type_and_the_first_type_stays(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    m.assert_fact("Nova", "LIKES", "Jazz", subject_type="pet", object_type="activity", group=g)
    m.assert_fact("Nova", "KNOWS", "Bea", group=g)  # KNOWS says person: Nova stays a pet
    assert types(m, g, "Nova", "Jazz", "Bea") == ["pet", "activity", "person"]
    assert {e.name: e.type for e in m.entities(group=g)}["Nova"] == "pet"


def test_an_unknown_type_is_refused_and_writes_nothing(make_memory) -> None:
    m, g = make_memory(), fresh_group()
    with pytest.raises(InvalidInputError, match="subject_type"):
        m.assert_fact("Alice", "LIKES", "Tea", subject_type="alien", group=g)
    assert m.entities(group=g) == []


def test_extracted_facts_type_their_entities(make_memory) -> None:
    m, g = make_memory(extractor=OfflineExtractor()), fresh_group()
    m.add_episode("My dog Max loves the beach. I work at Google.", T0, speaker="Sam", group=g)
    assert types(m, g, "Sam", "Max", "Google") == ["person", "pet", "organisation"]


def test_a_predicates_signature_types_a_name_before_the_taggers_guess() -> None:
    # the tagger reads Max as a PERSON in "Max loves the beach"; HAS_PET says pet
    facts = OfflineExtractor().extract("Max loves the beach. My dog Max is great.", T0,
                                       speaker="Sam")
    got = {(f.subject, f.subject_type) for f in facts} | {(f.object, f.object_type)
                                                          for f in facts}
    assert ("Max", "pet") in got and ("Max", "person") not in got


def test_neo4j_labels_an_entity_with_its_type(make_memory, store_kind) -> None:
    if store_kind != "neo4j":
        pytest.skip("Neo4j only")
    m, g = make_memory(), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", group=g)
    with m.store.driver.session(database=m.store.database) as s:
        rows = s.run("MATCH (e:Entity {group_id: $g}) RETURN e.name AS n, labels(e) AS l, "
                     "e.entity_type AS t", g=g).data()
    got = {r["n"]: (sorted(r["l"]), r["t"]) for r in rows}
    assert got == {"Alice": (["Entity", "Person"], "person"),
                   "Boston": (["Entity", "Place"], "place")}


def test_every_type_has_a_fixed_neo4j_label() -> None:
    assert set(NEO4J_LABELS) == set(ENTITY_TYPES)
    assert all(label.isalpha() and label[0].isupper() for label in NEO4J_LABELS.values())


def test_an_embedded_store_from_before_types_opens_untyped(tmp_path) -> None:
    path = tmp_path / "old"
    with Memory(path) as m:
        m.assert_fact("Alice", "LIVES_IN", "Boston")
    con = sqlite3.connect(path / "kgmem.sqlite3")
    con.execute("ALTER TABLE entities DROP COLUMN entity_type")  # as a store written before
    con.commit()
    con.close()
    with Memory(path) as m:
        assert m.entity("Alice")["entity"].type is None
        m.assert_fact("Alice", "WORKS_AT", "Acme")
        assert m.entity("Alice")["entity"].type == "person"


def test_types_over_rest_and_mcp(make_memory) -> None:
    from kgmem.mcp.server import create_server
    from tests.api.conftest import client_for

    m, g = make_memory(), fresh_group()
    m.assert_fact("Alice", "LIVES_IN", "Boston", group=g)
    c = client_for(m)
    c.headers["X-Group"] = g
    assert c.get("/v1/entities/Boston").json()["entity"]["type"] == "place"
    assert {e["name"]: e["type"] for e in c.get("/v1/entities").json()["items"]} == {
        "Alice": "person", "Boston": "place"}
    r = c.post("/v1/facts", json={"subject": "Rex", "predicate": "LIKES", "object": "Boston",
                                  "subject_type": "pet", "object_type": "thing"})
    assert r.status_code == 201
    assert c.get("/v1/entities/Rex").json()["entity"]["type"] == "pet"
    assert c.get("/v1/entities/Boston").json()["entity"]["type"] == "place"  # first one stays
    bad = c.post("/v1/facts", json={"subject": "Zed", "predicate": "LIKES", "object": "Tea",
                                    "subject_type": "alien"})
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "invalid_input"
    assert c.get("/v1/entities/Zed").status_code == 404
    server = create_server(memory=m, group=g)

    async def mcp(tool: str, args: dict[str, Any]) -> Any:
        return await server.call_tool(tool, args)

    anyio.run(mcp, "assert_fact", {"subject": "Nova", "predicate": "LIKES", "object": "Jazz",
                                   "subject_type": "pet"})
    profile = _structured(anyio.run(mcp, "entity_profile", {"entity": "Nova"}))
    assert profile["entity"]["type"] == "pet" and profile["facts"][0]["object"] == "Jazz"
    with pytest.raises(ToolError, match="invalid_input: subject_type must be one of"):
        anyio.run(mcp, "assert_fact", {"subject": "Zed", "predicate": "LIKES", "object": "Tea",
                                       "subject_type": "alien"})
