"""Fixtures for the kgmem.embed tests.

Every test here runs with ``KGMEM_CACHE_DIR`` pointing at a fresh temporary folder, so the
ONNX file is built once per test session (about 1.5 s) and nothing touches ~/.cache.
"""

from __future__ import annotations

import os

# The numpy reference pass multiplies small matrices; on our 2-core machines OpenBLAS
# threads make it 5-10x slower whenever other processes compete for the cores. This only
# takes effect if numpy has not been imported yet in this pytest process, and only for
# OpenBLAS's default thread count (an explicit setting is kept).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

LONG_PARAGRAPH = (
    "Alice met Bob at the farmers' market in Lyon on a rainy Tuesday; they talked about "
    "sourdough starters, the price of apricots, and whether the new tram line would ever "
    "open. "
)

# ~30 varied inputs: short, long (> 256 tokens, truncated by the model), unicode, empty...
SENTENCES: list[str] = [
    "hello world",
    "This is an example sentence",
    "Each sentence is converted",
    "george washington was president",
    "Alice moved to Paris in 2019 and started working at Acme Corp.",
    "Bob's dog Rex is afraid of thunderstorms.",
    "I prefer tea over coffee, except on Mondays.",
    "The meeting was moved from Thursday 3pm to Friday 10am.",
    "?",
    "ok",
    "a",
    "",
    "   ",
    "\t\n",
    "Café crème brûlée à la carte, naïve façade.",
    "Zürich, Kraków, São Paulo and Reykjavík are cities.",
    "東京は日本の首都です。",
    "北京欢迎你",
    "Привет, как дела?",
    "مرحبا بالعالم",
    "I love pizza 🍕🍕 and tacos 🌮!!!",
    "def add(a, b):\n    return a + b  # simple function",
    "https://example.com/path?query=1&x=y#frag",
    "Call me at +1 (555) 123-4567 or mail jane.doe@example.org",
    "3.14159 2.71828 1.41421 42 1e-9",
    "!!!??? ... --- ***",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "x" * 300,  # one very long word (WordPiece maps words > 100 chars to [UNK])
    LONG_PARAGRAPH * 12,  # ~400 tokens: truncated at 256 like sentence-transformers
    " ".join(f"item{i}" for i in range(150)),  # > 256 pieces, many words
    "The quick brown fox jumps over the lazy dog. " * 5,  # medium length
]


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("kgmem-cache")
    old = os.environ.get("KGMEM_CACHE_DIR")
    os.environ["KGMEM_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("KGMEM_CACHE_DIR", None)
    else:
        os.environ["KGMEM_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def onnx_minilm():
    from kgmem.embed.onnx_minilm import OnnxMiniLM

    return OnnxMiniLM()


@pytest.fixture(scope="session")
def numpy_minilm():
    from kgmem.embed.numpy_minilm import NumpyMiniLM

    return NumpyMiniLM()


@pytest.fixture(scope="session")
def sentences() -> list[str]:
    return list(SENTENCES)


@pytest.fixture(scope="session")
def long_text() -> str:
    return LONG_PARAGRAPH * 12
