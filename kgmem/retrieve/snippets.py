"""Which part of an episode a context block shows: the sentences that answer the question.

A chat turn of a few sentences is shown whole. A longer episode (a long turn, a biography,
meeting notes, an email) shows the sentences that match the question and the sentence after
each (room permitting), in their own order, with ``…`` where text was left out, so the block
holds more episodes within its budget and a long document contributes its relevant passage
instead of its opening lines or nothing.

A sentence matches by the question's content words (:func:`kgmem.retrieve.keyword.terms`),
each weighted by how rare it is among the episodes the block considers (a name every turn
repeats says little about which sentence is meant); a word matches its inflections
("painted" / "painting"). A sentence inside the chunk the vector search matched best gets a
small bonus. With no matching sentence the episode keeps its best chunk (cut to the room).

Nothing here counts tokens of the final line: :func:`snippet` returns character spans and the
caller renders and measures them (:func:`kgmem.retrieve.context._snippet_line`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .keyword import terms

# an episode this short (in tokens) is shown whole when it fits: most chat turns (LoCoMo's
# p90 is 50). Chosen on LoCoMo dev conversations 0-1: at 40, 0.8 more points of
# evidence-in-context at 500 tokens but 1.6 fewer of answer text at 1,000
KEEP_WHOLE_TOKENS = 60
SPAN_BONUS = 0.25  # a sentence in the best vector chunk: this share of a match more
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+[\"'”’)\]]*(?=\s|$)|\n|$)", re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
Span = tuple[int, int]


def sentences(text: str) -> list[Span]:
    """Character spans of ``text``'s sentences (ends at ``.!?`` before a space, or a line
    break), stripped of surrounding spaces; together they cover every non-space character."""
    out: list[Span] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _SENTENCE.match(text, pos)
        end = m.end() if m and m.end() > pos else n
        if end == pos:  # a lone terminator that starts no sentence
            end = pos + 1
        a, b = pos, end
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
        pos = end
    return out or [(0, n)]


def same_word(x: str, y: str) -> bool:
    """Equal, or inflections of one stem: a shared prefix of at least 4 letters (or the
    whole shorter word of 3) that leaves at most 3 letters of either ("paint"/"painted",
    "adopt"/"adopting"; not "art"/"article")."""
    if x == y:
        return True
    short, long_ = sorted((x, y), key=len)
    if len(short) < 3 or not long_.startswith(short[: max(3, len(short) - 2)]):
        return False
    n = 0
    while n < len(short) and short[n] == long_[n]:
        n += 1
    return n >= min(4, len(short)) and len(long_) - n <= 3 and len(short) - n <= 2


@dataclass(frozen=True)
class QueryWords:
    """The question's content words and their weights (rarer among the candidates: more)."""

    weights: dict[str, float]

    @classmethod
    def of(cls, query: str, texts: Sequence[str], common: Collection[str] = ()) -> QueryWords:
        """``texts``: the candidate episodes; ``common``: words that match no sentence by
        themselves (names the whole conversation is about: "Thanks, Caroline!")."""
        qs = [q for q in terms(query, drop_filler=False) if q not in common]
        if not qs:
            return cls({})
        words = [set(_WORD.findall(t.lower())) for t in texts]
        n = len(words)
        weights = {}
        for q in qs:
            df = sum(1 for ws in words if any(same_word(q, w) for w in ws))
            weights[q] = math.log(1.0 + (n + 1) / (df + 1))
        return cls(weights)

    def score(self, text: str) -> float:
        have = set(_WORD.findall(text.lower()))
        return sum(w for q, w in self.weights.items() if any(same_word(q, h) for h in have))


def snippet(text: str, words: QueryWords, tokens: int, room: int,
            chunk: Span | None = None, *, count: object = None) -> list[Span]:
    """The spans of ``text`` to show (in order; gaps between them are elided).

    ``tokens``: the text's token count; ``room``: the tokens the line may spend on text;
    ``chunk``: the best-matching vector chunk, if any. ``count``: a token counter for pieces
    (``str -> int``), used to keep the chosen sentences within ``room``."""
    whole = [(0, len(text))]
    if tokens <= min(KEEP_WHOLE_TOKENS, room):
        return whole
    spans = sentences(text)
    scores = [words.score(text[a:b]) for a, b in spans]
    if chunk is not None:
        scores = [s + SPAN_BONUS * _weight_unit(words) if s and _inside((a, b), chunk) else s
                  for s, (a, b) in zip(scores, spans)]
    if not any(scores):
        if chunk is not None and (chunk[0] > 0 or chunk[1] < len(text)):
            return [chunk]
        return whole
    order = [i for i in sorted(range(len(spans)), key=lambda i: (-scores[i], i)) if scores[i] > 0]
    counter = count if callable(count) else None

    def cost(i: int) -> int:
        a, b = spans[i]
        return counter(text[a:b]) + 1 if counter is not None else (b - a) // 4 + 1

    chosen: list[int] = []
    used = 0
    for i in order:
        c = cost(i)
        if chosen and used + c > room:
            continue
        chosen.append(i)
        used += c
    # the sentence after a match, room permitting: in a dialogue the match is often the
    # question or its topic, the answer the next sentence ("How are your pets? Oscar, my
    # guinea pig.")
    for i in list(chosen):
        j = i + 1
        if j < len(spans) and j not in chosen and used + cost(j) <= room:
            chosen.append(j)
            used += cost(j)
    if len(chosen) == len(spans):
        return whole
    return [spans[i] for i in sorted(chosen)]


def _weight_unit(words: QueryWords) -> float:
    return max(words.weights.values(), default=1.0)


def _inside(span: Span, chunk: Span) -> bool:
    return span[0] < chunk[1] and span[1] > chunk[0]


def render(text: str, spans: Sequence[Span], ellipsis: str = "…") -> str:
    """The shown text: the spans joined, ``ellipsis`` where text was left out (at the start,
    between two spans that are not next to each other, at the end)."""
    if not spans:
        return ""
    out = []
    if text[: spans[0][0]].strip():
        out.append(ellipsis + " ")
    prev_end: int | None = None
    for a, b in spans:
        if prev_end is not None:
            gap = text[prev_end:a]
            out.append(gap if not gap.strip() else " " + ellipsis + " ")
        out.append(text[a:b])
        prev_end = b
    if prev_end is not None and text[prev_end:].strip():
        out.append(" " + ellipsis)
    return "".join(out)
