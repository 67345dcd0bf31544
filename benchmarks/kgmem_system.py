"""kgmem as a system under test in the retrieval harness.

Each haystack is replayed into a fresh embedded :class:`kgmem.Memory`: one episode per turn,
``reference_time`` = the turn's time, and (through the injected clock) transaction time = the
end of the turn's session, so nothing from the future can leak into an answer. Questions are
asked with ``known_at`` = the question's date when the dataset has one, else the end of the
conversation, through :func:`kgmem.retrieve.search` (hybrid keyword + vector + graph, time
filtered). Facts found are mapped back to the turns they were extracted from.

Stores (``store=``):

* ``"embedded"`` (default): one SQLite directory per haystack. With ``cache_dir`` set, a
  replayed directory is kept under ``cache_dir/<key>/`` and reused by later runs;
  ``key = sha256(haystack content, system config, kgmem version, digest of the kgmem code
  that shapes stored state)`` (:func:`replay_key`), so any change to the data, the
  extraction setting or the ingestion/indexing code replays afresh. A directory counts only
  once its ``replay.json`` marker (written last) exists.
* ``"neo4j"``: one Neo4j database (``KGMEM_NEO4J_*`` settings, or ``neo4j=`` keyword
  arguments of :class:`kgmem.store.neo4j.Neo4jStore`); each haystack is replayed into a
  fresh group ``bench-<run id>-<haystack id>`` which is erased (with its audit record) when
  the next haystack is indexed and at :meth:`KgmemSystem.close`. Nothing else in the database
  is touched. Not cached (groups never outlive the run).

Turns of one session that carry the same time (LoCoMo dates sessions, not turns) are spread
``TURN_SPACING`` apart in their spoken order, so kgmem's conversation context (the turns just
before and after a match, ``search(neighbours=...)``) follows the dialogue. Sessions are ranked
by kgmem itself on the same search (:func:`benchmarks.kgmem_api.search_with_sessions`, the
harness's only use of kgmem internals besides the store's last transaction time).

Systems: ``kgmem-extract`` is the product default (offline extraction on: episodes and the
facts extracted from them); ``kgmem`` replays episodes only (extraction off). A suffix picks
the ranking (:func:`variant`): ``kgmem-extract@hl90`` ranks with recency at a 90-day
half-life, ``@off`` with recency off, ``@ga`` / ``@ga-hl90`` with the Generative-Agents score
(at the default / a 90-day half-life); without a suffix, kgmem's defaults.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import tempfile
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import kgmem
from benchmarks.kgmem_api import last_transaction_time, open_replay_memory, search_with_sessions
from benchmarks.task import Haystack, Question, Ranking
from kgmem import Memory

KGMEM_ROOT = Path(kgmem.__file__).resolve().parent
# Modules that only run at query time: editing them does not change a replayed store
# (the whole retrieve package but its indexing, which embeds what a replay stores; the
# doors: CLI, MCP, REST).
QUERY_TIME_CODE = frozenset({"cli.py", "demo.py", "mcp_server.py"})
QUERY_TIME_PREFIXES = ("retrieve/", "api/", "mcp", "cli/")
STATE_CODE = frozenset({"retrieve/indexing.py"})
MARKER = "replay.json"
TURN_SPACING = timedelta(seconds=1)


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over kgmem's source files that shape what a replay stores (ingestion,
    extraction, stores, indexing, embeddings); query-time-only modules are left out."""
    h = hashlib.sha256()
    for f in sorted(KGMEM_ROOT.rglob("*.py")):
        rel = f.relative_to(KGMEM_ROOT).as_posix()
        if rel not in STATE_CODE and (rel in QUERY_TIME_CODE
                                       or rel.startswith(QUERY_TIME_PREFIXES)):
            continue
        h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def haystack_digest(haystack: Haystack) -> str:
    """sha256 of everything a replay reads from a haystack (ids, speakers, texts, captions,
    times), so the cache key follows the data, not a file name."""
    rows = [
        [s.session_id, s.date.isoformat() if s.date else None,
         [[t.turn_id, t.speaker, t.text, t.image_caption,
           t.timestamp.isoformat() if t.timestamp else None] for t in s.turns]]
        for s in haystack.sessions
    ]
    return hashlib.sha256(json.dumps([haystack.haystack_id, rows]).encode()).hexdigest()


