"""Each adapter used without its framework says which extra to install (MissingExtraError,
a KgmemError and an ImportError); kgmem itself never imports a framework."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from kgmem.errors import MissingExtraError


@pytest.mark.parametrize(("module", "framework", "extra"), [
    ("kgmem.integrations.langgraph", "langgraph", "langgraph"),
    ("kgmem.integrations.openai_agents", "agents", "openai-agents"),
    ("kgmem.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
])
def test_adapter_without_its_framework(module: str, framework: str, extra: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == framework or m.startswith(framework + ".")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtraError, match=rf"pip install 'kgmem\[{extra}\]'"):
        importlib.import_module(module)


def test_kgmem_imports_no_framework() -> None:
    code = ("import sys, kgmem, kgmem.cli.main, kgmem.mcp.server, kgmem.integrations.tools; "
            "print(sorted(m for m in ('langgraph', 'langchain_core', 'agents', 'pydantic_ai', "
            "'graphiti_core') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert out.stdout.strip() == "[]", out.stderr
