"""``kgmem check``: verify a store's invariants, one function per invariant.

Each ``check_*`` function takes the store's :class:`IntegrityReads` (``store.integrity_reads()``:
:mod:`kgmem.store.sqlite.check`, :mod:`kgmem.store.neo4j.check`) and a group (``None`` =
every group) and returns a :class:`Finding`: how many violations, and the first few, each
described so that a person can find the rows. :func:`check_store` runs them all.

The invariants:

* ``one_current_version``: a fact lineage has at most one current version (``expired_at`` null).
* ``functional_intervals_disjoint``: the current versions of one functional (subject,
  predicate) have non-overlapping valid intervals (for a symmetric functional predicate, one
  party's relations on either side).
* ``versions_have_lineages`` / ``lineages_have_versions``: every kgmem version belongs to a
  lineage, and every lineage has at least one version (a lineage always gets one when it is
  asserted; none left means its versions were deleted outside kgmem).
* ``entity_refs_exist``: lineages and versions name subjects and objects that exist.
* ``provenance_episodes_exist``: provenance names episodes that exist.
* ``mentions_exist``: mentions join an existing episode and an existing entity.
* ``keyword_index_consistent`` / ``vector_index_consistent``: the full-text and vector
  indexes hold exactly the rows' entries (embedded: FTS5 rows per episode, FTS5 integrity
  checks, no vector or time row of a vanished item; Neo4j: every kgmem episode tokenised,
  indexes online, no chunk or time node without its episode, 384-dim vectors).
* ``summaries_rebuildable``: every entity's stored summary history (derived data,
  :mod:`kgmem.memory.summaries`) equals the one rebuilt from its facts up to the instant it was built
  to.
* ``extraction_states_consistent``: every extraction state is well formed (a known status, the
  indexed status equal to the stored state's, ``done``/``failed`` with at least one attempt,
  ``failed`` with its error).

Failed or pending extractions are not violations (they are recorded, and retried by
``kgmem extract --failed``); :func:`check_store` reports their count as a note.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from .. import timeline
from ..model import ExtractionState
from ..store.base import FactInterval, Store
from ..timeutil import opt_from_micros
from ..vocabulary import Vocabulary

MAX_SAMPLES = 20


class IntegrityReads(Protocol):
    """What the checks read from a store; ``group=None`` reads every group."""

    def lineages_with_several_current_versions(
        self, group: str | None) -> list[tuple[str, str, int]]: ...  # group, fact_id, count
    def current_intervals(self, group: str | None, predicates: Sequence[str]
                          ) -> Iterable[FactInterval]: ...
    def versions_without_lineage(self, group: str | None) -> list[tuple[str, str, str]]: ...
    def lineages_without_versions(self, group: str | None) -> list[tuple[str, str]]: ...
    def missing_entity_refs(self, group: str | None) -> list[tuple[str, str, str, str]]: ...
    def provenance_to_missing_episodes(self, group: str | None
                                       ) -> list[tuple[str, str, str]]: ...
    def mentions_to_missing(self, group: str | None) -> list[tuple[str, str, str]]: ...
    def keyword_index_problems(self, group: str | None) -> list[str]: ...
    def vector_index_problems(self, group: str | None) -> list[str]: ...
    def extraction_rows(self, group: str | None
                        ) -> Iterable[tuple[str, str, str | None, str | None]]: ...


@dataclass
class Finding:
    name: str
    description: str
    count: int = 0
    samples: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.count == 0

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "count": self.count,
                "description": self.description, "samples": self.samples}


def _finding(name: str, description: str, problems: Sequence[str]) -> Finding:
    return Finding(name, description, len(problems), list(problems[:MAX_SAMPLES]))


# ------------------------------------------------------------------------- the invariants
def check_one_current_version(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.lineages_with_several_current_versions(group)
    return _finding("one_current_version", "a lineage has at most one current version",
                    [f"group {g}: fact {f} has {n} current versions" for g, f, n in rows])


def check_functional_intervals_disjoint(
        r: IntegrityReads, group: str | None, vocabulary: Vocabulary,
        per_group: dict[str, Vocabulary] | None = None) -> Finding:
    """``vocabulary``: the predicates of a group not in ``per_group`` (its declarations)."""
    per_group = per_group or {}
    every = [vocabulary, *per_group.values()]
    names = sorted({s.name for v in every for s in v.specs() if s.functional})
    holders: dict[tuple[str, str, str], list[tuple[str, datetime | None, datetime | None]]] = {}
    for g, fid, s, o, pred, va, ia in r.current_intervals(group, names):
        spec = per_group.get(g, vocabulary).get(pred)
        if not spec.functional:
            continue
        iv = (fid, opt_from_micros(va), opt_from_micros(ia))
        holders.setdefault((g, s, pred), []).append(iv)
        if spec.symmetric and o != s:  # the object holds the relation too
            holders.setdefault((g, o, pred), []).append(iv)
    problems = []
    for (g, holder, pred), ivs in sorted(holders.items()):
        for a, b in timeline.overlapping_pairs([(x[1], x[2]) for x in ivs]):
            problems.append(f"group {g}: {pred} of entity {holder}: facts {ivs[a][0]} "
                            f"{_span(ivs[a])} and {ivs[b][0]} {_span(ivs[b])} overlap")
    return _finding("functional_intervals_disjoint",
                    "current intervals of a functional (subject, predicate) do not overlap",
                    problems)


def _span(iv: tuple[str, datetime | None, datetime | None]) -> str:
    return (f"[{iv[1].isoformat() if iv[1] else '-inf'}, "
            f"{iv[2].isoformat() if iv[2] else '+inf'})")


def check_versions_have_lineages(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.versions_without_lineage(group)
    return _finding("versions_have_lineages", "every version belongs to a lineage",
                    [f"group {g}: version {v} of fact {f} has no lineage" for g, v, f in rows])


def check_lineages_have_versions(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.lineages_without_versions(group)
    return _finding("lineages_have_versions", "every lineage has at least one version",
                    [f"group {g}: fact {f} has no version left" for g, f in rows])


def check_entity_refs_exist(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.missing_entity_refs(group)
    return _finding("entity_refs_exist", "lineages and versions name existing entities",
                    [f"group {g}: {kind} {i} names missing entity {e}" for g, kind, i, e in rows])


def check_provenance_episodes_exist(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.provenance_to_missing_episodes(group)
    return _finding("provenance_episodes_exist", "provenance names existing episodes",
                    [f"group {g}: fact {f} cites missing episode {e}" for g, f, e in rows])


def check_mentions_exist(r: IntegrityReads, group: str | None) -> Finding:
    rows = r.mentions_to_missing(group)
    return _finding("mentions_exist", "mentions join existing episodes and entities",
                    [f"group {g}: mention of entity {e} by episode {ep}: one of them is missing"
                     for g, ep, e in rows])


def check_keyword_index_consistent(r: IntegrityReads, group: str | None) -> Finding:
    return _finding("keyword_index_consistent", "full-text indexes match the rows",
                    r.keyword_index_problems(group))


def check_vector_index_consistent(r: IntegrityReads, group: str | None) -> Finding:
    return _finding("vector_index_consistent", "vector indexes match the rows",
                    r.vector_index_problems(group))


def check_extraction_states_consistent(r: IntegrityReads, group: str | None) -> Finding:
    problems = []
    for g, ep, status, text in r.extraction_rows(group):
        why = _extraction_problem(status, text)
        if why:
            problems.append(f"group {g}: episode {ep}: {why}")
    return _finding("extraction_states_consistent", "extraction states are well formed",
                    problems)


def _extraction_problem(status: str | None, text: str | None) -> str | None:
    if text is None:
        return None if status is None else f"status {status!r} without a state"
    try:
        st = ExtractionState.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        return f"unreadable state ({str(exc).splitlines()[0]})"
    if st.status != status:
        return f"indexed status {status!r} but the state says {st.status!r}"
    if st.status in ("done", "failed") and st.attempts < 1:
        return f"{st.status} after {st.attempts} attempts"
    if st.status == "failed" and not st.error_kind:
        return "failed without an error"
    if st.status == "done" and st.error_kind:
        return "done with an error"
    return None


def check_summaries_rebuildable(store: Store, group: str | None) -> Finding:
    from ..memory.consolidate import rebuild_problem

    problems = [p for g in ([group] if group is not None else store.groups())
                for eid in store.summarized_entities(g) if (p := rebuild_problem(store, g, eid))]
    return _finding("summaries_rebuildable", "stored entity summaries equal the ones rebuilt "
                    "from the facts", problems)


# ------------------------------------------------------------------------- running them
@dataclass
class CheckReport:
    group: str | None
    findings: list[Finding]
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def to_dict(self) -> dict[str, object]:
        return {"group": self.group, "ok": self.ok, "notes": self.notes,
                "checks": [f.to_dict() for f in self.findings]}


CHECKS: list[Callable[[IntegrityReads, str | None], Finding]] = [
    check_one_current_version,
    check_versions_have_lineages,
    check_lineages_have_versions,
    check_entity_refs_exist,
    check_provenance_episodes_exist,
    check_mentions_exist,
    check_keyword_index_consistent,
    check_vector_index_consistent,
    check_extraction_states_consistent,
]


def check_store(store: Any, group: str | None = None,
                vocabulary: Vocabulary | Callable[[str], Vocabulary] | None = None
                ) -> CheckReport:
    """Run every check on ``store`` (``group=None``: all groups); ``vocabulary`` says which
    predicates are functional: one for every group, or each group's (``Memory.vocabulary``,
    for the groups that declare predicates); default: the built-in vocabulary."""
    r: IntegrityReads = store.integrity_reads()
    per_group: dict[str, Vocabulary] = {}
    if callable(vocabulary):
        groups = [group] if group is not None else sorted(
            {d.group for d in store.declarations(None)})
        per_group = {g: vocabulary(g) for g in groups}
    base = vocabulary if isinstance(vocabulary, Vocabulary) else Vocabulary()
    findings = [CHECKS[0](r, group),
                check_functional_intervals_disjoint(r, group, base, per_group),
                *(c(r, group) for c in CHECKS[1:]), check_summaries_rebuildable(store, group)]
    counts: dict[str, int] = {}
    for _g, _ep, status, _t in r.extraction_rows(group):
        counts[status or "none"] = counts.get(status or "none", 0) + 1
    notes: dict[str, Any] = {"extraction": counts}
    if counts.get("failed") or counts.get("pending"):
        notes["hint"] = "retry failed or pending extractions with `kgmem extract --failed`"
    return CheckReport(group, findings, notes)
