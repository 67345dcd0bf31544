"""kgmem.timeline.symmetric_timeline against a probe-based reference: a symmetric functional
relation between A and B holds at instant t exactly when it is the one relation holding for A
at t and the one holding for B at t (each party's timeline read with
:func:`kgmem.timeline.holder_at`, which is defined point by point, not by intervals)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.timeline import Stated, holder_at, in_interval, symmetric_timeline

T0 = datetime(2020, 1, 1, tzinfo=timezone.utc)
PEOPLE = ["ana", "ben", "cy", "dee"]
PROBES = [T0 + timedelta(days=d) for d in range(-1, 12)] + [
    T0 + timedelta(days=d, hours=12) for d in range(-1, 12)]

relation = st.tuples(
    st.sampled_from(PEOPLE), st.sampled_from(PEOPLE),
    st.one_of(st.none(), st.integers(0, 9)),  # start day (None: unknown start)
    st.one_of(st.none(), st.integers(1, 4)),  # stated length in days (None: open)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(relation, min_size=1, max_size=7))
def test_symmetric_timeline_matches_the_pointwise_reference(rels) -> None:  # type: ignore[no-untyped-def]
    believed = []
    for seq, (a, b, start, length) in enumerate(rels):
        if a == b:
            continue
        s = None if start is None else T0 + timedelta(days=start)
        end = None if length is None or s is None else s + timedelta(days=length)
        believed.append((a, b, Stated(f"f{seq}", b, s, end, seq)))
    eff = symmetric_timeline(believed)
    assert set(eff) == {st_.fact_id for _, _, st_ in believed}

    def party(p: str) -> list[Stated]:
        out = []
        for a, b, x in believed:
            if p in (a, b):
                out.append(Stated(x.fact_id, b if p == a else a, x.start, x.stated_end, x.seq))
        return out

    for a, b, x in believed:
        e = eff[x.fact_id]
        for t in PROBES:
            ha, hb = holder_at(party(a), t), holder_at(party(b), t)
            expected = (ha is not None and ha.fact_id == x.fact_id
                        and hb is not None and hb.fact_id == x.fact_id)
            got = not e.empty and in_interval(t, e.start, e.end)
            assert got == expected, (x, t, e)
