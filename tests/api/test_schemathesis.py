"""Property-based conformance of the API to its own OpenAPI schema (schemathesis).

Every operation gets generated requests (valid and invalid); no response may be a 5xx or
deviate from the documented status codes, content types, headers and schemas.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from kgmem.memory.facade import Memory

from .conftest import make_settings

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
MAX_EXAMPLES = 40


class _FuzzMemory(Memory):
    """The real Memory; while it lacks search/context, the retrieval package's functions
    (or trivial stand-ins when even those are missing)."""

    if not hasattr(Memory, "search"):
        def search(self, query, valid_at=None, known_at=None, limit=10, kinds=None,  # type: ignore[no-untyped-def]
                   group="default"):
            try:
                from kgmem.retrieve import search
            except ImportError:
                return [{"kind": "fact", "id": f.fact_id, "text": f.fact, "score": 1.0}
                        for f in self.facts(group=group, valid_at=valid_at,
                                            known_at=known_at, limit=limit)]
            extra = {} if kinds is None else {"kinds": kinds}
            return search(self, query, valid_at=valid_at, known_at=known_at, limit=limit,
                          group=group, **extra)

    if not hasattr(Memory, "context"):
        def context(self, query, budget_tokens=1000, valid_at=None, known_at=None,  # type: ignore[no-untyped-def]
                    group="default"):
            try:
                from kgmem.retrieve import context
            except ImportError:
                return "\n".join(f.fact for f in self.facts(group=group, valid_at=valid_at,
                                                             known_at=known_at, limit=20))
            return context(self, query, budget_tokens=budget_tokens, valid_at=valid_at,
                           known_at=known_at, group=group)


_tmp = tempfile.TemporaryDirectory(prefix="kgmem-schemathesis-")
_memory = _FuzzMemory(Path(_tmp.name) / "store", extractor=None)
_ep = _memory.add_episode("Alice moved to Boston in 2021.", "2021-01-05")
_memory.assert_fact("Alice", "LIVES_IN", "Boston", valid_at="2021", episode=_ep.id)
_memory.assert_fact("Alice", "WORKS_AT", "Acme", valid_at="2022")
_memory.assert_fact("Bob", "WORKS_AT", "Acme", valid_at="2022")

app = create_app(make_settings(), memory=_memory)
# 413 (body over max_request_bytes) is a legitimate rejection of an oversized invalid body.
CONFIG = SchemathesisConfig.from_dict({"checks": {"negative_data_rejection": {
    "expected-statuses": [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]}}})
schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)

CASES: Counter[str] = Counter()
FAILED: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    yield
    line = (f"schemathesis: {sum(CASES.values())} generated requests over {len(CASES)} "
            f"operations; operations with failures: {len(FAILED)}")
    capman = request.config.pluginmanager.get_plugin("capturemanager")
    if capman is not None:
        with capman.global_and_fixture_disabled():
            print("\n" + line)
    else:
        print(line)
    _memory.close()


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case) -> None:  # type: ignore[no-untyped-def]
    op = case.operation.label
    CASES[op] += 1
    try:
        case.call_and_validate(checks=CHECKS)
    except BaseException:
        FAILED[op] += 1
        raise
