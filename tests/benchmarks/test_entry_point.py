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


def test_locomo_runs_the_product_default_first_beside_the_baselines() -> None:
    module, defaults = SUITES["locomo"]
    systems = defaults[1].split(",")
    assert systems[:2] == ["kgmem-extract", "kgmem"] and "bm25-turns" in systems
