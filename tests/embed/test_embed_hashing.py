"""HashingEmbedder: deterministic, dependency-free, not semantic."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgmem.embed import Embedder, HashingEmbedder
from kgmem.errors import InvalidInputError

REPO = Path(__file__).resolve().parents[2]


def test_deterministic_across_instances_and_processes():
    a = HashingEmbedder().embed(["Alice likes green tea", "Bob"])
    b = HashingEmbedder().embed(["Alice likes green tea", "Bob"])
    np.testing.assert_array_equal(a, b)
    code = (
        "from kgmem.embed import HashingEmbedder; "
        "print(HashingEmbedder().embed_one('Alice likes green tea').tobytes().hex())"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "123"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.strip() == a[0].tobytes().hex()


def test_pinned_values():
    # pinned so a change of hashing scheme (which would invalidate caches) is noticed
    v = HashingEmbedder(8).embed_one("a b")
    np.testing.assert_allclose(v, [-0.70710677, 0, -0.70710677, 0, 0, 0, 0, 0], atol=1e-6)


def test_shape_norm_and_protocol():
    e = HashingEmbedder(dim=32)
    assert isinstance(e, Embedder) and e.name == "hashing-32" and e.dim == 32
    out = e.embed(["one two three", "", "!!!", "UPPER lower"])
    assert out.shape == (4, 32) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(e.embed_one("Hello World"), e.embed_one("hello, world!"))
    assert e.embed([]).shape == (0, 32)


def test_shared_words_are_closer():
    e = HashingEmbedder(dim=256)
    a, b, c = e.embed(["alice moved to paris", "alice lives in paris", "quarterly revenue grew"])
    assert float(a @ b) > float(a @ c)


def test_bad_dim():
    with pytest.raises(InvalidInputError):
        HashingEmbedder(dim=1)
