"""``python -m benchmarks <suite>``: every suite resolves to a module with main()."""

from __future__ import annotations

import importlib

from benchmarks.__main__ import SUITES, main


def test_every_suite_has_a_main() -> None:
    for suite, (module, _defaults) in SUITES.items():
        assert callable(getattr(importlib.import_module(module), "main", None)), suite


def test_unknown_suite_is_an_error(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["nope"]) == 2
    assert "unknown suite" in capsys.readouterr().out


def test_locomo_runs_kgmem_beside_the_baselines_by_default() -> None:
    module, defaults = SUITES["locomo"]
    assert "kgmem" in defaults[1].split(",") and "bm25-turns" in defaults[1].split(",")
