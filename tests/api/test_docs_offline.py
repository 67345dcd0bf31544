"""/docs and /redoc work offline: the pages load every script, style and icon from the app."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from api.app import create_app

from .conftest import make_settings

ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_reference_no_external_host(page: str) -> None:
    client = TestClient(create_app(make_settings()))
    r = client.get(page)
    assert r.status_code == 200
    assert not re.search(r"https?://", r.text), r.text  # no CDN, no font host
    assets = ASSET.findall(r.text)
    assert any(a.endswith(".js") for a in assets), assets
    for url in assets:
        assert not urlsplit(url).netloc, url
        got = client.get(url)
        assert got.status_code == 200 and len(got.content) > 1000, url
