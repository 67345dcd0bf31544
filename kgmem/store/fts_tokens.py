"""The embedded store's keyword tokens, for stores that index text elsewhere (Neo4j's Lucene).

The embedded store indexes episodes in SQLite FTS5 with ``tokenize='porter unicode61'``
(kgmem/store/sqlite/store.py): Unicode word characters, lower case, diacritics removed, Porter
stemming, no stop words. :func:`fts5_tokens` returns exactly those tokens, by running the text
through that tokenizer in an in-memory FTS5 table, so another store can index the token string
with a whitespace analyzer and match and count words (document lengths included) as FTS5
does.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

TOKENIZE = "porter unicode61"  # the embedded store's episodes_fts tokenizer
_local = threading.local()


def _conn() -> sqlite3.Connection:
    c: sqlite3.Connection | None = getattr(_local, "conn", None)
    if c is None:
        c = sqlite3.connect(":memory:")
        c.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZE}')")
        c.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        _local.conn = c
    return c


def fts5_tokens_many(texts: Sequence[str]) -> list[list[str]]:
    """The FTS5 tokens of each text, in order."""
    if not texts:
        return []
    c = _conn()
    out: list[list[str]] = [[] for _ in texts]
    try:
        c.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)",
                      [(i + 1, t) for i, t in enumerate(texts)])
        for doc, term in c.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
            out[doc - 1].append(term)
    finally:
        c.execute("DELETE FROM t")
    return out


def fts5_tokens(text: str) -> list[str]:
    """The FTS5 tokens of ``text``, in order (``"Running, Caroline's"`` ->
    ``["run", "carolin", "s"]``)."""
    return fts5_tokens_many([text])[0]


def token_text(text: str) -> str:
    """``text`` as the space-separated FTS5 tokens a whitespace analyzer indexes as they are."""
    return " ".join(fts5_tokens(text))
