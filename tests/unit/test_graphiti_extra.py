"""graphiti-core is an extra (``kgmem[graphiti]``): kgmem imports and runs without it, and
the bridge used without it says which extra to install (a KgmemError, one CLI line)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from kgmem.errors import MissingExtraError

REPO = Path(__file__).resolve().parents[2]
_HIDE = "import sys; sys.modules['graphiti_core'] = None; "


def test_the_bridge_without_graphiti_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "graphiti_core" or m.startswith("graphiti_core.")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed (loaded or not)
    monkeypatch.setitem(sys.modules, "graphiti_core", None)
    monkeypatch.delitem(sys.modules, "kgmem.interop.graphiti_pipeline", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install 'kgmem\[graphiti\]'") as exc:
        importlib.import_module("kgmem.interop.graphiti_pipeline")
    assert exc.value.type == "missing_extra" and isinstance(exc.value, ImportError)


def test_kgmem_runs_without_graphiti_and_the_cli_says_what_to_install(tmp_path: Path) -> None:
    f = tmp_path / "chat.jsonl"
    f.write_text('{"content": "I moved to Oslo.", "reference_time": "2023-01-01"}\n')
    code = (_HIDE + "from kgmem.cli.main import app; "
            f"app(['--home', {str(tmp_path / 'h')!r}, '--extractor', 'graphiti', 'ingest', "
            f"{str(f)!r}])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    assert r.returncode != 0 and r.stderr.startswith("error: graphiti-core's pipeline")
    assert "pip install 'kgmem[graphiti]'" in r.stderr and "Traceback" not in r.stderr
    code = (_HIDE + "from kgmem import Memory; m = Memory(sys.argv[1], extractor=None); "
            "m.assert_fact('A', 'LIVES_IN', 'Oslo'); print(m.facts('A')[0].object); "
            "print('graphiti_core' in sys.modules and sys.modules['graphiti_core'] is not None)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m")], capture_output=True,
                       text=True, cwd=REPO, timeout=120)
    assert r.stdout.split() == ["Oslo", "False"], r.stderr
