"""On-disk cache of chat-completions responses (SQLite, one file under the cache directory).

Keyed by ``sha256`` of the canonical JSON of ``(model, prompt_version, messages)``: the same
episode with the same prompt version and model is answered from disk, so re-ingesting costs
no calls. Only responses that parsed and validated are stored. Safe to share between threads
(one connection behind a lock) and between processes (WAL journal, busy timeout).

The same file remembers what each endpoint (base URL + model) was found to support
(``endpoint_caps``: e.g. ``{"response_format": "json_object", "instructions": "user"}``), so
the next run does not pay the failed requests again.

Each response also keeps the ``text_key`` (sha256, no text) of every episode text it answered
or was shown (``response_texts``: one reply answers a whole sitting of turns, kgmem.ingest.
llm_turns), so that an erase of any of them forgets it (:meth:`ResponseCache.forget_texts`,
:func:`forget_texts_in_dir`) with no copy left in the file (``secure_delete``, WAL truncated).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ResponseCache", "cache_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL,
    text_key TEXT
);
CREATE TABLE IF NOT EXISTS response_texts (
    text_key TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (text_key, key)
);
CREATE TABLE IF NOT EXISTS endpoints (
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    caps TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (base_url, model)
)
"""


def text_key(text: str) -> str:
    """sha256 hex of an episode text (what :meth:`ResponseCache.forget_texts` matches)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(model: str, prompt_version: str, messages: Sequence[Mapping[str, object]]
              ) -> str:
    blob = json.dumps(
        {"model": model, "prompt_version": prompt_version, "messages": messages},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """``ResponseCache(directory)``: ``get(key) -> dict | None``, ``put(key, body, ...)``."""

    FILENAME = "llm-responses.sqlite3"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / self.FILENAME
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False,
                                     isolation_level=None)
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # a cache: durability is optional
        except sqlite3.DatabaseError:  # pragma: no cover - e.g. network filesystems
            pass
        self._conn.execute("PRAGMA secure_delete=ON")  # a forgotten response leaves no bytes
        self._conn.executescript(_SCHEMA)
        if "text_key" not in {r[1] for r in self._conn.execute("PRAGMA table_info(responses)")}:
            self._conn.execute("ALTER TABLE responses ADD COLUMN text_key TEXT")  # older files
        self._conn.execute(
            "CREATE INDEX IF NOT EXISTS responses_text ON responses(text_key)")

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            body = json.loads(row[0])
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def put(self, key: str, body: Mapping[str, object], model: str = "",
            prompt_version: str = "", text: str | None = None, texts: Sequence[str] = ()
            ) -> None:
        """Store a response; ``text`` and ``texts``: the episode texts it answers or was shown
        (only their hashes are kept): erasing any of them forgets it."""
        blob = json.dumps(body, ensure_ascii=False)
        tkey = text_key(text) if text is not None else None
        tkeys = sorted({text_key(t) for t in texts} | ({tkey} if tkey is not None else set()))
        with self._lock, self._conn:  # one transaction: the response and its text keys
            self._conn.execute("BEGIN")
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, prompt_version, created_at, body,"
                " text_key) VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, prompt_version, time.time(), blob, tkey),
            )
            self._conn.executemany(
                "INSERT OR IGNORE INTO response_texts (text_key, key) VALUES (?, ?)",
                [(k, key) for k in tkeys])

    def endpoint_caps(self, base_url: str, model: str) -> dict[str, str]:
        """What was learnt about this endpoint ({} if nothing)."""
        with self._lock:
            row = self._conn.execute("SELECT caps FROM endpoints WHERE base_url = ? AND model = ?",
                                     (base_url, model)).fetchone()
        try:
            caps = json.loads(row[0]) if row is not None else {}
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in caps.items()} if isinstance(caps, dict) else {}

    def remember_endpoint(self, base_url: str, model: str, **caps: str) -> None:
        """Merge ``caps`` into what is remembered about this endpoint."""
        with self._lock:
            row = self._conn.execute("SELECT caps FROM endpoints WHERE base_url = ? AND model = ?",
                                     (base_url, model)).fetchone()
            try:
                known = json.loads(row[0]) if row is not None else {}
            except ValueError:
                known = {}
            known = {**(known if isinstance(known, dict) else {}), **caps}
            self._conn.execute(
                "INSERT OR REPLACE INTO endpoints (base_url, model, caps, updated_at)"
                " VALUES (?, ?, ?, ?)", (base_url, model, json.dumps(known, sort_keys=True),
                                         time.time()))

    def forget_texts(self, texts: list[str]) -> int:
        """Drop the responses about these episode texts (an erase); returns how many."""
        with self._lock:
            return _forget(self._conn, sorted({text_key(t) for t in texts}))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM responses").fetchone()[0])

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM responses")
            self._conn.execute("DELETE FROM response_texts")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _forget(conn: sqlite3.Connection, keys: list[str]) -> int:
    """Delete the responses about these text keys (autocommit connection), then truncate the
    WAL that still holds their pages. Writes nothing when no row matches."""
    n = 0
    for i in range(0, len(keys), 500):
        part = keys[i : i + 500]
        marks = ",".join("?" * len(part))
        gone = sorted({r[0] for r in conn.execute(
            f"SELECT key FROM responses WHERE text_key IN ({marks}) UNION "
            f"SELECT key FROM response_texts WHERE text_key IN ({marks})", part + part)})
        for j in range(0, len(gone), 500):
            some = gone[j : j + 500]
            marks = ",".join("?" * len(some))
            n += conn.execute(f"DELETE FROM responses WHERE key IN ({marks})", some).rowcount
            conn.execute(f"DELETE FROM response_texts WHERE key IN ({marks})", some)
    if n:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return n


def forget_texts_in_dir(directory: str | Path, texts: list[str]) -> int:
    """:meth:`ResponseCache.forget_texts` on the cache file in ``directory`` when no cache of
    this process has it open; a missing file holds nothing."""
    path = Path(directory).expanduser() / ResponseCache.FILENAME
    if not path.is_file():
        return 0
    cache = ResponseCache(path.parent)
    try:
        return cache.forget_texts(texts)
    finally:
        cache.close()
