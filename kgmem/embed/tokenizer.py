"""The MiniLM WordPiece tokenizer (``tokenizer.json`` shipped with the weights).

Trap (measured): the shipped ``tokenizer.json`` enables *fixed* padding to 128 and
truncation at 128. Used as-is, every sentence is padded to 128 tokens and, unless the
attention mask is honoured everywhere, embeddings come out wrong (cosine 0.26 to the
reference); long texts are cut at 128 instead of the model's 256. So we never use the
file's padding/truncation settings:

* :func:`model_tokenizer` truncates at ``max_length`` (256 = ``max_seq_length`` of the
  sentence-transformers model, counting ``[CLS]``/``[SEP]``) and does **not** pad;
  :func:`pad_batch` pads a batch to its longest sequence with id 0 and builds the
  attention mask.
* :func:`plain_tokenizer` neither truncates nor pads: it is for counting tokens and
  for chunking long texts.

Both are configured once and never mutated afterwards (safe to share across threads).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .resources import MAX_SEQ_LENGTH, model_dir

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

CLS_ID = 101
SEP_ID = 102
PAD_ID = 0
_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize(text: str) -> str:
    """Replace lone surrogates (invalid UTF-8, e.g. from sloppy JSON) with U+FFFD.

    The tokenizer rejects them; the replacement keeps the length, so character
    offsets still refer to the original text."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def _load() -> Tokenizer:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


@lru_cache(maxsize=1)
def plain_tokenizer() -> Tokenizer:
    """No padding, no truncation."""
    return _load()


@lru_cache(maxsize=4)
def model_tokenizer(max_length: int = MAX_SEQ_LENGTH) -> Tokenizer:
    """Truncation at ``max_length`` tokens including ``[CLS]``/``[SEP]``; no padding."""
    tok = _load()
    tok.enable_truncation(max_length=max_length)
    return tok


def encode_for_model(texts: list[str], max_length: int = MAX_SEQ_LENGTH) -> list[list[int]]:
    """Token ids (with ``[CLS]``/``[SEP]``, truncated to ``max_length``) for each text."""
    if not texts:
        return []
    batch = [sanitize(t) for t in texts]
    return [enc.ids for enc in model_tokenizer(max_length).encode_batch(batch)]


def pad_batch(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad to the longest sequence: ``(input_ids, attention_mask)``, both int64."""
    import numpy as np

    longest = max((len(s) for s in seqs), default=0)
    ids = np.full((len(seqs), longest), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(seqs), longest), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return ids, mask
