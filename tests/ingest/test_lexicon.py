"""The word lists of kgmem.ingest.lexicon are the offline extractor's: each one is read by
its rules (a list nothing reads is a trap for whoever extends it)."""

from __future__ import annotations

import re
from pathlib import Path

import kgmem.ingest.lexicon as lexicon

OFFLINE = Path(lexicon.__file__).parent / "offline"


def test_every_word_list_is_read_by_the_offline_extractor() -> None:
    lists = {name for name in vars(lexicon) if name.isupper() and not name.startswith("_")}
    source = "\n".join(p.read_text(encoding="utf-8") for p in OFFLINE.rglob("*.py"))
    read = set(re.findall(r"\bL\.([A-Z][A-Z_]*)\b", source))
    assert sorted(lists - read) == []
