"""Keyword side of search: the query's terms (each store matches them as an OR of quoted
words, ranked by BM25: :func:`kgmem.store.sqlite.search.fts_match`, Neo4j's Lucene form).
Stop words and conversational filler ("what did we discuss") are dropped: they match
everything and only add noise and cost.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t don ll m re ve d o y ain aren couldn didn doesn hadn hasn haven isn ma
    mightn mustn needn shan shouldn wasn weren won wouldn also ever us let lets get got may
    might must shall one""".split()
)
# words that ask *about* the conversation rather than carry content
FILLER = frozenset(
    """discuss discussed discussing discussion chat chatted chatting talk talked talking tell
    told say said saying mention mentioned summarize summarise summary sort sorts kind kinds
    thing things stuff happen happened topic topics conversation conversations remember
    recall know""".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32


def terms(text: str, drop_filler: bool = True) -> list[str]:
    """Lower-cased content words of ``text`` in order, without duplicates."""
    out: list[str] = []
    seen: set[str] = set()
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS or (drop_filler and w in FILLER) or w in seen:
            continue
        if len(w) == 1 and not w.isdigit():
            continue
        seen.add(w)
        out.append(w)
        if len(out) >= MAX_TERMS:
            break
    return out


def overlap(query_terms: list[str], text: str) -> float:
    """Fraction of ``query_terms`` present in ``text`` (cheap re-ranking of graph facts)."""
    if not query_terms:
        return 0.0
    have = set(_WORD.findall(text.lower()))
    return sum(1 for t in query_terms if t in have) / len(query_terms)
