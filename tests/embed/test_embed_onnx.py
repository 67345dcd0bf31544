"""ONNX Runtime backend: padding, normalisation, model-file cache, laziness."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kgmem.embed import Embedder
from kgmem.embed.batching import plan_batches
from kgmem.embed.onnx_graph import GRAPH_VERSION
from kgmem.embed.onnx_minilm import OnnxMiniLM, ensure_onnx_model, onnx_model_path
from kgmem.embed.tokenizer import encode_for_model, pad_batch
from kgmem.errors import InvalidInputError

REPO = Path(__file__).resolve().parents[2]
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def test_satisfies_protocol(onnx_minilm):
    assert isinstance(onnx_minilm, Embedder)
    assert onnx_minilm.dim == 384
    assert onnx_minilm.name == "sentence-transformers/all-MiniLM-L6-v2"


def test_padding_invariance(onnx_minilm, long_text):
    short = "Bob adopted a cat named Miso."
    alone = onnx_minilm.embed_one(short)
    # same padded batch as a longer text (the batcher groups lengths within 2x)
    longer = "Bob adopted a cat named Miso last spring, after his old dog had died."
    in_batch = onnx_minilm.embed([short, longer, "hi"])
    np.testing.assert_allclose(alone, in_batch[0], atol=1e-5)
    # and at the graph level, padded to 256 next to a truncated long text
    seqs = encode_for_model([short, long_text])
    ids, mask = pad_batch(seqs)
    assert ids.shape == (2, 256) and mask[0].sum() == len(seqs[0])
    np.testing.assert_allclose(onnx_minilm.forward(ids, mask)[0], alone, atol=1e-5)


def test_batches_group_similar_lengths():
    lengths = [256, 10, 12, 200, 9, 130, 11, 12, 3]
    batches = list(plan_batches(lengths, batch_size=3))
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 3
        assert max(lengths[i] for i in b) <= 2 * min(lengths[i] for i in b)


def test_batch_order_and_multiple_batches():
    texts = [f"note {i}: {'ab ' * (i % 13)}met user {i * 7} in room {i % 5}" for i in range(66)]
    batched = OnnxMiniLM(batch_size=64).embed(texts)  # several batches, sorted by length
    one_by_one = OnnxMiniLM(batch_size=1, intra_op_threads=1).embed(texts)
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_rows_are_unit_float32(onnx_minilm, sentences):
    out = onnx_minilm.embed(sentences)
    assert out.dtype == np.float32 and out.shape == (len(sentences), 384)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert np.all(np.isfinite(out))
    one = onnx_minilm.embed_one("hello")
    assert one.shape == (384,) and one.dtype == np.float32


def test_empty_list_and_bad_input(onnx_minilm):
    assert onnx_minilm.embed([]).shape == (0, 384)
    # lone surrogates (not UTF-8 encodable) are replaced, not an exception
    np.testing.assert_allclose(
        onnx_minilm.embed_one("bad \ud800 input"), onnx_minilm.embed_one("bad input"), atol=1e-5
    )
    with pytest.raises(InvalidInputError):
        onnx_minilm.embed("a bare string is a bug")
    with pytest.raises(InvalidInputError):
        onnx_minilm.embed(["ok", None])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        onnx_minilm.embed_one(b"bytes")  # type: ignore[arg-type]


def test_model_file_cached_by_weights_sha(onnx_minilm, _isolated_cache_dir):
    onnx_minilm.session()
    path = onnx_model_path()
    assert path.parent == _isolated_cache_dir / "onnx"
    assert WEIGHTS_SHA256 in path.name and f"-g{GRAPH_VERSION}" in path.name
    assert path.is_file() and path.stat().st_size > 80_000_000
    mtime = path.stat().st_mtime_ns
    again = OnnxMiniLM(intra_op_threads=1)
    again.embed_one("x")
    assert again.built_model is False and path.stat().st_mtime_ns == mtime
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_corrupt_cached_file_is_rebuilt(tmp_path):
    path = onnx_model_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not an onnx model")
    emb = OnnxMiniLM(cache_dir=tmp_path)
    vec = emb.embed_one("hello world")
    assert emb.built_model is True
    assert abs(float(vec[0]) - -0.034478) < 1e-4
    assert path.stat().st_size > 80_000_000


def test_parallel_processes_build_once_safely(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from kgmem.embed.onnx_minilm import OnnxMiniLM
        e = OnnxMiniLM(cache_dir=Path(sys.argv[1]), intra_op_threads=1)
        v = e.embed_one("parallel build")
        print(int(e.built_model), repr(float(v[0])))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    built = [int(out.split()[0]) for out, _ in outs]
    values = {out.split()[1] for out, _ in outs}
    assert sorted(built) == [0, 1]  # the flock made the second process reuse the file
    assert len(values) == 1
    files = [p.name for p in (tmp_path / "onnx").iterdir() if not p.name.startswith(".build")]
    assert len(files) == 1 and files[0].endswith(".onnx")


def test_ensure_onnx_model_reuses_file(tmp_path):
    path, built = ensure_onnx_model(tmp_path)
    assert built is True
    again, built2 = ensure_onnx_model(tmp_path)
    assert again == path and built2 is False


def test_import_is_lazy():
    code = (
        "import sys, kgmem.embed as e; e.Embedder; "
        "print(','.join(m for m in ('onnxruntime', 'onnx', 'tokenizers', 'safetensors', 'httpx')"
        " if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    assert out.stdout.strip() == ""


def test_batches_respect_the_token_budget():
    lengths = [40, 38, 37, 36, 35, 30, 300, 9, 8, 8, 7]
    batches = list(plan_batches(lengths, batch_size=64, max_tokens=120))
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:  # padded positions stay within budget unless one text alone exceeds it
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 120
    assert [6] in batches  # the 300-token text travels alone


def test_no_spin_session_gives_the_same_vectors(onnx_minilm, sentences):
    quiet = OnnxMiniLM(intra_op_threads=2, spin=False)
    np.testing.assert_allclose(quiet.embed(sentences), onnx_minilm.embed(sentences), atol=1e-5)


def test_concurrent_batches_give_the_same_vectors(onnx_minilm, sentences):
    par = OnnxMiniLM(intra_op_threads=1, workers=2, batch_size=4)
    np.testing.assert_allclose(par.embed(sentences), onnx_minilm.embed(sentences), atol=1e-5)
