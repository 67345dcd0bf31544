"""The discourse layer under the extraction rules: what a clause means in its text, not alone.

* :mod:`.modality`: what a clause does (asserts, negates, wishes, asks...);
  :mod:`.coordination`: which items a coordination lists; :mod:`.speakers`: who a chat role
  is (the notes half of issue 31);
* :mod:`.time`: the time a clause takes when it has no time expression of its own (from the
  clause it is coordinated with, or the running time of a narrative paragraph; "later that
  year" against that running time);
* :mod:`.coref`: who a pronoun, a bare surname or "the company" refers to, by salience with
  gender and entity-type agreement, or nobody when that is not clear;
* :mod:`.voice`: who tells a signed letter nobody is said to speak.

They work on one spaCy parse and know nothing of the rules; the rules' context
(``kgmem.ingest.offline.context``) asks them. Component sets and scores of time and
coreference: ``python -m benchmarks.extraction.discourse``.
"""

from __future__ import annotations

from .coref import Coreference, Referent
from .time import ClauseTimes, TimeSpan

__all__ = ["ClauseTimes", "Coreference", "Referent", "TimeSpan"]
