"""Without the MiniLM weights (a plain pip install) search runs on keywords, times and the
graph, says so once, and leaves the embedding queue for the model: once the weights are there
the next search embeds everything written meanwhile."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import kgmem.embed as embed
from kgmem import Memory, retrieve
from kgmem.embed import package


@pytest.fixture
def no_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(package, "installed", lambda: False)
    monkeypatch.setattr(embed, "_noticed", False)


def _memory(path: Path) -> Memory:
    m = Memory(path, extractor=None)
    m.add_episode("Maya: I moved to Denver last March.", "2023-05-08T20:41:00Z", speaker="Maya")
    m.add_episode("Sam: the pottery class starts on Friday.", "2023-05-09T10:00:00Z",
                  speaker="Sam")
    m.assert_fact("Maya", "LIVES_IN", "Denver", valid_at="2023-03")
    return m


def test_search_without_weights_ranks_by_keywords_and_graph_and_says_so_once(
        tmp_path: Path, no_weights: None, caplog: pytest.LogCaptureFixture) -> None:
    m = _memory(tmp_path / "m")
    with caplog.at_level(logging.WARNING, logger="kgmem.embed"):
        hits = retrieve.search(m, "pottery class", kinds="episodes")
        facts = retrieve.search(m, "where does Maya live", kinds="facts")
    assert [h.text for h in hits][:1] == ["Sam: the pottery class starts on Friday."]
    assert all(h.parts.vector is None for h in hits + facts)
    assert [f.text for f in facts][:1] == ["Maya lives in Denver"]
    notices = [r for r in caplog.records if "kgmem models install" in r.getMessage()]
    assert len(notices) == 1
    assert m.store.search_tables().search_queue_size() > 0  # nothing embedded with no model
    assert m.store.search_tables().search_meta_get("model") is None


def test_the_first_search_with_weights_embeds_what_was_written_without_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(package, "installed", lambda: False)
    m = _memory(tmp_path / "m")
    retrieve.search(m, "pottery", kinds="episodes")
    queued = m.store.search_tables().search_queue_size()
    assert queued > 0
    monkeypatch.undo()  # the weights are installed now
    m.store.search_backends().clear()  # a new process would start without a backend
    hits = retrieve.search(m, "a ceramics course", kinds="episodes")  # no shared word
    assert m.store.search_tables().search_queue_size() == 0
    assert hits and hits[0].text.startswith("Sam: the pottery class")