def replay_key(haystack: Haystack, config: dict[str, Any]) -> str:
    """Cache key of one replayed store: data, system config, kgmem version and code."""
    parts = {"haystack": haystack_digest(haystack), "config": config,
             "kgmem": kgmem.__version__, "code": code_digest()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


BASE_SYSTEMS = ("kgmem", "kgmem-extract")


def variant(name: str) -> tuple[str, dict[str, Any]] | None:
    """``(base system, search options)`` of a kgmem system name, None if it is none:
    ``kgmem-extract@hl365`` -> ``("kgmem-extract", {"half_life_days": 365.0})``; ``@off``:
    half-life 0; ``@ga``: ``ranking="generative_agents"``; ``@ga-hl30``: both."""
    base, _, suffix = name.partition("@")
    if base not in BASE_SYSTEMS:
        return None
    opts: dict[str, Any] = {}
    for part in suffix.split("-") if suffix else ():
        if part == "ga":
            opts["ranking"] = "generative_agents"
        elif part == "fused":
            opts["ranking"] = "fused"
        elif part == "off":
            opts["half_life_days"] = 0.0
        elif part.startswith("hl") and part[2:].replace(".", "", 1).isdigit():
            opts["half_life_days"] = float(part[2:])
        else:
            raise ValueError(f"unknown ranking suffix {part!r} in {name!r} "
                             "(use @off, @hl<days>, @ga, @ga-hl<days>)")
    return base, opts


class _Clock:
    def __init__(self) -> None:
        self.t = datetime(1970, 1, 1).astimezone()

    def __call__(self) -> datetime:
        return self.t


class KgmemSystem:
    """``extract=False``: episodes only (verbatim, indexed); ``True``: offline extraction too.

    ``store``: ``"embedded"`` or ``"neo4j"`` (see the module doc); ``cache_dir``: reuse
    replayed embedded stores across runs (None: a fresh temporary directory, no reuse).
    """

    def __init__(self, name: str = "kgmem", *, extract: bool = False, captions: bool = False,
                 limit: int = 100, kinds: tuple[str, ...] = ("episodes", "facts"),
                 workdir: Path | None = None, store: str = "embedded",
                 cache_dir: Path | None = None, neo4j: dict[str, Any] | None = None,
                 search: dict[str, Any] | None = None) -> None:
        if store not in ("embedded", "neo4j"):
            raise ValueError(f"store must be 'embedded' or 'neo4j', got {store!r}")
        if store == "neo4j" and cache_dir is not None:
            raise ValueError("replays into Neo4j are not cached (their groups are erased)")
        self.name = name
        self.search = dict(search or {})  # more search options (ranking, half-life)
        self.extract = extract
        self.captions = captions
        self.limit = limit
        self.kinds = kinds
        self.store_kind = store
        self.cache_dir = cache_dir
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="kgmem-bench-"))
        self._neo4j_args = dict(neo4j or {})
        self._neo4j: Any = None  # one Neo4jStore for the whole run
        self._run_id = uuid.uuid4().hex[:8]
        self._m: Memory | None = None
        self._turn_of: dict[str, str] = {}
        self._session_of: dict[str, str] = {}
        self._end: datetime | None = None
        self._group = "default"
        self.haystack_id: str | None = None  # the haystack currently indexed
        self.stats: dict[str, Any] = {"episodes": 0, "facts": 0, "replayed": 0, "reused": 0,
                                      "groups": []}

    @property
    def memory(self) -> Memory:
        assert self._m is not None, "index() a haystack first"
        return self._m

    @property
    def group(self) -> str:
        return self._group

    @property
    def turn_of(self) -> dict[str, str]:
        """episode id -> turn id for the haystack currently indexed."""
        return self._turn_of

    def config(self) -> dict[str, Any]:
        """What, besides data and code, decides the content of a replayed store."""
        from kgmem.embed import get_default_embedder

        return {"extract": self.extract, "captions": self.captions,
                "turn_spacing_s": TURN_SPACING.total_seconds(),
                "embedder": str(getattr(get_default_embedder(), "name", "?"))}

    def neo4j_store(self) -> Any:
        if self._neo4j is None:
            from kgmem.store.neo4j import Neo4jStore

            self._neo4j = Neo4jStore(**self._neo4j_args)
        return self._neo4j

    def _release(self) -> None:
        """Close the current haystack's memory; on Neo4j erase its group completely."""
        m, self._m, self.haystack_id = self._m, None, None
        if m is None:
            return
        if self.store_kind == "neo4j":
            m.erase(group=self._group, whole_group=True)
            # the erase leaves an audit record and the group's clock: a benchmark group
            # leaves nothing behind (constant labels, parameterised group)
            with self.neo4j_store().driver.session(database=self._neo4j.database) as s:
                for label in ("KgmemErasure", "KgmemClock"):
                    s.run(f"MATCH (n:{label}) WHERE n.group_id = $g DETACH DELETE n",
                          g=self._group).consume()
        else:
            m.close()

    def close(self) -> None:
        self._release()
        if self._neo4j is not None:
            self._neo4j.close()
            self._neo4j = None

    def index(self, haystack: Haystack) -> None:
        from kgmem.retrieve import index_pending

        self._release()
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", haystack.haystack_id)
        clock = _Clock()
        self._session_of = haystack.turn_to_session
        marker: Path | None = None
        if self.store_kind == "neo4j":
            self._group = f"bench-{self._run_id}-{safe}"[:128]
            self.stats["groups"].append(self._group)
            m = open_replay_memory(None, extract=self.extract, clock=clock,
                                   store=self.neo4j_store())
        else:
            self._group = "default"
            if self.cache_dir is not None:
                key = replay_key(haystack, self.config())
                path = self.cache_dir / key[:32] / safe
                marker = path / MARKER
                if marker.is_file():
                    state = json.loads(marker.read_text(encoding="utf-8"))
                    self._m = open_replay_memory(path, extract=self.extract, clock=clock)
                    self._turn_of = dict(state["turn_of"])
                    self._end = datetime.fromisoformat(state["end"])
                    clock.t = last_transaction_time(self._m, self._group) or clock.t
                    self.haystack_id = haystack.haystack_id
                    self.stats["reused"] += 1
                    self._count()
                    return
            else:
                path = self.workdir / safe
            shutil.rmtree(path, ignore_errors=True)
            m = open_replay_memory(path, extract=self.extract, clock=clock)
        self._m = m
        self.haystack_id = haystack.haystack_id
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
                if items and when <= items[-1]["reference_time"]:
                    # turns are said in order: same-stamped turns (a session's date) are
                    # spread apart, so kgmem knows which turn came next
                    when = items[-1]["reference_time"] + TURN_SPACING
                items.append({"content": text, "reference_time": when,
                              "speaker": turn.speaker or None,
                              "source_description": turn.turn_id})
                last = when if last is None or when > last else last
            if not items:
                continue
            # the whole session is known once it has been said
            clock.t = max(clock.t, max(i["reference_time"] for i in items))
            for item, ep in zip(items, m.add_episodes(items, group=self._group), strict=True):
                self._turn_of[ep.id] = item["source_description"]
        index_pending(m)
        assert last is not None, f"haystack {haystack.haystack_id} has no turns"
        self._end = last
        self.stats["replayed"] += 1
        self._count()
        if marker is not None:  # written last: a crash mid-replay leaves no valid entry
            tmp = marker.with_suffix(".tmp")
            tmp.write_text(json.dumps({"turn_of": self._turn_of, "end": last.isoformat(),
                                       "haystack_id": haystack.haystack_id}), encoding="utf-8")
            tmp.replace(marker)

    def _count(self) -> None:
        st = self.memory.stats(self._group)
        self.stats["episodes"] += st["episodes"]
        self.stats["facts"] += st["lineages"]

    def times(self, question: Question) -> tuple[datetime, datetime]:
        """(asked, known_at) of a question: its date, else just after the conversation's end;
        known_at is never before the store's last transaction (everything replayed counts)."""
        assert self._m is not None and self._end is not None
        asked = question.question_date or (self._end + timedelta(seconds=1))
        return asked, max(asked, last_transaction_time(self._m, self._group) or asked)

    def context(self, question: Question, budget_tokens: int = 1000) -> Any:
        """kgmem's prompt block for the question (:func:`kgmem.retrieve.context`), at the
        same times as :meth:`rank`; for the optional LLM reader."""
        asked, known = self.times(question)
        return self.memory.context(question.question, budget_tokens=budget_tokens,
                                   known_at=known, reference_time=asked, group=self._group)

    def rank(self, question: Question, k: int) -> Ranking:
        assert self._m is not None and self._end is not None
        asked, known = self.times(question)
        found = search_with_sessions(self._m, question.question, known_at=known,
                                     reference_time=asked, group=self._group,
                                     limit=max(k, self.limit), kinds=self.kinds,
                                     session_limit=max(k, 50), options=self.search)
        results = found.results
        turns: list[str] = []
        seen: set[str] = set()
        for r in results:
            # a fact stands for the one episode that states it best for this query (search
            # puts it first), not for every turn that ever repeated it
            ids = [r.id] if r.kind == "episode" else list(r.episode_ids[:1])
            for eid in ids:
                tid = self._turn_of.get(eid)
                if tid is not None and tid not in seen:
                    seen.add(tid)
                    turns.append(tid)
        # kgmem's own session ranking, each session mapped to the dataset's session of its
        # first matching turn
        sessions: list[str] = []
        for s in found.sessions:
            sid = next((self._session_of[t] for e in s.episode_ids
                        if (t := self._turn_of.get(e)) in self._session_of), None)
            if sid is not None and sid not in sessions:
                sessions.append(sid)
        return Ranking(turn_ids=turns, session_ids=sessions, info={"results": len(results)})
