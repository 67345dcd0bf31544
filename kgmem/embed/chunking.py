"""Split long texts into overlapping token windows so they are embedded in pieces,
never silently truncated.

``max_tokens`` is the model window *including* ``[CLS]``/``[SEP]`` (256 for MiniLM), so
each chunk holds at most ``max_tokens - 2`` WordPiece tokens of text and is embedded
without any truncation. Chunk boundaries fall between words (the pieces of one word stay
together), so a chunk re-tokenises to exactly the tokens it was cut from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgmem.errors import InvalidInputError

from .resources import MAX_SEQ_LENGTH
from .tokenizer import plain_tokenizer, sanitize

if TYPE_CHECKING:
    import numpy as np

    from .base import Embedder

SPECIAL_TOKENS = 2  # [CLS] and [SEP]


def chunk_text(
    text: str, max_tokens: int = MAX_SEQ_LENGTH, overlap: int = 32
) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of overlapping windows covering ``text``.

    * A text that fits in one window gives ``[(0, len(text))]`` (also for ``""``).
    * Otherwise each window has at most ``max_tokens - 2`` tokens; consecutive windows
      share at least ``overlap`` tokens, rounded out to whole words (fewer only when
      words are so long relative to the window that keeping the overlap would stall);
      the first span starts at 0, the last ends at ``len(text)``; starts and ends
      strictly increase.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"text is {type(text).__name__}, expected str")
    budget = max_tokens - SPECIAL_TOKENS
    if budget < 1 or overlap < 0 or overlap >= budget:
        raise InvalidInputError(
            "need 0 <= overlap < max_tokens - 2", max_tokens=max_tokens, overlap=overlap
        )
    enc = plain_tokenizer().encode(sanitize(text), add_special_tokens=False)
    n = len(enc.ids)
    if n <= budget:
        return [(0, len(text))]
    words = enc.word_ids
    offsets = enc.offsets
    is_start = [i == 0 or words[i] != words[i - 1] for i in range(n)]

    def window_end(s: int) -> int:  # exclusive token index of the window starting at s
        e = min(s + budget, n)
        if e < n and not is_start[e]:
            j = e
            while j > s and not is_start[j]:
                j -= 1
            if j > s:
                e = j  # end on a word boundary (else one huge word: cut inside it)
        return e

    def next_start(s: int, e: int) -> int:
        t = max(e - overlap, s + 1)
        j = t
        while j > s and not is_start[j]:  # latest word start giving >= overlap tokens
            j -= 1
        if j <= s:  # none: the first word start after t (less overlap), or t mid-word
            j = t
            while j < e and not is_start[j]:
                j += 1
        while j < e and window_end(j) <= e:  # never a window that ends no further
            j += 1
            while j < e and not is_start[j]:
                j += 1
        return j

    spans: list[tuple[int, int]] = []
    s = 0
    while True:
        e = window_end(s)
        spans.append((offsets[s][0], offsets[e - 1][1]))
        if e >= n:
            break
        s = next_start(s, e)
    spans[0] = (0, spans[0][1])
    spans[-1] = (spans[-1][0], len(text))
    return spans


def embed_chunks(
    text: str,
    embedder: Embedder | None = None,
    *,
    max_tokens: int = MAX_SEQ_LENGTH,
    overlap: int = 32,
) -> list[tuple[int, int, np.ndarray]]:
    """``[(start_char, end_char, vector), ...]`` for the windows of :func:`chunk_text`.

    ``embedder`` defaults to :func:`kgmem.embed.get_default_embedder`. For an embedder
    with a longer window (e.g. an OpenAI model) pass its ``max_tokens``; windows are
    measured with the MiniLM tokenizer, an approximation for other models.
    """
    if embedder is None:
        from . import get_default_embedder

        use: Embedder = get_default_embedder()
    else:
        use = embedder
    spans = chunk_text(text, max_tokens=max_tokens, overlap=overlap)
    vectors = use.embed([text[a:b] for a, b in spans])
    return [(a, b, vectors[i]) for i, (a, b) in enumerate(spans)]


def embed_long(
    text: str,
    embedder: Embedder | None = None,
    *,
    max_tokens: int = MAX_SEQ_LENGTH,
    overlap: int = 32,
) -> np.ndarray:
    """One unit vector for a text of any length: the normalised mean of its chunk
    vectors (equals ``embed_one(text)`` when the text fits in one window)."""
    from .base import l2_normalize

    chunks = embed_chunks(text, embedder, max_tokens=max_tokens, overlap=overlap)
    if len(chunks) == 1:
        return chunks[0][2]
    import numpy as np

    return l2_normalize(np.mean([v for _, _, v in chunks], axis=0)[None, :])[0]
