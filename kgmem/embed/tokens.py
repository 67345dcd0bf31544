"""Token counting for context budgets, with the real MiniLM WordPiece tokenizer (offline).

Counts exclude the special tokens ``[CLS]``/``[SEP]``. WordPiece counts are a proxy for
other models' tokenizers (an LLM's BPE usually needs somewhat fewer tokens for English
prose), so leave headroom when budgeting for a different model.
"""

from __future__ import annotations

from kgmem.errors import InvalidInputError

from .tokenizer import plain_tokenizer, sanitize


def _encode(text: str):
    if not isinstance(text, str):
        raise InvalidInputError(f"text is {type(text).__name__}, expected str")
    return plain_tokenizer().encode(sanitize(text), add_special_tokens=False)


def count_tokens(text: str) -> int:
    """Number of WordPiece tokens in ``text`` (no special tokens; never truncated)."""
    return len(_encode(text).ids)


def truncate_to_tokens(text: str, n: int) -> str:
    """Longest prefix of ``text`` that ends on a whole word and has at most ``n`` tokens.

    Returns ``text`` unchanged when it already fits. The cut is made at the end of the
    last whole word (a word's pieces, e.g. ``play ##ing``, are kept together) unless a
    single word is longer than ``n`` tokens, then it is cut inside that word. Always
    ``count_tokens(result) <= n`` and ``text.startswith(result)``.
    """
    if not isinstance(n, int) or n < 0:
        raise InvalidInputError("n must be a non-negative int", n=n)
    enc = _encode(text)
    ids = enc.ids
    if len(ids) <= n:
        return text
    if n == 0:
        return ""
    words = enc.word_ids
    offsets = enc.offsets
    cut = n  # index of the first token left out
    if words[cut] == words[cut - 1]:  # would split a word: back off to its first piece
        j = cut
        while j > 0 and words[j - 1] == words[cut]:
            j -= 1
        if j > 0:
            cut = j
    result = text[: offsets[cut - 1][1]]
    while cut > 1 and count_tokens(result) > n:  # only possible when a word was split
        cut -= 1
        result = text[: offsets[cut - 1][1]]
    return result if count_tokens(result) <= n else ""
