"""Package layout (the rest of the metadata is in pyproject.toml).

The HTTP API lives in the repository's top-level ``api/`` folder but installs as
``kgmem.api``, so a plain ``pip install`` puts only the ``kgmem`` namespace into
site-packages; ``benchmarks/`` is a repository tool and stays out of the wheel.
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup

# setuptools packs whatever its build/lib folder holds: a checkout built before this layout
# still has top-level api/ and benchmarks/ there, which would land in site-packages again.
for stale in ("api", "benchmarks"):
    shutil.rmtree(Path(__file__).parent / "build" / "lib" / stale, ignore_errors=True)

setup(
    packages=[
        *find_packages(include=["kgmem", "kgmem.*"]),
        "kgmem.api",
        *(f"kgmem.api.{p}" for p in find_packages("api")),
    ],
    package_dir={"kgmem.api": "api"},
)
