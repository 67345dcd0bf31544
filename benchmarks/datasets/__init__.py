"""Benchmark dataset loaders (data read at run time; nothing is copied into the repo).

* :func:`benchmarks.datasets.locomo.load_locomo` (CC BY-NC 4.0)
* :func:`benchmarks.datasets.longmemeval.load_longmemeval` (MIT; not shipped)
* :func:`benchmarks.datasets.zyphra.load_zyphra` (no license; LoCoMo-derived)
* :func:`benchmarks.datasets.timeqa.load_timeqa` (BSD-3-Clause)
"""

from benchmarks.datasets._common import (
    ChecksumMismatchWarning,
    DatasetNotFoundError,
    default_data_dir,
)

__all__ = ["ChecksumMismatchWarning", "DatasetNotFoundError", "default_data_dir"]
