"""kgmem's version (pyproject.toml says the same), on the ground floor so that any module can
name it without importing the package's public face."""

__version__ = "0.1.0"
