"""kgmem as a system under test in the retrieval harness.

Each haystack is replayed into a fresh embedded :class:`kgmem.Memory`: one episode per turn,
``reference_time`` = the turn's time, and (through the injected clock) transaction time = the
end of the turn's session, so nothing from the future can leak into an answer. Questions are
asked with ``known_at`` = the question's date when the dataset has one, else the end of the
conversation, through :func:`kgmem.retrieve.search` (hybrid keyword + vector + graph, time
filtered). Facts found are mapped back to the turns they were extracted from.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.task import Haystack, Question, Ranking
from kgmem.memory import Memory


class _Clock:
    def __init__(self) -> None:
        self.t = datetime(1970, 1, 1).astimezone()

    def __call__(self) -> datetime:
        return self.t


class KgmemSystem:
    """``extract=False``: episodes only (verbatim, indexed); ``True``: offline extraction too."""

    def __init__(self, name: str = "kgmem", *, extract: bool = False, captions: bool = False,
                 limit: int = 50, kinds: tuple[str, ...] = ("episodes", "facts"),
                 workdir: Path | None = None) -> None:
        self.name = name
        self.extract = extract
        self.captions = captions
        self.limit = limit
        self.kinds = kinds
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="kgmem-bench-"))
        self._m: Memory | None = None
        self._turn_of: dict[str, str] = {}
        self._end: datetime | None = None
        self._group = "default"
        self.stats: dict[str, Any] = {"episodes": 0, "facts": 0}

    def index(self, haystack: Haystack) -> None:
        from kgmem.retrieve import index_pending

        if self._m is not None:
            self._m.close()
        path = self.workdir / re.sub(r"[^A-Za-z0-9_.-]", "_", haystack.haystack_id)
        shutil.rmtree(path, ignore_errors=True)
        clock = _Clock()
        extractor = None
        if self.extract:
            from kgmem.ingest.pipeline import make_extractor

            extractor = make_extractor()
        m = Memory(path, clock=clock, extractor=extractor)
        self._turn_of = {}
        last: datetime | None = None
        for session in haystack.sessions:
            items = []
            for turn in session.turns:
                text = turn.render(speaker=False, caption=self.captions) if hasattr(
                    turn, "render") else turn.text
                if not text.strip():
                    continue
                when = turn.timestamp or session.date
                assert when is not None, "the harness needs dated turns"
                items.append({"content": text, "reference_time": when,
                              "speaker": turn.speaker or None,
                              "source_description": turn.turn_id})
                last = when if last is None or when > last else last
            if not items:
                continue
            # the whole session is known once it has been said
            clock.t = max(clock.t, max(i["reference_time"] for i in items))
            for item, ep in zip(items, m.add_episodes(items), strict=True):
                self._turn_of[ep.id] = item["source_description"]
        index_pending(m)
        self._m, self._end = m, last
        st = m.stats()
        self.stats["episodes"] += st["episodes"]
        self.stats["facts"] += st["lineages"]

    def rank(self, question: Question, k: int) -> Ranking:
        from kgmem.retrieve import search

        assert self._m is not None and self._end is not None
        asked = question.question_date or (self._end + timedelta(seconds=1))
        known = max(asked, self._m.store.last_tx_time() or asked)
        results = search(self._m, question.question, known_at=known,
                         reference_time=asked, limit=max(k, self.limit), kinds=self.kinds)
        turns: list[str] = []
        seen: set[str] = set()
        for r in results:
            ids = [r.id] if r.kind == "episode" else list(r.episode_ids)
            for eid in ids:
                tid = self._turn_of.get(eid)
                if tid is not None and tid not in seen:
                    seen.add(tid)
                    turns.append(tid)
        return Ranking(turn_ids=turns, info={"results": len(results)})
