"""Regression floors for the offline extractor on the held-out TEST split.

Floors sit ~3 points under the measured numbers (benchmarks/extraction/README.md); raise them
when the extractor improves, never lower them to make a change pass without saying why.
Measured (gazetteer on): P 0.993, R 0.955, F1 0.974, date accuracy 1.000, 21/21 no-fact
utterances clean.
"""

from __future__ import annotations

import pytest

from benchmarks.extraction.evaluate import evaluate


@pytest.fixture(scope="module")
def report() -> dict:
    return evaluate("test")


def test_triple_quality_floors(report) -> None:
    o = report["overall"]
    assert o["precision"] >= 0.96, o
    assert o["recall"] >= 0.92, o
    assert o["f1"] >= 0.94, o


def test_date_accuracy_floor(report) -> None:
    d = report["dates"]
    assert d["checked"] >= 50
    assert d["accuracy"] >= 0.95, d


def test_no_fact_utterances_stay_clean(report) -> None:
    # questions, hypotheticals, negations, compliments, reactions: not one fact from any
    n = report["no_fact_utterances"]
    # except a date that moves, a kind this split was labelled before (issue 31): "The meeting
    # was moved to next Friday." gives the meeting's new date and nothing else
    moved = [["The meeting was moved to next Friday.", "SCHEDULED_ON"]]
    assert n["total"] >= 20 and n["with_no_output"] >= n["total"] - len(moved), n
    assert all(out in moved for out in n["outputs"]), n["outputs"]


def test_every_category_is_covered(report) -> None:
    for cat, v in report["per_category"].items():
        if cat == "none":
            continue
        assert v["recall"] >= 0.6, (cat, v)


def test_no_fact_utterances_of_the_dev_split_stay_clean() -> None:
    # the dev split's 30 no-fact rows too ("My phone battery died." is no OWNS phone)
    n = evaluate("dev")["no_fact_utterances"]
    assert n["total"] >= 30 and n["with_no_output"] == n["total"], n
