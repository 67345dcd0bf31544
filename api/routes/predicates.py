"""Predicates: the group's vocabulary (built-ins and stored declarations), and declaring one."""

from __future__ import annotations

from fastapi import APIRouter

from kgmem.vocabulary import PredicateSpec

from ..deps import AsOfDep, GroupDep, MemoryDep
from ..errors import errors
from ..schemas import PredicateIn, PredicateList, PredicateOut

router = APIRouter(prefix="/predicates", tags=["predicates"])


def _out(spec: PredicateSpec) -> PredicateOut:
    return PredicateOut(name=spec.name, cardinality=spec.cardinality.value,
                        symmetric=spec.symmetric, description=spec.description,
                        source=spec.source, declared_at=spec.declared_at,
                        change_id=spec.change_id)


@router.get("", response_model=PredicateList, summary="The group's predicates")
def list_predicates(memory: MemoryDep, group: GroupDep, at: AsOfDep) -> PredicateList:
    """Every predicate of the group by name: the built-ins and the declarations stored in the
    group (``source``), as held at ``known_at`` (``valid_at`` has no meaning here)."""
    return PredicateList(items=[_out(s) for s in memory.predicates(group, known_at=at.known_at)])


@router.post("", status_code=201, response_model=PredicateOut, summary="Declare a predicate",
             responses=errors(409, 413))
def declare_predicate(body: PredicateIn, memory: MemoryDep, group: GroupDep) -> PredicateOut:
    """Store the predicate's cardinality and symmetry in the group (a change of kind
    ``declare``: ``POST /v1/changes/{change_id}/undo`` reverts it). When they change for a
    predicate that already has facts, all of its timelines are recomputed in the same write.
    Declaring the same again changes nothing."""
    return _out(memory.declare_predicate(
        body.name, body.cardinality == "functional", body.description, body.symmetric,
        group=group, reason=body.reason))
