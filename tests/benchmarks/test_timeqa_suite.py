"""TimeQA through kgmem: question parsing (no data needed) and a small real run."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from benchmarks import timeqa_suite as T

UTC = timezone.utc


def d(y, m=1, day=1):
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    "question, kind, start, end",
    [
        (
            "Which institution did Sabine Hossenfelder work from 2004 to 2005?",
            "range",
            d(2004),
            d(2006),
        ),
        (
            "Who coached the crew inter milan from jul 1983 to jun 1984?",
            "range",
            d(1983, 7),
            d(1984, 7),
        ),
        (
            "From Dec 1999 to Nov 2008, Mrs. Clark was elected to which office?",
            "range",
            d(1999, 12),
            d(2008, 12),
        ),
        ("Who owned Tibbers Castle from 1369 to1420?", "range", d(1369), d(1421)),
        ("What did X do between 1998 and 2001?", "range", d(1998), d(2002)),
        ("Emiliano Aguirre worked where from 1977 to 179?", "range", d(1977), d(1978)),
        (
            "Alex McLeish had the job of coach for what team in Dec 2012?",
            "in",
            d(2012, 12),
            d(2013),
        ),
        ("Who was X married to before 1990?", "before", None, d(1990)),
        ("Which team did he play for after May 2001?", "after", d(2001, 6), None),
        ("Who was king ferdinand ii of aragon's second spouse?", "none", None, None),
    ],
)
def test_parse_constraint(question, kind, start, end):
    c = T.parse_constraint(question)
    assert (c.kind, c.start, c.end) == (kind, start, end)


def test_map_predicates():
    assert (
        T.map_predicates("Which team did Lee Nogan play for from 1997 to 1999?")[0]
        == "MEMBER_OF_TEAM"
    )
    assert T.map_predicates("Which school did Wilson attend in 1958?")[0] == "ATTENDED"
    assert T.map_predicates("What position did Clark hold in 2000?")[0] == "HAS_ROLE"
    assert T.map_predicates("Who was the employer of Holmström from 1983 to 1994?")[0] == "WORKS_AT"
    assert T.map_predicates("Who was Schröder married to from 1997 to 2018?")[0] == "MARRIED_TO"
    assert T.map_predicates("Who coached Inter Milan from 1983 to 1984?")[0] == "LEADS"
    assert T.map_predicates("What was the official name of VP-29 in 1940?") == []


def test_subject_ids_and_choice():
    ents = [
        SimpleNamespace(id="1", name="Hossenfelder", aliases=[]),
        SimpleNamespace(id="2", name="Sabine Hossenfelder", aliases=[]),
        SimpleNamespace(id="3", name="University of Arizona", aliases=[]),
    ]
    assert T.subject_ids(ents, "Sabine Hossenfelder") == {"1", "2"}
    full = [SimpleNamespace(id="4", name="Lee Martin Nogan", aliases=[]),
            SimpleNamespace(id="5", name="Kurt Nogan", aliases=[])]
    assert T.subject_ids(full, "Lee Nogan") == {"4"}  # middle names, not the brother
    doc = SimpleNamespace(index="/wiki/Auditorium_Building_(Chicago)#P1435")
    assert T.title_of(doc) == "Auditorium Building"

    def cand(ans, pred, a, b):
        return T.Candidate(ans, pred, a, b, "year", "out", f"x {pred} {ans}")

    cands = [
        cand("Arizona", "WORKS_AT", d(2004), d(2005)),
        cand("Santa Barbara", "WORKS_AT", d(2005), d(2006)),
        cand("author", "HAS_ROLE", d(2000), None),
    ]
    rng = T.parse_constraint("where did she work in 2005?")
    best, how = T.choose(cands, T.map_predicates("where did she work in 2005?"), rng)
    assert (best.answer, how) == ("Santa Barbara", "mapped")
    before = T.Constraint("before", None, d(2006))
    assert T.choose(cands[:2], ["WORKS_AT"], before)[0].answer == "Santa Barbara"
    after = T.Constraint("after", d(2003), None)
    assert T.choose(cands[:2], ["WORKS_AT"], after)[0].answer == "Arizona"


@pytest.mark.slow
def test_run_on_five_documents(data_dir, tmp_path):
    if not (data_dir / "timeqa" / "human_annotated_test.json").is_file():
        pytest.skip("TimeQA not available")
    pytest.importorskip("spacy")
    from benchmarks.datasets.timeqa import load_timeqa

    # the five shortest passages that have questions (keeps the test fast)
    docs = sorted(
        (d for d in load_timeqa().documents if d.questions),
        key=lambda d: (sum(map(len, d.paras)), d.index),
    )[:5]
    res = T.run(documents=[d.index for d in docs], workdir=tmp_path / "work")
    recs = res["records"]
    assert res["documents"] == 5 and res["paragraphs"] > 0 and res["facts"] > 0
    n_q = sum(len(doc.questions) for doc in docs)
    assert len(recs) == n_q == len({r["question_id"] for r in recs})
    assert all(0.0 <= r["f1"] <= 1.0 for r in recs)
    assert all(r["em"] <= r["f1"] + 1e-9 for r in recs)
    assert all(r["diagnosis"] for r in recs)
    summary = T.summarize(res)
    assert summary["all"]["n"] == len(recs)
    assert summary["answerable"]["n"] + summary["unanswerable"]["n"] == len(recs)
    paths = T.write_outputs(res, summary, tmp_path / "out")
    assert json.loads(paths["summary"].read_text())["documents"] == 5
    assert len(paths["questions"].read_text().splitlines()) == len(recs)
    assert "Per relation type" in paths["report"].read_text()
