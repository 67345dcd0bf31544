"""docs/integrations.md: each Python example runs as printed (scripted models, no network)
and prints what its comments say; the MCP configuration is valid JSON naming `kgmem mcp`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
NEEDS = ["langgraph", "agents", "pydantic_ai"]


@pytest.mark.parametrize(("block", "module"), list(zip(BLOCKS, NEEDS)), ids=NEEDS)
def test_example_prints_what_its_comments_say(block: str, module: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, str(DOC), "exec"), {"__name__": "docs_example"})  # noqa: S102
    said = [c.strip() for c in re.findall(r"^print\(.*?\)\s+#\s*(.*)$", block, re.M)]
    said += [c.strip() for c in re.findall(r"^    print\(.*?\)\s+#\s*(.*)$", block, re.M)]
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == sorted(said) and len(said) >= 2


def test_three_examples_and_a_desktop_configuration() -> None:
    assert len(BLOCKS) == 3
    [config] = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    server = json.loads(config)["mcpServers"]["kgmem"]
    assert server == {"command": "kgmem", "args": ["mcp"]}
