from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.datasets._common import default_data_dir

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    d = default_data_dir()
    if not d.is_dir():
        pytest.skip(f"benchmark data not found at {d} (set KGMEM_BENCH_DATA)")
    return d


@pytest.fixture(scope="session")
def locomo(data_dir):
    from benchmarks.datasets.locomo import load_locomo

    if not (data_dir / "locomo" / "locomo10.json").is_file():
        pytest.skip("locomo10.json not available")
    return load_locomo(data_dir / "locomo" / "locomo10.json", audit=True)


@pytest.fixture(scope="session")
def lme_fixture():
    from benchmarks.datasets.longmemeval import load_longmemeval

    return load_longmemeval(FIXTURES / "longmemeval_fixture.json")
