"""Retrieval: hybrid search and a prompt-ready context block."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from kgmem.retrieve.models import ContextBlock
from kgmem.retrieve.recency import MAX_HALF_LIFE_DAYS
from kgmem.retrieve.search import DEFAULT_KINDS

from ..deps import AsOfDep, GroupDep, MemoryDep
from ..errors import errors
from ..schemas import ContextResponse, SearchResponse, SessionsResponse

router = APIRouter(tags=["retrieval"])

Kind = Literal["facts", "entities", "episodes", "fact", "entity", "episode"]

Q = Annotated[str, Query(min_length=1, max_length=2000, description="Natural-language query.")]


# ContextBlock fields the response carries as fields of its own; the rest (the times and
# query window the block was made for, superseded snippets...) goes to ``details``
_OWN_FIELDS = {"text", "tokens", "truncated", "facts", "episodes", "budget_tokens"}


def _context(block: ContextBlock) -> dict[str, Any]:
    """A context block as the response's fields: its text and what it cites; ``details``:
    every other field of the block."""
    return {
        "context": block.text,
        "tokens": block.tokens,
        "truncated": block.truncated,
        "facts": block.facts,
        "episodes": block.episodes,
        "details": block.model_dump(mode="json", exclude=_OWN_FIELDS),
    }


# the ranking options of Memory.search, taken by /search and /context alike
RankingQ = Annotated[Literal["fused", "generative_agents"] | None, Query(
    description="`fused` (rank fusion, times the recency prior) or `generative_agents` "
                "(recency + importance + relevance, each normalised; Park et al. 2023); "
                "default: the server's (KGMEM_RANKING).")]
HalfLifeQ = Annotated[float | None, Query(
    ge=0, le=MAX_HALF_LIFE_DAYS,
    description="Recency's half-life in days, ages measured from the question's time "
                "(known_at); 0 = off; default: the server's (KGMEM_RECENCY_HALF_LIFE_DAYS).")]


@router.get("/search", response_model=SearchResponse, summary="Hybrid search")
def search(
    q: Q,
    memory: MemoryDep,
    group: GroupDep,
    at: AsOfDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    kinds: Annotated[list[Kind] | None, Query(
        max_length=6, description="Restrict to these result kinds (default: all).")] = None,
    ranking: RankingQ = None,
    half_life_days: HalfLifeQ = None,
) -> SearchResponse:
    """Keyword + embedding + graph-neighbourhood retrieval over facts, entities and episodes,
    evaluated at (valid_at, known_at), ranked as ``ranking`` says (a question naming a time
    is not pulled to recent items). Items not embedded yet are found by keyword and time
    signals; ``index_pending`` says how many (the background indexer embeds them)."""
    result = memory.search(q, valid_at=at.valid_at, known_at=at.known_at, limit=limit,
                           kinds=DEFAULT_KINDS if kinds is None else kinds, group=group,
                           ranking=ranking, half_life_days=half_life_days)
    return SearchResponse(query=q, items=result, index_pending=memory.pending_index(group))


@router.get("/search/sessions", response_model=SessionsResponse, summary="Session search")
def search_sessions(
    q: Q,
    memory: MemoryDep,
    group: GroupDep,
    at: AsOfDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> SessionsResponse:
    """The sittings of the conversation (runs of episodes at most 30 minutes apart) most
    likely to hold the answer, best first: the session's best search hits fused with how much
    of the query it covers, evaluated at (valid_at, known_at)."""
    result = memory.search_sessions(q, valid_at=at.valid_at, known_at=at.known_at,
                                    limit=limit, group=group)
    return SessionsResponse(query=q, items=result)


@router.get("/context", response_model=ContextResponse, summary="Prompt context block",
            responses=errors(404))
def context(
    q: Q,
    memory: MemoryDep,
    group: GroupDep,
    at: AsOfDep,
    budget_tokens: Annotated[int, Query(ge=16, le=32_000)] = 1000,
    superseded: Annotated[Literal["label", "drop"], Query(
        description="A snippet whose statement no longer holds at (valid_at, known_at): "
                    "`label` it (said when, superseded by which fact, since when) after the "
                    "current evidence, or `drop` it.")] = "label",
    untrusted: Annotated[Literal["flag", "omit"], Query(
        description="Items from untrusted or instruction-like episodes: `flag` them outside "
                    "the quote, or `omit` them (a fact only when every episode behind it is "
                    "untrusted).")] = "flag",
    ranking: RankingQ = None,
    half_life_days: HalfLifeQ = None,
) -> ContextResponse:
    """Dated current facts, then supporting episode snippets, within ``budget_tokens``.
    Stored text is quoted as data, never as instructions; superseded snippets are labelled or
    dropped, untrusted items flagged or omitted, and the snippets ranked as ``ranking`` and
    ``half_life_days`` say, as ``Memory.context`` does."""
    result = memory.context(q, budget_tokens=budget_tokens, valid_at=at.valid_at,
                            known_at=at.known_at, group=group, superseded=superseded,
                            untrusted=untrusted, ranking=ranking, half_life_days=half_life_days)
    return ContextResponse(query=q, budget_tokens=budget_tokens, **_context(result))
