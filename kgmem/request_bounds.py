"""The text one request may bring in (REST and MCP alike): at most ``max_episode_chars``
characters of episode text whatever ``extract`` says (it is stored, then embedded), and at
most ``max_extract_chars`` of them sent to synchronous extraction. Checked before anything is
written; the library and ``kgmem ingest`` have no such limit (they are not requests)."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import ContentTooLargeError, ExtractionTooLargeError


def bound_request_text(episodes: Iterable[tuple[str, bool]], max_chars: int,
                       max_extract_chars: int) -> None:
    """Refuse ``(content, extract)`` episodes of one request beyond either limit (413)."""
    items = list(episodes)
    total = sum(len(c) for c, _ in items)
    if total > max_chars:
        raise ContentTooLargeError(
            f"this request has {total:,} characters of episode text and one request may send "
            f"at most {max_chars:,} (KGMEM_MAX_EPISODE_CHARS), extracted or not: split it "
            "into several requests, or ingest the file with `kgmem ingest`",
            limit=max_chars, got=total)
    got = sum(len(c) for c, extract in items if extract)
    if got > max_extract_chars:
        raise ExtractionTooLargeError(
            f"this request has {got:,} characters to extract and one request may extract at "
            f"most {max_extract_chars:,} (KGMEM_MAX_EXTRACT_CHARS): split it into several "
            'requests, or send it with "extract": false (stored and searchable at once) and '
            "extract it outside the request with `kgmem extract --skipped`",
            limit=max_extract_chars, got=got)
