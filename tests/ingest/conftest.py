"""Shared fixtures of the extraction tests."""

from __future__ import annotations

import pytest

from kgmem.ingest.offline import OfflineExtractor


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    """One offline extractor per test module (spaCy loads once per process)."""
    return OfflineExtractor()
