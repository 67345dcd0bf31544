"""The Neo4j write transaction's index of lineages put in it (kgmem.store.neo4j.write).

A lineage read inside a write keeps a fresh lineage (no version yet) only if its id is in the
read's ``$fresh`` list; the list is now the fresh lineages the read could match, not all of the
transaction's (which made a batch's writes quadratic). Checked against the obvious model: the
last put of each lineage, filtered by the read's pattern.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kgmem.store.base import LineageState
from kgmem.store.neo4j.write import _FreshLineages
from kgmem.timeutil import Precision

_IDS = st.sampled_from(["f1", "f2", "f3", "f4"])
_GROUPS = st.sampled_from(["g", "h"])
_PREDS = st.sampled_from(["LIVES_IN", "KNOWS"])
_ENTS = st.sampled_from(["a", "b", "c"])
_PUT = st.tuples(_IDS, _GROUPS, _PREDS, _ENTS, _ENTS)
_READ = st.tuples(_GROUPS, _PREDS, _ENTS, st.booleans())


def _state(fact_id: str, group: str, pred: str, subject: str, obj: str) -> LineageState:
    return LineageState(fact_id, group, subject, pred, obj, None, Precision.INSTANT, None,
                        Precision.INSTANT, True, 0, f"{subject} {pred} {obj}")


@given(st.lists(_PUT, max_size=12), st.lists(_READ, min_size=1, max_size=6))
def test_fresh_ids_are_the_last_puts_that_match_the_read(puts: list, reads: list) -> None:
    fresh = _FreshLineages()
    last: dict[str, tuple[str, str, str, str]] = {}
    for fid, g, p, s, o in puts:
        fresh.add(_state(fid, g, p, s, o))
        last[fid] = (g, p, s, o)
    for g, p, e, as_object in reads:
        want = sorted(fid for fid, (lg, lp, ls, lo) in last.items()
                      if lg == g and lp == p and (ls == e or (as_object and lo == e)))
        assert fresh.ids(g, p, e, as_object=as_object) == want


def test_a_lineage_put_again_under_another_subject_moves() -> None:
    fresh = _FreshLineages()
    fresh.add(_state("f1", "g", "LIVES_IN", "ann", "paris"))
    fresh.add(_state("f1", "g", "LIVES_IN", "bea", "paris"))  # re-pointed (a merge)
    assert fresh.ids("g", "LIVES_IN", "ann") == []
    assert fresh.ids("g", "LIVES_IN", "bea") == ["f1"]
    assert fresh.ids("g", "LIVES_IN", "paris", as_object=True) == ["f1"]
    assert fresh.ids("g", "LIVES_IN", "paris") == []  # paris is no subject
