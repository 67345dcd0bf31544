"""One search request, one value: :class:`SearchParams`, and the facade taking the same
options as :func:`kgmem.retrieve.search`."""

from __future__ import annotations

import dataclasses
import inspect

from kgmem.memory.facade import Memory
from kgmem.retrieve import SearchOptions, SearchParams, index_pending, search

from .conftest import at


def test_search_options_are_the_keyword_fields_of_search_params() -> None:
    positional = [p for p in inspect.signature(search).parameters
                  if p not in ("memory", "options")]
    fields = [f.name for f in dataclasses.fields(SearchParams)]
    assert fields[:len(positional)] == positional
    assert set(fields[len(positional):]) == set(SearchOptions.__annotations__)


def test_memory_search_takes_every_option_of_retrieve_search_and_answers_alike(
        mem: Memory) -> None:
    for when, text in [("2023-05-08T10:00:00", "Luna and Oliver are my two cats."),
                       ("2023-05-08T10:01:00", "Oliver likes the garden."),
                       ("2023-05-09T10:00:00", "I flew to Lisbon on Monday.")]:
        mem.add_episode(text, at(when), speaker="Ana")
    index_pending(mem)
    options: SearchOptions = {"diversity": 0.7, "neighbours": 0.0, "rrf_k": 10,
                              "weights": {"vector_episodes": 0.5}}
    got = mem.search("cats", limit=3, **options)
    want = search(mem, "cats", limit=3, kinds=("facts", "entities", "episodes"), **options)
    assert [(r.kind, r.id, r.score) for r in got] == [(r.kind, r.id, r.score) for r in want]
    assert got and got[0].text == "Luna and Oliver are my two cats."
