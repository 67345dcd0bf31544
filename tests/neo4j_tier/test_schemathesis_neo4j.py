"""Schemathesis against the Neo4j-backed API: generated requests (valid and invalid) for
every operation, a bounded number per operation; no 5xx and no deviation from the OpenAPI
schema. Every request is sent in one fresh group (the server is shared with the rest of the
suite), erased afterwards. ``python -m benchmarks.hostile --fuzz-stores neo4j`` runs more."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from api.app import create_app
from kgmem.memory.facade import Memory
from tests.api.conftest import make_settings
from tests.api.test_schemathesis import CHECKS
from tests.conftest import fresh_group, neo4j_settings, neo4j_store_or_skip

pytestmark = pytest.mark.neo4j

MAX_EXAMPLES = 8  # per operation and mode: ~230 requests, under a minute
GROUP = fresh_group("fuzz")

# the app opens its own Neo4jStore on first use (nothing connects while tests are collected)
app = create_app(make_settings(store="neo4j", neo4j_uri=neo4j_settings()["uri"]))
# tests/api/test_schemathesis.py's config, without the coverage phase (its boundary cases
# run on the embedded store there; here they would be ~2,500 requests, ~2 minutes)
CONFIG = SchemathesisConfig.from_dict({
    "checks": {"negative_data_rejection": {"expected-statuses": [
        400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]}},
    "phases": {"coverage": {"enabled": False}}})
schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)
STATUSES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _seeded_group(request: pytest.FixtureRequest) -> Iterator[None]:
    m = Memory(store=neo4j_store_or_skip(), extractor=None)
    ep = m.add_episode("Alice moved to Boston in 2021.", "2021-01-05", group=GROUP,
                       extract=False)
    m.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", episode=ep.id, group=GROUP)
    m.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2022", group=GROUP)
    yield
    m.erase(group=GROUP, whole_group=True)
    line = (f"schemathesis on Neo4j: {sum(STATUSES.values())} requests, by status class "
            f"{dict(sorted(STATUSES.items()))}")
    capman = request.config.pluginmanager.get_plugin("capturemanager")
    if capman is not None:
        with capman.global_and_fixture_disabled():
            print("\n" + line)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_neo4j_api_conforms_to_its_schema(case) -> None:  # type: ignore[no-untyped-def]
    case.headers = {**(case.headers or {}), "X-Group": GROUP}
    resp = case.call()
    STATUSES[f"{resp.status_code // 100}xx"] += 1
    assert resp.status_code < 500, resp.text[:500]
    case.validate_response(resp, checks=CHECKS)
