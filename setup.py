"""Package layout (the rest of the metadata is in pyproject.toml).

The HTTP API lives in the repository's top-level ``api/`` folder but installs as
``kgmem.api``, so a plain ``pip install`` puts only the ``kgmem`` namespace into
site-packages; ``benchmarks/`` is a repository tool and stays out of the wheel.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["kgmem", "kgmem.*"]),
        "kgmem.api",
        *(f"kgmem.api.{p}" for p in find_packages("api")),
    ],
    package_dir={"kgmem.api": "api"},
)
