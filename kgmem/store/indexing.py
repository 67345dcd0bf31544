"""What of an episode the stores index for search, the same on every store: its embedding
windows (``"<speaker>: <content>"`` split with :func:`kgmem.embed.chunk_text` into overlapping
windows of the model's length, each embedded whole, never truncated; an episode's vector score
is its best window's), and the periods it mentions, found by the caller's
:data:`TimeMentions` (:func:`kgmem.retrieve.indexing.episode_time_mentions` reads the dates)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..embed.base import Embedder

# (episode id, group, content, reference time in micros) ->
#   rows (episode id, group, start micros, end micros, precision) of the periods it mentions
TimeMentions = Callable[[str, str, str, int], list[tuple[str, str, int, int, str]]]


def model_window(embedder: Embedder) -> int:
    """The longest text, in tokens, that ``embedder`` embeds whole (MiniLM: 256)."""
    from ..embed.resources import MAX_SEQ_LENGTH

    return int(getattr(embedder, "max_tokens", None) or MAX_SEQ_LENGTH)


def episode_chunks(
    content: str, speaker: str | None, max_tokens: int
) -> list[tuple[str, int, int]]:
    """``(text_to_embed, start, end)`` windows; start/end are offsets into ``content``."""
    from ..embed.chunking import chunk_text

    prefix = f"{speaker}: " if speaker else ""
    text = prefix + content
    spans = chunk_text(text, max_tokens=max_tokens)
    out = []
    for a, b in spans:
        out.append((text[a:b], max(0, a - len(prefix)), max(0, b - len(prefix))))
    return out
