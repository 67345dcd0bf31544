"""Offline fact extraction from chat text: spaCy parse + hand-written rules, no LLM.

``OfflineExtractor().extract(text, reference_time, speaker=..., user=...)`` returns a list of
:class:`~kgmem.ingest.facts.ExtractedFact` (subject, predicate from ``kgmem.vocabulary``,
object, valid time, kind).

How it works, per sentence of the spaCy parse:

* **speaker resolution** (``mentions``): I/me/my/we/us/our are the speaker: ``speaker`` if given
  (and not a generic role label such as "user"), else ``user``, else ``"user"``. he/she resolve
  to the last named person earlier in the same text. "you", "they", "it" are not resolved.
* **clauses** (``rules/``): for every verb (and copula) a rule keyed on its lemma looks at the
  dependency tree (subject, object, particles, prepositions) and maps it to a vocabulary
  predicate (``live in`` -> LIVES_IN, ``take over`` -> LEADS, ``stop using`` -> USES/end, ...).
  Nouns with a possessive give relation facts ("my sister Sarah" -> SIBLING_OF, "my dog Max" ->
  HAS_PET, "my boss Tom" -> REPORTS_TO, "my job at IBM" -> WORKS_AT).
* **polarity** (``flags``, ``context``): a negated clause with "anymore"/"no longer" ends the
  fact (kind ``"end"``); a negated clause with "never", a past-tense negation, or a correction
  cue ("actually", "sorry", "I meant", "correction", "X, not Y") retracts it (kind
  ``"retract"``); "don't like" flips LIKES to DISLIKES. Questions, conditionals ("if ..."),
  modals ("might", "would") and wishes/plans (other than PLANS itself) produce no facts.
* **time** (``context``, ``kgmem.ingest.temporal``): the temporal expression attached to the
  clause dates the fact: ``valid_at`` for ``assert``/``retract`` (``since T`` and
  present-perfect ``for N years`` give the start), ``invalid_at`` for ``end``. Future-tense
  clauses resolve ambiguous expressions towards the future. PLANS facts carry no valid time (the
  planned date goes to ``attributes["planned_for"]``).

Layout: ``extractor`` (the public class, batching, dedupe) -> ``rules/`` (one module per domain,
dispatch in ``rules/__init__``) -> ``context`` (emit), ``flags``, ``mentions``, ``phrases``,
``objects`` -> ``entities``, ``tree``; word lists in ``kgmem.ingest.lexicon``.
"""

from __future__ import annotations

from .entities import set_gazetteer
from .extractor import OfflineExtractor

__all__ = ["OfflineExtractor", "set_gazetteer"]
