"""all-MiniLM-L6-v2 on ONNX Runtime, without torch (the default kgmem embedder).

The ONNX file is built from the shipped ``model.safetensors`` by
:func:`kgmem.embed.onnx_graph.build_model` (about 1.5 s) the first time it is needed
and cached as ``<cache dir>/onnx/minilm-l6-v2-<sha256 of the weights>-g<graph version>.onnx``:
it is rebuilt only when the weights (or the graph code) change. The file is written
to a temp file and renamed into place, and builders on one machine serialise on a
``flock``, so parallel processes never see or produce a partial file.

Nothing heavy happens at import time: weights, tokenizer and session load on first use.

Speed on our 2-core machines (details in ``docs/embeddings.md``; ``python -m
kgmem.embed.bench``): with one intra-op thread ~260 chat-length sentences per CPU-second at
batch 64, ~11 texts of 256 tokens per CPU-second, ~5.5 CPU-ms for one sentence; on a quiet
machine with 2 threads ~550-600 sentences/s and ~3 ms per sentence. ~220 MB RSS.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..settings import Settings
from .base import EmbedderBase
from .batching import embed_batched
from .errors import EmbeddingError
from .onnx_graph import GRAPH_VERSION, INPUTS, OUTPUT, build_model
from .resources import (
    DIM,
    MAX_SEQ_LENGTH,
    MODEL_NAME,
    atomic_write_bytes,
    cache_dir,
    file_sha256,
    load_config,
    model_dir,
)

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 64
_build_lock = threading.Lock()


def onnx_model_path(base: Path | None = None) -> Path:
    """Where the ONNX file for the installed weights lives (it may not exist yet)."""
    sha = file_sha256(model_dir() / "model.safetensors")
    root = (base if base is not None else cache_dir()) / "onnx"
    return root / f"minilm-l6-v2-{sha}-g{GRAPH_VERSION}.onnx"


@contextlib.contextmanager
def _interprocess_lock(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX: the atomic rename still protects
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def ensure_onnx_model(base: Path | None = None, *, force: bool = False) -> tuple[Path, bool]:
    """Return ``(path, built)``: the cached ONNX file, building it if missing (or ``force``).

    ``built`` tells whether this call wrote the file."""
    path = onnx_model_path(base)
    if path.is_file() and not force:
        return path, False
    with _build_lock, _interprocess_lock(path.parent / ".build.lock"):
        if path.is_file() and not force:  # another thread/process built it meanwhile
            return path, False
        from safetensors.numpy import load_file

        log.info("building ONNX graph for %s -> %s", MODEL_NAME, path)
        tensors = load_file(str(model_dir() / "model.safetensors"))
        data = build_model(tensors, load_config()).SerializeToString()
        del tensors
        atomic_write_bytes(path, data)
        return path, True


def default_threads() -> int:
    """``KGMEM_EMBED_THREADS`` (:class:`kgmem.settings.Settings`, default 2)."""
    return Settings().embed_threads


class OnnxMiniLM(EmbedderBase):
    """all-MiniLM-L6-v2 sentence embeddings via ONNX Runtime (CPU).

    ``OnnxMiniLM(intra_op_threads=2, batch_size=64, max_length=256, cache_dir=None,
    spin=True, workers=1)``.
    Texts longer than ``max_length`` tokens are truncated exactly like
    sentence-transformers does; use :func:`kgmem.embed.embed_chunks` to embed long
    texts in overlapping pieces instead.
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(
        self,
        *,
        intra_op_threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int = MAX_SEQ_LENGTH,
        cache_dir: Path | str | None = None,
        spin: bool = True,
        workers: int = 1,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if not 3 <= max_length <= MAX_SEQ_LENGTH * 2:
            raise ValueError("max_length must be between 3 and 512")
        self.intra_op_threads = intra_op_threads or default_threads()
        self.batch_size = batch_size
        self.max_length = max_length
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        # spin=False: idle intra-op threads sleep instead of spinning (better when other
        # threads of the process, e.g. a parser, need the cores; a little more latency)
        self.spin = spin
        # workers > 1: that many batches run at once (use with intra_op_threads=1)
        self.workers = max(1, int(workers))
        self.built_model = False  # True if this instance had to build the ONNX file
        self._session = None
        self._lock = threading.Lock()

    def _make_session(self, path: Path):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = self.intra_op_threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 3
        if not self.spin:
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    def session(self):
        """The onnxruntime ``InferenceSession`` (built/loaded on first call)."""
        with self._lock:
            if self._session is None:
                path, built = ensure_onnx_model(self.cache_dir)
                self.built_model = built
                try:
                    self._session = self._make_session(path)
                except Exception as exc:  # unreadable cache file: rebuild once
                    log.warning("cached ONNX model %s failed to load (%s); rebuilding", path, exc)
                    path, _ = ensure_onnx_model(self.cache_dir, force=True)
                    self.built_model = True
                    try:
                        self._session = self._make_session(path)
                    except Exception as exc2:
                        raise EmbeddingError(
                            f"could not load ONNX model {path}: {exc2}", path=str(path)
                        ) from exc2
            return self._session

    def forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feeds = dict(zip(INPUTS, (input_ids, attention_mask), strict=True))
        return self.session().run([OUTPUT], feeds)[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        return embed_batched(
            texts,
            self.forward,
            dim=self.dim,
            batch_size=self.batch_size,
            max_length=self.max_length,
            workers=self.workers,
        )
