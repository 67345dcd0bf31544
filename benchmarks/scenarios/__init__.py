"""Synthetic temporal histories with exact answers (the ``scenarios`` suite).

A seeded generator (:mod:`.generator`) invents small worlds of people whose jobs, homes,
roles, team leadership and marriages change over time, tells their history late, out of order
and with mistakes that are later retracted or corrected, and renders it two ways: as chat
episodes in natural language (for the extractor) and as structured operations with explicit
valid times (``assert_fact``/``invalidate``/``retract``/``correct``). Questions carry gold
answers computed from the generator's own model of what had been told (:mod:`.truth`), never
from kgmem. :mod:`.run` replays each scenario into a fresh :class:`kgmem.memory.facade.Memory` with an
injected clock (transaction time = when it was said) and scores exact match per question kind.
"""

from .generator import generate_scenario, generate_scenarios
from .model import Episode, Question, Scenario, Segment, Statement

__all__ = [
    "Episode",
    "Question",
    "Scenario",
    "Segment",
    "Statement",
    "generate_scenario",
    "generate_scenarios",
]
