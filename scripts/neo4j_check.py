"""Smoke checks against a running Neo4j server (run by `scripts/neo4j.sh check`).

Checks: Bolt answers `vector.similarity.cosine`, a throwaway 3-dim vector index reaches ONLINE
(then is dropped), `/` returns the discovery JSON and `/browser/` is served.
Reads KGMEM_NEO4J_URI / _USER / _PASSWORD / _DATABASE and KGMEM_NEO4J_HTTP_PORT.
Exit code 0 when all pass.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
import uuid
from urllib.parse import urlparse

from neo4j import GraphDatabase


def main() -> int:
    uri = os.environ.get("KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687")
    user = os.environ.get("KGMEM_NEO4J_USER", "neo4j")
    password = os.environ.get("KGMEM_NEO4J_PASSWORD", "")
    database = os.environ.get("KGMEM_NEO4J_DATABASE", "neo4j")
    http_port = int(os.environ.get("KGMEM_NEO4J_HTTP_PORT", "7474"))
    host = urlparse(uri).hostname or "127.0.0.1"
    base = f"http://{host}:{http_port}"

    with urllib.request.urlopen(f"{base}/", timeout=10) as r:
        discovery = json.load(r)
    print(f"GET / -> {discovery.get('neo4j_version')} {discovery.get('neo4j_edition')}")

    req = urllib.request.Request(f"{base}/browser/", method="HEAD")
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200, r.status
    print("HEAD /browser/ -> 200")

    with GraphDatabase.driver(uri, auth=(user, password)) as driver:
        driver.verify_connectivity()
        rec, _, _ = driver.execute_query(
            "RETURN vector.similarity.cosine([1,0],[1,0]) AS s", database_=database
        )
        s = rec[0]["s"]
        assert abs(s - 1.0) < 1e-9, s
        print(f"cosine([1,0],[1,0]) = {s}")

        name = f"kgmem_check_{uuid.uuid4().hex[:8]}"
        label = f"KgmemCheck_{uuid.uuid4().hex[:8]}"
        driver.execute_query(
            f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
            "OPTIONS {indexConfig: {`vector.dimensions`: 3, "
            "`vector.similarity_function`: 'cosine'}}",
            database_=database,
        )
        try:
            t0 = time.monotonic()
            state = None
            while time.monotonic() - t0 < 60:
                rec, _, _ = driver.execute_query(
                    "SHOW INDEXES YIELD name, state, type WHERE name = $n RETURN state, type",
                    n=name,
                    database_=database,
                )
                state = rec[0]["state"] if rec else None
                if state == "ONLINE":
                    break
                time.sleep(0.2)
            assert state == "ONLINE", f"vector index state {state!r} after 60 s"
            print(f"vector index {name} ONLINE after {time.monotonic() - t0:.1f} s")
        finally:
            driver.execute_query(f"DROP INDEX {name} IF EXISTS", database_=database)
    print("neo4j check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
